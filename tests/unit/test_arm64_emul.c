// SPDX-License-Identifier: GPL-2.0
/*
 * The driver's A64 emulator (arch/arm64/driver/emul.c) and exclusive
 * decoder (arm64_excl.h), built for the host: one row an instruction, its
 * word from GNU as, the registers before and what the Arm ARM's pseudocode
 * makes of them, worked out by hand.
 */
#include <stdint.h>
#include <string.h>

#include "arch/arm64/driver/arm64_emul.h"
#include "arch/arm64/driver/arm64_excl.h"
#include "tests/unit/unit.h"

#define PC 0x1000ull
#define MARK 0xdeadbeefdeadbeefull
#define SP_REG 31	/* rd: the stack pointer */
#define NO_REG 32	/* rd: nothing written (the zero register) */
#define BTYPE (1ull << 10)

static const struct {
	const char *what;
	uint32_t insn;
	uint64_t x[5];		/* x0 starts as MARK whatever this says */
	uint64_t sp;
	unsigned int nzcv_in;
	enum arm64_emul_result res;
	unsigned int rd;
	uint64_t want;
	unsigned int nzcv;
	int64_t next;		/* pc after, from PC */
} rows[] = {
	{ "add x0, x1, #4095", 0x913ffc20, { 0, 1 }, 0, 0, ARM64_EMUL_DONE, 0, 0x1000, 0, 4 },
	{ "add w0, w1, #1, lsl #12 wraps in 32 bits", 0x11400420, { 0, 0xfffffffffffff000 }, 0, 0,
	  ARM64_EMUL_DONE, 0, 0, 0, 4 },
	{ "add sp, sp, #16", 0x910043ff, { 0 }, 0x7ff0, 0, ARM64_EMUL_DONE, SP_REG, 0x8000, 0, 4 },
	{ "subs x0, x1, #1 borrows", 0xf1000420, { 0, 0 }, 0, 0, ARM64_EMUL_DONE, 0,
	  0xffffffffffffffff, 0x8, 4 },
	{ "cmp w1, #0 on a zero word", 0x7100003f, { 0, 0x100000000 }, 0, 0x9, ARM64_EMUL_DONE,
	  NO_REG, 0, 0x6, 4 },
	{ "adds w0, w1, w2 overflows", 0x2b020020, { 0, 0x7fffffff, 1 }, 0, 0, ARM64_EMUL_DONE, 0,
	  0x80000000, 0x9, 4 },
	{ "subs x0, x1, x2, lsl #3", 0xeb020c20, { 0, 0x10, 2 }, 0, 0, ARM64_EMUL_DONE, 0, 0, 0x6,
	  4 },
	{ "sub w0, w1, w2, asr #4 keeps NZCV", 0x4b821020, { 0, 0, 0x80000000 }, 0, 0xf,
	  ARM64_EMUL_DONE, 0, 0x08000000, 0xf, 4 },
	{ "cmp w4, w3, uxtb", 0x6b23009f, { 0, 0, 0, 0x1180, 0x80 }, 0, 0, ARM64_EMUL_DONE, NO_REG,
	  0, 0x6, 4 },
	{ "cmn x1, w2, sxtw #2", 0xab22c83f, { 0, 8, 0xfffffffe }, 0, 0, ARM64_EMUL_DONE, NO_REG, 0,
	  0x6, 4 },
	{ "add x0, sp, x1 (extended: 31 is sp)", 0x8b2163e0, { 0, 0x10 }, 0x7ff0, 0,
	  ARM64_EMUL_DONE, 0, 0x8000, 0, 4 },
	{ "and w0, w1, #0xff", 0x12001c20, { 0, 0x123456789abcdef0 }, 0, 0, ARM64_EMUL_DONE, 0,
	  0xf0, 0, 4 },
	{ "orr x0, xzr, #0x5555555555555555", 0xb200f3e0, { 0 }, 0, 0, ARM64_EMUL_DONE, 0,
	  0x5555555555555555, 0, 4 },
	{ "eor x0, x1, #0xffff0000ffff0000", 0xd2103c20, { 0, 0x0000ffff0000ffff }, 0, 0,
	  ARM64_EMUL_DONE, 0, 0xffffffffffffffff, 0, 4 },
	{ "ands w0, w1, #0x80000000 clears C and V", 0x72010020, { 0, 0xffffffff80000001 }, 0, 0x3,
	  ARM64_EMUL_DONE, 0, 0x80000000, 0x8, 4 },
	{ "tst x1, #1", 0xf240003f, { 0, 2 }, 0, 0xb, ARM64_EMUL_DONE, NO_REG, 0, 0x4, 4 },
	{ "and sp, x1, #~0xf", 0x927cec3f, { 0, 0x7ffff }, 0, 0, ARM64_EMUL_DONE, SP_REG, 0x7fff0,
	  0, 4 },
	{ "mov x0, x1", 0xaa0103e0, { 0, 0x1122334455667788 }, 0, 0, ARM64_EMUL_DONE, 0,
	  0x1122334455667788, 0, 4 },
	{ "mvn w0, w1", 0x2a2103e0, { 0, 0xffffffff0000000f }, 0, 0, ARM64_EMUL_DONE, 0,
	  0xfffffff0, 0, 4 },
	{ "bic x0, x1, x2, lsr #1", 0x8a620420, { 0, 0xff, 0x1e }, 0, 0, ARM64_EMUL_DONE, 0, 0xf0,
	  0, 4 },
	{ "orn w0, w1, w2, ror #8", 0x2ae22020, { 0, 0, 0xff }, 0, 0, ARM64_EMUL_DONE, 0, 0x00ffffff,
	  0, 4 },
	{ "eon x0, x1, x2", 0xca220020, { 0, 0xf0f0, 0xff }, 0, 0, ARM64_EMUL_DONE, 0,
	  0xffffffffffff0ff0, 0, 4 },
	{ "ands x0, x1, x2", 0xea020020, { 0, 0x8000000000000001, 0x8000000000000000 }, 0, 0,
	  ARM64_EMUL_DONE, 0, 0x8000000000000000, 0x8, 4 },
	{ "movz x0, #0x1234, lsl #48", 0xd2e24680, { 0 }, 0, 0, ARM64_EMUL_DONE, 0,
	  0x1234000000000000, 0, 4 },
	{ "movn w0, #0", 0x12800000, { 0 }, 0, 0, ARM64_EMUL_DONE, 0, 0xffffffff, 0, 4 },
	{ "movk x0, #0xbeef, lsl #16", 0xf2b7dde0, { 0 }, 0, 0, ARM64_EMUL_DONE, 0,
	  0xdeadbeefbeefbeef, 0, 4 },
	{ "mov w0, #-2", 0x12800020, { 0 }, 0, 0, ARM64_EMUL_DONE, 0, 0xfffffffe, 0, 4 },
	{ "csel x0, x1, x2, eq (ne)", 0x9a820020, { 0, 1, 2 }, 0, 0, ARM64_EMUL_DONE, 0, 2, 0, 4 },
	{ "csinc w0, w1, w2, ne (eq)", 0x1a821420, { 0, 1, 0xffffffff }, 0, 0x4, ARM64_EMUL_DONE, 0,
	  0, 0x4, 4 },
	{ "cset w0, eq", 0x1a9f17e0, { 0 }, 0, 0x4, ARM64_EMUL_DONE, 0, 1, 0x4, 4 },
	{ "csinv x0, x1, x2, lt (lt)", 0xda82b020, { 0, 5, 3 }, 0, 0x8, ARM64_EMUL_DONE, 0, 5, 0x8,
	  4 },
	{ "csneg w0, w1, w2, ge (lt)", 0x5a82a420, { 0, 5, 3 }, 0, 0x8, ARM64_EMUL_DONE, 0,
	  0xfffffffd, 0x8, 4 },
	{ "ccmp x1, x2, #4, ne (eq: #4)", 0xfa421024, { 0, 5, 3 }, 0, 0x4, ARM64_EMUL_DONE, NO_REG,
	  0, 0x4, 4 },
	{ "ccmp x1, x2, #4, ne (ne: compares)", 0xfa421024, { 0, 5, 3 }, 0, 0, ARM64_EMUL_DONE,
	  NO_REG, 0, 0x2, 4 },
	{ "ccmp w1, #3, #0, eq (eq: compares)", 0x7a430820, { 0, 3 }, 0, 0x4, ARM64_EMUL_DONE,
	  NO_REG, 0, 0x6, 4 },
	{ "ccmn x1, #1, #2, hs (lo: #2)", 0xba412822, { 0, 5 }, 0, 0, ARM64_EMUL_DONE, NO_REG, 0,
	  0x2, 4 },
	{ "b .+8", 0x14000002, { 0 }, 0, 0, ARM64_EMUL_DONE, NO_REG, 0, 0, 8 },
	{ "b.ne .-8 taken", 0x54ffffc1, { 0 }, 0, 0, ARM64_EMUL_DONE, NO_REG, 0, 0, -8 },
	{ "b.ne .-8 not taken", 0x54ffffc1, { 0 }, 0, 0x4, ARM64_EMUL_DONE, NO_REG, 0, 0x4, 4 },
	{ "cbz w2, .+12 reads 32 bits", 0x34000062, { 0, 0, 0x100000000 }, 0, 0, ARM64_EMUL_DONE,
	  NO_REG, 0, 0, 12 },
	{ "cbnz x2, .-4", 0xb5ffffe2, { 0, 0, 0x100000000 }, 0, 0, ARM64_EMUL_DONE, NO_REG, 0, 0,
	  -4 },
	{ "tbz w1, #3, .+16 not taken", 0x36180081, { 0, 8 }, 0, 0, ARM64_EMUL_DONE, NO_REG, 0, 0,
	  4 },
	{ "tbnz x1, #63, .-16 taken", 0xb7ffff81, { 0, 0x8000000000000000 }, 0, 0, ARM64_EMUL_DONE,
	  NO_REG, 0, 0, -16 },
	{ "nop", 0xd503201f, { 0 }, 0, 0, ARM64_EMUL_DONE, NO_REG, 0, 0, 4 },
	{ "yield", 0xd503203f, { 0 }, 0, 0, ARM64_EMUL_DONE, NO_REG, 0, 0, 4 },
	{ "dmb ish", 0xd5033bbf, { 0 }, 0, 0, ARM64_EMUL_BARRIER, NO_REG, 0, 0, 4 },
	{ "dsb sy", 0xd5033f9f, { 0 }, 0, 0, ARM64_EMUL_BARRIER, NO_REG, 0, 0, 4 },
	{ "clrex", 0xd5033f5f, { 0 }, 0, 0, ARM64_EMUL_CLREX, NO_REG, 0, 0, 4 },
	{ "isb: not taken", 0xd5033fdf, { 0 }, 0, 0, ARM64_EMUL_NOT, NO_REG, 0, 0, 0 },
	{ "bl: a call, not taken", 0x94000000, { 0 }, 0, 0, ARM64_EMUL_NOT, NO_REG, 0, 0, 0 },
	{ "madd: not taken", 0x9b020c20, { 0 }, 0, 0, ARM64_EMUL_NOT, NO_REG, 0, 0, 0 },
	{ "lsl (ubfm): not taken", 0x531d7020, { 0 }, 0, 0, ARM64_EMUL_NOT, NO_REG, 0, 0, 0 },
	{ "adc: not taken", 0x9a020020, { 0 }, 0, 0, ARM64_EMUL_NOT, NO_REG, 0, 0, 0 },
	{ "adr: not taken", 0x10000000, { 0 }, 0, 0, ARM64_EMUL_NOT, NO_REG, 0, 0, 0 },
	{ "ldaxr: memory, not taken", 0x885ffc01, { 0 }, 0, 0, ARM64_EMUL_NOT, NO_REG, 0, 0, 0 },
	{ "paciasp: not a nop", 0xd503233f, { 0 }, 0, 0, ARM64_EMUL_NOT, NO_REG, 0, 0, 0 },
	{ "add (shifted) with ror: reserved", 0x8bc20020, { 0 }, 0, 0, ARM64_EMUL_NOT, NO_REG, 0, 0,
	  0 },
	{ "and w0, w0, N=1: unallocated", 0x12400000, { 0 }, 0, 0, ARM64_EMUL_NOT, NO_REG, 0, 0, 0 },
	{ "logical immediate of all ones: reserved", 0x9240fc20, { 0 }, 0, 0, ARM64_EMUL_NOT, NO_REG,
	  0, 0, 0 },
	{ "movn w0, #0, lsl #32: unallocated", 0x12c00000, { 0 }, 0, 0, ARM64_EMUL_NOT, NO_REG, 0, 0,
	  0 },
	{ "add w0, w1, w2, lsl #32: unallocated", 0x0b028020, { 0 }, 0, 0, ARM64_EMUL_NOT, NO_REG, 0,
	  0, 0 },
};

static void test_emul_rows(void)
{
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct arm64_emul_regs r, before;
		enum arm64_emul_result res;

		memset(&r, 0, sizeof(r));
		memcpy(r.regs, rows[i].x, sizeof(rows[i].x));
		r.regs[0] = MARK;
		r.sp = rows[i].sp;
		r.pc = PC;
		r.pstate = (uint64_t)rows[i].nzcv_in << 28 | BTYPE;
		before = r;
		res = arm64_emul_step(&r, rows[i].insn);
		CU_ASSERT_EQUAL(res, rows[i].res);
		if (res != rows[i].res)
			fprintf(stderr, "\n%s: result %d\n", rows[i].what, res);
		if (rows[i].res == ARM64_EMUL_NOT) {
			CU_ASSERT(!memcmp(&r, &before, sizeof(r)));
			continue;
		}
		if (rows[i].rd == SP_REG)
			before.sp = rows[i].want;
		else if (rows[i].rd != NO_REG)
			before.regs[rows[i].rd] = rows[i].want;
		before.pc = PC + rows[i].next;
		before.pstate = (uint64_t)rows[i].nzcv << 28;	/* BTYPE cleared */
		CU_ASSERT(!memcmp(&r, &before, sizeof(r)));
		if (memcmp(&r, &before, sizeof(r)))
			fprintf(stderr, "\n%s: x0 %#llx sp %#llx pc %+lld nzcv %#llx\n", rows[i].what,
				(unsigned long long)r.regs[0], (unsigned long long)r.sp,
				(long long)(r.pc - PC), (unsigned long long)(r.pstate >> 28));
	}
}

/* Exclusives as the emulator's caller decodes them, and the forms left to the hardware. */
static const struct {
	const char *what;
	uint32_t insn;
	bool ok;
	struct arm64_excl e;
} excls[] = {
	{ "ldaxr w1, [x0]", 0x885ffc01, true, { true, false, true, 4, 31, 1, 31, 0 } },
	{ "ldxrb w1, [sp]", 0x085f7fe1, true, { true, false, false, 1, 31, 1, 31, 31 } },
	{ "ldaxp x1, x2, [x0]", 0xc87f8801, true, { true, true, true, 8, 31, 1, 2, 0 } },
	{ "ldxp w1, w2, [x3]", 0x887f0861, true, { true, true, false, 4, 31, 1, 2, 3 } },
	{ "stlxr w2, w1, [x0]", 0x8802fc01, true, { false, false, true, 4, 2, 1, 31, 0 } },
	{ "stxp w3, x1, x2, [x0]", 0xc8230801, true, { false, true, false, 8, 3, 1, 2, 0 } },
	{ "stlxrh w3, w1, [x0]", 0x4803fc01, true, { false, false, true, 2, 3, 1, 31, 0 } },
	{ "stlxr w1, w1, [x0]: status is data", 0x8801fc01, false, { 0 } },
	{ "stlxr w0, w1, [x0]: status is the base", 0x8800fc01, false, { 0 } },
	{ "ldxp x1, x1, [x0]: one register twice", 0xc87f0401, false, { 0 } },
	{ "ldar: not exclusive", 0x88dffc01, false, { 0 } },
	{ "clrex: not a load or store", 0xd5033f5f, false, { 0 } },
};

static void test_excl_decode(void)
{
	for (size_t i = 0; i < sizeof(excls) / sizeof(excls[0]); i++) {
		struct arm64_excl e;

		memset(&e, 0, sizeof(e));
		CU_ASSERT_EQUAL(arm64_excl_decode(excls[i].insn, &e), excls[i].ok);
		if (!excls[i].ok)
			continue;
		CU_ASSERT(!memcmp(&e, &excls[i].e, sizeof(e)));
		if (memcmp(&e, &excls[i].e, sizeof(e)))
			fprintf(stderr, "\n%s: size %u rs %u rt %u rt2 %u rn %u\n", excls[i].what,
				e.size, e.rs, e.rt, e.rt2, e.rn);
	}
	CU_ASSERT(arm64_is_clrex(0xd5033f5f));
	CU_ASSERT(!arm64_is_clrex(0xd5033fdf));
}

static CU_TestInfo tests[] = {
	{ "A64 instructions inside exclusive sequences, one row each", test_emul_rows },
	{ "exclusives decoded, CONSTRAINED UNPREDICTABLE forms refused", test_excl_decode },
	CU_TEST_INFO_NULL,
};

UNIT_SUITE(arm64_emul, tests)
