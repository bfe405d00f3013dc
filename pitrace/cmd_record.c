// SPDX-License-Identifier: GPL-2.0
/* pitrace record: run a command under the tracer (ptrace backend, or the driver's). */
#define PR_FMT "record"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <pitrace/abi.h>

#include "driver_session.h"
#include "kernel_opts.h"
#include "filter.h"
#include "log.h"
#include "options.h"
#include "pitrace.h"
#include "ptrace_engine.h"
#include "record_driver.h"
#include "trace_dir.h"

/* Which backends an option applies to (opt_def.flags). */
enum { FOR_PTRACE = 1, FOR_DRIVER = 2, FOR_BOTH = 3 };

enum {
	OPT_MODE = OPT_ID_BASE, OPT_FOLLOW, OPT_ON, OPT_NO_PIN, OPT_ASLR, OPT_BACKEND,
	OPT_BUF, OPT_KERNEL, OPT_KERNEL_LIMIT, OPT_SHARED, OPT_SOFT_BLOCK, OPT_MAX_STEPS,
	OPT_DURATION,
};

static const struct opt_def record_opts[] = {
	{ 'o', "output", OPT_REQUIRED, "DIR", "trace directory (default pitrace.data)", FOR_BOTH },
	{ OPT_MODE, "mode", OPT_REQUIRED, "step|block",
	  "single steps (default) or branch-to-branch blocks", FOR_PTRACE },
	{ OPT_MODE, "mode", OPT_REQUIRED, "step|block|count",
	  "single steps (default), blocks, or counts only", FOR_DRIVER },
	{ OPT_SOFT_BLOCK, "soft-block", OPT_NOARG, NULL,
	  "experimental: run straight-line code natively to a breakpoint\n"
	  "(step mode's trace, fewer stops)", FOR_PTRACE },
	{ OPT_FOLLOW, "follow-fork", OPT_NOARG, NULL,
	  "also trace child processes and what they exec", FOR_PTRACE },
	{ OPT_FOLLOW, "follow-fork", OPT_NOARG, NULL,
	  "(always: the driver traces CMD's descendants)", FOR_DRIVER },
	{ OPT_ON, "on", OPT_REQUIRED, "SYMBOLS",
	  "record only while inside these functions (repeatable; names,\n"
	  "comma lists, globs str*, re:REGEX, =NAME, as post's filters)", FOR_PTRACE },
	{ OPT_MAX_STEPS, "max-steps", OPT_REQUIRED, "N",
	  "end the recording after exactly N steps (all threads);\n"
	  "CMD runs on untraced to its end", FOR_PTRACE },
	{ OPT_DURATION, "duration", OPT_REQUIRED, "SECONDS",
	  "end the recording after SECONDS (e.g. 2.5);\n"
	  "CMD runs on untraced to its end", FOR_PTRACE },
	{ 'z', "compress", OPT_NOARG, NULL, "zstd-compress the step streams", FOR_BOTH },
	{ OPT_SHARED, "shared", OPT_NOARG, NULL,
	  "let every user read the trace (default: its owner only)", FOR_PTRACE },
	{ OPT_NO_PIN, "no-pin", OPT_NOARG, NULL,
	  "don't pin tracer and command to one CPU", FOR_PTRACE },
	{ OPT_ASLR, "aslr", OPT_NOARG, NULL,
	  "keep CMD's address-space randomization (default: off,\n"
	  "so that recordings of CMD count the same)", FOR_BOTH },
	{ OPT_BACKEND, "backend", OPT_REQUIRED, "ptrace|driver",
	  "ptrace or driver (default: driver when loaded)", FOR_BOTH },
	{ OPT_BUF, "buffer-size", OPT_REQUIRED, "MB",
	  "ring buffer per CPU (default: the driver's)", FOR_DRIVER },
	{ OPT_KERNEL, "kernel", OPT_OPTIONAL, "syscalls",
	  "also step the kernel code of system calls", FOR_DRIVER },
	{ OPT_KERNEL_LIMIT, "kernel-limit", OPT_REQUIRED, "N",
	  "kernel steps per system call before a gap (10000000)", FOR_DRIVER },
	{ 'h', "help", OPT_NOARG, NULL, "this help", FOR_BOTH },
	{ 0 },
};

/* The options of the backend that would be used (--backend says which). */
static void usage(FILE *f, bool driver)
{
	if (driver)
		fprintf(f, "usage: pitrace record --backend driver [OPTIONS] [--] CMD [ARGS]\n"
			   "Trace CMD and its descendants with the driver.\n");
	else
		fprintf(f, "usage: pitrace record [OPTIONS] [--] CMD [ARGS]\n"
			   "Run CMD and record every user-mode instruction it executes\n"
			   "(ptrace backend; 'pitrace record --backend driver --help' for the\n"
			   "driver's options).\n");
	opt_help(f, record_opts, driver ? FOR_DRIVER : FOR_PTRACE);
	fprintf(f, "Exit status: CMD's (128+N when killed by signal N), also when\n"
		   "--max-steps or --duration let it run on untraced to its end; 127 when\n"
		   "CMD is not found, 126 when it cannot be executed; 1 when the\n"
		   "recording cannot start.%s\n", driver ? "" :
		   "  SIGINT and SIGTERM end the recording and are passed\n"
		   "on to CMD, as a shell would; pitrace then waits for CMD (one line\n"
		   "says so when CMD ignores the signal).  SIGKILL to pitrace kills CMD.");
}

/* What the command line asked for, before the backend is known. */
struct record_args {
	struct ptrace_opts pt;
	struct record_driver_opts drv;
	const char *backend;
	const struct opt_def *given[32]; /* options seen, for the backend check */
	size_t nr_given;
	bool count_mode;
};

static int apply(struct record_args *a, int key, const char *arg)
{
	int mode;

	switch (key) {
	case 'o':
		if (td_check_name(arg) < 0)
			return EXIT_USAGE;
		a->pt.out_dir = a->drv.out_dir = arg;
		break;
	case OPT_SHARED:
		a->pt.shared = true;
		break;
	case OPT_MODE:
		mode = mode_parse(arg);
		if (mode < 0) {
			/* the help shows count only with the driver's options */
			pr_err("record: --mode '%s' is not one of step, block (or count, with "
			       "--backend driver) (see 'pitrace record --help')", arg);
			return EXIT_USAGE;
		}
		a->drv.cfg.mode = (uint32_t)mode;
		a->pt.block = mode == PITRACE_MODE_BLOCK;
		a->count_mode = mode == PITRACE_MODE_COUNT;
		break;
	case OPT_FOLLOW:
		a->pt.follow_fork = true;
		break;
	case OPT_SOFT_BLOCK:
		a->pt.soft_block = true;
		break;
	case OPT_ON:
		if (name_patterns_check("record: --on", arg) < 0)
			return EXIT_USAGE;
		a->pt.on_syms[a->pt.nr_on_syms++] = (char *)arg;
		break;
	case OPT_MAX_STEPS:
		return opt_count("record", "max-steps", arg, &a->pt.max_steps) ? EXIT_USAGE : 0;
	case OPT_DURATION:
		return opt_seconds("record", "duration", arg, &a->pt.duration_ns) ? EXIT_USAGE : 0;
	case 'z':
		a->pt.compress = a->drv.compress = true;
		break;
	case OPT_NO_PIN:
		a->pt.pin = false;
		break;
	case OPT_ASLR:
		a->pt.aslr = a->drv.aslr = true;
		break;
	case OPT_BACKEND:
		if (strcmp(arg, "driver") && strcmp(arg, "ptrace")) {
			pr_err("--backend: '%s' is not one of driver, ptrace", arg);
			return EXIT_USAGE;
		}
		a->backend = arg;
		break;
	case OPT_BUF: {
		unsigned long long mb;
		char *end;

		errno = 0;
		mb = strtoull(arg, &end, 10);
		if (errno || *end || !mb || mb > (1ull << 20) || arg[0] == '-') {
			pr_err("--buffer-size: '%s' is not a size in MiB (1 or more)", arg);
			return EXIT_USAGE;
		}
		a->drv.cfg.buffer_size = mb << 20;
		break;
	}
	case OPT_KERNEL:
		return kernel_opt_parse(arg, &a->drv.cfg);
	case OPT_KERNEL_LIMIT:
		return kernel_opt_limit(arg, &a->drv.cfg);
	}
	return 0;
}

static void remember(struct record_args *a, const struct opt_def *d)
{
	for (size_t i = 0; i < a->nr_given; i++)
		if (a->given[i] == d)
			return;
	if (a->nr_given < sizeof(a->given) / sizeof(a->given[0]))
		a->given[a->nr_given++] = d;
}

/* The backends an option applies to: those of every entry it has in the table. */
static unsigned backends_of(int key)
{
	unsigned flags = 0;

	for (const struct opt_def *d = record_opts; d->name; d++)
		if (d->key == key)
			flags |= d->flags;
	return flags;
}

/* An option the chosen backend cannot do: one line saying why (usage error). */
static int check_backend(const struct record_args *a, bool driver)
{
	for (size_t i = 0; i < a->nr_given; i++) {
		const struct opt_def *d = a->given[i];

		if (backends_of(d->key) & (driver ? FOR_DRIVER : FOR_PTRACE))
			continue;
		if (driver) {
			pr_err("record: --%s needs the ptrace backend (add --backend ptrace)",
			       d->name);
		} else {
			pr_err("record: --%s needs the driver backend (the ptrace backend sees "
			       "user mode only)%s", d->name,
			       access(PITRACE_DEVICE, F_OK) ?
			       "; " PITRACE_DEVICE " not found: the driver is not loaded" : "");
		}
		return EXIT_USAGE;
	}
	if (!driver && a->count_mode) {
		pr_err("record: --mode count needs the driver backend");
		return EXIT_USAGE;
	}
	return 0;
}

int cmd_record(int argc, char **argv, struct pitrace_opts *opts)
{
	struct record_args a = {
		.pt = { .out_dir = "pitrace.data", .pin = true },
		.drv = { .out_dir = "pitrace.data", .cfg = { .flags = PITRACE_CFG_START_ON } },
	};
	struct opt_parser p;
	const char *arg;
	int key, ret = EXIT_USAGE;
	bool driver, help = false;

	(void)opts;
	a.pt.on_syms = calloc((size_t)argc, sizeof(*a.pt.on_syms));
	if (!a.pt.on_syms || opt_init(&p, "record", record_opts, argc, argv, true) < 0) {
		free(a.pt.on_syms);
		return EXIT_RUNTIME;
	}
	while ((key = opt_next(&p, &arg)) != -1) {
		if (key == OPT_ERROR)
			goto out;
		if (key == 'h') {
			help = true;	/* once --backend, if any, is known */
			continue;
		}
		remember(&a, opt_find(record_opts, key));
		if (apply(&a, key, arg))
			goto out;
	}
	driver = a.backend ? !strcmp(a.backend, "driver") : access(PITRACE_DEVICE, F_OK) == 0;
	if (help) {
		usage(stdout, driver);
		ret = 0;
		goto out;
	}
	if (check_backend(&a, driver))
		goto out;
	if (optind >= argc) {
		pr_err("record: no command to run (see 'pitrace record --help')");
		goto out;
	}
	ret = driver ? record_driver(&a.drv, argv + optind) : ptrace_record(&a.pt, argv + optind);
out:
	opt_free(&p);
	free(a.pt.on_syms);
	return ret;
}
