// SPDX-License-Identifier: GPL-2.0
/* pitrace attach: trace running processes until Ctrl-C, then let them go on. */
#define PR_FMT "attach"
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/filter.h"
#include "util/log.h"
#include "util/trace_dir.h"
#include "pitrace/commands.h"
#include "util/popt.h"
#include "pitrace/ptrace_backend.h"

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

/* The processes to attach to (-p). */
struct pid_list {
	pid_t *pids;
	size_t nr;
};

static int pid_cb(const struct popt *o, const char *arg, const char *cmd)
{
	struct pid_list *l = o->value;

	(void)cmd;
	return parse_pids(arg, &l->pids, &l->nr);
}

static int output_cb(const struct popt *o, const char *arg, const char *cmd)
{
	(void)cmd;
	if (td_check_name(arg) < 0)
		return -1;
	((struct ptrace_opts *)o->value)->out_dir = arg;
	return 0;
}

static int mode_cb(const struct popt *o, const char *arg, const char *cmd)
{
	(void)cmd;
	if (!strcmp(arg, "block")) {
		((struct ptrace_opts *)o->value)->block = true;
	} else if (strcmp(arg, "step")) {
		pr_err("attach: --mode '%s' is not one of step, block (see 'pitrace attach "
		       "--help')", arg);
		return -1;
	}
	return 0;
}

int cmd_attach(int argc, char **argv, struct pitrace_opts *opts)
{
	struct ptrace_opts o = { .out_dir = "pitrace.data" };
	struct pid_list pids = { 0 };
	bool no_pin = false;
	const struct popt attach_opts[] = {
		OPT_CALLBACK('p', "pid", &pids, "PID[,PID...]", pid_cb,
			     "processes to trace (repeatable)"),
		OPT_CALLBACK('o', "output", &o, "DIR", output_cb,
			     "trace directory (default pitrace.data)"),
		OPT_CALLBACK(0, "mode", &o, "step|block", mode_cb,
			     "single steps (default) or branch-to-branch blocks"),
		OPT_FLAG(0, "follow-fork", &o.follow_fork, "also trace their new child processes"),
		OPT_CALLBACK(0, "on", &o, "SYMBOLS", ptrace_on_cb,
			     "record only while inside these functions (repeatable; names,\n"
			     "comma lists, globs str*, re:REGEX, =NAME, as post's filters)"),
		OPT_CALLBACK(0, "max-steps", &o.max_steps, "N", popt_count_cb,
			     "detach after exactly N steps (all threads together)"),
		OPT_CALLBACK(0, "duration", &o.duration_ns, "SECONDS", popt_seconds_cb,
			     "detach after SECONDS (e.g. 2.5)"),
		OPT_FLAG('z', "compress", &o.compress, "zstd-compress the step streams"),
		OPT_FLAG(0, "shared", &o.shared,
			 "let every user read the trace (default: its owner only)"),
		OPT_FLAG(0, "no-pin", &no_pin, "don't pin tracer and processes to one CPU"),
		OPT_HELP("this help"),
		OPT_END
	};
	const struct popt *tables[] = { attach_opts, NULL };
	struct popt_cmd cmd = {
		.name = "attach",
		.synopsis = "-p PID[,PID...] [OPTIONS]",
		.description =
			"Record every user-mode instruction of running processes (all their\n"
			"threads) until they exit, pitrace gets Ctrl-C/SIGTERM or a limit\n"
			"(--max-steps, --duration) is reached; then detach, leaving them running.",
		.epilog =
			"pitrace runs as two processes: the one started (ending it any way, SIGKILL\n"
			"included, detaches and leaves the processes running, CPU affinity given\n"
			"back) and its tracer, named in the first line.  A SIGKILL to the tracer\n"
			"itself kills the threads it is single-stepping (Linux then delivers their\n"
			"pending trap); with --on, processes running natively survive it.\n"
			"Exit status: 0; 1 when a process cannot be traced or the trace cannot be\n"
			"written.",
	};
	char **args;
	int nargs, ret;

	(void)opts;
	o.on_syms = calloc((size_t)argc, sizeof(*o.on_syms));
	if (!o.on_syms)
		return EXIT_RUNTIME;
	ret = popt_parse(&cmd, argc, argv, tables, &args, &nargs);
	if (ret) {
		ret = ret == POPT_HELP ? 0 : ret;
		goto out;
	}
	ret = EXIT_USAGE;
	if (nargs) {
		pr_err("attach: unexpected argument '%s' (see 'pitrace attach --help')", args[0]);
		goto out;
	}
	if (!pids.nr) {
		pr_err("attach: which process? give -p PID (see 'pitrace attach --help')");
		goto out;
	}
	o.pin = !no_pin;
	ret = ptrace_attach(&o, pids.pids, pids.nr);
out:
	free(pids.pids);
	free(o.on_syms);
	return ret;
}
