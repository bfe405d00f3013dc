// SPDX-License-Identifier: GPL-2.0
/* post: the post-processor's entry point and its table of reports. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "post/cmdline.h"
#include "util/log.h"
#include "post/output.h"
#include "post/post.h"
#include "post/report.h"
#include "util/version.h"

struct command {
	const char *name;
	int (*fn)(int argc, char **argv, struct post_opts *opts);
	const char *summary;
	bool verify;		  /* one pass over one trace that --verify can check */
};

static const struct command commands[] = {
	{ "info", cmd_info, "the trace's header and totals", false },
	{ "dump", cmd_dump, "raw records of every file", false },
	{ "counts", cmd_counts, "instruction counts by process, thread, module, symbol, line, insn", true },
	{ "arc", cmd_arc, "callers and callees per function: calls, Base, Cum", true },
	{ "tree", cmd_tree, "call tree per thread (--merged), with Base and Cum", true },
	{ "profile", cmd_profile, "flat profile: calls, Base, Cum per function", true },
	{ "flow", cmd_flow, "chronological call flow (--condensed: a line per call)", true },
	{ "annotate", cmd_annotate, "a function's source and instructions with their counts", true },
	{ "steps", cmd_steps, "every step: address, symbol, line, bytes, disassembly", true },
	{ "export", cmd_export, "callgrind, folded stacks, flame graph SVG or Chrome JSON", true },
	{ "diff", cmd_diff, "calls, Base and Cum of two traces, with deltas and ratios", false },
	{ "tui", cmd_tui, "an interactive viewer: functions, callers, trees, annotate, flow", false },
	{ "script", cmd_script, "run a Python script's callbacks on the trace's events", false },
};

static char description[2048];

static const char *describe(void)
{
	size_t n = (size_t)snprintf(description, sizeof(description),
				    "Reports from a pitrace trace directory (default pitrace.data).\n\n"
				    "Commands:\n");

	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		n += (size_t)snprintf(description + n, sizeof(description) - n, "  %-9s %s\n",
				      commands[i].name, commands[i].summary);
	snprintf(description + n, sizeof(description) - n,
		 "\nRun 'post COMMAND --help' for a command's options.");
	return description;
}

int main(int argc, char **argv)
{
	struct post_opts opts = { .input = "pitrace.data" };
	struct popt_cmd cmd = {
		.synopsis = "[OPTIONS] COMMAND [OPTIONS]\n       post --verify [OPTIONS] COMMAND [OPTIONS]\n"
			    "       post --version",
		.stop_at_args = true,
	};
	bool version = false, verify = false;
	const char *list = NULL;
	const struct popt opt[] = {
		OPT_FLAG(0, "version", &version,
			 "the version of post, of the trace format and of the driver ABI"),
		OPT_FLAG(0, "verify", &verify,
			 "run the command through the fast paths and one step at a\n"
			 "time, print nothing but whether the outputs agree (exit 1\n"
			 "with the first line that differs)"),
		/* not in --help: names for shell completion (post/list.c) */
		OPT_STRING(0, "list", &list, "WHAT", NULL),
		POST_TRACE_OPTIONS(&opts), OPT_END
	};
	const struct popt *tables[] = { opt, NULL };
	char **args;
	int nargs, r;

	log_progname = "post";
	report_locale();
	cmd.description = describe();
	r = post_parse(&cmd, argc, argv, tables, &opts, NULL, argc, &args, &nargs);
	if (r)
		return POST_EXIT(r);
	if (version) {
		pt_version_print(stdout, "post", false);
		return 0;
	}
	if (list)
		return post_list(list, &opts);
	if (!nargs) {
		popt_usage(stderr, &cmd, tables);
		return EXIT_USAGE;
	}
	for (size_t c = 0; c < sizeof(commands) / sizeof(commands[0]); c++)
		if (!strcmp(args[0], commands[c].name)) {
			if (verify && !commands[c].verify) {
				pr_err("--verify: '%s' has no pass over a trace to check", args[0]);
				return EXIT_USAGE;
			}
			if (verify)
				return post_verify(commands[c].fn, nargs, args, &opts);
			r = commands[c].fn(nargs, args, &opts);
			output_end();	/* the pager, if a report started one */
			return r;
		}
	pr_err("unknown command '%s' (see 'post --help')", args[0]);
	return EXIT_USAGE;
}
