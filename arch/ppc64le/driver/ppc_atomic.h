/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ppc64 load-reserve/store-conditional instructions (Power ISA Book II,
 * 4.4.2), shared by the trap (trap.c) and the sequence emulator
 * (atomic.c).
 */
#ifndef PITRACE_PPC_ATOMIC_H
#define PITRACE_PPC_ATOMIC_H

#include <linux/types.h>

/* lbarx, lharx, lwarx, ldarx, lqarx: primary opcode 31 with these XO values. */
static inline bool ppc_is_larx(u32 insn)
{
	u32 xo = (insn >> 1) & 0x3ff;

	return (insn >> 26) == 31 && (xo == 52 || xo == 116 || xo == 20 || xo == 84 || xo == 276);
}

#endif /* PITRACE_PPC_ATOMIC_H */
