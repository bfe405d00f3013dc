// SPDX-License-Identifier: GPL-2.0
/*
 * A strict A64 emulator for the instructions compilers put between a
 * load-exclusive and its store-exclusive (arm64_emul.h), written from the
 * Arm ARM's pseudocode (C6.2): the kernel exports no A64 emulator.  Every
 * encoding not decoded exactly here is left to the hardware.
 */
#ifdef __KERNEL__
#include <linux/types.h>
#else
#include <stdbool.h>
#include <stdint.h>
#endif /* __KERNEL__ */

#include "arm64_emul.h"

#define NZCV_SHIFT 28
#define PSTATE_BTYPE (3ull << 10)

/* A field of insn: bits lo..lo+len-1. */
static uint32_t field(uint32_t insn, unsigned int lo, unsigned int len)
{
	return insn >> lo & ((1u << len) - 1);
}

static uint64_t sign_extend(uint64_t v, unsigned int bits)
{
	uint64_t sign = 1ull << (bits - 1);

	v &= (sign << 1) - 1;
	return (v ^ sign) - sign;
}

static uint64_t width_mask(bool is64)
{
	return is64 ? ~0ull : 0xffffffffull;
}

uint64_t arm64_emul_reg(const struct arm64_emul_regs *r, unsigned int n, bool sp)
{
	if (n == 31)
		return sp ? r->sp : 0;
	return r->regs[n];
}

void arm64_emul_set_reg(struct arm64_emul_regs *r, unsigned int n, bool sp, uint64_t v,
			bool is64)
{
	v &= width_mask(is64);
	if (n < 31)
		r->regs[n] = v;
	else if (sp)
		r->sp = v;
}

static void set_nzcv(struct arm64_emul_regs *r, unsigned int nzcv)
{
	r->pstate = (r->pstate & ~(0xfull << NZCV_SHIFT)) | (uint64_t)nzcv << NZCV_SHIFT;
}

/* ConditionHolds(): cond's test of NZCV. */
static bool cond_holds(const struct arm64_emul_regs *r, unsigned int cond)
{
	unsigned int f = r->pstate >> NZCV_SHIFT;
	bool n = f & 8, z = f & 4, c = f & 2, v = f & 1, holds;

	switch (cond >> 1) {
	case 0: holds = z; break;
	case 1: holds = c; break;
	case 2: holds = n; break;
	case 3: holds = v; break;
	case 4: holds = c && !z; break;
	case 5: holds = n == v; break;
	case 6: holds = n == v && !z; break;
	default: return true;		/* al, nv */
	}
	return (cond & 1) ? !holds : holds;
}

/* AddWithCarry(): the sum in the operation's width, NZCV in *nzcv. */
static uint64_t add_with_carry(uint64_t a, uint64_t b, bool carry, bool is64,
			       unsigned int *nzcv)
{
	uint64_t mask = width_mask(is64), sign = is64 ? 1ull << 63 : 1ull << 31;
	uint64_t res;
	bool c;

	a &= mask;
	b &= mask;
	res = (a + b + carry) & mask;
	if (is64)
		c = carry ? res <= a : res < a;
	else
		c = (a + b + carry) >> 32;
	*nzcv = (res & sign ? 8 : 0) | (res ? 0 : 4) | (c ? 2 : 0) |
		((a ^ res) & (b ^ res) & sign ? 1 : 0);
	return res;
}

/* A logical result's flags: N and Z, C and V clear. */
static unsigned int logic_nzcv(uint64_t res, bool is64)
{
	uint64_t sign = is64 ? 1ull << 63 : 1ull << 31;

	return (res & sign ? 8 : 0) | (res & width_mask(is64) ? 0 : 4);
}

/* ShiftReg(): LSL, LSR, ASR or ROR by amount (less than the width). */
static uint64_t shift_reg(uint64_t v, unsigned int type, unsigned int amount, bool is64)
{
	unsigned int bits = is64 ? 64 : 32;

	v &= width_mask(is64);
	if (!amount)
		return v;
	switch (type) {
	case 0: return (v << amount) & width_mask(is64);
	case 1: return v >> amount;
	case 2: return (uint64_t)((int64_t)sign_extend(v, bits) >> amount) & width_mask(is64);
	default: return (v >> amount | v << (bits - amount)) & width_mask(is64);
	}
}

/* ExtendReg(): UXTB..SXTX of v, then shifted left by shift (0-4). */
static uint64_t extend_reg(uint64_t v, unsigned int option, unsigned int shift, bool is64)
{
	unsigned int bits = 8u << (option & 3);

	if (bits < 64)
		v = (option & 4) ? sign_extend(v, bits) : v & ((1ull << bits) - 1);
	return (v << shift) & width_mask(is64);
}

/* DecodeBitMasks() for a logical immediate; false when reserved. */
static bool bit_masks(unsigned int n, unsigned int imms, unsigned int immr, bool is64,
		      uint64_t *mask)
{
	unsigned int combined = n << 6 | (~imms & 0x3f), len = 0, esize, s, r, i;
	uint64_t welem, elem;

	for (i = 0; i < 7; i++)
		if (combined >> i & 1)
			len = i;
	if (!combined || len < 1 || (!is64 && len > 5))
		return false;
	esize = 1u << len;
	s = imms & (esize - 1);
	r = immr & (esize - 1);
	if (s == esize - 1)
		return false;
	welem = (1ull << (s + 1)) - 1;
	elem = r ? (welem >> r | welem << (esize - r)) : welem;
	if (esize < 64)
		elem &= (1ull << esize) - 1;
	for (i = esize; i < 64; i *= 2)
		elem |= elem << i;
	*mask = elem & width_mask(is64);
	return true;
}

/* Add or subtract b from register rn into rd; rn_sp: the form where 31 is sp (not for ADDS rd). */
static void add_sub(struct arm64_emul_regs *r, uint32_t insn, uint64_t b, bool rn_sp)
{
	bool is64 = insn >> 31, sub = insn >> 30 & 1, setflags = insn >> 29 & 1;
	uint64_t a = arm64_emul_reg(r, field(insn, 5, 5), rn_sp);
	unsigned int nzcv;
	uint64_t res = add_with_carry(a, sub ? ~b : b, sub, is64, &nzcv);

	if (setflags)
		set_nzcv(r, nzcv);
	/* The extended and immediate forms write sp, the flag-setting ones never. */
	arm64_emul_set_reg(r, field(insn, 0, 5), rn_sp && !setflags, res, is64);
}

/* AND, ORR, EOR, ANDS of register rn with b into rd. */
static void logical(struct arm64_emul_regs *r, uint32_t insn, uint64_t b, bool rd_sp)
{
	bool is64 = insn >> 31;
	uint64_t a = arm64_emul_reg(r, field(insn, 5, 5), false), res;

	switch (field(insn, 29, 2)) {
	case 0: res = a & b; break;
	case 1: res = a | b; break;
	case 2: res = a ^ b; break;
	default:
		res = a & b;
		set_nzcv(r, logic_nzcv(res, is64));
		rd_sp = false;
		break;
	}
	arm64_emul_set_reg(r, field(insn, 0, 5), rd_sp, res, is64);
}

/* Data processing, immediate: add/sub, logical, move wide. */
static bool dp_immediate(struct arm64_emul_regs *r, uint32_t insn)
{
	bool is64 = insn >> 31;
	unsigned int opc = field(insn, 29, 2), rd = field(insn, 0, 5);
	uint64_t imm;

	switch (insn & 0x1f800000) {
	case 0x11000000:	/* add/sub (immediate) */
		imm = (uint64_t)field(insn, 10, 12) << (insn & (1u << 22) ? 12 : 0);
		add_sub(r, insn, imm, true);
		return true;
	case 0x12000000:	/* logical (immediate) */
		if (!bit_masks(field(insn, 22, 1), field(insn, 10, 6), field(insn, 16, 6), is64, &imm))
			return false;
		logical(r, insn, imm, opc != 3);
		return true;
	case 0x12800000: {	/* move wide (immediate) */
		unsigned int pos = 16 * field(insn, 21, 2);
		uint64_t v = (uint64_t)field(insn, 5, 16) << pos;

		if (opc == 1 || (!is64 && pos >= 32))
			return false;
		if (opc == 0)
			v = ~v;
		else if (opc == 3)
			v |= arm64_emul_reg(r, rd, false) & ~(0xffffull << pos);
		arm64_emul_set_reg(r, rd, false, v, is64);
		return true;
	}
	default:
		return false;
	}
}

/* Conditional select (csel, csinc, csinv, csneg) and compare (ccmp, ccmn). */
static bool dp_conditional(struct arm64_emul_regs *r, uint32_t insn)
{
	bool is64 = insn >> 31, holds = cond_holds(r, field(insn, 12, 4));
	unsigned int rm = field(insn, 16, 5);

	if ((insn & 0x3fe00800) == 0x1a800000) {	/* S = 0, op2<1> = 0 */
		uint64_t v = arm64_emul_reg(r, field(insn, 5, 5), false);

		if (!holds) {
			v = arm64_emul_reg(r, rm, false);
			if (insn & (1u << 30))
				v = ~v;
			if (insn & (1u << 10))
				v++;
		}
		arm64_emul_set_reg(r, field(insn, 0, 5), false, v, is64);
		return true;
	}
	if ((insn & 0x3fe00410) == 0x3a400000) {	/* S = 1, o2 = 0, o3 = 0 */
		uint64_t a = arm64_emul_reg(r, field(insn, 5, 5), false);
		uint64_t b = insn & (1u << 11) ? rm : arm64_emul_reg(r, rm, false);
		bool sub = insn & (1u << 30);
		unsigned int nzcv = field(insn, 0, 4);

		if (holds)
			add_with_carry(a, sub ? ~b : b, sub, is64, &nzcv);
		set_nzcv(r, nzcv);
		return true;
	}
	return false;
}

/* Data processing, register: add/sub and logical (shifted), add/sub (extended). */
static bool dp_register(struct arm64_emul_regs *r, uint32_t insn)
{
	bool is64 = insn >> 31;
	unsigned int shift = field(insn, 22, 2), amount = field(insn, 10, 6);
	uint64_t rm = arm64_emul_reg(r, field(insn, 16, 5), false);

	if ((insn & 0x1f000000) == 0x0a000000) {	/* logical (shifted register) */
		if (!is64 && amount >= 32)
			return false;
		rm = shift_reg(rm, shift, amount, is64);
		logical(r, insn, insn & (1u << 21) ? ~rm : rm, false);
		return true;
	}
	if ((insn & 0x1f200000) == 0x0b000000) {	/* add/sub (shifted register) */
		if (shift == 3 || (!is64 && amount >= 32))
			return false;
		add_sub(r, insn, shift_reg(rm, shift, amount, is64), false);
		return true;
	}
	if ((insn & 0x1fe00000) == 0x0b200000) {	/* add/sub (extended register) */
		if (field(insn, 10, 3) > 4)
			return false;
		add_sub(r, insn, extend_reg(rm, field(insn, 13, 3), field(insn, 10, 3), is64), true);
		return true;
	}
	return dp_conditional(r, insn);
}

/* b, b.cond, cbz/cbnz, tbz/tbnz: the next pc in *next. */
static bool branch(const struct arm64_emul_regs *r, uint32_t insn, uint64_t *next)
{
	uint64_t v = arm64_emul_reg(r, field(insn, 0, 5), false);
	bool taken;

	if ((insn & 0xfc000000) == 0x14000000) {
		*next = r->pc + (sign_extend(field(insn, 0, 26), 26) << 2);
		return true;
	}
	if ((insn & 0xff000010) == 0x54000000)
		taken = cond_holds(r, field(insn, 0, 4));
	else if ((insn & 0x7e000000) == 0x34000000)
		taken = !(v & width_mask(insn >> 31)) == !(insn & (1u << 24));
	else if ((insn & 0x7e000000) == 0x36000000)
		taken = !(v >> (field(insn, 31, 1) << 5 | field(insn, 19, 5)) & 1) ==
			!(insn & (1u << 24));
	else
		return false;
	if ((insn & 0x7e000000) == 0x36000000)
		*next = taken ? r->pc + (sign_extend(field(insn, 5, 14), 14) << 2) : r->pc + 4;
	else
		*next = taken ? r->pc + (sign_extend(field(insn, 5, 19), 19) << 2) : r->pc + 4;
	return true;
}

enum arm64_emul_result arm64_emul_step(struct arm64_emul_regs *r, uint32_t insn)
{
	enum arm64_emul_result res = ARM64_EMUL_DONE;
	uint64_t next = r->pc + 4;

	if (insn == 0xd503201f || insn == 0xd503203f)			/* nop, yield */
		;
	else if ((insn & 0xfffff0df) == 0xd503309f)			/* dsb, dmb */
		res = ARM64_EMUL_BARRIER;
	else if ((insn & 0xfffff0ff) == 0xd503305f)			/* clrex */
		res = ARM64_EMUL_CLREX;
	else if ((insn & 0x1c000000) == 0x10000000) {			/* data processing, immediate */
		if (!dp_immediate(r, insn))
			return ARM64_EMUL_NOT;
	} else if ((insn & 0x0e000000) == 0x0a000000) {			/* data processing, register */
		if (!dp_register(r, insn))
			return ARM64_EMUL_NOT;
	} else if (!branch(r, insn, &next)) {
		return ARM64_EMUL_NOT;
	}
	r->pc = next;
	r->pstate &= ~PSTATE_BTYPE;	/* what every instruction but br and blr leaves */
	return res;
}
