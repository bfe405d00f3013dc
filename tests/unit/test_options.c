// SPDX-License-Identifier: GPL-2.0
/*
 * Option tables (pitrace/options.h): what getopt_long makes of a command
 * line through one table, and the one line printed for every mistake,
 * which names the option it is about.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../pitrace/options.h"
#include "unit.h"

enum { K_ON = OPT_ID_BASE, K_FOLLOW, K_KERNEL };

static const struct opt_def defs[] = {
	{ 'o', "output", OPT_REQUIRED, "DIR", "trace directory", 0 },
	{ K_ON, "on", OPT_REQUIRED, "SYMBOL", "only inside SYMBOL\nsecond line", 0 },
	{ K_FOLLOW, "follow-fork", OPT_NOARG, NULL, "children too", 0 },
	{ K_KERNEL, "kernel", OPT_OPTIONAL, "syscalls", "the kernel as well", 0 },
	{ 'z', "compress", OPT_NOARG, NULL, "zstd", 0 },
	{ 0 },
};

/* A command line and what parsing it gives: "key=arg" per option, then
 * "operand" for the first operand, or the error line. */
static const struct {
	const char *args;	  /* space-separated */
	const char *want;
} cases[] = {
	{ "-o d --on f -z", "o=d 256=f z=" },
	{ "--output=d --on=f", "o=d 256=f" },
	{ "-zod", "z= o=d" },
	{ "--kernel --kernel=syscalls", "258= 258=syscalls" },
	{ "--fol -- cmd -o x", "257= operand:cmd" },		/* stops at CMD */
	{ "cmd -o x", "operand:cmd" },
	{ "--on", "error: test: option --on needs an argument (SYMBOL) (see 'pitrace test --help')" },
	{ "-o", "error: test: option -o/--output needs an argument (DIR) (see 'pitrace test --help')" },
	{ "--output", "error: test: option -o/--output needs an argument (DIR) (see 'pitrace test "
		      "--help')" },
	{ "-z -o", "z= error: test: option -o/--output needs an argument (DIR) (see 'pitrace "
		   "test --help')" },
	{ "--follow-fork=1", "error: test: option --follow-fork takes no argument (see 'pitrace "
			     "test --help')" },
	{ "-q", "error: test: unknown option '-q' (see 'pitrace test --help')" },
	{ "--bogus=3", "error: test: unknown option '--bogus' (see 'pitrace test --help')" },
	{ "--o", "error: test: ambiguous option '--o' (see 'pitrace test --help')" },
};

/* Parse args; what happened, written as in cases[].want. */
static void parse(const char *args, char *out, size_t size)
{
	char buf[256], *argv[16], err[512];
	int argc = 0, key, fds[2], saved;
	struct opt_parser p;
	const char *arg;
	size_t len = 0;
	ssize_t n;

	snprintf(buf, sizeof(buf), "test %s", args);
	for (char *tok = strtok(buf, " "); tok && argc < 15; tok = strtok(NULL, " "))
		argv[argc++] = tok;
	argv[argc] = NULL;
	out[0] = '\0';
	CU_ASSERT_FATAL(pipe(fds) == 0);
	fflush(stderr);
	saved = dup(STDERR_FILENO);
	dup2(fds[1], STDERR_FILENO);
	CU_ASSERT_FATAL(opt_init(&p, "test", defs, argc, argv, true) == 0);
	while ((key = opt_next(&p, &arg)) >= 0) {
		char name[8];

		/* short options as their letter, the others as their number */
		snprintf(name, sizeof(name), key < OPT_ID_BASE ? "%c" : "%d", key);
		len += (size_t)snprintf(out + len, size - len, "%s%s=%s", len ? " " : "", name,
					arg ? arg : "");
	}
	opt_free(&p);
	fflush(stderr);
	dup2(saved, STDERR_FILENO);
	close(saved);
	close(fds[1]);
	n = read(fds[0], err, sizeof(err) - 1);
	close(fds[0]);
	err[n > 0 ? n : 0] = '\0';
	err[strcspn(err, "\n")] = '\0';
	if (key == OPT_ERROR)
		snprintf(out + len, size - len, "%s%s", len ? " " : "",
			 strncmp(err, "pitrace: ", 9) ? err : err + 9);
	else if (optind < argc)
		snprintf(out + len, size - len, "%soperand:%s", len ? " " : "", argv[optind]);
}

static void test_table(void)
{
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char got[1024];

		parse(cases[i].args, got, sizeof(got));
		if (strcmp(got, cases[i].want))
			fprintf(stderr, "\n  '%s': got '%s', want '%s'", cases[i].args, got,
				cases[i].want);
		CU_ASSERT_STRING_EQUAL(got, cases[i].want);
	}
}

static void test_help(void)
{
	char *text = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&text, &size);

	CU_ASSERT_FATAL(f != NULL);
	opt_help(f, defs, 0);
	fclose(f);
	CU_ASSERT_STRING_EQUAL(text,
			       "  -o, --output DIR      trace directory\n"
			       "  --on SYMBOL           only inside SYMBOL\n"
			       "                        second line\n"
			       "  --follow-fork         children too\n"
			       "  --kernel[=syscalls]   the kernel as well\n"
			       "  -z, --compress        zstd\n");
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
		int rc = opt_count("test", "max-steps", values[i].arg, &count);
		int rs = opt_seconds("test", "duration", values[i].arg, &ns);

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

static CU_TestInfo options_tests[] = {
	{ "command lines and their errors (table)", test_table },
	{ "--max-steps and --duration values (table)", test_values },
	{ "help from the table", test_help },
	CU_TEST_INFO_NULL,
};
UNIT_SUITE(options, options_tests);
