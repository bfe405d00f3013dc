// SPDX-License-Identifier: GPL-2.0
/* pitrace attach: trace running processes until Ctrl-C, then let them go on. */
#define PR_FMT "attach"
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "filter.h"
#include "log.h"
#include "options.h"
#include "trace_dir.h"
#include "pitrace.h"
#include "ptrace_engine.h"

enum { OPT_MODE = OPT_ID_BASE, OPT_FOLLOW, OPT_ON, OPT_NO_PIN, OPT_SHARED, OPT_MAX_STEPS,
       OPT_DURATION };

static const struct opt_def attach_opts[] = {
	{ 'p', "pid", OPT_REQUIRED, "PID[,PID...]", "processes to trace (repeatable)", 0 },
	{ 'o', "output", OPT_REQUIRED, "DIR", "trace directory (default pitrace.data)", 0 },
	{ OPT_MODE, "mode", OPT_REQUIRED, "step|block",
	  "single steps (default) or branch-to-branch blocks", 0 },
	{ OPT_FOLLOW, "follow-fork", OPT_NOARG, NULL, "also trace their new child processes", 0 },
	{ OPT_ON, "on", OPT_REQUIRED, "SYMBOLS",
	  "record only while inside these functions (repeatable; names,\n"
	  "comma lists, globs str*, re:REGEX, =NAME, as post's filters)", 0 },
	{ OPT_MAX_STEPS, "max-steps", OPT_REQUIRED, "N",
	  "detach after exactly N steps (all threads together)", 0 },
	{ OPT_DURATION, "duration", OPT_REQUIRED, "SECONDS",
	  "detach after SECONDS (e.g. 2.5)", 0 },
	{ 'z', "compress", OPT_NOARG, NULL, "zstd-compress the step streams", 0 },
	{ OPT_SHARED, "shared", OPT_NOARG, NULL,
	  "let every user read the trace (default: its owner only)", 0 },
	{ OPT_NO_PIN, "no-pin", OPT_NOARG, NULL, "don't pin tracer and processes to one CPU", 0 },
	{ 'h', "help", OPT_NOARG, NULL, "this help", 0 },
	{ 0 },
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: pitrace attach -p PID[,PID...] [OPTIONS]\n"
		"Record every user-mode instruction of running processes (all their\n"
		"threads) until they exit, pitrace gets Ctrl-C/SIGTERM or a limit\n"
		"(--max-steps, --duration) is reached; then detach, leaving them running.\n");
	opt_help(f, attach_opts, 0);
	fprintf(f,
		"pitrace runs as two processes: the one started (ending it any way, SIGKILL\n"
		"included, detaches and leaves the processes running, CPU affinity given\n"
		"back) and its tracer, named in the first line.  A SIGKILL to the tracer\n"
		"itself kills the threads it is single-stepping (Linux then delivers their\n"
		"pending trap); with --on, processes running natively survive it.\n"
		"Exit status: 0; 1 when a process cannot be traced or the trace cannot be\n"
		"written.\n");
}

/* One element of a pid list: digits only, 1..INT_MAX; -1 if it is not one. */
static long pid_element(const char *s, size_t len)
{
	long v = 0;

	if (!len || len > 10)
		return -1;
	for (size_t i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	return v > 0 && v <= INT_MAX ? v : -1;
}

/*
 * Append the comma-separated pids of arg (a pid given twice is traced
 * once); 0, or -1 after a message (a usage error): an empty element, as
 * in "1," or "1,,2", is one.
 */
static int parse_pids(const char *arg, pid_t **pids, size_t *nr)
{
	const char *p = arg;

	for (;;) {
		size_t len = strcspn(p, ",");
		long v = pid_element(p, len);
		bool dup = false;
		pid_t *n;

		if (v < 0) {
			pr_err("attach: '%s' is not a list of process ids (PID[,PID...])", arg);
			return -1;
		}
		for (size_t i = 0; i < *nr && !dup; i++)
			dup = (*pids)[i] == (pid_t)v;
		if (!dup) {
			n = realloc(*pids, (*nr + 1) * sizeof(**pids));
			if (!n)
				return -1;
			*pids = n;
			(*pids)[(*nr)++] = (pid_t)v;
		}
		if (!p[len])
			return 0;
		p += len + 1;
	}
}

static int apply(struct ptrace_opts *o, int key, const char *arg, pid_t **pids, size_t *nr)
{
	switch (key) {
	case 'p':
		return parse_pids(arg, pids, nr) < 0 ? EXIT_USAGE : 0;
	case 'o':
		if (td_check_name(arg) < 0)
			return EXIT_USAGE;
		o->out_dir = arg;
		break;
	case OPT_SHARED:
		o->shared = true;
		break;
	case OPT_MODE:
		if (!strcmp(arg, "block")) {
			o->block = true;
		} else if (strcmp(arg, "step")) {
			pr_err("attach: --mode '%s' is not one of step, block (see 'pitrace attach "
			       "--help')", arg);
			return EXIT_USAGE;
		}
		break;
	case OPT_FOLLOW:
		o->follow_fork = true;
		break;
	case OPT_ON:
		if (name_patterns_check("attach: --on", arg) < 0)
			return EXIT_USAGE;
		o->on_syms[o->nr_on_syms++] = (char *)arg;
		break;
	case OPT_MAX_STEPS:
		return opt_count("attach", "max-steps", arg, &o->max_steps) ? EXIT_USAGE : 0;
	case OPT_DURATION:
		return opt_seconds("attach", "duration", arg, &o->duration_ns) ? EXIT_USAGE : 0;
	case 'z':
		o->compress = true;
		break;
	case OPT_NO_PIN:
		o->pin = false;
		break;
	}
	return 0;
}

int cmd_attach(int argc, char **argv, struct pitrace_opts *opts)
{
	struct ptrace_opts o = { .out_dir = "pitrace.data", .pin = true };
	struct opt_parser p;
	pid_t *pids = NULL;
	size_t nr_pids = 0;
	const char *arg;
	int key, ret = EXIT_USAGE;

	(void)opts;
	o.on_syms = calloc((size_t)argc, sizeof(*o.on_syms));
	if (!o.on_syms || opt_init(&p, "attach", attach_opts, argc, argv, false) < 0) {
		free(o.on_syms);
		return EXIT_RUNTIME;
	}
	while ((key = opt_next(&p, &arg)) != -1) {
		if (key == OPT_ERROR)
			goto out;
		if (key == 'h') {
			usage(stdout);
			ret = 0;
			goto out;
		}
		if (apply(&o, key, arg, &pids, &nr_pids))
			goto out;
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
	opt_free(&p);
	free(pids);
	free(o.on_syms);
	return ret;
}
