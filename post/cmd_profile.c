// SPDX-License-Identifier: GPL-2.0
/* post profile: a flat profile, calls, Base and Cum per function, sorted by Base. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "post/flowreport.h"
#include "util/log.h"

static const struct popt_cmd cmd = {
	.name = "profile", .synopsis = "[OPTIONS]",
	.description =
	"A flat profile: calls, Base (self) and Cum (inclusive) instructions per\n"
	"function, sorted by Base (--sort: other keys).",
};

/* The percent --percent-limit looks at: of the first key, Base unless it is Cum. */
static uint64_t limited(const struct report_sort *sort, const struct arc_fn_stats *st)
{
	return sort->key[0] == RK_CUM ? st->cum : st->base;
}

/* Is this function's row left out by --percent-limit? */
static bool below_limit(const struct report_out *out, const struct report_sort *sort,
			const struct arc_fn_stats *st, uint64_t total)
{
	return out->percent_limit > 0 &&
	       report_percent(limited(sort, st), total) < out->percent_limit;
}

/* The profile for programs (tabout.h): the rows the text shows, names whole. */
static int tab_report(struct flow_report *r, const struct report_out *out,
		      const struct report_sort *sort, const uint32_t *fns, size_t n)
{
	static const char *const cols[] = { "calls", "base", "base_percent", "cum",
					    "cum_percent", "function", "module" };
	uint64_t total = arcs_total(r->arcs), shown_base = 0;
	size_t shown = 0;
	struct tabout t;

	tab_start(&t, stdout, out->format, "profile");
	report_tab_header(&t, r->s);
	report_tab_total(&t, r->s, total, fr_selected_base(r));
	tab_fact_u64(&t, "functions", n);
	tab_rows_begin(&t, NULL, cols, 7);
	for (size_t i = 0; i < n && (!out->top || shown < out->top); i++) {
		const struct arc_fn_stats *st = arcs_fn(r->arcs, fns[i]);
		const struct cf_func *fn = cf_func(r->cf, fns[i]);

		if (below_limit(out, sort, st, total))
			continue;
		shown++;
		shown_base += st->base;
		tab_row_begin(&t);
		tab_u64(&t, st->calls);
		tab_u64(&t, st->base);
		tab_pct(&t, report_percent(st->base, total));
		tab_u64(&t, st->cum);
		tab_pct(&t, report_percent(st->cum, total));
		tab_str(&t, fn->name);
		tab_str(&t, fn->module);
		tab_row_end(&t);
	}
	tab_rows_end(&t);
	tab_fact_u64(&t, "more_functions", n - shown);
	tab_fact_u64(&t, "more_base", fr_selected_base(r) - shown_base);
	tab_end(&t);
	return report_finish(stdout, "the profile");
}

static int print_report(struct flow_report *r, const struct report_out *out,
			const struct report_sort *sort)
{
	char mt[REPORT_MODULE_TAG_SIZE];
	size_t n, shown = 0, w = post_output.thousands ? 14 : 11;
	uint32_t *fns = fr_sorted_functions(r, sort, &n);
	uint64_t total = arcs_total(r->arcs), shown_base = 0;
	char a[32], b[32], c[32];

	if (!fns) {
		pr_err("out of memory sorting the profile");
		return EXIT_RUNTIME;
	}
	if (out->format != TAB_TEXT) {
		int ret = tab_report(r, out, sort, fns, n);

		free(fns);
		return ret;
	}
	report_header(stdout, r->s, "profile");
	report_total(stdout, r->s, total, fr_selected_base(r));
	printf("# %zu functions\n", n);
	printf("#%*s %*s %7s %*s %7s  %s\n", (int)w - 1, "calls", (int)w, "base", "base%", (int)w,
	       "cum", "cum%", "function [module]");
	for (size_t i = 0; i < n && (!out->top || shown < out->top); i++) {
		const struct arc_fn_stats *st = arcs_fn(r->arcs, fns[i]);
		const struct cf_func *fn = cf_func(r->cf, fns[i]);
		double pb = report_percent(st->base, total);

		if (below_limit(out, sort, st, total))
			continue;
		shown++;
		shown_base += st->base;
		printf("%s%*s %*s %6.2f%% %*s %6.2f%%  %s%s%s%s\n", output_hot(pb), (int)w,
		       output_num(st->calls, a, sizeof(a)), (int)w, output_num(st->base, b, sizeof(b)),
		       pb, (int)w, output_num(st->cum, c, sizeof(c)), report_percent(st->cum, total),
		       fr_name(r, fns[i]), report_module_tag(fn->module, mt, sizeof(mt)),
		       report_native_mark(r->cf, fns[i]),
		       output_reset());
	}
	if (shown < n)
		printf("# %zu more functions with %" PRIu64 " steps of Base (%.2f%%) not shown\n",
		       n - shown, fr_selected_base(r) - shown_base,
		       report_percent(fr_selected_base(r) - shown_base, total));
	free(fns);
	return report_finish(stdout, "the profile");
}

int cmd_profile(int argc, char **argv, struct post_opts *opts)
{
	struct session_filter f = SESSION_FILTER_INIT;
	struct report_out out = { 0 };
	struct report_sort sort = { { RK_BASE, RK_CUM }, 2 };
	const struct popt opt[] = {
		OPT_GROUP("Options"),
		{ .type = POPT_CALLBACK, .long_name = "sort", .value = &sort, .arg = "KEY[,KEY]",
		  .help = "the order: calls, base (the default), cum, name, addr",
		  .choices = fr_sort_keys, .cb = report_sort_option },
		POST_OUTPUT_OPTIONS(&out), POST_FILTER_OPTIONS(&f), POST_WINDOW_OPTIONS(&f),
		POST_TRACE_OPTIONS(opts), OPT_END
	};
	const struct popt *tables[] = { opt, NULL };
	struct flow_report r;
	int ret = post_parse(&cmd, argc, argv, tables, opts, &f, 0, NULL, NULL);

	if (ret)
		return POST_EXIT(ret);
	ret = flow_report_open(&r, opts, &f, FR_ARCS, "profile");
	r.wide = out.wide;
	if (!ret)
		ret = flow_report_run(&r);
	if (!ret) {
		output_start(&out.o);
		ret = print_report(&r, &out, &sort);
	}
	flow_report_close(&r);
	return ret;
}
