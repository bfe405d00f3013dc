// SPDX-License-Identifier: GPL-2.0
/* pitrace record: run a command under the tracer (ptrace backend, or the driver's). */
#define PR_FMT "record"
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <pitrace/abi.h>

#include "log.h"
#include "pitrace.h"
#include "ptrace_engine.h"
#include "record_driver.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: pitrace record [OPTIONS] [--] CMD [ARGS]\n"
		"Run CMD and record every user-mode instruction it executes.\n"
		"  -o, --output DIR    trace directory (default pitrace.data)\n"
		"  --mode step|block   single steps (default) or branch-to-branch blocks\n"
		"  --follow-fork       also trace child processes and what they exec\n"
		"  --on SYMBOL         record only while inside SYMBOL (repeatable)\n"
		"  -z, --compress      zstd-compress the step streams\n"
		"  --no-pin            don't pin tracer and command to one CPU\n"
		"  --aslr              keep CMD's address-space randomization (default: off,\n"
		"                      so that recordings of CMD count the same)\n"
		"  --backend NAME      ptrace or driver (default: driver when loaded)\n"
		"Exit status: CMD's (128+N when killed by signal N); 127 when CMD\n"
		"is not found, 126 when it cannot be executed.\n");
}

enum { OPT_KERNEL = PTRACE_OPT_NEXT, OPT_KERNEL_LIMIT, OPT_ASLR };

int cmd_record(int argc, char **argv, struct pitrace_opts *opts)
{
	static const struct option longopts[] = {
		PTRACE_LONGOPTS,
		/* driver-only options, recognised to say why they can't apply */
		{ "kernel", optional_argument, NULL, OPT_KERNEL },
		{ "kernel-limit", required_argument, NULL, OPT_KERNEL_LIMIT },
		{ "aslr", no_argument, NULL, OPT_ASLR },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct ptrace_opts o = { .out_dir = "pitrace.data", .pin = true };
	int ch, backend, ret;

	backend = record_select_backend(&argc, argv);
	if (backend < 0)
		return EXIT_USAGE;
	if (backend == 1)
		return cmd_record_driver(argc, argv, opts);
	o.on_syms = calloc((size_t)argc, sizeof(*o.on_syms));
	if (!o.on_syms)
		return EXIT_RUNTIME;
	optind = 1;
	opterr = 0;
	while ((ch = getopt_long(argc, argv, "+o:zh", longopts, NULL)) != -1) {
		int r = ptrace_opt_apply(&o, ch, optarg);

		if (r < 0) {
			free(o.on_syms);
			return EXIT_USAGE;
		}
		if (r)
			continue;
		switch (ch) {
		case OPT_ASLR:
			o.aslr = true;
			continue;
		case OPT_KERNEL:
		case OPT_KERNEL_LIMIT:
			pr_err("record: --%s needs the driver backend (the ptrace backend sees user "
			       "mode only)%s", ch == OPT_KERNEL ? "kernel" : "kernel-limit",
			       access(PITRACE_DEVICE, F_OK) ?
			       "; " PITRACE_DEVICE " not found: the driver is not loaded" : "");
			free(o.on_syms);
			return EXIT_USAGE;
		case 'h':
			usage(stdout);
			free(o.on_syms);
			return 0;
		default:
			if (optopt)
				pr_err("record: option '-%c' is unknown or needs an argument "
				       "(see 'pitrace record --help')", optopt);
			else
				pr_err("record: unknown option '%s' (see 'pitrace record --help')",
				       argv[optind - 1]);
			free(o.on_syms);
			return EXIT_USAGE;
		}
	}
	if (optind >= argc) {
		pr_err("record: no command to run (see 'pitrace record --help')");
		free(o.on_syms);
		return EXIT_USAGE;
	}
	ret = ptrace_record(&o, argv + optind);
	free(o.on_syms);
	return ret;
}
