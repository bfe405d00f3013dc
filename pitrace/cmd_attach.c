// SPDX-License-Identifier: GPL-2.0
/* pitrace attach: trace running processes until Ctrl-C, then let them go on. */
#define PR_FMT "attach"
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "pitrace.h"
#include "ptrace_engine.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: pitrace attach -p PID[,PID...] [OPTIONS]\n"
		"Record every user-mode instruction of running processes (all their\n"
		"threads) until they exit or pitrace gets Ctrl-C/SIGTERM; then detach,\n"
		"leaving them running.\n"
		"  -p, --pid PID[,PID]  processes to trace (repeatable)\n"
		"  -o, --output DIR     trace directory (default pitrace.data)\n"
		"  --mode step|block    single steps (default) or branch-to-branch blocks\n"
		"  --follow-fork        also trace their new child processes\n"
		"  --on SYMBOL          record only while inside SYMBOL (repeatable)\n"
		"  -z, --compress       zstd-compress the step streams\n"
		"  --no-pin             don't pin tracer and processes to one CPU\n");
}

/* Append the comma-separated pids of arg; 0 or -1 (printed, usage error). */
static int parse_pids(const char *arg, pid_t **pids, size_t *nr)
{
	const char *p = arg;

	while (*p) {
		char *end;
		long v;
		pid_t *n;

		errno = 0;
		v = strtol(p, &end, 10);
		if (end == p || errno || v <= 0 || v > INT_MAX || (*end && *end != ',')) {
			pr_err("attach: '%s' is not a list of process ids", arg);
			return -1;
		}
		n = realloc(*pids, (*nr + 1) * sizeof(**pids));
		if (!n)
			return -1;
		*pids = n;
		(*pids)[(*nr)++] = (pid_t)v;
		p = *end ? end + 1 : end;
	}
	return 0;
}

int cmd_attach(int argc, char **argv, struct pitrace_opts *opts)
{
	static const struct option longopts[] = {
		{ "pid", required_argument, NULL, 'p' },
		PTRACE_LONGOPTS,
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct ptrace_opts o = { .out_dir = "pitrace.data", .pin = true };
	pid_t *pids = NULL;
	size_t nr_pids = 0;
	int ch, ret = EXIT_USAGE;

	(void)opts;
	o.on_syms = calloc((size_t)argc, sizeof(*o.on_syms));
	if (!o.on_syms)
		return EXIT_RUNTIME;
	optind = 1;
	opterr = 0;
	while ((ch = getopt_long(argc, argv, "p:o:zh", longopts, NULL)) != -1) {
		int r = ptrace_opt_apply(&o, ch, optarg);

		if (r < 0)
			goto out;
		if (r)
			continue;
		switch (ch) {
		case 'p':
			if (parse_pids(optarg, &pids, &nr_pids) < 0)
				goto out;
			break;
		case 'h':
			usage(stdout);
			ret = 0;
			goto out;
		default:
			if (optopt)
				pr_err("attach: option '-%c' is unknown or needs an argument "
				       "(see 'pitrace attach --help')", optopt);
			else
				pr_err("attach: unknown option '%s' (see 'pitrace attach --help')",
				       argv[optind - 1]);
			goto out;
		}
	}
	if (optind < argc) {
		pr_err("attach: unexpected argument '%s' (see 'pitrace attach --help')",
		       argv[optind]);
		goto out;
	}
	if (!nr_pids) {
		pr_err("attach: which process? give -p PID (see 'pitrace attach --help')");
		goto out;
	}
	ret = ptrace_attach(&o, pids, nr_pids);
out:
	free(pids);
	free(o.on_syms);
	return ret;
}
