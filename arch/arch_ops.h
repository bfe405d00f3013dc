/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One architecture's user-space rules, as arch/arch.c dispatches to them:
 * each arch/<arch>/ops.c defines its struct arch_ops, listed in arch/arch.c.
 * Internal to arch/: common code uses arch_decode.h, arch_sym.h,
 * arch_vectors.h and arch.h.  Members are required unless marked optional.
 */
#ifndef PT_ARCH_OPS_H
#define PT_ARCH_OPS_H

#include <capstone/capstone.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "arch/arch_decode.h"
#include "arch/arch_sym.h"

struct arch_ops;

/* A decoder (arch_decode.h): capstone opened in the architecture's mode. */
struct arch_decoder {
	const struct arch_ops *ops;
	csh cs;
	cs_insn *insn;		  /* one reusable instruction buffer (cs_disasm_iter) */
};

/*
 * Decode one instruction into d->insn (arch/arch.c, for the classifiers);
 * false when the bytes are not one.
 */
bool arch_cs_decode_one(struct arch_decoder *d, const uint8_t *code, size_t avail, uint64_t pc);

struct arch_ops {
	const char *name;	  /* PT_ATTR_ARCH, uname -m */
	int cs_arch, cs_mode;	  /* capstone's names for it */

	/*
	 * arch_decode(): classify the instruction at code (avail bytes), at
	 * pc, into *out (zeroed by the caller); -1 when it is no instruction.
	 */
	int (*decode)(struct arch_decoder *d, const uint8_t *code, size_t avail, uint64_t pc,
		      struct arch_insn *out);
	/*
	 * Optional: arch_disasm()'s text when capstone does not know the
	 * instruction (newer than the installed capstone); its length, 0 none.
	 */
	size_t (*disasm_fallback)(const uint8_t *code, size_t avail, char *buf, size_t size);

	/* arch_sym.h */
	size_t (*plt_entries)(const uint8_t *code, size_t size, uint64_t vaddr, size_t entsize,
			      struct arch_plt_entry *out, size_t max);
	bool (*is_kernel_addr)(uint64_t addr);
	int (*kernel_alias_rank)(const char *name);
	/* Optional: 0 for every symbol when NULL. */
	unsigned (*local_entry)(unsigned char st_other);
	/* Optional: no linker stubs when NULL. */
	bool (*stub_name)(const char *name, char *buf, size_t size);
	/* Optional: a stripped program's main stays unnamed when NULL. */
	bool (*entry_main)(const struct arch_elf_image *img, uint64_t *main_addr);

	/* arch_vectors.h */
	const char *(*interrupt_name)(uint64_t vector);
	const char *(*exception_name)(uint64_t vector);
	bool (*exception_is_page_fault)(uint64_t vector);
	const char *(*page_fault_describe)(uint64_t error, char *buf, size_t size);
};

extern const struct arch_ops arch_ops_x86_64;
extern const struct arch_ops arch_ops_ppc64le;
extern const struct arch_ops arch_ops_arm64;

#endif /* PT_ARCH_OPS_H */
