// SPDX-License-Identifier: GPL-2.0
/*
 * Arc aggregation on synthetic step sequences: call trees per thread and
 * merged (all threads or some), trees of reconstructed callers, a tree as
 * deep as a long recursion, per-address counts.  The made-up program: main
 * 0x1000, f 0x2000, g 0x3000, r 0x5000 (calls itself), outer 0x7000
 * (one-byte instructions unless the table says otherwise).
 */
#include <stdlib.h>
#include <string.h>

#include "util/arcs.h"
#include "util/callflow.h"
#include "tests/unit/unit.h"

static const struct {
	const char *name;
	uint64_t start, end;
} fns[] = {
	{ "main", 0x1000, 0x2000 }, { "f", 0x2000, 0x3000 },
	{ "g", 0x3000, 0x4000 },    { "r", 0x5000, 0x6000 },
	{ "outer", 0x7000, 0x8000 },
};

/* main: 1001 call f, 1006 call g; f: 2001 call g, 2006 ret; g: 3001 ret; main 1007 ret */
static const struct {
	uint64_t pc;
	unsigned cls, len;
	uint64_t target;
} insns[] = {
	{ 0x1001, ARCH_INSN_CALL, 5, 0x2000 }, { 0x1006, ARCH_INSN_CALL, 5, 0x3000 },
	{ 0x100b, ARCH_INSN_RET, 1, 0 },       { 0x2001, ARCH_INSN_CALL, 5, 0x3000 },
	{ 0x2006, ARCH_INSN_RET, 1, 0 },       { 0x3001, ARCH_INSN_RET, 1, 0 },
	{ 0x5000, ARCH_INSN_CALL, 5, 0x5000 },
};

static void site(void *ctx, struct callflow *cf, uint32_t pid, uint64_t pc, uint8_t ring,
		 struct cf_site *out)
{
	(void)ctx; (void)pid; (void)ring;
	out->insn = (struct arch_insn){ .cls = ARCH_INSN_OTHER, .len = 1 };
	for (size_t i = 0; i < sizeof(insns) / sizeof(insns[0]); i++)
		if (insns[i].pc == pc)
			out->insn = (struct arch_insn){
				.cls = (uint8_t)insns[i].cls, .len = (uint8_t)insns[i].len,
				.flags = insns[i].target ? ARCH_INSN_HAS_TARGET : ARCH_INSN_INDIRECT,
				.target = insns[i].target,
			};
	for (size_t f = 0; f < sizeof(fns) / sizeof(fns[0]); f++)
		if (pc >= fns[f].start && pc < fns[f].end) {
			out->fn = cf_func_intern(cf, "prog", "/prog", fns[f].name, fns[f].start);
			out->entry = pc == fns[f].start;
		}
}

/* One run of main -> f -> g, main -> g: 11 steps. */
static const uint64_t run_pcs[] = {
	0x1000, 0x1001, 0x2000, 0x2001, 0x3000, 0x3001, 0x2006, 0x1006, 0x3000, 0x3001, 0x100b,
};

static struct arcs *feed(const uint32_t *tids, size_t nr_threads, const uint64_t *pcs, size_t n)
{
	struct cf_source src = { .site = site };
	struct callflow *cf = cf_new(&src);
	struct arcs *a = arcs_new(cf);
	uint64_t index = 0;

	/* threads interleave step by step */
	for (size_t i = 0; i < n; i++)
		for (size_t t = 0; t < nr_threads; t++) {
			struct trace_event ev = { .kind = TEV_STEP, .pid = 7, .tid = tids[t],
						  .pc = pcs[i], .index = index++ };

			cf_event(cf, &ev);
		}
	cf_finish(cf);
	return a;
}

/* The child of node with function name, ARC_NONE if none. */
static uint32_t child(const struct arcs *a, uint32_t node, const char *name)
{
	struct callflow *cf = arcs_callflow(a);

	for (uint32_t c = arcs_node(a, node)->first_child; c != ARC_NONE;
	     c = arcs_node(a, c)->next_sibling)
		if (!strcmp(cf_func(cf, arcs_node(a, c)->fn)->name, name))
			return c;
	return ARC_NONE;
}

/* Follow a path of names from node; ARC_NONE if it is not there. */
static uint32_t path(const struct arcs *a, uint32_t node, const char *const *names)
{
	for (; *names && node != ARC_NONE; names++)
		node = child(a, node, *names);
	return node;
}

static void test_tree_per_thread_and_merged(void)
{
	static const uint32_t tids[] = { 7, 8 };
	static const struct {
		const char *path[4];
		uint64_t calls, base, cum;	/* per thread; merged is twice this */
	} rows[] = {
		{ { "main" }, 0, 4, 11 },
		{ { "main", "f" }, 1, 3, 5 },
		{ { "main", "f", "g" }, 1, 2, 2 },
		{ { "main", "g" }, 1, 2, 2 },
	};
	struct arcs *a = feed(tids, 2, run_pcs, sizeof(run_pcs) / sizeof(run_pcs[0]));
	struct callflow *cf;
	uint32_t merged;

	CU_ASSERT_EQUAL(arcs_total(a), 22);
	CU_ASSERT_EQUAL_FATAL(arcs_nr_threads(a), 2);
	for (size_t t = 0; t < 2; t++) {
		uint32_t tid, root = arcs_thread_root(a, t, NULL, &tid);

		CU_ASSERT_EQUAL(tid, tids[t]);
		for (size_t r = 0; r < sizeof(rows) / sizeof(rows[0]); r++) {
			uint32_t n = path(a, root, rows[r].path);

			CU_ASSERT_NOT_EQUAL_FATAL(n, ARC_NONE);
			CU_ASSERT_EQUAL(arcs_node(a, n)->calls, rows[r].calls);
			CU_ASSERT_EQUAL(arcs_node(a, n)->base, rows[r].base);
			CU_ASSERT_EQUAL(arcs_node(a, n)->cum, rows[r].cum);
		}
	}
	merged = arcs_merged_root(a);
	CU_ASSERT_EQUAL(arcs_merged_root(a), merged);	/* built once */
	for (size_t r = 0; r < sizeof(rows) / sizeof(rows[0]); r++) {
		uint32_t n = path(a, merged, rows[r].path);

		CU_ASSERT_NOT_EQUAL_FATAL(n, ARC_NONE);
		CU_ASSERT_EQUAL(arcs_node(a, n)->calls, 2 * rows[r].calls);
		CU_ASSERT_EQUAL(arcs_node(a, n)->base, 2 * rows[r].base);
		CU_ASSERT_EQUAL(arcs_node(a, n)->cum, 2 * rows[r].cum);
	}
	CU_ASSERT_EQUAL(arcs_check(a), 0);
	cf = arcs_callflow(a);
	arcs_free(a);
	cf_free(cf);
}

static void test_merge_some_threads(void)
{
	static const uint32_t tids[] = { 7, 8, 9 };
	static const char *const main_f_g[] = { "main", "f", "g", NULL };
	struct arcs *a = feed(tids, 3, run_pcs, sizeof(run_pcs) / sizeof(run_pcs[0]));
	struct callflow *cf = arcs_callflow(a);
	const size_t two[] = { 0, 2 }, one[] = { 1 };
	uint32_t r2 = arcs_merge(a, two, 2), r1 = arcs_merge(a, one, 1), n;

	CU_ASSERT_NOT_EQUAL(r1, r2);	/* each merge is a tree of its own */
	n = path(a, r2, main_f_g);
	CU_ASSERT_NOT_EQUAL_FATAL(n, ARC_NONE);
	CU_ASSERT_EQUAL(arcs_node(a, n)->calls, 2);
	CU_ASSERT_EQUAL(arcs_node(a, n)->cum, 4);
	CU_ASSERT_EQUAL(arcs_node(a, path(a, r1, main_f_g))->cum, 2);
	CU_ASSERT_EQUAL(arcs_node(a, child(a, r2, "main"))->cum, 22);
	CU_ASSERT(arcs_nr_nodes(a) > r1);
	CU_ASSERT_EQUAL(arcs_check(a), 0);
	arcs_free(a);
	cf_free(cf);
}

/* A recursion 300000 calls deep: merging and checking its tree need no stack of that depth. */
static void test_deep_tree(void)
{
	enum { DEPTH = 300000 };
	static const uint32_t tid = 7;
	uint64_t *pcs = malloc(DEPTH * sizeof(*pcs));
	struct arcs *a;
	struct callflow *cf;
	uint32_t node, levels = 0;

	CU_ASSERT_FATAL(pcs != NULL);
	for (size_t i = 0; i < DEPTH; i++)
		pcs[i] = 0x5000;
	a = feed(&tid, 1, pcs, DEPTH);
	cf = arcs_callflow(a);
	for (node = arcs_node(a, arcs_merged_root(a))->first_child; node != ARC_NONE;
	     node = arcs_node(a, node)->first_child)
		levels++;
	CU_ASSERT_EQUAL(levels, DEPTH);
	CU_ASSERT_EQUAL(arcs_check(a), 0);
	arcs_free(a);
	cf_free(cf);
	free(pcs);
}

static void test_reconstructed_callers_in_the_tree(void)
{
	/* starts inside g, returns into f (2006), f returns to main (100b: unknown caller),
	 * main returns to outer */
	static const uint64_t pcs[] = { 0x3000, 0x3001, 0x2006, 0x100b, 0x7005 };
	static const uint32_t tid = 9;
	static const char *const outer_main_f_g[] = { "outer", "main", "f", "g", NULL };
	struct arcs *a = feed(&tid, 1, pcs, 5);
	uint32_t root = arcs_thread_root(a, 0, NULL, NULL), n;
	struct callflow *cf = arcs_callflow(a);

	n = path(a, root, outer_main_f_g);
	CU_ASSERT_NOT_EQUAL_FATAL(n, ARC_NONE);
	CU_ASSERT_EQUAL(arcs_node(a, n)->cum, 2);
	CU_ASSERT_EQUAL(arcs_node(a, arcs_node(a, n)->parent)->cum, 3);		/* f */
	CU_ASSERT_EQUAL(arcs_node(a, child(a, root, "outer"))->parent, root);
	CU_ASSERT_EQUAL(arcs_node(a, child(a, root, "outer"))->cum, 5);
	/* nothing else at the top: the old roots moved under their callers */
	CU_ASSERT_EQUAL(arcs_node(a, arcs_node(a, root)->first_child)->next_sibling, ARC_NONE);
	CU_ASSERT_EQUAL(arcs_check(a), 0);
	arcs_free(a);
	cf_free(cf);
}

static void test_address_counts(void)
{
	static const uint32_t tid = 7;
	struct arcs *a = feed(&tid, 1, run_pcs, sizeof(run_pcs) / sizeof(run_pcs[0]));
	struct callflow *cf = arcs_callflow(a);
	uint64_t sum = 0, at_3000 = 0;

	for (size_t i = 0; i < arcs_nr_pcs(a); i++) {
		const struct arc_pc *p = arcs_pc(a, i);

		sum += p->count;
		if (p->pc == 0x3000) {
			at_3000 += p->count;
			CU_ASSERT_STRING_EQUAL(cf_func(cf, p->fn)->name, "g");
		}
	}
	CU_ASSERT_EQUAL(sum, arcs_total(a));
	CU_ASSERT_EQUAL(at_3000, 2);
	CU_ASSERT_EQUAL(arcs_nr_pcs(a), 9);	/* distinct addresses of run_pcs */
	arcs_free(a);
	cf_free(cf);
}

static CU_TestInfo tests[] = {
	{ "call trees per thread and merged", test_tree_per_thread_and_merged },
	{ "merging some threads' trees", test_merge_some_threads },
	{ "a tree as deep as a long recursion", test_deep_tree },
	{ "reconstructed callers become tree parents", test_reconstructed_callers_in_the_tree },
	{ "per-address counts add up to the steps", test_address_counts },
	CU_TEST_INFO_NULL,
};

UNIT_SUITE(arcs, tests)
