// SPDX-License-Identifier: GPL-2.0
/*
 * post export: the call flow in formats other tools read: callgrind
 * (callgrind_annotate, KCachegrind), folded stacks (flame graphs) and
 * Chrome/Perfetto JSON trace events (export_*.c, one file each).
 */
#include <errno.h>
#include <string.h>

#include "export.h"
#include "log.h"

enum export_format { EXPORT_CALLGRIND, EXPORT_FOLDED, EXPORT_CHROME };

static const char *const formats[] = { "callgrind", "folded", "chrome", NULL };
static const char *const clocks[] = { "time", "steps", NULL };

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
	"  chrome      Chrome/Perfetto JSON trace events: a B/E pair per call per\n"
	"              thread, timestamps from the trace's clock (--clock time,\n"
	"              the default) or one microsecond a step (--clock steps)",
};

int cmd_export(int argc, char **argv, struct post_opts *opts)
{
	struct session_filter f = SESSION_FILTER_INIT;
	int fmt = -1, clock = 0;
	uint32_t max_stack = EXPORT_MAX_STACK;
	const char *path = NULL;
	const struct popt opt[] = {
		OPT_GROUP("Options"),
		OPT_CHOICE(0, "format", &fmt, "FORMAT", formats, "callgrind, folded or chrome"),
		OPT_STRING('o', "output", &path, "FILE", "the output file ('-': standard output)"),
		OPT_CHOICE(0, "clock", &clock, "CLOCK", clocks, "chrome: time (the default) or steps"),
		OPT_U32(0, "max-stack", &max_stack, "N",
			"folded: at most N frames a line (default 512, at least 3): a deeper\n"
			"path's first N-2, then [...], then its last"),
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
		pr_err("export: needs --format callgrind|folded|chrome and -o FILE");
		return EXIT_USAGE;
	}
	ret = flow_report_open(&r, opts, &f, fmt == EXPORT_CHROME ? 0 : FR_ARCS, "export");
	if (ret)
		goto out;
	out = strcmp(path, "-") ? fopen(path, "w") : stdout;
	if (!out) {
		pr_err("export: cannot create '%s': %s", path, strerror(errno));
		ret = EXIT_RUNTIME;
		goto out;
	}
	if (fmt == EXPORT_CALLGRIND && !(cg = export_callgrind_new(&r)))
		ret = EXIT_RUNTIME;
	if (fmt == EXPORT_CHROME && !(chrome = export_chrome_new(&r, out, clock == 1)))
		ret = EXIT_RUNTIME;
	if (!ret)
		ret = flow_report_run(&r);
	if (!ret)
		ret = fmt == EXPORT_CALLGRIND ? export_callgrind_write(cg, out) :
		      fmt == EXPORT_FOLDED ? export_folded(&r, out, max_stack) : export_chrome_finish(chrome);
	if (!ret)
		ret = report_finish(out, path);
out:
	if (out && out != stdout && fclose(out) != 0 && !ret) {
		pr_err("export: cannot write '%s': %s", path, strerror(errno));
		ret = EXIT_RUNTIME;
	}
	export_callgrind_free(cg);
	export_chrome_free(chrome);
	flow_report_close(&r);
	return ret;
}
