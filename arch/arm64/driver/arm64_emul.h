/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A strict A64 emulator for what compilers put inside exclusive sequences
 * (emul.c): for the driver's sequence emulator (atomic.c) and, built for
 * user space, for its unit tests on any host.
 */
#ifndef PITRACE_ARM64_EMUL_H
#define PITRACE_ARM64_EMUL_H

#ifdef __KERNEL__
#include <linux/types.h>
#else
#include <stdbool.h>
#include <stdint.h>
#endif /* __KERNEL__ */

/* A task's registers, laid out as the kernel's struct user_pt_regs. */
struct arm64_emul_regs {
	uint64_t regs[31];
	uint64_t sp;
	uint64_t pc;
	uint64_t pstate;	/* NZCV in bits 31-28, BTYPE in 11-10 */
};

enum arm64_emul_result {
	ARM64_EMUL_DONE,	/* executed: registers, NZCV and pc are updated */
	ARM64_EMUL_BARRIER,	/* dmb or dsb: pc updated, the caller orders memory */
	ARM64_EMUL_CLREX,	/* clrex: pc updated, the caller clears its monitor */
	ARM64_EMUL_NOT,		/* not taken here (memory, system, calls...): nothing changed */
};

/*
 * Execute insn, the word at r->pc: add/sub (immediate, shifted and
 * extended register, flag-setting too), logical (immediate and shifted
 * register), move wide, conditional select and compare, b, b.cond,
 * cbz/cbnz, tbz/tbnz, nop, yield, barriers and clrex.  Anything else,
 * unallocated and reserved encodings included, is ARM64_EMUL_NOT.
 */
enum arm64_emul_result arm64_emul_step(struct arm64_emul_regs *r, uint32_t insn);

/* A register as an instruction reads it: 31 is sp when sp, else the zero register. */
uint64_t arm64_emul_reg(const struct arm64_emul_regs *r, unsigned int n, bool sp);

/* Write a register: 32 bits (is64 false) zero-extend, 31 is sp when sp, else discarded. */
void arm64_emul_set_reg(struct arm64_emul_regs *r, unsigned int n, bool sp, uint64_t v,
			bool is64);

#endif /* PITRACE_ARM64_EMUL_H */
