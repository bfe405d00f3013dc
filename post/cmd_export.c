// SPDX-License-Identifier: GPL-2.0
/*
 * post export: the call flow in formats other tools read: callgrind
 * (callgrind_annotate, KCachegrind), folded stacks (flame graphs), a flame
 * graph SVG and Chrome/Perfetto JSON trace events (export_*.c, one file
 * each).
 */
#include <errno.h>
#include <string.h>

#include "post/export.h"
#include "util/log.h"

#define EXPORT_CHROME_BUFFER (256 << 10)  /* stdio's buffer for the Chrome events */

enum export_format { EXPORT_CALLGRIND, EXPORT_FOLDED, EXPORT_CHROME, EXPORT_SVG };

static const char *const formats[] = { "callgrind", "folded", "chrome", "svg", NULL };
static const char *const clocks[] = { "time", "steps", NULL };
static const char *const prefixes[] = { "comm", "pid", "tid", NULL }; /* FLAME_PREFIX_* - 1 */

static const struct popt_cmd cmd = {
	.name = "export", .synopsis = "--format FORMAT -o FILE [OPTIONS]",
	.description =
	"The call flow for other tools.  Formats:\n"
	"  callgrind   self instructions per instruction and source line, calls= arcs\n"
	"              with their inclusive instructions, jumps (callgrind_annotate,\n"
	"              KCachegrind)\n"
	"  folded      one line per call stack with its self instructions\n"
	"              (\"_start;main;f 1234\", for flame-graph tools), at most\n"
	"              --max-stack frames a line\n"
	"  svg         a flame graph, interactive in a browser: hover for a\n"
	"              frame's steps, click to zoom, Ctrl-F to search\n"
	"  chrome      Chrome/Perfetto JSON trace events: a B/E pair per call per\n"
	"              thread (the window's: frames open at its ends begin or end\n"
	"              there), process and thread names; timestamps from the\n"
	"              trace's clock (--clock time, the default) or one nanosecond\n"
	"              a step (--clock steps)",
};

/* "Flame graph of COMMAND ARGS" from the trace's command line. */
static const char *svg_title(struct flow_report *r, char *buf, size_t size)
{
	const struct trace_info *ti = trace_info(session_trace(r->s));
	size_t n = (size_t)snprintf(buf, size, "Flame graph");

	for (size_t i = 0; ti->argv && ti->argv[i] && n < size; i++)
		n += (size_t)snprintf(buf + n, size - n, "%s%s", i ? " " : " of ", ti->argv[i]);
	return buf;
}

int cmd_export(int argc, char **argv, struct post_opts *opts)
{
	struct session_filter f = SESSION_FILTER_INIT;
	int fmt = -1, clock = 0, prefix = -1;
	uint32_t max_stack = EXPORT_STACK_DEFAULT;
	const char *path = NULL, *title = NULL;
	char title_buf[512];
	const struct popt opt[] = {
		OPT_GROUP("Options"),
		OPT_CHOICE(0, "format", &fmt, "FORMAT", formats,
			   "callgrind, folded, svg or chrome"),
		OPT_STRING('o', "output", &path, "FILE", "the output file ('-': standard output)"),
		OPT_CHOICE(0, "clock", &clock, "CLOCK", clocks, "chrome: time (the default) or steps"),
		OPT_CHOICE(0, "prefix", &prefix, "BY", prefixes,
			   "folded, svg: each stack under its thread's command (comm),\n"
			   "command-PID (pid) or command-PID/TID (tid), so that processes\n"
			   "and threads stay apart"),
		OPT_STRING(0, "title", &title, "TEXT", "svg: the title (default: the traced command)"),
		OPT_U32(0, "max-stack", &max_stack, "N",
			"folded, svg: at most N frames a stack (default 512, at least 3):\n"
			"a deeper path's first N-2, [...] and its last (folded), or its\n"
			"frames to level N (svg)"),
		POST_FILTER_OPTIONS(&f), POST_WINDOW_OPTIONS(&f), POST_TRACE_OPTIONS(opts), OPT_END
	};
	const struct popt *tables[] = { opt, NULL };
	struct export_cg *cg = NULL;
	struct chrome *chrome = NULL;
	struct flow_report r;
	FILE *out = NULL;
	int ret = post_parse(&cmd, argc, argv, tables, opts, &f, 0, NULL, NULL);

	if (ret)
		return POST_EXIT(ret);
	if (fmt < 0 || !path) {
		pr_err("export: needs --format callgrind|folded|svg|chrome and -o FILE");
		return EXIT_USAGE;
	}
	if (prefix >= 0 && fmt != EXPORT_FOLDED && fmt != EXPORT_SVG) {
		pr_err("export: --prefix is for --format folded and svg");
		return EXIT_USAGE;
	}
	ret = flow_report_open(&r, opts, &f, fmt == EXPORT_CHROME ? 0 : FR_ARCS, "export");
	if (ret)
		goto out;
	out = strcmp(path, "-") && !opts->to_stdout ? fopen(path, "w") : stdout;
	if (!out) {
		pr_err("export: cannot create '%s': %s", path, strerror(errno));
		ret = EXIT_RUNTIME;
		goto out;
	}
	/*
	 * Chrome events are written as the engine runs, a line per call: in
	 * fewer writes (glibc takes a size only with the buffer; the file is
	 * closed here, before the buffer goes)
	 */
	if (fmt == EXPORT_CHROME && out != stdout) {
		static char chrome_buffer[EXPORT_CHROME_BUFFER];

		setvbuf(out, chrome_buffer, _IOFBF, sizeof(chrome_buffer));
	}
	if (fmt == EXPORT_CALLGRIND && !(cg = export_callgrind_new(&r)))
		ret = EXIT_RUNTIME;
	if (fmt == EXPORT_CHROME && !(chrome = export_chrome_new(&r, out, clock == 1)))
		ret = EXIT_RUNTIME;
	if (!ret)
		ret = flow_report_run(&r);
	if (!ret && fmt == EXPORT_SVG && !title)
		title = svg_title(&r, title_buf, sizeof(title_buf));
	if (!ret)
		ret = fmt == EXPORT_CALLGRIND ? export_callgrind_write(cg, out) :
		      fmt == EXPORT_FOLDED ? export_folded(&r, out, (enum flame_prefix)(prefix + 1), max_stack) :
		      fmt == EXPORT_SVG ? export_svg(&r, out, (enum flame_prefix)(prefix + 1), title, max_stack) :
		      export_chrome_finish(chrome);
	if (!ret)
		ret = report_finish(out, path);
out:
	export_chrome_free(chrome);	/* what it holds goes out first, as a failed pass left it */
	if (out && out != stdout && fclose(out) != 0 && !ret) {
		pr_err("export: cannot write '%s': %s", path, strerror(errno));
		ret = EXIT_RUNTIME;
	}
	export_callgrind_free(cg);
	flow_report_close(&r);
	return ret;
}
