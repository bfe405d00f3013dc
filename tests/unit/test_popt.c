// SPDX-License-Identifier: GPL-2.0
/*
 * Option tables (util/popt.h): what getopt_long makes of a command line
 * through one table, the one line printed for every mistake, which names
 * the option it is about, and the help of a command's variants.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/log.h"
#include "util/popt.h"
#include "tests/unit/unit.h"

/* What the callbacks saw: "name=arg" per option, space-separated. */
static char seen[512];

static int note(const struct popt *o, const char *arg, const char *cmd)
{
	size_t len = strlen(seen);

	(void)cmd;
	snprintf(seen + len, sizeof(seen) - len, "%s%s=%s", len ? " " : "",
		 o->long_name ? o->long_name : "?", arg ? arg : "");
	return 0;
}

enum { V_ONE = 1, V_TWO = 2 };

static const struct popt defs[] = {
	OPT_CALLBACK('o', "output", NULL, "DIR", note, "trace directory"),
	OPT_CALLBACK(0, "on", NULL, "SYMBOL", note, "only inside SYMBOL\nsecond line"),
	OPT_CALLBACK(0, "follow-fork", NULL, NULL, note, "children too"),
	OPT_CALLBACK(0, "kernel", NULL, "syscalls", note, "the kernel as well", .optional = true,
		     .variants = V_TWO),
	OPT_CALLBACK(0, "mode", NULL, "step|block", note, "one's modes", .variants = V_ONE),
	OPT_CALLBACK(0, "mode", NULL, "step|block|count", note, "two's modes", .variants = V_TWO),
	OPT_CALLBACK('z', "compress", NULL, NULL, note, "zstd"),
	OPT_HELP("this help"),
	OPT_END
};
static const struct popt *const tables[] = { defs, NULL };

/* A command line and what parsing it gives: the options seen, then
 * "operand:X" for the first operand, "help", or the error line. */
static const struct {
	const char *args;	  /* space-separated */
	const char *want;
} cases[] = {
	{ "-o d --on f -z", "output=d on=f compress=" },
	{ "--output=d --on=f", "output=d on=f" },
	{ "-zod", "compress= output=d" },
	{ "--kernel --kernel=syscalls", "kernel= kernel=syscalls" },
	{ "--mode block", "mode=block" },			/* a variant: its first entry */
	{ "--mo count", "mode=count" },				/* a unique prefix */
	{ "--fol -- cmd -o x", "follow-fork= operand:cmd" },	/* stops at CMD */
	{ "cmd -o x", "operand:cmd" },
	{ "-z --help --on f", "compress= on=f help" },		/* deferred: all parsed */
	{ "--help --bogus", "error: test: unknown option '--bogus' (see 'pitrace test --help')" },
	{ "--on", "error: test: option --on needs an argument (SYMBOL) (see 'pitrace test --help')" },
	{ "-o", "error: test: option -o/--output needs an argument (DIR) (see 'pitrace test "
		"--help')" },
	{ "--output", "error: test: option -o/--output needs an argument (DIR) (see 'pitrace "
		      "test --help')" },
	{ "-z -o", "compress= error: test: option -o/--output needs an argument (DIR) (see "
		   "'pitrace test --help')" },
	{ "--follow-fork=1", "error: test: option --follow-fork takes no argument (see 'pitrace "
			     "test --help')" },
	{ "-q", "error: test: unknown option '-q' (see 'pitrace test --help')" },
	{ "--bogus=3", "error: test: unknown option '--bogus' (see 'pitrace test --help')" },
	{ "--o", "error: test: ambiguous option '--o' (see 'pitrace test --help')" },
};

/* Parse args; what happened, written as in cases[].want; *given gets the options given. */
static void parse(const char *args, char *out, size_t size, struct popt_given *given)
{
	const struct popt_cmd cmd = { .name = "test", .synopsis = "[OPTIONS] CMD",
				      .description = "A test.", .stop_at_args = true,
				      .defer_help = true, .given = given };
	char buf[256], *argv[16], err[512], **rest;
	int argc = 0, fds[2], saved, nrest, ret;
	size_t len;
	ssize_t n;

	snprintf(buf, sizeof(buf), "test %s", args);
	for (char *tok = strtok(buf, " "); tok && argc < 15; tok = strtok(NULL, " "))
		argv[argc++] = tok;
	argv[argc] = NULL;
	seen[0] = '\0';
	CU_ASSERT_FATAL(pipe(fds) == 0);
	fflush(stderr);
	saved = dup(STDERR_FILENO);
	dup2(fds[1], STDERR_FILENO);
	ret = popt_parse(&cmd, argc, argv, tables, &rest, &nrest);
	fflush(stderr);
	dup2(saved, STDERR_FILENO);
	close(saved);
	close(fds[1]);
	n = read(fds[0], err, sizeof(err) - 1);
	close(fds[0]);
	err[n > 0 ? n : 0] = '\0';
	err[strcspn(err, "\n")] = '\0';
	len = (size_t)snprintf(out, size, "%s", seen);
	if (ret == EXIT_USAGE)
		snprintf(out + len, size - len, "%s%s", len ? " " : "",
			 strncmp(err, "pitrace: ", 9) ? err : err + 9);
	else if (ret == POPT_HELP)
		snprintf(out + len, size - len, "%shelp", len ? " " : "");
	else if (nrest)
		snprintf(out + len, size - len, "%soperand:%s", len ? " " : "", rest[0]);
}

static void test_table(void)
{
	log_progname = "pitrace";
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct popt_given given = { 0 };
		char got[1024];

		parse(cases[i].args, got, sizeof(got), &given);
		if (strcmp(got, cases[i].want))
			fprintf(stderr, "\n  '%s': got '%s', want '%s'", cases[i].args, got,
				cases[i].want);
		CU_ASSERT_STRING_EQUAL(got, cases[i].want);
	}
}

/* The options given that a variant cannot take: those of the other variant only. */
static void test_variants(void)
{
	static const struct {
		const char *args;
		unsigned variant;
		const char *outside;	  /* the option popt_outside names, or "" */
	} rows[] = {
		{ "--kernel -z", V_ONE, "kernel" },
		{ "--kernel -z", V_TWO, "" },
		{ "-z --mode step --kernel", V_ONE, "kernel" },
		{ "--mode step -o d", V_ONE, "" },	/* in both variants, by its entries */
		{ "--mode step -o d", V_TWO, "" },
	};

	log_progname = "pitrace";
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct popt_given given = { 0 };
		const struct popt *o;
		char got[1024];

		parse(rows[i].args, got, sizeof(got), &given);
		o = popt_outside(tables, &given, rows[i].variant);
		CU_ASSERT_STRING_EQUAL(o ? o->long_name : "", rows[i].outside);
	}
}

/* --help of a variant: its entries and the common ones, the optional value in brackets. */
static void test_help(void)
{
	struct popt_cmd cmd = { .name = "test", .synopsis = "[OPTIONS] CMD",
				.description = "A test.", .epilog = "Exit status: 0.",
				.variant = V_TWO };
	char *text = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&text, &size);

	log_progname = "pitrace";
	CU_ASSERT_FATAL(f != NULL);
	popt_usage(f, &cmd, tables);
	fclose(f);
	CU_ASSERT_STRING_EQUAL(text,
			       "usage: pitrace test [OPTIONS] CMD\n"
			       "\n"
			       "A test.\n"
			       "  -o, --output DIR      trace directory\n"
			       "  --on SYMBOL           only inside SYMBOL\n"
			       "                        second line\n"
			       "  --follow-fork         children too\n"
			       "  --kernel[=syscalls]   the kernel as well\n"
			       "  --mode step|block|count\n"
			       "                        two's modes\n"
			       "  -z, --compress        zstd\n"
			       "  -h, --help            this help\n"
			       "\n"
			       "Exit status: 0.\n");
	free(text);
}

/* Values of --max-steps and --duration: what each reads as, 0 for a usage error. */
static const struct {
	const char *arg;
	uint64_t count, ns;
} values[] = {
	{ "1", 1, 1000000000ull },
	{ "1000", 1000, 1000000000000ull },
	{ "2.5", 0, 2500000000ull },
	{ ".5", 0, 500000000ull },
	{ "3.", 0, 3000000000ull },
	{ "18446744073709551615", UINT64_MAX, 0 },
	{ "18446744073709551616", 0, 0 },	/* one too many steps; too many seconds */
	{ "0", 0, 0 },
	{ "0.0", 0, 0 },
	{ "0.0000000001", 0, 0 },		/* below a nanosecond */
	{ "-1", 0, 0 },
	{ "+1", 0, 0 },
	{ " 1", 0, 0 },
	{ "1x", 0, 0 },
	{ "1.2.3", 0, 0 },
	{ ".", 0, 0 },
	{ "", 0, 0 },
	{ "inf", 0, 0 },
	{ "nan", 0, 0 },
	{ "1e3", 0, 0 },
	{ "0x10", 0, 0 },
};

static void test_values(void)
{
	int saved = dup(STDERR_FILENO), null = open("/dev/null", O_WRONLY);

	/* the error lines are test_table's business */
	fflush(stderr);
	dup2(null, STDERR_FILENO);
	for (size_t i = 0; i < sizeof(values) / sizeof(values[0]); i++) {
		uint64_t count = 0, ns = 0;
		int rc = popt_count("test", "max-steps", values[i].arg, &count);
		int rs = popt_seconds("test", "duration", values[i].arg, &ns);

		CU_ASSERT_EQUAL(rc, values[i].count ? 0 : -1);
		CU_ASSERT_EQUAL(count, values[i].count);
		CU_ASSERT_EQUAL(rs, values[i].ns ? 0 : -1);
		CU_ASSERT_EQUAL(ns, values[i].ns);
		if (count != values[i].count || ns != values[i].ns)
			fprintf(stderr, "\n  '%s': count %llu ns %llu", values[i].arg,
				(unsigned long long)count, (unsigned long long)ns);
	}
	fflush(stderr);
	dup2(saved, STDERR_FILENO);
	close(saved);
	close(null);
}

static CU_TestInfo popt_tests[] = {
	{ "command lines and their errors (table)", test_table },
	{ "options a variant cannot take", test_variants },
	{ "--max-steps and --duration values (table)", test_values },
	{ "help of a variant from the table", test_help },
	CU_TEST_INFO_NULL,
};
UNIT_SUITE(popt, popt_tests);
