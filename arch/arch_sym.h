/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the symbol resolver needs to know about an architecture: how its PLT
 * entries reach their GOT slots, and which addresses belong to the kernel.
 * Each arch/<arch>/sym.c implements every function here.
 */
#ifndef PT_ARCH_SYM_H
#define PT_ARCH_SYM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Required.  Decode one PLT entry (code, len bytes, at ELF virtual address
 * vaddr) and return true with *got_slot = the virtual address of the GOT
 * slot its indirect jump reads, if it has one.  Lazy-binding stubs without
 * such a jump (PLT0, the IBT-style .plt next to .plt.sec) return false.
 */
bool arch_sym_plt_slot(const uint8_t *code, size_t len, uint64_t vaddr, uint64_t *got_slot);

/* Required.  True when addr lies in the kernel's part of the address space. */
bool arch_sym_is_kernel_addr(uint64_t addr);

#endif /* PT_ARCH_SYM_H */
