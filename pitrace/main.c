// SPDX-License-Identifier: GPL-2.0
/* pitrace: the command's entry point and its table of subcommands. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "pitrace.h"

struct command {
	const char *name;
	int (*fn)(int argc, char **argv, struct pitrace_opts *opts);
	const char *summary;
};

static const struct command commands[] = {
	{ "record", cmd_record, "trace a command: pitrace record [OPTIONS] -- CMD [ARGS]" },
	{ "attach", cmd_attach, "trace running processes: pitrace attach -p PID[,PID...]" },
	{ "start", cmd_start, "start a driver session: pitrace start --all|-p PIDS|--comm NAME|..." },
	{ "stop", cmd_stop, "end the driver session and finish its trace" },
	{ "status", cmd_status, "show the driver session: selection, buffers, steps, losses" },
	{ "on", cmd_on, "switch tracing of the driver session on" },
	{ "off", cmd_off, "switch tracing of the driver session off" },
	{ "archive", cmd_archive, "a trace's files by build-id in DIR.tar.zst, for post elsewhere" },
};

static void usage(FILE *f)
{
	fprintf(f, "usage: pitrace [-v] COMMAND [OPTIONS]\n"
		   "       pitrace --version\n\n"
		   "An instruction tracer: records every instruction a program executes.\n\n"
		   "Commands:\n");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(f, "  %-8s %s\n", commands[i].name, commands[i].summary);
	fprintf(f, "\nOptions:\n"
		   "  -v, --verbose  more diagnostics on stderr (-vv: more still)\n"
		   "  --version      this pitrace's version, the trace format and driver ABI it\n"
		   "                 speaks, and the loaded driver's\n"
		   "\nRun 'pitrace COMMAND --help' for a command's options.\n"
		   "Reports are made by 'post' from the trace directory (default pitrace.data).\n");
}

static struct sigaction inherited_xfsz;

void signals_child_restore(void)
{
	sigaction(SIGXFSZ, &inherited_xfsz, NULL);
}

int main(int argc, char **argv)
{
	struct sigaction ignore = { .sa_handler = SIG_IGN };
	struct pitrace_opts opts = { 0 };
	int i;

	log_progname = "pitrace";
	sigaction(SIGXFSZ, &ignore, &inherited_xfsz);
	for (i = 1; i < argc && argv[i][0] == '-'; i++) {
		if (!strcmp(argv[i], "-v") || !strcmp(argv[i], "--verbose")) {
			opts.verbose++;
		} else if (!strcmp(argv[i], "-vv")) {
			opts.verbose += 2;
		} else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			usage(stdout);
			return 0;
		} else if (!strcmp(argv[i], "--version")) {
			pitrace_print_version(stdout);
			return 0;
		} else {
			pr_err("unknown option '%s' (see 'pitrace --help')", argv[i]);
			return EXIT_USAGE;
		}
	}
	log_verbose = opts.verbose;
	if (i >= argc) {
		usage(stderr);
		return EXIT_USAGE;
	}
	for (size_t c = 0; c < sizeof(commands) / sizeof(commands[0]); c++)
		if (!strcmp(argv[i], commands[c].name))
			return commands[c].fn(argc - i, argv + i, &opts);
	pr_err("unknown command '%s' (see 'pitrace --help')", argv[i]);
	return EXIT_USAGE;
}
