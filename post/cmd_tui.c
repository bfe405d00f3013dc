// SPDX-License-Identifier: GPL-2.0
/*
 * post tui: an ncurses viewer of a trace (functions, callers and callees,
 * call trees, annotate, the call flow, a thread picker).  The trace is
 * read once, with progress on the terminal before the screen is taken;
 * the viewer is post/tui_*.c and docs/tui.md.
 */
#include <stdlib.h>
#include <unistd.h>

#include "util/log.h"
#include "post/tui.h"

static const struct popt_cmd cmd = {
	.name = "tui", .synopsis = "[OPTIONS]",
	.description =
	"An interactive viewer of the trace: the functions (the profile, sortable), the\n"
	"callers and callees of each, the call tree per thread and merged, a function's\n"
	"source and instructions with their counts, the call flow, and a picker of\n"
	"processes and threads that filters every view.  ? lists the keys.  The filters\n"
	"and the window apply to every view, as in the reports.",
};

int cmd_tui(int argc, char **argv, struct post_opts *opts)
{
	struct session_filter f = SESSION_FILTER_INIT;
	size_t flow_lines = TUI_DEFAULT_FLOW_LINES;
	const char *source_dir = NULL;
	const struct popt opt[] = {
		OPT_GROUP("Options"),
		OPT_SIZE(0, "flow-lines", &flow_lines, "N",
			 "lines of the call flow the flow view keeps, at most (default\n"
			 "4000000, at most 2147483647; about 32 bytes each)"),
		OPT_STRING(0, "source-dir", &source_dir, "DIR",
			   "annotate: look for source files under DIR when their recorded\n"
			   "path does not exist (by its trailing components)"),
		POST_FILTER_OPTIONS(&f), POST_WINDOW_OPTIONS(&f), POST_TRACE_OPTIONS(opts), OPT_END
	};
	const struct popt *tables[] = { opt, NULL };
	struct tui_data d;
	int ret = post_parse(&cmd, argc, argv, tables, opts, &f, 0, NULL, NULL);

	if (ret)
		return POST_EXIT(ret);
	if (flow_lines > TUI_MAX_FLOW_LINES)
		flow_lines = TUI_MAX_FLOW_LINES;	/* rows hold line numbers in 31 bits */
	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
		pr_err("tui: needs a terminal on standard input and output (post profile, arc, "
		       "tree and flow write reports to files)");
		return EXIT_RUNTIME;
	}
	ret = tui_data_open(&d, opts, &f, flow_lines, source_dir);
	if (!ret)
		ret = tui_data_run(&d);
	if (!ret)
		ret = tui_run(&d, getenv("POST_TUI_KEYLOG"));
	tui_data_close(&d);
	return ret;
}
