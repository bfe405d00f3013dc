// SPDX-License-Identifier: GPL-2.0
/*
 * The rows of post annotate (post/annotate_view.h) for functions written
 * out by hand: the jump arrows drawn for each shape of jumps (a loop, a
 * rotated loop entered by a jump, several jumps to one target, more
 * arrows than lanes, an indirect jump's targets), the notes on branches
 * and the hottest rows, one case a row.
 */
#include <stdio.h>
#include <string.h>

#include "post/annotate_view.h"
#include "tests/unit/unit.h"

#define MAX_INSNS 20

/* An instruction at base + i: its class, its direct target (index, -1: none), its count. */
struct insn_case {
	uint8_t cls;
	int target;
	uint64_t count;
	bool indirect;
};

#define INSN(cls, target, count) { cls, target, count, false }
#define INDIRECT(count) { ARCH_INSN_JUMP, -1, count, true }

struct jump_case {
	int from, to;
	uint64_t count;
};

static const struct {
	const char *what;
	struct insn_case insns[MAX_INSNS];
	struct jump_case jumps[4];
	const char *gutter[MAX_INSNS]; /* per row; NULL: all blank */
	const char *note[MAX_INSNS];
	const char *hot;	  /* '*' for each hot row */
} cases[] = {
	{
		"a loop: labels.S's beta, 4 passes",
		{ INSN(ARCH_INSN_OTHER, -1, 1), INSN(ARCH_INSN_OTHER, -1, 4), INSN(ARCH_INSN_OTHER, -1, 4),
		  INSN(ARCH_INSN_COND, 1, 4), INSN(ARCH_INSN_RET, -1, 1) },
		{ { 3, 1, 3 } },
		{ "   ", "/->", "|  ", "\\--", "   " },
		{ [3] = "taken 3 of 4" },
		" *** ",
	},
	{
		"a rotated loop entered by a jump to its test (gcc -O0's for)",
		{ INSN(ARCH_INSN_OTHER, -1, 1), INSN(ARCH_INSN_JUMP, 5, 1), INSN(ARCH_INSN_OTHER, -1, 10),
		  INSN(ARCH_INSN_OTHER, -1, 10), INSN(ARCH_INSN_OTHER, -1, 10), INSN(ARCH_INSN_OTHER, -1, 11),
		  INSN(ARCH_INSN_COND, 2, 11), INSN(ARCH_INSN_RET, -1, 1) },
		{ { 1, 5, 1 }, { 6, 2, 10 } },
		{ "     ", "  /--", "/-|->", "| |  ", "| |  ", "| \\->", "\\----", "     " },
		{ [6] = "taken 10 of 11" },
		"  ***** ",
	},
	{
		"two jumps to one target: one arrow, the nearer source a '+'",
		{ INSN(ARCH_INSN_OTHER, -1, 3), INSN(ARCH_INSN_COND, 0, 3), INSN(ARCH_INSN_OTHER, -1, 1),
		  INSN(ARCH_INSN_JUMP, 0, 1) },
		{ { 1, 0, 2 }, { 3, 0, 1 } },
		{ "/->", "+--", "|  ", "\\--" },
		{ [1] = "taken 2 of 3" },
		"**  ",
	},
	{
		"code that ran alike: nothing hot, no arrows",
		{ INSN(ARCH_INSN_OTHER, -1, 2), INSN(ARCH_INSN_OTHER, -1, 2), INSN(ARCH_INSN_RET, -1, 2) },
		{ { 0 } },
		{ NULL },
		{ NULL },
		"   ",
	},
	{
		"an indirect jump: arrows to the targets it took, most taken first",
		{ INDIRECT(8), INSN(ARCH_INSN_OTHER, -1, 0), INSN(ARCH_INSN_RET, -1, 3),
		  INSN(ARCH_INSN_RET, -1, 5) },
		{ { 0, 3, 5 }, { 0, 2, 3 } },
		{ "/-/--", "| |  ", "| \\->", "\\--->" },
		{ [0] = "-> 0x103 5x, 0x102 3x" },
		"*  *",
	},
};

/* Nine jumps nested inside each other: eight lanes, the outermost left out. */
static void test_lanes_run_out(void)
{
	struct annot_insn insns[18] = { 0 };
	struct annot_fn f = { .name = "nine", .module = "m", .insns = insns, .nr_insns = 18 };
	struct source_files *sf = source_files_new(NULL);
	struct annot_view *v;

	for (int i = 0; i < 18; i++) {
		insns[i] = (struct annot_insn){ .addr = 0x100 + i, .len = 1, .count = 1,
						.cls = ARCH_INSN_OTHER, .listed = true };
		if (i >= 9) {
			insns[i].cls = ARCH_INSN_JUMP;
			insns[i].flags = ARCH_INSN_HAS_TARGET;
			insns[i].target = 0x100 + (17 - i);
		}
	}
	v = annot_view_new(&f, ANNOT_ASM, sf, 5);
	CU_ASSERT_PTR_NOT_NULL_FATAL(v);
	CU_ASSERT_EQUAL(v->arrows, ANNOT_LANES);
	CU_ASSERT_EQUAL(v->arrows_left_out, 1);
	CU_ASSERT_EQUAL(v->gutter_width, 2 * ANNOT_LANES + 1);
	/* the innermost arrow (8 -> 9's target 8) is nearest the code */
	CU_ASSERT_STRING_EQUAL(v->rows[8].gutter, "| | | | | | | /->");
	CU_ASSERT_STRING_EQUAL(v->rows[9].gutter, "| | | | | | | \\--");
	/* the outermost (17 -> 0) has no lane: rows 0 and 17 are blank */
	CU_ASSERT_STRING_EQUAL(v->rows[0].gutter, "                 ");
	CU_ASSERT_STRING_EQUAL(v->rows[17].gutter, "                 ");
	annot_view_free(v);
	source_files_free(sf);
}

static void test_cases(void)
{
	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		struct annot_insn insns[MAX_INSNS] = { 0 };
		struct annot_jump jumps[4] = { 0 };
		struct annot_fn f = { .name = cases[c].what, .module = "m", .insns = insns,
				      .jumps = jumps };
		struct source_files *sf = source_files_new(NULL);
		struct annot_view *v;

		for (size_t i = 0; i < MAX_INSNS && cases[c].insns[i].cls; i++) {
			const struct insn_case *k = &cases[c].insns[i];

			insns[i] = (struct annot_insn){ .addr = 0x100 + i, .len = 1, .cls = k->cls,
							.count = k->count, .listed = true };
			if (k->target >= 0) {
				insns[i].flags = ARCH_INSN_HAS_TARGET;
				insns[i].target = 0x100 + (uint64_t)k->target;
			}
			if (k->indirect)
				insns[i].flags = ARCH_INSN_INDIRECT;
			f.nr_insns++;
			f.base += k->count;
		}
		for (size_t j = 0; j < 4 && cases[c].jumps[j].count; j++) {
			const struct jump_case *k = &cases[c].jumps[j];

			jumps[j] = (struct annot_jump){ 0x100 + (uint64_t)k->from,
							0x100 + (uint64_t)k->to, k->count,
							insns[k->from].cls };
			f.nr_jumps++;
		}
		v = annot_view_new(&f, ANNOT_ASM, sf, 5);
		CU_ASSERT_PTR_NOT_NULL_FATAL(v);
		CU_ASSERT_EQUAL(v->nr_rows, f.nr_insns);
		CU_ASSERT_EQUAL(v->arrows_left_out, 0);
		for (size_t r = 0; r < v->nr_rows; r++) {
			const char *want = cases[c].gutter[0] ? cases[c].gutter[r] : "";
			const char *note = cases[c].note[r] ? cases[c].note[r] : "";
			bool hot = cases[c].hot[r] == '*';

			if (strcmp(v->rows[r].gutter, want) || strcmp(v->rows[r].note, note) ||
			    v->rows[r].hot != hot)
				fprintf(stderr, "\n%s, row %zu: gutter '%s' note '%s' hot %d; expected "
					"'%s' '%s' %d\n", cases[c].what, r, v->rows[r].gutter,
					v->rows[r].note, v->rows[r].hot, want, note, hot);
			CU_ASSERT_STRING_EQUAL(v->rows[r].gutter, want);
			CU_ASSERT_STRING_EQUAL(v->rows[r].note, note);
			CU_ASSERT_EQUAL(v->rows[r].hot, hot);
		}
		annot_view_free(v);
		source_files_free(sf);
	}
}

static CU_TestInfo annotate_view_tests[] = {
	{ "arrows, notes and hot rows of hand-written functions", test_cases },
	{ "more nested jumps than lanes", test_lanes_run_out },
	CU_TEST_INFO_NULL,
};

UNIT_SUITE(annotate_view, annotate_view_tests);
