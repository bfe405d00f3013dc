// SPDX-License-Identifier: GPL-2.0
/* Process selections for driver sessions: parsing, printing, matching. */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "pitrace/driver_session.h"
#include "tests/unit/unit.h"

/* One row a case: an option as typed, and the selection (or error) it gives. */
static const struct {
	const char *opt, *arg;
	int ret;		  /* 0 ok, -1 usage error */
	uint32_t kind;
	uint32_t nr_pids, pids[4];
	uint32_t lo, hi;
	const char *comm;
	const char *text;	  /* sel_format() */
} parses[] = {
/* A row whose option is refused as a usage error. */
#define BAD(o, a) { .opt = o, .arg = a, .ret = -1 }
	{ "all", NULL, 0, PITRACE_SEL_ALL, .text = "all processes" },
	{ "pid", "42", 0, PITRACE_SEL_PIDS, 1, { 42 }, .text = "pid 42" },
	{ "pid", "12,13,4000", 0, PITRACE_SEL_PIDS, 3, { 12, 13, 4000 }, .text = "pids 12,13,4000" },
	BAD("pid", ""),
	BAD("pid", NULL),
	BAD("pid", "12,"),
	BAD("pid", ",12"),
	BAD("pid", "0"),
	BAD("pid", "-3"),
	BAD("pid", "12x"),
	BAD("pid", "99999999999"),
	{ "pid-range", "100-200", 0, PITRACE_SEL_RANGE, .lo = 100, .hi = 200, .text = "pids 100-200" },
	{ "pid-range", "7-7", 0, PITRACE_SEL_RANGE, .lo = 7, .hi = 7, .text = "pids 7-7" },
	BAD("pid-range", "200-100"),
	BAD("pid-range", "100"),
	BAD("pid-range", "100-"),
	BAD("pid-range", "a-b"),
	{ "pid-min", "1000", 0, PITRACE_SEL_MIN, .lo = 1000, .text = "pids >= 1000" },
	BAD("pid-min", "x"),
	{ "comm", "loop", 0, PITRACE_SEL_COMM, .comm = "loop", .text = "comm loop" },
	{ "comm", "exactly15chars_", 0, PITRACE_SEL_COMM, .comm = "exactly15chars_",
	  .text = "comm exactly15chars_" },
	BAD("comm", "sixteen_chars___"),
	{ "tree", "1", 0, PITRACE_SEL_TREE, 1, { 1 }, .text = "tree of pid 1" },
	BAD("tree", "1,2"),
	BAD("nonsense", "1"),
#undef BAD
};

/* sel_parse prints its usage errors: those rows are expected to, quietly. */
static int parse_quietly(const char *opt, const char *arg, struct pitrace_select *sel)
{
	int saved = dup(STDERR_FILENO), null = open("/dev/null", O_WRONLY);
	int ret;

	fflush(stderr);
	if (null >= 0)
		dup2(null, STDERR_FILENO);
	ret = sel_parse(opt, arg, sel);
	fflush(stderr);
	if (saved >= 0) {
		dup2(saved, STDERR_FILENO);
		close(saved);
	}
	if (null >= 0)
		close(null);
	return ret;
}

static void test_sel_parse(void)
{

	for (size_t i = 0; i < sizeof(parses) / sizeof(parses[0]); i++) {
		struct pitrace_select sel;
		char text[256];
		int ret;

		ret = parse_quietly(parses[i].opt, parses[i].arg, &sel);
		CU_ASSERT_EQUAL(ret, parses[i].ret);
		if (ret != parses[i].ret)
			printf("\n  row %zu: --%s %s\n", i, parses[i].opt,
			       parses[i].arg ? parses[i].arg : "(none)");
		if (ret || parses[i].ret)
			continue;
		CU_ASSERT_EQUAL(sel.kind, parses[i].kind);
		CU_ASSERT_EQUAL(sel.nr_pids, parses[i].nr_pids);
		for (uint32_t p = 0; p < parses[i].nr_pids; p++)
			CU_ASSERT_EQUAL(sel.pids[p], parses[i].pids[p]);
		if (parses[i].kind == PITRACE_SEL_RANGE || parses[i].kind == PITRACE_SEL_MIN) {
			CU_ASSERT_EQUAL(sel.pid_lo, parses[i].lo);
			CU_ASSERT_EQUAL(sel.pid_hi, parses[i].hi);
		}
		if (parses[i].comm)
			CU_ASSERT_STRING_EQUAL(sel.comm, parses[i].comm);
		sel_format(&sel, text, sizeof(text));
		CU_ASSERT_STRING_EQUAL(text, parses[i].text);
	}
}

/* One row a case: a selection, a process, whether the driver would step it. */
static const struct {
	const char *opt, *arg;
	uint32_t pid;
	const char *comm;
	bool match;
} matches[] = {
	{ "all", NULL, 1, "init", true },
	{ "pid", "5,9", 9, "x", true },
	{ "pid", "5,9", 7, "x", false },
	{ "pid-range", "10-20", 10, "x", true },
	{ "pid-range", "10-20", 20, "x", true },
	{ "pid-range", "10-20", 21, "x", false },
	{ "pid-range", "10-20", 9, "x", false },
	{ "pid-min", "300", 299, "x", false },
	{ "pid-min", "300", 300, "x", true },
	{ "comm", "loop", 77, "loop", true },
	{ "comm", "loop", 77, "loop2", false },
	{ "comm", "loop", 77, "loo", false },
	{ "comm", "loop", 77, NULL, false },
	{ "tree", "40", 40, "x", true },
	{ "tree", "40", 41, "x", false },	/* descendants: followed through forks */
};

static void test_sel_match(void)
{
	for (size_t i = 0; i < sizeof(matches) / sizeof(matches[0]); i++) {
		struct pitrace_select sel;

		CU_ASSERT_EQUAL_FATAL(sel_parse(matches[i].opt, matches[i].arg, &sel), 0);
		CU_ASSERT_EQUAL(sel_match(&sel, matches[i].pid, matches[i].comm), matches[i].match);
	}
}

static void test_mode_names(void)
{
	static const char *const names[] = { "step", "block", "count" };

	for (int m = 0; m < 3; m++) {
		CU_ASSERT_EQUAL(mode_parse(names[m]), m);
		CU_ASSERT_STRING_EQUAL(mode_name((uint32_t)m), names[m]);
	}
	CU_ASSERT_EQUAL(mode_parse("steps"), -1);
	CU_ASSERT_STRING_EQUAL(mode_name(99), "unknown");
	CU_ASSERT_STRING_EQUAL(policy_name(PITRACE_POLICY_WRAP), "wrap");
}

static const CU_TestInfo driver_session_tests[] = {
	{ "selection options parse and print", test_sel_parse },
	{ "selections match processes like the driver", test_sel_match },
	{ "mode names", test_mode_names },
	CU_TEST_INFO_NULL,
};

UNIT_SUITE(driver_session, driver_session_tests)
