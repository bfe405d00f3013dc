// SPDX-License-Identifier: GPL-2.0
/*
 * arm64 (A64) instruction classification (arch_decode.h, arch_ops.h).  A64
 * instructions are one 32-bit word whose branch encodings have fixed fields
 * (Arm ARM C4.1.65, "Branches, Exception Generating and System
 * instructions"), so the class and target come from the word, the same for
 * every capstone version: capstone 4 puts bl and blr in its jump group,
 * not the call group, and does not decode the pointer-authenticating
 * branches (retaa, braa, blraa) at all.  capstone (AArch64 mode) writes the
 * text (arch/arch.c); this file writes it for the branches it lacks, and
 * for ARMv8.1's LSE atomics (cas, casp, ldadd, swp, ... and their st*
 * aliases) and ARMv8.3's ldapr, which capstone 4 does not decode either:
 * they are what glibc's and libgcc's atomics run on every CPU that has them.
 */
#include <stdio.h>

#include "arch/arm64/arm64.h"

uint32_t arm64_word(const uint8_t *code)
{
	return (uint32_t)code[0] | (uint32_t)code[1] << 8 | (uint32_t)code[2] << 16 |
	       (uint32_t)code[3] << 24;
}

static int64_t sign_extend(uint32_t v, unsigned bits)
{
	return (int64_t)((uint64_t)v << (64 - bits)) >> (64 - bits);
}

/* A direct branch: imm (bits wide, in words) from the branch itself. */
static void direct(struct arch_insn *out, uint64_t pc, uint32_t imm, unsigned bits, unsigned cls)
{
	out->cls = (uint8_t)cls;
	out->flags |= ARCH_INSN_HAS_TARGET;
	out->target = pc + (uint64_t)(sign_extend(imm, bits) * 4);
}

/*
 * Branch to register: br, blr, ret and their pointer-authenticating forms
 * (braa, blraa, retaa, ...; FEAT_PAuth), eret and drps.  opc is bits
 * 24:21, op2 (bits 20:16) is all ones.
 */
static void classify_register_branch(uint32_t w, struct arch_insn *out)
{
	if (((w >> 16) & 31) != 31)
		return;		/* unallocated: left as no transfer */
	switch ((w >> 21) & 15) {
	case 0:		/* br, braaz, brabz: PLT entries, veneers, switch tables, tail calls */
	case 8:		/* braa, brab */
		out->cls = ARCH_INSN_JUMP;
		out->flags |= ARCH_INSN_INDIRECT;
		break;
	case 1:		/* blr, blraaz, blrabz */
	case 9:		/* blraa, blrab */
		out->cls = ARCH_INSN_CALL;
		out->flags |= ARCH_INSN_INDIRECT;
		break;
	case 2:		/* ret, retaa, retab: to x30 (or Rn), where bl left the return */
		out->cls = ARCH_INSN_RET;
		out->flags |= ARCH_INSN_INDIRECT;
		break;
	case 4:		/* eret, eretaa, eretab */
	case 5:		/* drps */
		out->cls = ARCH_INSN_KRET;
		break;
	default:
		break;
	}
}

/* svc, hvc, smc, brk, hlt, dcps (exception generation, bits 31:24 = 0xd4). */
static void classify_exception(uint32_t w, struct arch_insn *out)
{
	unsigned opc = (w >> 21) & 7, ll = w & 3;

	if (opc == 0 && ll == 1)
		out->cls = ARCH_INSN_SYSCALL;	/* svc */
	else
		out->cls = ARCH_INSN_INT;	/* hvc, smc (kernel), brk, hlt, dcps */
}

void arm64_classify_word(uint32_t w, uint64_t pc, struct arch_insn *out)
{
	out->len = 4;
	out->cls = ARCH_INSN_OTHER;
	if ((w & 0x7c000000) == 0x14000000)		/* b, bl */
		direct(out, pc, w & 0x03ffffff, 26, w >> 31 ? ARCH_INSN_CALL : ARCH_INSN_JUMP);
	else if ((w & 0xff000000) == 0x54000000)	/* b.cond, bc.cond */
		direct(out, pc, (w >> 5) & 0x7ffff, 19,
		       (w & 15) >= 14 ? ARCH_INSN_JUMP : ARCH_INSN_COND);	/* al, nv */
	else if ((w & 0x7e000000) == 0x34000000)	/* cbz, cbnz */
		direct(out, pc, (w >> 5) & 0x7ffff, 19, ARCH_INSN_COND);
	else if ((w & 0x7e000000) == 0x36000000)	/* tbz, tbnz */
		direct(out, pc, (w >> 5) & 0x3fff, 14, ARCH_INSN_COND);
	else if ((w & 0xfe000000) == 0xd6000000)
		classify_register_branch(w, out);
	else if ((w & 0xff000000) == 0xd4000000)
		classify_exception(w, out);
	else if ((w & 0xffff0000) == 0)			/* udf #imm16 */
		out->cls = ARCH_INSN_INT;
}

int arm64_decode(struct arch_decoder *d, const uint8_t *code, size_t avail, uint64_t pc,
		 struct arch_insn *out)
{
	(void)d;
	if (avail < 4 || (pc & 3))
		return -1;
	arm64_classify_word(arm64_word(code), pc, out);
	return 0;
}

/* Register r's name into buf: x0-x30, and what 31 means in its field. */
static const char *xreg(unsigned r, const char *r31, char buf[8])
{
	if (r == 31)
		return r31;
	snprintf(buf, 8, "x%u", r);
	return buf;
}

/* The pointer-authenticating branches capstone 4 does not decode, as objdump writes them. */
static bool pauth_branch_text(uint32_t w, char *buf, size_t size)
{
	static const char *const kz[2][3] = {
		{ "braaz", "blraaz", "retaa" }, { "brabz", "blrabz", "retab" },
	};
	unsigned opc = (w >> 21) & 15, op3 = (w >> 10) & 63, rn = (w >> 5) & 31, rm = w & 31;
	bool key_b = op3 & 1;
	char target[8], modifier[8];

	if ((w & 0xfe000000) != 0xd6000000 || ((w >> 16) & 31) != 31 || (op3 & ~1u) != 2)
		return false;
	if (opc <= 2 && (opc == 2 ? rn == 31 && rm == 31 : rm == 31)) {
		if (opc == 2)
			snprintf(buf, size, "%s", kz[key_b][2]);
		else
			snprintf(buf, size, "%s %s", kz[key_b][opc], xreg(rn, "xzr", target));
		return true;
	}
	if (opc == 8 || opc == 9) {
		snprintf(buf, size, "%s%s %s, %s", opc == 8 ? "bra" : "blra", key_b ? "b" : "a",
			 xreg(rn, "xzr", target), xreg(rm, "sp", modifier));
		return true;
	}
	return false;
}

/* A general register's name: w or x by sf, 31 as zr (for sp, see xreg). */
static const char *greg(unsigned r, bool sf, char buf[8])
{
	if (r == 31)
		return sf ? "xzr" : "wzr";
	snprintf(buf, 8, "%c%u", sf ? 'x' : 'w', r);
	return buf;
}

/* The a, l or al of an acquire/release form, and b or h of a byte/half size. */
static void lse_suffix(char *out, size_t size, bool acq, bool rel, unsigned sz)
{
	snprintf(out, size, "%s%s%s", acq ? "a" : "", rel ? "l" : "", sz == 0 ? "b" : sz == 1 ? "h" : "");
}

/*
 * Atomic memory operations (FEAT_LSE: ldadd .. ldumin, swp; FEAT_LRCPC:
 * ldapr): size 111 V=0 00 A R 1 Rs o3 opc 00 Rn Rt.  With Rt the zero
 * register and no acquire, ld<op> is written st<op>, as objdump does.
 */
static bool lse_memop_text(uint32_t w, char *buf, size_t size)
{
	static const char *const ops[8] = { "add", "clr", "eor", "set", "smax", "smin", "umax", "umin" };
	unsigned sz = w >> 30, rs = (w >> 16) & 31, opc = (w >> 12) & 7, rn = (w >> 5) & 31, rt = w & 31;
	bool acq = w & (1u << 23), rel = w & (1u << 22), o3 = w & (1u << 15), sf = sz == 3;
	char sfx[4], a[8], b[8], c[8];

	if ((w & 0x3f200c00) != 0x38200000)
		return false;
	if (o3 && opc == 4 && acq && !rel && rs == 31) {	/* ldapr, ldaprb, ldaprh */
		snprintf(buf, size, "ldapr%s %s, [%s]", sz == 0 ? "b" : sz == 1 ? "h" : "",
			 greg(rt, sf, a), xreg(rn, "sp", c));
		return true;
	}
	if (o3 && opc)
		return false;	/* unallocated */
	lse_suffix(sfx, sizeof(sfx), acq, rel, sz);
	if (o3)
		snprintf(buf, size, "swp%s %s, %s, [%s]", sfx, greg(rs, sf, a), greg(rt, sf, b),
			 xreg(rn, "sp", c));
	else if (rt == 31 && !acq)
		snprintf(buf, size, "st%s%s %s, [%s]", ops[opc], sfx, greg(rs, sf, a),
			 xreg(rn, "sp", c));
	else
		snprintf(buf, size, "ld%s%s %s, %s, [%s]", ops[opc], sfx, greg(rs, sf, a),
			 greg(rt, sf, b), xreg(rn, "sp", c));
	return true;
}

/*
 * Compare and swap (FEAT_LSE): cas (size 001000 1 L 1 Rs o0 11111 Rn Rt)
 * and casp (0 sz 001000 0 L 1 Rs o0 11111 Rn Rt, register pairs).
 */
static bool lse_cas_text(uint32_t w, char *buf, size_t size)
{
	unsigned sz = w >> 30, rs = (w >> 16) & 31, rn = (w >> 5) & 31, rt = w & 31;
	bool acq = w & (1u << 22), rel = w & (1u << 15);
	char sfx[4], a[8], b[8], c[8], d[8], e[8];

	if ((w & 0x3fa07c00) == 0x08a07c00) {
		lse_suffix(sfx, sizeof(sfx), acq, rel, sz);
		snprintf(buf, size, "cas%s %s, %s, [%s]", sfx, greg(rs, sz == 3, a),
			 greg(rt, sz == 3, b), xreg(rn, "sp", c));
		return true;
	}
	if ((w & 0xbfa07c00) == 0x08207c00 && !(rs & 1) && !(rt & 1)) {
		bool sf = sz & 1;

		lse_suffix(sfx, sizeof(sfx), acq, rel, 2);
		snprintf(buf, size, "casp%s %s, %s, %s, %s, [%s]", sfx, greg(rs, sf, a),
			 greg(rs + 1, sf, b), greg(rt, sf, d), greg(rt + 1, sf, e), xreg(rn, "sp", c));
		return true;
	}
	return false;
}

size_t arm64_disasm_fallback(const uint8_t *code, size_t avail, char *buf, size_t size)
{
	uint32_t w;

	if (avail < 4)
		return 0;
	w = arm64_word(code);
	if (!pauth_branch_text(w, buf, size) && !lse_memop_text(w, buf, size) &&
	    !lse_cas_text(w, buf, size))
		snprintf(buf, size, ".inst 0x%08x", arm64_word(code));
	return 4;
}
