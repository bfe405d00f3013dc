// SPDX-License-Identifier: GPL-2.0
/*
 * ppc64le instruction classification (arch_decode.h, arch_ops.h).  Power
 * instructions are one 32-bit word with the branch fields at fixed places
 * (Power ISA Book I, 2.4), so the class, target and conditions come from
 * the word itself, the same for every capstone version; capstone (PPC
 * mode) only has to accept the word (and writes the text, arch/arch.c).
 * Words the installed capstone does not know (newer instructions) are
 * still 4-byte non-branches.
 */
#include <stdio.h>

#include "arch/arch_ops.h"
#include "arch/ppc64le/ppc64le.h"

/* Fields of an instruction word, named as in the Power ISA. */
#define PPC_OPCD(w) ((w) >> 26)
#define PPC_XO(w) (((w) >> 1) & 0x3ff)
#define PPC_BO(w) (((w) >> 21) & 0x1f)
#define PPC_AA(w) ((w) & 2)
#define PPC_LK(w) ((w) & 1)

/* BO = 1z1zz: branch always (neither the CR bit nor CTR is tested). */
static bool bo_always(uint32_t w)
{
	return (PPC_BO(w) & 0x14) == 0x14;
}

static int64_t sign_extend(uint32_t v, unsigned bits)
{
	return (int64_t)((uint64_t)v << (64 - bits)) >> (64 - bits);
}

/* b, ba, bl, bla (I-form) and bc, bca, bcl, bcla (B-form). */
static void classify_direct(uint32_t w, uint64_t pc, struct arch_insn *out)
{
	bool cond = PPC_OPCD(w) == 16 && !bo_always(w);
	int64_t disp = PPC_OPCD(w) == 18 ? sign_extend(w & 0x03fffffc, 26) :
					   sign_extend(w & 0xfffc, 16);

	out->target = PPC_AA(w) ? (uint64_t)disp : pc + (uint64_t)disp;
	out->flags |= ARCH_INSN_HAS_TARGET;
	if (PPC_LK(w)) {
		/*
		 * "bcl 20,31,$+4" (and bl $+4) only read the pc into LR: the
		 * position-independent code idiom, not a call.
		 */
		if (out->target == pc + 4) {
			out->cls = ARCH_INSN_OTHER;
			out->flags = 0;
			out->target = 0;
			return;
		}
		out->cls = ARCH_INSN_CALL;
		if (cond)
			out->flags |= ARCH_INSN_CONDITIONAL;
		return;
	}
	out->cls = cond ? ARCH_INSN_COND : ARCH_INSN_JUMP;
}

/* bclr, bcctr, bctar and their link forms (XL-form, opcode 19). */
static void classify_indirect(uint32_t w, struct arch_insn *out)
{
	out->flags |= ARCH_INSN_INDIRECT;
	if (!bo_always(w))
		out->flags |= ARCH_INSN_CONDITIONAL;
	if (PPC_LK(w))
		out->cls = ARCH_INSN_CALL;	/* blrl, bctrl, bctarl */
	else if (PPC_XO(w) == 16)
		out->cls = ARCH_INSN_RET;	/* blr: LR is where calls return */
	else
		out->cls = ARCH_INSN_JUMP;	/* bctr: PLT stubs, switch tables, tail calls */
}

static unsigned opcode19_class(uint32_t w)
{
	switch (PPC_XO(w)) {
	case 16:	/* bclr */
	case 528:	/* bcctr */
	case 560:	/* bctar */
		return ARCH_INSN_JUMP;	/* refined by classify_indirect() */
	case 18:	/* rfid */
	case 50:	/* rfi */
	case 82:	/* rfscv */
	case 274:	/* hrfid */
	case 306:	/* urfid */
		return ARCH_INSN_KRET;
	default:
		return ARCH_INSN_OTHER;
	}
}

void ppc64le_classify_word(uint32_t w, uint64_t pc, struct arch_insn *out)
{
	out->len = 4;
	out->cls = ARCH_INSN_OTHER;
	switch (PPC_OPCD(w)) {
	case 1:		/* prefix (Power ISA 3.1): one instruction of two words */
		out->len = 8;
		break;
	case 16:
	case 18:
		classify_direct(w, pc, out);
		break;
	case 19:
		out->cls = (uint8_t)opcode19_class(w);
		if (out->cls == ARCH_INSN_JUMP)
			classify_indirect(w, out);
		break;
	case 17:	/* sc, scv */
		out->cls = ARCH_INSN_SYSCALL;
		break;
	case 2:		/* tdi */
	case 3:		/* twi */
		out->cls = ARCH_INSN_INT;
		break;
	case 31:
		if (PPC_XO(w) == 4 || PPC_XO(w) == 68)	/* tw, td */
			out->cls = ARCH_INSN_INT;
		break;
	default:
		break;
	}
}

static uint32_t word_le(const uint8_t *code)
{
	return (uint32_t)code[0] | (uint32_t)code[1] << 8 | (uint32_t)code[2] << 16 |
	       (uint32_t)code[3] << 24;
}

int ppc64le_decode(struct arch_decoder *d, const uint8_t *code, size_t avail, uint64_t pc,
		   struct arch_insn *out)
{
	(void)d;
	if (avail < 4 || (pc & 3))
		return -1;
	ppc64le_classify_word(word_le(code), pc, out);
	if (out->len > avail)
		return -1;
	return 0;
}

/*
 * Load-reserve with the EH hint (lwarx r9,0,r3,1: glibc's locks) is one
 * capstone 4 does not decode: spell the X-form like objdump.
 */
static bool larx_text(uint32_t w, char *buf, size_t size)
{
	static const struct {
		unsigned xo;
		const char *name;
	} larx[] = { { 52, "lbarx" }, { 116, "lharx" }, { 20, "lwarx" }, { 84, "ldarx" },
		     { 276, "lqarx" } };

	if (PPC_OPCD(w) != 31)
		return false;
	for (size_t i = 0; i < sizeof(larx) / sizeof(larx[0]); i++) {
		if (PPC_XO(w) != larx[i].xo)
			continue;
		snprintf(buf, size, "%s r%u, %u, r%u, %u", larx[i].name, (w >> 21) & 31,
			 (w >> 16) & 31, (w >> 11) & 31, w & 1);
		return true;
	}
	return false;
}

size_t ppc64le_disasm_fallback(const uint8_t *code, size_t avail, char *buf, size_t size)
{
	if (avail < 4)
		return 0;
	if (!larx_text(word_le(code), buf, size))
		snprintf(buf, size, ".long 0x%08x", word_le(code));
	return 4;
}
