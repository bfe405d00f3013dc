// SPDX-License-Identifier: GPL-2.0
/* post profile: a flat profile, calls, Base and Cum per function, sorted by Base. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "flowreport.h"
#include "log.h"

static const struct popt_cmd cmd = {
	.name = "profile", .synopsis = "[OPTIONS]",
	.description =
	"A flat profile: calls, Base (self) and Cum (inclusive) instructions per\n"
	"function, sorted by Base.",
};

static int print_report(struct flow_report *r, const struct report_out *out)
{
	size_t n;
	uint32_t *fns = fr_sorted_functions(r, FR_BY_BASE, &n);
	uint64_t total = arcs_total(r->arcs), shown_base = 0;

	if (!fns) {
		pr_err("out of memory sorting the profile");
		return EXIT_RUNTIME;
	}
	report_header(stdout, r->s, "profile");
	report_total(stdout, r->s, total, fr_selected_base(r));
	printf("# %zu functions\n", n);
	printf("#%10s %11s %7s %11s %7s  %s\n", "calls", "base", "base%", "cum", "cum%",
	       "function [module]");
	for (size_t i = 0; i < n && (!out->top || i < out->top); i++) {
		const struct arc_fn_stats *st = arcs_fn(r->arcs, fns[i]);
		const struct cf_func *fn = cf_func(r->cf, fns[i]);

		shown_base += st->base;
		printf("%11" PRIu64 " %11" PRIu64 " %6.2f%% %11" PRIu64 " %6.2f%%  %s [%s]\n",
		       st->calls, st->base, report_percent(st->base, total), st->cum,
		       report_percent(st->cum, total), fr_name(r, fns[i]), fn->module);
	}
	if (out->top && n > out->top)
		printf("# %zu more functions with %" PRIu64 " steps of Base (%.2f%%) not shown\n",
		       n - out->top, fr_selected_base(r) - shown_base,
		       report_percent(fr_selected_base(r) - shown_base, total));
	free(fns);
	return report_finish(stdout, "the profile");
}

int cmd_profile(int argc, char **argv, struct post_opts *opts)
{
	struct session_filter f = SESSION_FILTER_INIT;
	struct report_out out = { 0 };
	const struct popt opt[] = { POST_OUTPUT_OPTIONS(&out), POST_FILTER_OPTIONS(&f),
				    POST_WINDOW_OPTIONS(&f), POST_TRACE_OPTIONS(opts), OPT_END };
	const struct popt *tables[] = { opt, NULL };
	struct flow_report r;
	int ret = post_parse(&cmd, argc, argv, tables, opts, &f, 0, NULL, NULL);

	if (ret)
		return POST_EXIT(ret);
	ret = flow_report_open(&r, opts, &f, FR_ARCS, "profile");
	r.wide = out.wide;
	if (!ret)
		ret = flow_report_run(&r);
	if (!ret)
		ret = print_report(&r, &out);
	flow_report_close(&r);
	return ret;
}
