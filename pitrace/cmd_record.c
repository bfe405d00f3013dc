// SPDX-License-Identifier: GPL-2.0
/* pitrace record: run a command under the tracer (ptrace backend, or the driver's). */
#define PR_FMT "record"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <pitrace/abi.h>

#include "pitrace/driver_session.h"
#include "pitrace/kernel_opts.h"
#include "util/filter.h"
#include "util/log.h"
#include "pitrace/commands.h"
#include "util/popt.h"
#include "pitrace/ptrace_backend.h"
#include "pitrace/record_driver.h"
#include "util/trace_dir.h"

/* Which backends an option applies to (popt.variants). */
enum { FOR_PTRACE = 1, FOR_DRIVER = 2, FOR_BOTH = 3 };

/* What the command line asked for, before the backend is known. */
struct record_args {
	struct ptrace_opts pt;
	struct record_driver_opts drv;
	const char *backend;
	bool count_mode, compress, no_pin, aslr;
	bool single_step, soft_block;	  /* --single-step, --soft-block */
};

static int output_cb(const struct popt *o, const char *arg, const char *cmd)
{
	struct record_args *a = o->value;

	(void)cmd;
	if (td_check_name(arg) < 0)
		return -1;
	a->pt.out_dir = a->drv.out_dir = arg;
	return 0;
}

static int mode_cb(const struct popt *o, const char *arg, const char *cmd)
{
	struct record_args *a = o->value;
	int mode = mode_parse(arg);

	(void)cmd;
	if (mode < 0) {
		/* the help shows count only with the driver's options */
		pr_err("record: --mode '%s' is not one of step, block (or count, with "
		       "--backend driver) (see 'pitrace record --help')", arg);
		return -1;
	}
	a->drv.cfg.mode = (uint32_t)mode;
	a->pt.block = mode == PITRACE_MODE_BLOCK;
	a->count_mode = mode == PITRACE_MODE_COUNT;
	return 0;
}

static int backend_cb(const struct popt *o, const char *arg, const char *cmd)
{
	(void)cmd;
	if (strcmp(arg, "driver") && strcmp(arg, "ptrace")) {
		pr_err("--backend: '%s' is not one of driver, ptrace", arg);
		return -1;
	}
	*(const char **)o->value = arg;
	return 0;
}

static int buffer_size_cb(const struct popt *o, const char *arg, const char *cmd)
{
	struct pitrace_config *cfg = o->value;
	unsigned long long mb;
	char *end;

	(void)cmd;
	errno = 0;
	mb = strtoull(arg, &end, 10);
	if (errno || *end || !mb || mb > (1ull << 20) || arg[0] == '-') {
		pr_err("--buffer-size: '%s' is not a size in MiB (1 or more)", arg);
		return -1;
	}
	cfg->buffer_size = mb << 20;
	return 0;
}

/* --help: the options of the backend that would be used (--backend says which). */
static void usage(struct popt_cmd *cmd, const struct popt *const *tables, bool driver)
{
	cmd->variant = driver ? FOR_DRIVER : FOR_PTRACE;
	if (driver) {
		cmd->synopsis = "--backend driver [OPTIONS] [--] CMD [ARGS]";
		cmd->description = "Trace CMD and its descendants with the driver.";
	} else {
		cmd->synopsis = "[OPTIONS] [--] CMD [ARGS]";
		cmd->description = "Run CMD and record every user-mode instruction it executes\n"
				   "(ptrace backend; 'pitrace record --backend driver --help' for the\n"
				   "driver's options).";
	}
	cmd->epilog = driver ?
		"Exit status: CMD's (128+N when killed by signal N); 127 when CMD\n"
		"is not found, 126 when it cannot be executed; 1 when the recording\n"
		"cannot start." :
		"Exit status: CMD's (128+N when killed by signal N), also when\n"
		"--max-steps or --duration let it run on untraced to its end; 127 when\n"
		"CMD is not found, 126 when it cannot be executed; 1 when the\n"
		"recording cannot start.  SIGINT and SIGTERM end the recording and are passed\n"
		"on to CMD, as a shell would; pitrace then waits for CMD (one line\n"
		"says so when CMD ignores the signal).  SIGKILL to pitrace kills CMD.";
	popt_usage(stdout, cmd, tables);
}

/* An option the chosen backend cannot do: one line saying why (usage error). */
static int check_backend(const struct record_args *a, const struct popt *const *tables,
			 const struct popt_given *given, bool driver)
{
	const struct popt *o = popt_outside(tables, given, driver ? FOR_DRIVER : FOR_PTRACE);

	if (o && driver) {
		pr_err("record: --%s needs the ptrace backend (add --backend ptrace)",
		       o->long_name);
		return EXIT_USAGE;
	}
	if (o) {
		pr_err("record: --%s needs the driver backend (the ptrace backend sees "
		       "user mode only)%s", o->long_name,
		       access(PITRACE_DEVICE, F_OK) ?
		       "; " PITRACE_DEVICE " not found: the driver is not loaded" : "");
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
		.pt = { .out_dir = "pitrace.data" },
		.drv = { .out_dir = "pitrace.data", .cfg = { .flags = PITRACE_CFG_START_ON } },
	};
	struct popt_given given = { 0 };
	struct popt_cmd cmd = { .name = "record", .stop_at_args = true, .defer_help = true,
				.given = &given };
	const struct popt record_opts[] = {
		OPT_CALLBACK('o', "output", &a, "DIR", output_cb,
			     "trace directory (default pitrace.data)", .variants = FOR_BOTH),
		OPT_CALLBACK(0, "mode", &a, "step|block", mode_cb,
			     "single steps (default) or branch-to-branch blocks",
			     .variants = FOR_PTRACE),
		OPT_CALLBACK(0, "mode", &a, "step|block|count", mode_cb,
			     "single steps (default), blocks, or counts only",
			     .variants = FOR_DRIVER),
		OPT_FLAG(0, "single-step", &a.single_step,
			 "stop after every instruction (the reference; default on\n"
			 "x86_64: code whose path its bytes decide runs natively\n"
			 "to breakpoints, the same trace with fewer stops)",
			 .variants = FOR_PTRACE),
		OPT_FLAG(0, "soft-block", &a.soft_block,
			 "run code whose path its bytes decide natively (the\n"
			 "default on x86_64; elsewhere single steps)", .variants = FOR_PTRACE),
		OPT_FLAG(0, "follow-fork", &a.pt.follow_fork,
			 "also trace child processes and what they exec", .variants = FOR_PTRACE),
		OPT_FLAG(0, "follow-fork", &a.pt.follow_fork,
			 "(always: the driver traces CMD's descendants)", .variants = FOR_DRIVER),
		OPT_CALLBACK(0, "on", &a.pt, "SYMBOLS", ptrace_on_cb,
			     "record only while inside these functions (repeatable; names,\n"
			     "comma lists, globs str*, re:REGEX, =NAME, as post's filters)",
			     .variants = FOR_PTRACE),
		OPT_CALLBACK(0, "max-steps", &a.pt.max_steps, "N", popt_count_cb,
			     "end the recording after exactly N steps (all threads);\n"
			     "CMD runs on untraced to its end", .variants = FOR_PTRACE),
		OPT_CALLBACK(0, "duration", &a.pt.duration_ns, "SECONDS", popt_seconds_cb,
			     "end the recording after SECONDS (e.g. 2.5);\n"
			     "CMD runs on untraced to its end", .variants = FOR_PTRACE),
		OPT_FLAG('z', "compress", &a.compress, "zstd-compress the step streams",
			 .variants = FOR_BOTH),
		OPT_FLAG(0, "shared", &a.pt.shared,
			 "let every user read the trace (default: its owner only)",
			 .variants = FOR_PTRACE),
		OPT_FLAG(0, "no-pin", &a.no_pin, "don't pin tracer and command to one CPU",
			 .variants = FOR_PTRACE),
		OPT_FLAG(0, "aslr", &a.aslr,
			 "keep CMD's address-space randomization (default: off,\n"
			 "so that recordings of CMD count the same)", .variants = FOR_BOTH),
		OPT_CALLBACK(0, "backend", &a.backend, "ptrace|driver", backend_cb,
			     "ptrace or driver (default: driver when loaded)", .variants = FOR_BOTH),
		OPT_CALLBACK(0, "buffer-size", &a.drv.cfg, "MB", buffer_size_cb,
			     "ring buffer per CPU (default: the driver's)", .variants = FOR_DRIVER),
		OPT_CALLBACK(0, "kernel", &a.drv.cfg, "syscalls", kernel_opt_cb,
			     "also step the kernel code of system calls", .variants = FOR_DRIVER,
			     .optional = true),
		OPT_CALLBACK(0, "kernel-limit", &a.drv.cfg, "N", kernel_limit_cb,
			     "kernel steps per system call before a gap (10000000)",
			     .variants = FOR_DRIVER),
		OPT_HELP("this help"),
		OPT_END
	};
	const struct popt *tables[] = { record_opts, NULL };
	char **args;
	int nargs, ret;
	bool driver;

	(void)opts;
	a.pt.on_syms = calloc((size_t)argc, sizeof(*a.pt.on_syms));
	if (!a.pt.on_syms)
		return EXIT_RUNTIME;
	ret = popt_parse(&cmd, argc, argv, tables, &args, &nargs);
	if (ret && ret != POPT_HELP)
		goto out;
	a.pt.compress = a.drv.compress = a.compress;
	a.pt.aslr = a.drv.aslr = a.aslr;
	a.pt.pin = !a.no_pin;
	if (a.single_step && a.soft_block) {
		pr_err("record: --single-step and --soft-block exclude each other");
		ret = EXIT_USAGE;
		goto out;
	}
	/* software block steps are exact where the backend takes them: the default */
	a.pt.soft_block = !a.single_step;
	driver = a.backend ? !strcmp(a.backend, "driver") : access(PITRACE_DEVICE, F_OK) == 0;
	if (ret == POPT_HELP) {
		usage(&cmd, tables, driver);
		ret = 0;
		goto out;
	}
	ret = check_backend(&a, tables, &given, driver);
	if (ret)
		goto out;
	if (!nargs) {
		pr_err("record: no command to run (see 'pitrace record --help')");
		ret = EXIT_USAGE;
		goto out;
	}
	ret = driver ? record_driver(&a.drv, args) : ptrace_record(&a.pt, args);
out:
	free(a.pt.on_syms);
	return ret;
}
