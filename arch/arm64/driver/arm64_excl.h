/* SPDX-License-Identifier: GPL-2.0 */
/*
 * arm64 load/store-exclusive instructions (Arm ARM C4.1.66): header-only,
 * for the driver's trap (trap.c) and sequence emulator (atomic.c) and for
 * user space's sequence analysis (arch/arm64/atomic.c).
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

/* An exclusive's fields (arm64_excl_decode()). */
struct arm64_excl {
	bool load;
	bool pair;		/* ldxp/stxp: Rt and Rt2 */
	bool ordered;		/* o0: ldaxr's acquire, stlxr's release */
	unsigned int size;	/* bytes per register: 1, 2, 4 or 8 */
	unsigned int rs;	/* a store's status register Ws */
	unsigned int rt, rt2, rn;
};

/*
 * Decode a load- or store-exclusive; false for anything else, and for
 * the forms whose result the architecture leaves CONSTRAINED
 * UNPREDICTABLE (fields that should be ones, ldxp into one register
 * twice, a status register that is also the data or a base other than
 * sp), which only the hardware may run.
 */
static inline bool arm64_excl_decode(uint32_t w, struct arm64_excl *e)
{
	bool load = w & (1u << 22);

	if (!arm64_excl_is(w, load))
		return false;
	e->load = load;
	e->pair = w & (1u << 21);
	e->ordered = w & (1u << 15);
	e->size = e->pair ? 4u << (w >> 30 & 1) : 1u << (w >> 30);
	e->rs = w >> 16 & 31;
	e->rt2 = w >> 10 & 31;
	e->rn = w >> 5 & 31;
	e->rt = w & 31;
	if (!e->pair && e->rt2 != 31)
		return false;
	if (load)
		return e->rs == 31 && (!e->pair || e->rt != e->rt2);
	return e->rs != e->rt && (!e->pair || e->rs != e->rt2) && (e->rn == 31 || e->rs != e->rn);
}

/* clrex (any CRm): clears the exclusive monitor. */
static inline bool arm64_is_clrex(uint32_t w)
{
	return (w & 0xfffff0ff) == 0xd503305f;
}

#endif /* PITRACE_ARM64_EXCL_H */
