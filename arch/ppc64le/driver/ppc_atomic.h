/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ppc64 load-reserve/store-conditional instructions (Power ISA Book II,
 * 4.4.2): header-only, for the driver's trap (trap.c) and sequence
 * emulator (atomic.c) and for user space's sequence analysis
 * (arch/ppc64le/atomic.c, through ppc64le.h).
 */
#ifndef PITRACE_PPC_ATOMIC_H
#define PITRACE_PPC_ATOMIC_H

#ifdef __KERNEL__
#include <linux/types.h>
#else
#include <stdbool.h>
#include <stdint.h>
#endif /* __KERNEL__ */

/* lbarx, lharx, lwarx, ldarx, lqarx: primary opcode 31 with these XO values. */
static inline bool ppc_is_larx(uint32_t w)
{
	uint32_t xo = (w >> 1) & 0x3ff;

	return (w >> 26) == 31 && (xo == 52 || xo == 116 || xo == 20 || xo == 84 || xo == 276);
}

/* stbcx., sthcx., stwcx., stdcx., stqcx. (always with Rc = 1). */
static inline bool ppc_is_stcx(uint32_t w)
{
	uint32_t xo = (w >> 1) & 0x3ff;

	return (w >> 26) == 31 && (w & 1) &&
	       (xo == 694 || xo == 726 || xo == 150 || xo == 214 || xo == 182);
}

#endif /* PITRACE_PPC_ATOMIC_H */
