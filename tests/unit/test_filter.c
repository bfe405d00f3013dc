// SPDX-License-Identifier: GPL-2.0
/* util/filter.c: name pattern lists, and the module and symbol filters built on them. */
#include <string.h>

#include "util/filter.h"
#include "tests/unit/unit.h"

/* One row: does the pattern list take the name? */
static const struct {
	const char *list;
	const char *name;
	bool symbol;		  /* a function's name (else a module's) */
	bool want;
} pattern_rows[] = {
	{ "strlen", "strlen", true, true },
	{ "strlen", "strlen2", true, false },
	{ "strlen,strcmp", "strcmp", true, true },
	{ "strlen\nstrcmp", "strcmp", true, true },	/* a repeated option */
	/* an ifunc's name takes glibc's implementations, =NAME does not */
	{ "strlen", "__strlen_evex", true, true },
	{ "strlen", "__strlen_avx2_rtm", true, true },
	{ "strlen", "__strlen", true, false },
	{ "strlen", "__strlen_", true, false },
	{ "strlen", "__strlenx_evex", true, false },
	{ "=strlen", "__strlen_evex", true, false },
	{ "=strlen", "strlen", true, true },
	{ "strlen", "__strlen_evex", false, false },	/* modules have no ifuncs */
	/* globs, and names that look like globs match themselves */
	{ "str*", "strcmp@plt", true, true },
	{ "str*", "memcpy", true, false },
	{ "__str?en_*", "__strlen_evex", true, true },
	{ "operator[]", "operator[]", true, true },
	{ "f(char*)", "f(char*)", true, true },
	/* regular expressions, found anywhere unless anchored */
	{ "re:len", "__strlen_evex", true, true },
	{ "re:^len", "__strlen_evex", true, false },
	{ "re:^(strlen|memcpy)$", "memcpy", true, true },
	{ "re:a{1,2}b", "aab", true, true },	/* a comma in braces does not split */
	/* commas inside brackets belong to the name */
	{ "f(int, char),g", "f(int, char)", true, true },
	{ "std::pair<int, int>::swap", "std::pair<int, int>::swap", true, true },
	{ "h,f(int, char)", "h", true, true },
	/* C++: the mangled form of a demangled name */
	{ "ns::f(int)", "_ZN2ns1fEi", true, true },
};

static void test_pattern_rows(void)
{
	for (size_t i = 0; i < sizeof(pattern_rows) / sizeof(pattern_rows[0]); i++) {
		struct name_patterns p;
		char err[256];
		bool got = false;

		CU_ASSERT_EQUAL_FATAL(name_patterns_parse(&p, pattern_rows[i].list, err,
							  sizeof(err)), 0);
		for (size_t k = 0; k < p.n; k++)
			got |= name_pattern_match(&p.v[k], pattern_rows[i].name,
						  pattern_rows[i].symbol) ||
			       (pattern_rows[i].symbol &&
				name_pattern_ifunc_variant(&p.v[k], pattern_rows[i].name));
		if (got != pattern_rows[i].want)
			fprintf(stderr, "\n  '%s' on '%s': %d\n", pattern_rows[i].list,
				pattern_rows[i].name, got);
		CU_ASSERT_EQUAL(got, pattern_rows[i].want);
		name_patterns_free(&p);
	}
}

static void test_pattern_items(void)
{
	struct name_patterns p;
	char err[256];

	CU_ASSERT_EQUAL_FATAL(name_patterns_parse(&p, "a,re:b\n=c,d*,f(x, y)", err,
						  sizeof(err)), 0);
	CU_ASSERT_EQUAL_FATAL(p.n, 5);
	CU_ASSERT_EQUAL(p.v[0].kind, NAME_PAT_NAME);
	CU_ASSERT_EQUAL(p.v[1].kind, NAME_PAT_REGEX);
	CU_ASSERT_STRING_EQUAL(p.v[1].text, "b");
	CU_ASSERT_STRING_EQUAL(p.v[1].item, "re:b");
	CU_ASSERT_EQUAL(p.v[2].kind, NAME_PAT_EXACT);
	CU_ASSERT_STRING_EQUAL(p.v[2].text, "c");
	CU_ASSERT_EQUAL(p.v[3].kind, NAME_PAT_GLOB);
	CU_ASSERT_STRING_EQUAL(p.v[4].text, "f(x, y)");
	name_patterns_free(&p);
}

static void test_pattern_errors(void)
{
	static const char *const bad[] = { "re:(", "a,,b", "", "=", "re:", "a," };
	struct name_patterns p;
	char err[256];

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		CU_ASSERT_EQUAL(name_patterns_parse(&p, bad[i], err, sizeof(err)), -1);
		CU_ASSERT(err[0] != '\0');
		CU_ASSERT_EQUAL(p.n, 0);
	}
	name_patterns_parse(&p, "re:(", err, sizeof(err));
	CU_ASSERT_STRING_EQUAL(strstr(err, "'('"), "'(' is not a regular expression: "
		       "Unmatched ( or \\(");
}

/* --module: every name of a module, the stem before .so, [vdso] without brackets. */
static const struct {
	const char *list, *module, *path;
	bool want;
} module_rows[] = {
	{ "libc.so.6", "libc.so.6", "/usr/lib/libc.so.6", true },
	{ "libc", "libc.so.6", "/usr/lib/libc.so.6", true },
	{ "/usr/lib/libc.so.6", "libc.so.6", "/usr/lib/libc.so.6", true },
	{ "lib*", "libc.so.6", "/usr/lib/libc.so.6", true },
	{ "libm", "libc.so.6", "/usr/lib/libc.so.6", false },
	{ "vdso", "[vdso]", "[vdso]", true },
	{ "[vdso]", "[vdso]", "[vdso]", true },
	{ "vds", "[vdso]", "[vdso]", false },
	{ "prog,vdso", "prog", "/bin/prog", true },
	{ "re:^ld-", "ld-linux-x86-64.so.2", "/lib64/ld-linux-x86-64.so.2", true },
};

static void test_filter_module(void)
{
	for (size_t i = 0; i < sizeof(module_rows) / sizeof(module_rows[0]); i++) {
		struct session_filter f = SESSION_FILTER_INIT;
		struct filter fl;

		f.module = module_rows[i].list;
		CU_ASSERT_EQUAL_FATAL(filter_init(&fl, &f), 0);
		CU_ASSERT_EQUAL(filter_module(&fl, module_rows[i].module, module_rows[i].path),
				module_rows[i].want);
		CU_ASSERT_EQUAL(fl.module_matched, module_rows[i].want);
		filter_free(&fl);
	}
}

/* A list's items are tracked one by one: the one that matched nothing is the one warned. */
static void test_filter_symbol_items(void)
{
	struct session_filter f = SESSION_FILTER_INIT;
	struct filter fl;

	f.symbol = "strlen\nnosuch,re:^mem";
	CU_ASSERT_EQUAL_FATAL(filter_init(&fl, &f), 0);
	CU_ASSERT(filter_symbol(&fl, "__strlen_evex", NULL));
	CU_ASSERT(filter_symbol(&fl, "memcpy", NULL));
	CU_ASSERT(!filter_symbol(&fl, "strcmp", NULL));
	CU_ASSERT_EQUAL_FATAL(fl.symbols_pat.n, 3);
	CU_ASSERT(fl.symbols_pat.v[0].matched);
	CU_ASSERT(!fl.symbols_pat.v[1].matched);
	CU_ASSERT(fl.symbols_pat.v[2].matched);
	filter_free(&fl);

	f.symbol = "re:(";
	CU_ASSERT_EQUAL(filter_init(&fl, &f), -1);
}

static bool only_strlen_is_ifunc(void *ctx, const char *name)
{
	(void)ctx;
	return !strcmp(name, "strlen");
}

/* __NAME_* are an ifunc's implementations only when the modules say NAME is an ifunc. */
static void test_filter_ifunc(void)
{
	struct session_filter f = SESSION_FILTER_INIT;
	struct filter fl;

	f.symbol = "strlen,foo";
	CU_ASSERT_EQUAL_FATAL(filter_init(&fl, &f), 0);
	CU_ASSERT(filter_symbol(&fl, "__foo_bar", NULL));	/* no modules to ask: taken */
	fl.is_ifunc = only_strlen_is_ifunc;
	CU_ASSERT(filter_symbol(&fl, "__strlen_evex", NULL));
	CU_ASSERT(filter_symbol(&fl, "strlen", NULL));
	CU_ASSERT(!filter_symbol(&fl, "__foo_bar", NULL));
	CU_ASSERT(filter_symbol(&fl, "foo", NULL));
	filter_free(&fl);
}

static CU_TestInfo filter_tests[] = {
	{ "name patterns, one row a case", test_pattern_rows },
	{ "a list's items and their kinds", test_pattern_items },
	{ "lists that do not parse", test_pattern_errors },
	{ "--module by every name of a module", test_filter_module },
	{ "--symbol's items tracked one by one", test_filter_symbol_items },
	{ "an ifunc's implementations, only an ifunc's", test_filter_ifunc },
	CU_TEST_INFO_NULL,
};
UNIT_SUITE(filter, filter_tests);
