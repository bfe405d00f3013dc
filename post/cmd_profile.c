// SPDX-License-Identifier: GPL-2.0
/* post profile: a flat profile, calls, Base and Cum per function, sorted by Base. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "arcflow.h"
#include "log.h"

static void usage(FILE *f)
{
	fprintf(f, "usage: post profile [OPTIONS]\n\n"
		   "A flat profile: calls, Base (self) and Cum (inclusive) instructions per\n"
		   "function, sorted by Base.  Options:\n"
		   "  -i DIR           trace directory (default pitrace.data)\n"
		   "  --top N          only the first N functions\n"
		   "%s", af_filter_help);
}

static int print_report(const struct af_session *s, size_t top)
{
	size_t n;
	uint32_t *fns;
	uint64_t total = arcs_total(s->arcs), shown_base = 0;

	fns = af_sorted_functions(s, AF_BY_BASE, &n);
	if (!fns) {
		pr_err("out of memory sorting the profile");
		return EXIT_RUNTIME;
	}
	af_print_header(stdout, s, "profile");
	printf("# total: %" PRIu64 " steps, %zu functions\n", total, n);
	printf("#%10s %11s %7s %11s %7s  %s\n", "calls", "base", "base%", "cum", "cum%",
	       "function [module]");
	for (size_t i = 0; i < n && (!top || i < top); i++) {
		const struct arc_fn_stats *st = arcs_fn(s->arcs, fns[i]);
		const struct cf_func *fn = cf_func(s->cf, fns[i]);

		shown_base += st->base;
		printf("%11" PRIu64 " %11" PRIu64 " %6.2f%% %11" PRIu64 " %6.2f%%  %s [%s]\n",
		       st->calls, st->base, total ? 100.0 * (double)st->base / (double)total : 0.0,
		       st->cum, total ? 100.0 * (double)st->cum / (double)total : 0.0, fn->name,
		       fn->module);
	}
	if (top && n > top)
		printf("# %zu more functions with %" PRIu64 " steps of Base not shown\n",
		       n - top, total - shown_base);
	free(fns);
	return af_finish_output(stdout, "the profile");
}

int cmd_profile(int argc, char **argv, struct post_opts *opts)
{
	struct af_session s = { 0 };
	size_t top = 0;
	int ret;

	for (int i = 1; i < argc; i++) {
		const char *v;
		int r = af_common_option(argc, argv, &i, opts, &s.filter);

		if (r < 0)
			return EXIT_USAGE;
		if (r)
			continue;
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			usage(stdout);
			return 0;
		}
		if ((r = report_opt_value(argc, argv, &i, "--top", &v))) {
			if (r < 0 || report_parse_top("--top", v, &top) < 0)
				return EXIT_USAGE;
			continue;
		}
		pr_err("profile: unknown option '%s' (see 'post profile --help')", argv[i]);
		return EXIT_USAGE;
	}
	ret = af_open(&s, opts, true);
	if (!ret)
		ret = af_run(&s);
	if (!ret)
		ret = print_report(&s, top);
	af_close(&s);
	return ret;
}
