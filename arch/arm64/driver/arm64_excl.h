/* SPDX-License-Identifier: GPL-2.0 */
/*
 * arm64 load/store-exclusive instructions (Arm ARM C4.1.66): header-only,
 * for the driver's trap (trap.c) and for user space's sequence analysis
 * (arch/arm64/atomic.c).
 */
#ifndef PITRACE_ARM64_EXCL_H
#define PITRACE_ARM64_EXCL_H

#ifdef __KERNEL__
#include <linux/types.h>
#else
#include <stdbool.h>
#include <stdint.h>
#endif /* __KERNEL__ */

/*
 * size:2 001000 o2 L o1 Rs o0 Rt2 Rn Rt.  o2 = 0 is the exclusive family
 * (o2 = 1: ldar, stlr, cas); o1 = 1 is a pair, which only sizes 10 and 11
 * have (size 0x with o1 = 1: casp).
 */
static inline bool arm64_excl_is(uint32_t w, bool load)
{
	bool pair = w & (1u << 21);

	return (w & 0x3f800000) == 0x08000000 && !!(w & (1u << 22)) == load &&
	       (!pair || (w >> 31));
}

static inline bool arm64_excl_is_load(uint32_t w)
{
	return arm64_excl_is(w, true);
}

#endif /* PITRACE_ARM64_EXCL_H */
