// SPDX-License-Identifier: GPL-2.0
/* pitrace: the command's entry point and its table of subcommands. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/log.h"
#include "pitrace/commands.h"
#include "util/popt.h"

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

static char description[1024];

/* The description of pitrace --help: what it is, and its commands. */
static const char *describe(void)
{
	size_t n = (size_t)snprintf(description, sizeof(description),
				    "An instruction tracer: records every instruction a program "
				    "executes.\n\nCommands:\n");

	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		n += (size_t)snprintf(description + n, sizeof(description) - n, "  %-8s %s\n",
				      commands[i].name, commands[i].summary);
	if (n)
		description[n - 1] = '\0';	/* popt_usage ends the paragraph */
	return description;
}

int cmd_no_options(int argc, char **argv, const char *description)
{
	const struct popt none[] = { OPT_END };
	const struct popt *tables[] = { none, NULL };
	const struct popt_cmd cmd = { .name = argv[0], .description = description };
	char **args;
	int nargs, ret = popt_parse(&cmd, argc, argv, tables, &args, &nargs);

	if (ret)
		return ret;
	if (nargs) {
		pr_err("unexpected argument '%s' (see 'pitrace %s --help')", args[0], argv[0]);
		return EXIT_USAGE;
	}
	return 0;
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
	bool version = false;
	const struct popt main_opts[] = {
		OPT_GROUP("Options"),
		OPT_COUNT('v', "verbose", &opts.verbose,
			  "more diagnostics on stderr (-vv: more still)"),
		OPT_FLAG(0, "version", &version,
			 "this pitrace's version, the trace format and driver ABI it\n"
			 "speaks, and the loaded driver's"),
		OPT_END
	};
	const struct popt *tables[] = { main_opts, NULL };
	const struct popt_cmd cmd = {
		.synopsis = "[-v] COMMAND [OPTIONS]\n       pitrace --version",
		.description = describe(),
		.epilog = "Run 'pitrace COMMAND --help' for a command's options.\n"
			  "Reports are made by 'post' from the trace directory (default "
			  "pitrace.data).",
		.stop_at_args = true,
	};
	char **args;
	int nargs, ret;

	log_progname = "pitrace";
	sigaction(SIGXFSZ, &ignore, &inherited_xfsz);
	ret = popt_parse(&cmd, argc, argv, tables, &args, &nargs);
	if (ret)
		return ret == POPT_HELP ? 0 : ret;
	if (version) {
		pitrace_print_version(stdout);
		return 0;
	}
	log_verbose = opts.verbose;
	if (!nargs) {
		popt_usage(stderr, &cmd, tables);
		return EXIT_USAGE;
	}
	for (size_t c = 0; c < sizeof(commands) / sizeof(commands[0]); c++)
		if (!strcmp(args[0], commands[c].name))
			return commands[c].fn(nargs, args, &opts);
	pr_err("unknown command '%s' (see 'pitrace --help')", args[0]);
	return EXIT_USAGE;
}
