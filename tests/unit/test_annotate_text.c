// SPDX-License-Identifier: GPL-2.0
/*
 * The text of annotate's rows (post/annotate_text.h), as post annotate
 * prints them and the viewer shows them: one row a case (a counted
 * instruction with its arrow, target and note, a source line with code and
 * one without, tabs and control characters, a gap, another file's lines),
 * the heading, and a row cut by a short buffer.
 */
#include <string.h>

#include "post/annotate_text.h"
#include "tests/unit/unit.h"

/* labels.S's beta: 14 steps, its loop's branch back taken 3 of 4 */
static struct annot_insn jne = {
	.addr = 0x401021, .count = 4, .len = 2, .cls = ARCH_INSN_COND,
	.flags = ARCH_INSN_HAS_TARGET, .target = 0x40101d, .target_sym = "beta", .target_off = 2,
	.text = "jne 0x40101d",
};
static struct annot_insn ret = { .addr = 0x401023, .count = 0, .len = 1, .text = "ret" };

static const struct {
	const char *what;
	struct annot_row row;
	const char *want;
} cases[] = {
	{ "a hot branch with its arrow, target and note",
	  { .kind = ANNOT_ROW_INSN, .insn = &jne, .counted = true, .count = 4, .hot = true,
	    .gutter = "\\--", .note = "taken 3 of 4" },
	  "      4  28.57% *               401021:  \\-- jne 0x40101d <beta+0x2>  # taken 3 of 4" },
	{ "an instruction that never ran: 0, and no blanks after its text",
	  { .kind = ANNOT_ROW_INSN, .insn = &ret, .counted = true, .gutter = "   " },
	  "      0   0.00%                 401023:      ret" },
	{ "a line with code: its label (the function's own file: the number)",
	  { .kind = ANNOT_ROW_LINE, .file = "/src/labels.S", .line = 28, .text = "1:\tadd %ecx, %eax",
	    .code = true, .counted = true, .count = 4, .hot = true, .gutter = "/->" },
	  "      4  28.57% *           28           /-> 1:      add %ecx, %eax" },
	{ "a line of another file: file:line, its count only on its first row",
	  { .kind = ANNOT_ROW_LINE, .file = "/usr/include/x86_64-linux-gnu/bits/stdio2.h",
	    .line = 86, .text = "  return __printf_chk (__fmt);", .code = true, .gutter = "   " },
	  "                   stdio2.h:86                 return __printf_chk (__fmt);" },
	{ "a line without code: '.', control characters as '?'",
	  { .kind = ANNOT_ROW_LINE, .file = "/src/labels.S", .line = 24, .text = "\tnop\x1b[31m",
	    .gutter = "   " },
	  "      .                     24                       nop?[31m" },
	{ "a line whose text cannot be read: its label only",
	  { .kind = ANNOT_ROW_LINE, .file = "/src/labels.S", .line = 33, .gutter = "   " },
	  "      .                     33" },
	{ "lines left out", { .kind = ANNOT_ROW_GAP, .line = 40, .gutter = "|  " },
	  "                           ...           |" },
	{ "another file's lines follow", { .kind = ANNOT_ROW_FILE, .file = "/usr/include/stdio.h" },
	  "lines in /usr/include/stdio.h:" },
};

static void test_rows(void)
{
	struct annot_fn f = { .name = "beta", .module = "labels", .base = 14,
			      .file = "/src/labels.S" };
	struct annot_row rows[sizeof(cases) / sizeof(cases[0])];
	struct annot_view v = { .f = &f, .mode = ANNOT_MIXED, .rows = rows,
				.nr_rows = sizeof(rows) / sizeof(rows[0]), .gutter_width = 3 };
	struct annot_widths w;
	char buf[256];

	for (size_t c = 0; c < v.nr_rows; c++)
		rows[c] = cases[c].row;
	w = annot_text_widths(&v);
	CU_ASSERT_EQUAL(w.count, 7);
	CU_ASSERT_EQUAL(w.line, (int)strlen("stdio2.h:86"));
	CU_ASSERT_EQUAL(w.addr, (int)strlen("401021:"));
	annot_text_heading(&v, &w, '#', buf, sizeof(buf));
	CU_ASSERT_STRING_EQUAL(buf, "# count percent           line  address      source / instruction");
	for (size_t c = 0; c < v.nr_rows; c++) {
		size_t n = annot_text_row(&v, &rows[c], &w, f.base, buf, sizeof(buf));

		if (strcmp(buf, cases[c].want))
			fprintf(stderr, "\n%s:\n  got  '%s'\n  want '%s'\n", cases[c].what, buf,
				cases[c].want);
		CU_ASSERT_STRING_EQUAL(buf, cases[c].want);
		CU_ASSERT_EQUAL(n, strlen(cases[c].want));
	}
}

/* A row longer than the buffer: cut, NUL-terminated, the length it needs returned. */
static void test_cut(void)
{
	struct annot_fn f = { .name = "beta", .module = "labels", .base = 14 };
	struct annot_row row = { .kind = ANNOT_ROW_INSN, .insn = &jne, .counted = true,
				 .count = 4, .gutter = "" };
	struct annot_view v = { .f = &f, .mode = ANNOT_ASM, .rows = &row, .nr_rows = 1 };
	struct annot_widths w = annot_text_widths(&v);
	char whole[256], cut[10];
	size_t n = annot_text_row(&v, &row, &w, f.base, whole, sizeof(whole));

	CU_ASSERT_STRING_EQUAL(whole, "      4  28.57%    401021:  jne 0x40101d <beta+0x2>");
	CU_ASSERT_EQUAL(annot_text_row(&v, &row, &w, f.base, cut, sizeof(cut)), n);
	CU_ASSERT_EQUAL(strlen(cut), sizeof(cut) - 1);
	CU_ASSERT_EQUAL(strncmp(cut, whole, sizeof(cut) - 1), 0);
}

/* Why a function's code or lines are not shown whole. */
static void test_why(void)
{
	char buf[256];
	struct annot_fn plt = { .name = "puts@plt", .module = "a.out", .module_path = "/bin/a.out",
				.code = ANNOT_CODE_READ };
	struct annot_fn big = { .name = "huge", .module = "a.out", .module_path = "/bin/a.out",
				.code = ANNOT_CODE_TRUNCATED, .size = 3u << 20 };
	struct annot_fn kernel = { .name = "schedule", .module = "[kernel]",
				   .module_path = "[kernel]", .ring = 1,
				   .code = ANNOT_CODE_UNREADABLE };

	CU_ASSERT_PTR_NULL(annot_why_no_code(&plt, buf, sizeof(buf)));
	CU_ASSERT_STRING_EQUAL(annot_why_no_lines(&plt, buf, sizeof(buf)),
			       "a PLT entry: code the linker made");
	CU_ASSERT_STRING_EQUAL(annot_why_no_code(&big, buf, sizeof(buf)),
			       "3145728 bytes: its first 1048576 are listed");
	CU_ASSERT_PTR_NOT_NULL(strstr(annot_why_no_code(&kernel, buf, sizeof(buf)), "--vmlinux"));
	CU_ASSERT_PTR_NOT_NULL(strstr(annot_why_no_lines(&kernel, buf, sizeof(buf)), "vmlinux"));
}

static CU_TestInfo annotate_text_tests[] = {
	{ "rows as text, one case a row", test_rows },
	{ "a row cut by a short buffer", test_cut },
	{ "why code or lines are not shown", test_why },
	CU_TEST_INFO_NULL,
};

UNIT_SUITE(annotate_text, annotate_text_tests);
