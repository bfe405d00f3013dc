// SPDX-License-Identifier: GPL-2.0
/*
 * arch/ppc64le's rules, on any host: ELFv2 entries and linker stubs
 * (sym.c), larx/stcx. sequences and their exits (atomic.c), vectors
 * (vectors.c).
 */
#include <elf.h>
#include <stdint.h>
#include <string.h>

#include "arch/arch.h"
#include "arch/arch_ptrace.h"
#include "arch/arch_sym.h"
#include "arch/arch_vectors.h"
#include "arch/ppc64le/ppc64le.h"
#include "tests/unit/unit.h"

/* GNU ld's stub names -> what reports show; NULL: not a stub. */
static const struct {
	const char *name, *shown;
} stubs[] = {
	{ "0000001b.plt_call.puts", "puts@plt" },
	{ "00000037.plt_call.__gmon_start__", "__gmon_start__@plt" },
	{ "0000001b.plt_call_notoc.memcpy", "memcpy@plt" },
	{ "00000000.plt_branch.printf", "printf@plt" },
	{ "0000abcd.long_branch.helper", "helper@stub" },
	{ "0000001b.plt_call.", NULL },		/* no target */
	{ "0000001b.toc_call.f", NULL },	/* not a kind ld makes */
	{ "000001b.plt_call.puts", NULL },	/* 7 digits */
	{ "0000001g.plt_call.puts", NULL },	/* not hex */
	{ "plt_call.puts", NULL },
	{ "puts", NULL },
};

static void test_stub_names(void)
{
	CU_ASSERT_EQUAL_FATAL(arch_select("ppc64le"), 0);
	for (size_t i = 0; i < sizeof(stubs) / sizeof(stubs[0]); i++) {
		char buf[128] = "";
		bool is = arch_sym_stub_name(stubs[i].name, buf, sizeof(buf));

		CU_ASSERT_EQUAL(is, stubs[i].shown != NULL);
		if (stubs[i].shown)
			CU_ASSERT_STRING_EQUAL(buf, stubs[i].shown);
	}
	/* x86_64 has no such stubs: its PLT entries come from .plt. */
	CU_ASSERT_EQUAL_FATAL(arch_select("x86_64"), 0);
	CU_ASSERT(!arch_sym_stub_name("0000001b.plt_call.puts", (char[64]){ 0 }, 64));
	arch_select(arch_native_name());
}

/* st_other's local-entry field (ELFv2 ABI 3.4.1): 2 -> 4 bytes, 3 -> 8 (TOC set-up), ... */
static void test_local_entry(void)
{
	static const struct {
		unsigned char st_other;
		unsigned offset;
	} rows[] = {
		{ 0, 0 }, { 1 << 5, 0 }, { 2 << 5, 4 }, { 3 << 5, 8 }, { 4 << 5, 16 },
		{ (3 << 5) | STV_HIDDEN, 8 },
	};

	CU_ASSERT_EQUAL_FATAL(arch_select("ppc64le"), 0);
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		CU_ASSERT_EQUAL(arch_sym_local_entry(rows[i].st_other), rows[i].offset);
	CU_ASSERT_EQUAL_FATAL(arch_select("x86_64"), 0);
	CU_ASSERT_EQUAL(arch_sym_local_entry(3 << 5), 0);
	arch_select(arch_native_name());
}

#define PC 0x10000100ull
#define LE(w) (uint8_t)(w), (uint8_t)((w) >> 8), (uint8_t)((w) >> 16), (uint8_t)((w) >> 24)

/* Sequences as compilers and glibc write them, and what the tracer must make of them. */
static const struct {
	const char *what;
	uint8_t code[64];
	size_t len;
	int rc;
	unsigned nr_exits;
	struct {
		uint64_t addr;
		unsigned path;
		bool store, ambiguous;
	} exits[3];
	int addr_regs[2];		/* the load-reserve's RA (-1: 0) and RB */
} seqs[] = {
	{ "__atomic_fetch_add: lwarx; add; stwcx.; bne- back",
	  { LE(0x7d201828), LE(0x7d292214), LE(0x7d20192d), LE(0x40c2fff4) }, 16, 1, 1,
	  { { PC + 12, 3, true, false } }, { -1, 3 } },
	{ "lwarx r5,r4,r3; addi; stwcx. r5,r4,r3: both registers make the address",
	  { LE(0x7ca41828), LE(0x38a50001), LE(0x7ca4192d) }, 12, 1, 1,
	  { { PC + 12, 3, true, false } }, { 4, 3 } },
	{ "glibc lock: lwarx EH; cmpwi; bne- out; stwcx.; bne- back",
	  { LE(0x7d40f829), LE(0x2c0a0000), LE(0x40c20010), LE(0x7d20f92d), LE(0x40c2fff0) }, 20,
	  1, 2, { { PC + 16, 4, true, false }, { PC + 24, 3, false, false } }, { -1, 31 } },
	{ "trylock: the compare branches to right after the stwcx.",
	  { LE(0x7d40f829), LE(0x2c0a0000), LE(0x40c20008), LE(0x7d20f92d), LE(0x4c00012c) }, 20,
	  1, 1, { { PC + 16, 4, true, true } }, { -1, 31 } },
	{ "ldarx/stdcx. pair", { LE(0x7d2018a8), LE(0x7d2019ad) }, 8, 1, 1,
	  { { PC + 8, 2, true, false } }, { -1, 3 } },
	{ "a branch back into the sequence", { LE(0x7d201828), LE(0x4bfffffc), LE(0x7d20192d) }, 12,
	  -1, 0, { { 0 } }, { 0 } },
	{ "an indirect branch inside", { LE(0x7d201828), LE(0x4e800020), LE(0x7d20192d) }, 12, -1,
	  0, { { 0 } }, { 0 } },
	{ "no stcx. in reach", { LE(0x7d201828), LE(0x60000000), LE(0x60000000) }, 12, -1, 0,
	  { { 0 } }, { 0 } },
	{ "not a load-reserve", { LE(0x38840001) }, 4, 0, 0, { { 0 } }, { 0 } },
};

static void test_atomic_sequences(void)
{
	for (size_t i = 0; i < sizeof(seqs) / sizeof(seqs[0]); i++) {
		struct arch_atomic_seq q;
		int rc = ppc64le_atomic_sequence(seqs[i].code, seqs[i].len, PC, &q);

		CU_ASSERT_EQUAL(rc, seqs[i].rc);
		CU_ASSERT_EQUAL(ppc64le_may_start_atomic(seqs[i].code, seqs[i].len), seqs[i].rc != 0);
		if (rc != seqs[i].rc)
			fprintf(stderr, "\n  sequence '%s': %d\n", seqs[i].what, rc);
		if (rc != 1)
			continue;
		CU_ASSERT_EQUAL(q.start, PC);
		CU_ASSERT_EQUAL(q.insn_len, 4);
		CU_ASSERT_EQUAL(q.addr_regs[0], seqs[i].addr_regs[0]);
		CU_ASSERT_EQUAL(q.addr_regs[1], seqs[i].addr_regs[1]);
		CU_ASSERT_EQUAL_FATAL(q.nr_exits, seqs[i].nr_exits);
		for (unsigned e = 0; e < q.nr_exits; e++) {
			CU_ASSERT_EQUAL(q.exits[e].addr, seqs[i].exits[e].addr);
			CU_ASSERT_EQUAL(q.exits[e].path, seqs[i].exits[e].path);
			CU_ASSERT_EQUAL(q.exits[e].store, seqs[i].exits[e].store);
			CU_ASSERT_EQUAL(q.exits[e].ambiguous, seqs[i].exits[e].ambiguous);
		}
	}
}

static void test_vectors(void)
{
	char why[128];

	CU_ASSERT_EQUAL_FATAL(arch_select("ppc64le"), 0);
	CU_ASSERT_STRING_EQUAL(arch_interrupt_name(0x900), "decrementer");
	CU_ASSERT_STRING_EQUAL(arch_interrupt_name(0x500), "external");
	CU_ASSERT_PTR_NULL(arch_interrupt_name(0x300));	/* an exception */
	CU_ASSERT_STRING_EQUAL(arch_exception_name(0x300), "data storage");
	CU_ASSERT(arch_exception_is_page_fault(0x300) && arch_exception_is_page_fault(0x400));
	CU_ASSERT(!arch_exception_is_page_fault(14));	/* x86's #PF number means nothing here */
	CU_ASSERT_STRING_EQUAL(arch_page_fault_describe(0x42000000, why, sizeof(why)),
			       "write, not present");
	CU_ASSERT(arch_sym_is_kernel_addr(0xc000000000001000ull));
	CU_ASSERT(!arch_sym_is_kernel_addr(0x7fffb7f00000ull));
	arch_select(arch_native_name());
}

static CU_TestInfo tests[] = {
	{ "linker stubs are shown as target@plt", test_stub_names },
	{ "ELFv2 local entry offsets", test_local_entry },
	{ "larx/stcx. sequences: exits and the paths to them", test_atomic_sequences },
	{ "vectors, page faults, the kernel's half", test_vectors },
	CU_TEST_INFO_NULL,
};

UNIT_SUITE(arch_ppc64le, tests)
