/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel symbols for the resolver: the trace directory's kallsyms and
 * modules snapshots, and optionally a vmlinux with DWARF for source lines
 * and code bytes.  Internal to util/symbols.c.
 */
#ifndef PT_SYM_KERNEL_H
#define PT_SYM_KERNEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct sym_kernel;
struct sym_module;

struct sym_kentry {
	uint64_t addr, size;
	const char *name;
	const char *module;	  /* "[kernel]" or a module name */
	uint64_t module_base;	  /* the module's load address; 0 for the kernel */
};

/*
 * Load dir/kallsyms (and dir/modules when present).  vmlinux: an explicit
 * image with DWARF; without one, it is looked for by the traced kernel's
 * build-id and release from dir/header (DEBUG_DIR/.build-id/xx/yyyy.debug,
 * then DEBUG_DIR/boot/vmlinux-RELEASE, debug_dir before /usr/lib/debug).
 * A vmlinux is used only when it is the traced kernel: the same build-id
 * when both are known, and kallsyms functions at one KASLR slide from its
 * symbols; an explicit one that is not gets a warning saying why.  NULL when
 * there is no usable kallsyms (missing, or addresses hidden as zeros).
 */
struct sym_kernel *sym_kernel_load(const char *dir, const char *vmlinux, const char *debug_dir);
void sym_kernel_free(struct sym_kernel *k);

/* True when addr is at or above the lowest kernel text address known. */
bool sym_kernel_covers(const struct sym_kernel *k, uint64_t addr);

/* The kernel function covering addr, or NULL. */
const struct sym_kentry *sym_kernel_find(struct sym_kernel *k, uint64_t addr);

/* The vmlinux module (NULL without one) and runtime - link address offset. */
struct sym_module *sym_kernel_vmlinux(const struct sym_kernel *k, uint64_t *kaslr);

#endif /* PT_SYM_KERNEL_H */
