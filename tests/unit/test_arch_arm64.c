// SPDX-License-Identifier: GPL-2.0
/*
 * arch/arm64's rules, on any host: exclusive sequences and their exits
 * (atomic.c), PLT entries and veneers (sym.c), vectors (vectors.c), and
 * the call flow of a synthetic arm64 trace whose instructions the arm64
 * decoder reads from their words: bl, blr, ret, retaa, br as a tail call,
 * a PLT entry and a veneer, counted and arced as the cost model says.
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "arch/arch.h"
#include "arch/arch_decode.h"
#include "arch/arch_ptrace.h"
#include "arch/arch_sym.h"
#include "arch/arch_vectors.h"
#include "arch/arm64/arm64.h"
#include "util/arcs.h"
#include "util/callflow.h"
#include "util/symbols.h"
#include "tests/unit/unit.h"

#define PC 0x400100ull
#define LE(w) (uint8_t)(w), (uint8_t)((w) >> 8), (uint8_t)((w) >> 16), (uint8_t)((w) >> 24)

/* Sequences as gcc (-mno-outline-atomics) and glibc write them, and what the tracer must make of them. */
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
	int addr_reg, status_reg;
} seqs[] = {
	{ "__atomic_fetch_add: ldaxr; add; stlxr; cbnz back",
	  { LE(0x885ffc01), LE(0x11000421), LE(0x8802fc01), LE(0x35ffffa2) }, 16, 1, 1,
	  { { PC + 12, 3, true, false } }, 0, 2 },
	{ "compare-and-swap: ldaxr; cmp; b.ne out; stlxr; cbnz back",
	  { LE(0x885ffc02), LE(0x6b01005f), LE(0x54000061), LE(0x8804fc03), LE(0x35ffff84) }, 20,
	  1, 2, { { PC + 16, 4, true, false }, { PC + 20, 3, false, false } }, 0, 4 },
	{ "the compare branches to right after the stxr",
	  { LE(0x885f7c02), LE(0x6b01005f), LE(0x54000041), LE(0x88047c03), LE(0xd503201f) }, 20,
	  1, 1, { { PC + 16, 4, true, true } }, 0, 4 },
	{ "ldxp/stxp pair on sp", { LE(0xc87f0fe1), LE(0xc8220fe1) }, 8, 1, 1,
	  { { PC + 8, 2, true, false } }, 31, 2 },
	{ "ldxrb/stxrb", { LE(0x085f7c01), LE(0x08027c01) }, 8, 1, 1,
	  { { PC + 8, 2, true, false } }, 0, 2 },
	{ "a branch back into the sequence", { LE(0x885f7c01), LE(0x17ffffff), LE(0x88027c01) },
	  12, -1, 0, { { 0 } }, 0, 0 },
	{ "an indirect branch inside", { LE(0x885f7c01), LE(0xd61f0220), LE(0x88027c01) }, 12, -1,
	  0, { { 0 } }, 0, 0 },
	{ "a second load-exclusive", { LE(0x885f7c01), LE(0x885f7c01), LE(0x88027c01) }, 12, -1,
	  0, { { 0 } }, 0, 0 },
	{ "no stxr in reach", { LE(0x885f7c01), LE(0xd503201f), LE(0xd503201f) }, 12, -1, 0,
	  { { 0 } }, 0, 0 },
	{ "ldar is no exclusive", { LE(0x88dffc01) }, 4, 0, 0, { { 0 } }, 0, 0 },
	{ "cas (LSE) is one instruction", { LE(0x88a07c41) }, 4, 0, 0, { { 0 } }, 0, 0 },
	{ "casp (LSE) is one instruction", { LE(0x48207c82) }, 4, 0, 0, { { 0 } }, 0, 0 },
	{ "add", { LE(0x91000421) }, 4, 0, 0, { { 0 } }, 0, 0 },
};

static void test_atomic_sequences(void)
{
	for (size_t i = 0; i < sizeof(seqs) / sizeof(seqs[0]); i++) {
		struct arch_atomic_seq q;
		int rc = arm64_atomic_sequence(seqs[i].code, seqs[i].len, PC, &q);

		CU_ASSERT_EQUAL(rc, seqs[i].rc);
		CU_ASSERT_EQUAL(arm64_may_start_atomic(seqs[i].code, seqs[i].len),
				seqs[i].rc != 0);
		if (rc != seqs[i].rc)
			fprintf(stderr, "\n  sequence '%s': %d\n", seqs[i].what, rc);
		if (rc != 1)
			continue;
		CU_ASSERT_EQUAL(q.start, PC);
		CU_ASSERT_EQUAL(q.insn_len, 4);
		CU_ASSERT_EQUAL(q.addr_regs[0], seqs[i].addr_reg);
		CU_ASSERT_EQUAL(q.addr_regs[1], -1);
		CU_ASSERT_EQUAL(q.status_reg, seqs[i].status_reg);
		CU_ASSERT_EQUAL_FATAL(q.nr_exits, seqs[i].nr_exits);
		for (unsigned e = 0; e < q.nr_exits; e++) {
			CU_ASSERT_EQUAL(q.exits[e].addr, seqs[i].exits[e].addr);
			CU_ASSERT_EQUAL(q.exits[e].path, seqs[i].exits[e].path);
			CU_ASSERT_EQUAL(q.exits[e].store, seqs[i].exits[e].store);
			CU_ASSERT_EQUAL(q.exits[e].ambiguous, seqs[i].exits[e].ambiguous);
		}
	}
}

/* ---- encodings the PLT and the synthetic program use ---- */

#define A64_NOP 0xd503201fu
#define A64_BTI_C 0xd503245fu
#define A64_PACIASP 0xd503233fu
#define A64_AUTIASP 0xd50323bfu
#define A64_RET 0xd65f03c0u
#define A64_RETAA 0xd65f0bffu
#define A64_BR(n) (0xd61f0000u | (n) << 5)
#define A64_BLR(n) (0xd63f0000u | (n) << 5)
#define A64_STP_FP_LR 0xa9bf7bfdu	/* stp x29, x30, [sp, #-16]! */
#define A64_LDP_FP_LR 0xa8c17bfdu	/* ldp x29, x30, [sp], #16 */
#define A64_PLT0_STP 0xa9bf7bf0u	/* stp x16, x30, [sp, #-16]! */

static uint32_t a64_adrp(unsigned rd, uint64_t pc, uint64_t target)
{
	uint64_t pages = ((target >> 12) - (pc >> 12)) & 0x1fffff;

	return 0x90000000u | (uint32_t)(pages & 3) << 29 | (uint32_t)(pages >> 2) << 5 | rd;
}

/* ldr x17, [x16, #off] */
static uint32_t a64_ldr17(uint64_t off)
{
	return 0xf9400211u | (uint32_t)(off / 8) << 10;
}

/* add xd, xn, #imm */
static uint32_t a64_add(unsigned rd, unsigned rn, uint64_t imm)
{
	return 0x91000000u | (uint32_t)imm << 10 | rn << 5 | rd;
}

static void put(uint8_t *code, size_t at, uint32_t w)
{
	code[at] = (uint8_t)w;
	code[at + 1] = (uint8_t)(w >> 8);
	code[at + 2] = (uint8_t)(w >> 16);
	code[at + 3] = (uint8_t)(w >> 24);
}

/* A PLT entry at pc reaching slot: [bti c] adrp, ldr, add, br x17. */
static size_t plt_entry(uint8_t *code, size_t at, uint64_t pc, uint64_t slot, bool bti)
{
	if (bti) {
		put(code, at, A64_BTI_C);
		at += 4, pc += 4;
	}
	put(code, at, a64_adrp(16, pc, slot));
	put(code, at + 4, a64_ldr17(slot & 0xfff));
	put(code, at + 8, a64_add(16, 16, slot & 0xfff));
	put(code, at + 12, A64_BR(17));
	return at + 16;
}

/*
 * GNU ld's .plt: PLT0 (32 bytes: stp, adrp, ldr, add, br, three nops)
 * and entries of 16 bytes, 24 with BTI (bti c first, a nop last): each
 * entry's GOT slot, PLT0's too (GOT[2], the resolver).
 */
static void test_plt_entries(void)
{
	static const uint64_t vaddr = 0x5d0, got = 0x1ffe8;
	struct arch_plt_entry e[8];

	for (int bti = 0; bti < 2; bti++) {
		uint8_t code[128];
		size_t at = 0, entry = bti ? 24 : 16, n;

		put(code, at, A64_PLT0_STP);
		at = plt_entry(code, 4, vaddr + 4, got + 16, false);
		for (; at < 32; at += 4)
			put(code, at, A64_NOP);
		for (unsigned i = 0; i < 3; i++) {
			at = plt_entry(code, at, vaddr + at, got + 24 + 8 * i, bti);
			if (bti)
				put(code, at, A64_NOP), at += 4;
		}
		CU_ASSERT_EQUAL_FATAL(arch_select("aarch64"), 0);
		n = arch_sym_plt_entries(code, at, vaddr, entry, e, 8);
		arch_select(arch_native_name());
		CU_ASSERT_EQUAL_FATAL(n, 4);
		CU_ASSERT_EQUAL(e[0].addr, vaddr);
		CU_ASSERT_EQUAL(e[0].size, 32);
		CU_ASSERT_EQUAL(e[0].got_slot, got + 16);
		for (unsigned i = 0; i < 3; i++) {
			CU_ASSERT_EQUAL(e[1 + i].addr, vaddr + 32 + i * entry);
			CU_ASSERT_EQUAL(e[1 + i].size, entry);
			CU_ASSERT_EQUAL(e[1 + i].got_slot, got + 24 + 8 * i);
		}
	}
}

/*
 * GNU ld's PLT in a real program: plain (16-byte entries), with BTI (-z
 * force-bti, which a PIE does not need: bti c first, 24 bytes) and with
 * PAC (-z pac-plt: autia1716 before the br, 24 bytes), behind PLT0's 32:
 * puts@plt where objdump says, on any host that has the cross compiler.
 */
static void test_plt_of_a_real_program(void)
{
	static const struct {
		const char *flags;
		uint64_t entry;
	} builds[] = {
		{ "", 16 },
		{ "-no-pie -mbranch-protection=standard -Wl,-z,force-bti", 24 },
		{ "-mbranch-protection=standard -Wl,-z,pac-plt", 24 },
	};
	const char *dir = unit_tmpdir();

	if (!unit_sh_out("command -v aarch64-linux-gnu-gcc")[0]) {
		fprintf(stderr, "\n  SKIP: no aarch64-linux-gnu-gcc here\n");
		return;
	}
	for (size_t i = 0; i < sizeof(builds) / sizeof(builds[0]); i++) {
		uint64_t vaddr = 0, size = 0, want;
		char prog[256];

		snprintf(prog, sizeof(prog), "%s/a64plt%zu", dir, i);
		unit_sh_out("printf '#include <stdio.h>\\nint main(void) { return puts(\"x\"); }\\n' |"
			    " aarch64-linux-gnu-gcc -O2 %s -x c -o %s - 2>/dev/null", builds[i].flags, prog);
		want = strtoull(unit_sh_out("aarch64-linux-gnu-objdump -d %s | sed -n "
					    "'s/^\\([0-9a-f]*\\) <puts@plt>:$/\\1/p'", prog),
				NULL, 16);
		CU_ASSERT_FATAL(want != 0);
		CU_ASSERT_EQUAL_FATAL(arch_select("aarch64"), 0);
		CU_ASSERT_EQUAL(sym_lookup_in_file(prog, "puts@plt", &vaddr, &size), 1);
		arch_select(arch_native_name());
		CU_ASSERT_EQUAL(vaddr, want);
		CU_ASSERT_EQUAL(size, builds[i].entry);
		if (vaddr != want || size != builds[i].entry)
			fprintf(stderr, "\n  '%s': puts@plt at 0x%" PRIx64 " size %" PRIu64
				", objdump 0x%" PRIx64 "\n", builds[i].flags, vaddr, size, want);
	}
}

/* The linkers' veneers -> what reports show; NULL: not a veneer. */
static const struct {
	const char *name, *shown;
} veneers[] = {
	{ "__far_away_veneer", "far_away@veneer" },
	{ "__puts_veneer", "puts@veneer" },
	{ "__AArch64ADRPThunk_far", "far@veneer" },
	{ "__AArch64AbsLongThunk_far", "far@veneer" },
	{ "__erratum_843419_veneer", NULL },	/* branches back into its caller */
	{ "___veneer", NULL },
	{ "__veneer", NULL },
	{ "_start_veneer", NULL },
	{ "puts", NULL },
};

static void test_veneer_names(void)
{
	CU_ASSERT_EQUAL_FATAL(arch_select("aarch64"), 0);
	for (size_t i = 0; i < sizeof(veneers) / sizeof(veneers[0]); i++) {
		char buf[128] = "";
		bool is = arch_sym_stub_name(veneers[i].name, buf, sizeof(buf));

		CU_ASSERT_EQUAL(is, veneers[i].shown != NULL);
		if (veneers[i].shown)
			CU_ASSERT_STRING_EQUAL(buf, veneers[i].shown);
		if (is != (veneers[i].shown != NULL))
			fprintf(stderr, "\n  veneer '%s': %d '%s'\n", veneers[i].name, is, buf);
	}
	arch_select(arch_native_name());
}

static void test_vectors(void)
{
	char why[128];

	CU_ASSERT_EQUAL_FATAL(arch_select("aarch64"), 0);
	CU_ASSERT_STRING_EQUAL(arch_exception_name(0x24), "data abort (lower EL)");
	CU_ASSERT_STRING_EQUAL(arch_exception_name(0x32), "software step (lower EL)");
	CU_ASSERT(arch_exception_is_page_fault(0x24) && arch_exception_is_page_fault(0x20));
	CU_ASSERT(!arch_exception_is_page_fault(14));	/* x86's #PF number means nothing here */
	/* EC 0x24, WnR, DFSC 0b000111: a write to a page not mapped at level 3 */
	CU_ASSERT_STRING_EQUAL(arch_page_fault_describe(0x92000047, why, sizeof(why)),
			       "write, not present");
	CU_ASSERT_STRING_EQUAL(arch_page_fault_describe(0x8200000f, why, sizeof(why)),
			       "instruction fetch, protection");
	CU_ASSERT_PTR_NULL(arch_interrupt_name(27));
	CU_ASSERT(arch_sym_is_kernel_addr(0xffff800008000000ull));
	CU_ASSERT(!arch_sym_is_kernel_addr(0x0000ffffb7f00000ull));
	CU_ASSERT_EQUAL(arch_sym_kernel_alias_rank("__arm64_sys_getpid"), 1);
	CU_ASSERT_EQUAL(arch_sym_kernel_alias_rank("__arm64_compat_sys_getpid"), -1);
	CU_ASSERT_EQUAL(arch_sym_kernel_alias_rank("__do_sys_getpid"), 0);
	arch_select(arch_native_name());
}

/* ---- the call flow of a synthetic arm64 trace ---- */

/*
 * The made-up program, laid out as A64 words: main calls f (bl), which
 * tail-calls h (br x16); main calls puts through its PLT entry (bl, then
 * the entry's br x17), and g through a register (blr); g, built with
 * -mbranch-protection=standard (paciasp ... autiasp; ret), calls g2
 * through a veneer (adrp, add, br x16); h returns with retaa.
 */
enum {
	MAIN = 0x1000, F = 0x2000, PLT = 0x3010, G = 0x4000, H = 0x5000, VENEER = 0x6000,
	PUTS = 0x7000, G2 = 0x8000, GOT_PUTS = 0x11000,
};

static const struct {
	const char *name;	  /* a veneer's as its symbol has it: stub_name() shows it */
	uint64_t start, end;
	bool stub;
} prog_fns[] = {
	{ "main", MAIN, MAIN + 0x100, false },	{ "f", F, F + 0x100, false },
	{ "puts@plt", PLT, PLT + 0x10, true },	{ "g", G, G + 0x100, false },
	{ "h", H, H + 0x100, false },		{ "__g2_veneer", VENEER, VENEER + 0x10, true },
	{ "puts", PUTS, PUTS + 0x100, false },	{ "g2", G2, G2 + 0x100, false },
};

static const struct {
	uint64_t pc;
	uint32_t word;
} prog_words[] = {
	{ MAIN, A64_PACIASP },	      { MAIN + 4, A64_STP_FP_LR },
	{ MAIN + 8, 0x94000000 | (F - MAIN - 8) / 4 },
	{ MAIN + 12, 0x94000000 | (PLT - MAIN - 12) / 4 },
	{ MAIN + 16, A64_BLR(1) },    { MAIN + 20, A64_LDP_FP_LR },
	{ MAIN + 24, A64_AUTIASP },   { MAIN + 28, A64_RET },
	{ F, 0x91000400 },	      /* add x0, x0, #1 */
	{ F + 4, A64_BR(16) },	      /* tail call of h */
	{ H, A64_NOP },		      { H + 4, A64_RETAA },
	{ PLT + 4, 0xf9400211 },      /* ldr x17, [x16] (adrp before it: below) */
	{ PLT + 8, 0x91000210 },      { PLT + 12, A64_BR(17) },
	{ PUTS, A64_NOP },	      { PUTS + 4, A64_RET },
	{ G, A64_PACIASP },	      { G + 4, A64_STP_FP_LR },
	{ G + 8, 0x94000000 | (VENEER - G - 8) / 4 },
	{ G + 12, A64_LDP_FP_LR },    { G + 16, A64_AUTIASP },
	{ G + 20, A64_RET },	      { VENEER + 8, A64_BR(16) },
	{ G2, A64_RET },
};

static uint32_t prog_word(uint64_t pc)
{
	if (pc == PLT)
		return a64_adrp(16, PLT, GOT_PUTS);
	if (pc == VENEER)
		return a64_adrp(16, VENEER, G2);
	if (pc == VENEER + 4)
		return a64_add(16, 16, G2 & 0xfff);
	for (size_t i = 0; i < sizeof(prog_words) / sizeof(prog_words[0]); i++)
		if (prog_words[i].pc == pc)
			return prog_words[i].word;
	return A64_NOP;
}

/* One run of the program, as the ptrace backend would record it. */
static const uint64_t prog_run[] = {
	MAIN, MAIN + 4, MAIN + 8, F, F + 4, H, H + 4,			/* bl f; br x16; retaa */
	MAIN + 12, PLT, PLT + 4, PLT + 8, PLT + 12, PUTS, PUTS + 4,	/* bl puts@plt; br x17 */
	MAIN + 16, G, G + 4, G + 8, VENEER, VENEER + 4, VENEER + 8, G2, /* blr; bl veneer; br */
	G + 12, G + 16, G + 20, MAIN + 20, MAIN + 24, MAIN + 28,
};

struct prog_ctx {
	struct arch_decoder *dec;
	unsigned untold;	  /* words neither capstone nor arch/arm64 wrote text for */
};

static void prog_site(void *ctx, struct callflow *cf, uint32_t pid, uint64_t pc, uint8_t ring,
		      struct cf_site *out)
{
	struct prog_ctx *c = ctx;
	uint8_t code[4];
	char text[64];

	(void)pid, (void)ring;
	put(code, 0, prog_word(pc));
	arch_decode(c->dec, code, sizeof(code), pc, &out->insn);
	c->untold += arch_disasm(c->dec, code, sizeof(code), pc, text, sizeof(text)) != 4 ||
		     !strncmp(text, ".inst", 5);
	for (size_t f = 0; f < sizeof(prog_fns) / sizeof(prog_fns[0]); f++) {
		char shown[64];
		const char *name = prog_fns[f].name;

		if (pc < prog_fns[f].start || pc >= prog_fns[f].end)
			continue;
		if (arch_sym_stub_name(name, shown, sizeof(shown)))
			name = shown;
		out->fn = cf_func_intern(cf, "prog", "/prog", name, prog_fns[f].start);
		out->entry = pc == prog_fns[f].start;
		if (prog_fns[f].stub)
			cf_func_set_fold(cf, out->fn, CF_FOLD_STUB);
	}
}

static struct arcs *prog_feed(struct prog_ctx *c, bool fold)
{
	struct cf_source src = { .site = prog_site, .ctx = c };
	struct callflow *cf = cf_new(&src);
	struct arcs *a = arcs_new(cf);

	cf_set_fold(cf, fold);
	for (size_t i = 0; i < sizeof(prog_run) / sizeof(prog_run[0]); i++) {
		struct trace_event ev = { .kind = TEV_STEP, .pid = 7, .tid = 7,
					  .pc = prog_run[i], .index = i };

		cf_event(cf, &ev);
	}
	cf_finish(cf);
	return a;
}

static uint32_t fn_id(struct callflow *cf, const char *name)
{
	for (uint32_t i = 0; i < cf_nr_funcs(cf); i++)
		if (!strcmp(cf_func(cf, i)->name, name))
			return i;
	return CF_NO_FN;
}

/* The arc caller -> callee (CF_NO_FN's name: NULL), or NULL. */
static const struct arc_edge *edge(const struct arcs *a, const char *caller, const char *callee)
{
	struct callflow *cf = arcs_callflow(a);

	for (size_t i = 0; i < arcs_nr_edges(a); i++) {
		const struct arc_edge *e = arcs_edge(a, i);

		if (e->callee == fn_id(cf, callee) &&
		    (caller ? e->caller == fn_id(cf, caller) : e->caller == CF_NO_FN))
			return e;
	}
	return NULL;
}

/* What a function and an arc must come to. */
struct fn_want {
	const char *fn;
	uint64_t calls, base, cum;
};

struct arc_want {
	const char *caller, *callee;	  /* caller NULL: a thread's root */
	uint64_t calls, cum;
};

static void check_prog(bool fold, const struct fn_want *fns, size_t nr_fns,
		       const struct arc_want *arcs_want, size_t nr_arcs)
{
	struct prog_ctx c = { 0 };
	struct arcs *a;
	struct callflow *cf;

	CU_ASSERT_EQUAL_FATAL(arch_select("aarch64"), 0);
	c.dec = arch_decoder_new();
	CU_ASSERT_PTR_NOT_NULL_FATAL(c.dec);
	a = prog_feed(&c, fold);
	cf = arcs_callflow(a);
	CU_ASSERT_EQUAL(arcs_total(a), sizeof(prog_run) / sizeof(prog_run[0]));
	/* capstone's AArch64 mode has text for every word but retaa, arch/arm64 for that one */
	CU_ASSERT_EQUAL(c.untold, 0);
	for (size_t i = 0; i < nr_fns; i++) {
		uint32_t id = fn_id(cf, fns[i].fn);
		const struct arc_fn_stats *s;

		CU_ASSERT_NOT_EQUAL_FATAL(id, CF_NO_FN);
		s = arcs_fn(a, id);
		CU_ASSERT_EQUAL(s->calls, fns[i].calls);
		CU_ASSERT_EQUAL(s->base, fns[i].base);
		CU_ASSERT_EQUAL(s->cum, fns[i].cum);
		if (s->calls != fns[i].calls || s->base != fns[i].base || s->cum != fns[i].cum)
			fprintf(stderr, "\n  %s%s: calls %lu base %lu cum %lu\n",
				fold ? "folded " : "", fns[i].fn, (unsigned long)s->calls,
				(unsigned long)s->base, (unsigned long)s->cum);
	}
	for (size_t i = 0; i < nr_arcs; i++) {
		const struct arc_edge *e = edge(a, arcs_want[i].caller, arcs_want[i].callee);

		CU_ASSERT_PTR_NOT_NULL_FATAL(e);
		CU_ASSERT_EQUAL(e->calls, arcs_want[i].calls);
		CU_ASSERT_EQUAL(e->cum, arcs_want[i].cum);
		if (e->calls != arcs_want[i].calls || e->cum != arcs_want[i].cum)
			fprintf(stderr, "\n  %s -> %s: calls %lu cum %lu\n",
				arcs_want[i].caller ?: "(root)", arcs_want[i].callee,
				(unsigned long)e->calls, (unsigned long)e->cum);
	}
	CU_ASSERT_EQUAL(arcs_check(a), 0);
	arcs_free(a);
	cf_free(cf);
	arch_decoder_free(c.dec);
	arch_select(arch_native_name());
}

/*
 * Stubs as frames: bl is a call, ret and retaa return, br into another
 * function's entry is a tail call (the callee's costs go to the arc from
 * the frame below: main -> h), and the PLT entry's and the veneer's br
 * reach their targets so.  28 steps by construction.
 */
static void test_call_flow(void)
{
	static const struct fn_want fns[] = {
		{ "main", 0, 8, 28 },	 { "f", 1, 2, 2 },	  { "h", 1, 2, 2 },
		{ "puts@plt", 1, 4, 4 }, { "puts", 1, 2, 2 },	  { "g", 1, 6, 10 },
		{ "g2@veneer", 1, 3, 3 }, { "g2", 1, 1, 1 },
	};
	static const struct arc_want arcs_want[] = {
		{ NULL, "main", 0, 28 },	{ "main", "f", 1, 2 },
		{ "f", "h", 1, 0 },		{ "main", "h", 0, 2 },
		{ "main", "puts@plt", 1, 4 },	{ "puts@plt", "puts", 1, 0 },
		{ "main", "puts", 0, 2 },	{ "main", "g", 1, 10 },
		{ "g", "g2@veneer", 1, 3 },	{ "g2@veneer", "g2", 1, 0 },
		{ "g", "g2", 0, 1 },
	};

	check_prog(false, fns, sizeof(fns) / sizeof(fns[0]), arcs_want,
		   sizeof(arcs_want) / sizeof(arcs_want[0]));
}

/*
 * Stubs folded (reports' default): the PLT entry and the veneer are no
 * frames, their steps are their caller's Base, and their targets are
 * called from the caller's bl.
 */
static void test_call_flow_folded(void)
{
	static const struct fn_want fns[] = {
		{ "main", 0, 12, 28 }, { "f", 1, 2, 2 }, { "h", 1, 2, 2 },
		{ "puts", 1, 2, 2 },   { "g", 1, 9, 10 }, { "g2", 1, 1, 1 },
	};
	static const struct arc_want arcs_want[] = {
		{ "main", "f", 1, 2 }, { "main", "puts", 1, 2 }, { "main", "g", 1, 10 },
		{ "g", "g2", 1, 1 },
	};

	check_prog(true, fns, sizeof(fns) / sizeof(fns[0]), arcs_want,
		   sizeof(arcs_want) / sizeof(arcs_want[0]));
}

static CU_TestInfo tests[] = {
	{ "exclusive sequences: exits and the paths to them", test_atomic_sequences },
	{ "PLT entries and their GOT slots, with and without BTI", test_plt_entries },
	{ "PLT of a real program (GNU ld): plain, BTI, PAC", test_plt_of_a_real_program },
	{ "veneers are shown as target@veneer", test_veneer_names },
	{ "exception classes, page faults, the kernel's half", test_vectors },
	{ "call flow: bl, blr, ret, retaa, br tail calls, PLT, veneer", test_call_flow },
	{ "call flow with stubs folded", test_call_flow_folded },
	CU_TEST_INFO_NULL,
};

UNIT_SUITE(arch_arm64, tests)
