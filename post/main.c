// SPDX-License-Identifier: GPL-2.0
/* post: the post-processor's entry point and its table of reports. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "post.h"
#include "version.h"

struct command {
	const char *name;
	int (*fn)(int argc, char **argv, struct post_opts *opts);
	const char *summary;
};

static const struct command commands[] = {
	{ "info", cmd_info, "the trace's header and totals" },
	{ "dump", cmd_dump, "raw records of every file" },
	{ "counts", cmd_counts, "instruction counts by process, thread, module, symbol, line, insn" },
	{ "arc", cmd_arc, "callers and callees per function: calls, Base, Cum" },
	{ "tree", cmd_tree, "call tree per thread (--merged), with Base and Cum" },
	{ "profile", cmd_profile, "flat profile: calls, Base, Cum per function" },
	{ "flow", cmd_flow, "chronological call flow (--condensed: a line per call)" },
	{ "steps", cmd_steps, "every step: address, symbol, line, bytes, disassembly" },
	{ "export", cmd_export, "callgrind, folded stacks or Chrome JSON of the call flow" },
};

static void usage(FILE *f)
{
	fprintf(f, "usage: post [-v] [-i DIR] [--force] [--vmlinux FILE] [--debug-dir DIR] "
		   "[--no-demangle] COMMAND [OPTIONS]\n"
		   "       post --version\n\n"
		   "Reports from a pitrace trace directory (default pitrace.data).\n"
		   "--vmlinux: the traced kernel with debug info (default: found by build-id\n"
		   "under --debug-dir, default /usr/lib/debug).\n"
		   "--no-demangle: C++ names as in the symbol table (_ZN3foo3barEv,\n"
		   "not foo::bar()).\n\n"
		   "Commands:\n");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(f, "  %-8s %s\n", commands[i].name, commands[i].summary);
	fprintf(f, "\nRun 'post COMMAND --help' for a command's options.\n");
}

int post_common_option(int argc, char **argv, int *i, struct post_opts *opts)
{
	const char *a = argv[*i];

	if (!strcmp(a, "-v") || !strcmp(a, "--verbose")) {
		log_verbose = ++opts->verbose;
		return 1;
	}
	if (!strcmp(a, "-i") || !strcmp(a, "--input")) {
		if (*i + 1 >= argc) {
			pr_err("option '%s' needs a trace directory", a);
			return -1;
		}
		opts->input = argv[++*i];
		return 1;
	}
	if (!strncmp(a, "--input=", 8)) {
		opts->input = a + 8;
		return 1;
	}
	if (!strcmp(a, "--force")) {
		opts->force = 1;
		return 1;
	}
	/* Symbol sources (docs/symbols.md): every report that resolves addresses. */
	if (!strcmp(a, "--vmlinux") || !strcmp(a, "--debug-dir")) {
		const char **slot = !strcmp(a, "--vmlinux") ? &opts->vmlinux : &opts->debug_dir;

		if (*i + 1 >= argc) {
			pr_err("option '%s' needs a path", a);
			return -1;
		}
		*slot = argv[++*i];
		return 1;
	}
	if (!strncmp(a, "--vmlinux=", 10)) {
		opts->vmlinux = a + 10;
		return 1;
	}
	if (!strncmp(a, "--debug-dir=", 12)) {
		opts->debug_dir = a + 12;
		return 1;
	}
	if (!strcmp(a, "--no-demangle")) {
		opts->no_demangle = 1;
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct post_opts opts = { .input = "pitrace.data" };
	int i;

	log_progname = "post";
	for (i = 1; i < argc && argv[i][0] == '-'; i++) {
		int r = post_common_option(argc, argv, &i, &opts);

		if (r < 0)
			return EXIT_USAGE;
		if (r)
			continue;
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			usage(stdout);
			return 0;
		}
		if (!strcmp(argv[i], "--version")) {
			pt_version_print(stdout, "post", false);
			return 0;
		}
		/* Not in --help: names for shell completion (post/list.c). */
		if (!strcmp(argv[i], "--list") && i + 1 < argc)
			return post_list(argv[i + 1], &opts);
		pr_err("unknown option '%s' (see 'post --help')", argv[i]);
		return EXIT_USAGE;
	}
	if (i >= argc) {
		usage(stderr);
		return EXIT_USAGE;
	}
	for (size_t c = 0; c < sizeof(commands) / sizeof(commands[0]); c++)
		if (!strcmp(argv[i], commands[c].name))
			return commands[c].fn(argc - i, argv + i, &opts);
	pr_err("unknown command '%s' (see 'post --help')", argv[i]);
	return EXIT_USAGE;
}
