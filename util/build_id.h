/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The build-id of an ELF file by its path: the recorder's mmap records,
 * pitrace archive, and the check that a vmlinux is the traced kernel
 * (util/sym_kernel.c), which is why it is not in symbols.h, whose
 * resolver includes sym_kernel.h.
 */
#ifndef PT_BUILD_ID_H
#define PT_BUILD_ID_H

#include <stddef.h>
#include <stdint.h>

/* The build-id of an ELF file; returns its length, 0 if none. */
size_t sym_file_build_id(const char *path, uint8_t *buf, size_t size);

#endif /* PT_BUILD_ID_H */
