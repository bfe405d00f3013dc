// SPDX-License-Identifier: GPL-2.0
/* post arc: per function, its callers and callees with calls, Base and Cum instructions. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "flowreport.h"
#include "log.h"

static const struct popt_cmd cmd = {
	.name = "arc", .synopsis = "[OPTIONS]",
	.description =
	"One entry per function, sorted by inclusive instructions (Cum): its callers\n"
	"(<) above it and its callees (>) below it, each with calls, Base (self) and\n"
	"Cum attributed to that arc.",
};

static int edge_cmp(const void *pa, const void *pb, void *arg)
{
	const struct arc_edge *a = *(const struct arc_edge *const *)pa;
	const struct arc_edge *b = *(const struct arc_edge *const *)pb;
	struct callflow *cf = arg;

	if (a->cum != b->cum)
		return a->cum > b->cum ? -1 : 1;
	if (a->calls != b->calls)
		return a->calls > b->calls ? -1 : 1;
	if (a->base != b->base)
		return a->base > b->base ? -1 : 1;
	return strcmp(cf_func(cf, a->caller)->name, cf_func(cf, b->caller)->name) ?:
	       strcmp(cf_func(cf, a->callee)->name, cf_func(cf, b->callee)->name);
}

static void print_arc_line(const struct flow_report *r, const struct arc_edge *e, bool caller)
{
	uint32_t other = caller ? e->caller : e->callee;

	printf("%11" PRIu64 " %11" PRIu64 " %7s %11" PRIu64 " %7s     %s %s\n", e->calls,
	       e->base, "", e->cum, "", caller ? "<" : ">",
	       other == CF_NO_FN ? "(root)" : fr_name(r, other));
}

static int print_report(const struct flow_report *r, const struct report_out *out)
{
	size_t n, ne = arcs_nr_edges(r->arcs), k;
	uint32_t *fns = fr_sorted_functions(r, FR_BY_CUM, &n);
	const struct arc_edge **edges = malloc((ne + 1) * sizeof(*edges));
	uint64_t total = arcs_total(r->arcs);

	if (!fns || !edges) {
		pr_err("out of memory sorting the arc report");
		free(fns);
		free(edges);
		return EXIT_RUNTIME;
	}
	report_header(stdout, r->s, "arc");
	report_total(stdout, r->s, total, fr_selected_base(r));
	printf("# %zu functions; callers (<) above each function, callees (>) below; "
	       "Base = self, Cum = inclusive\n", n);
	printf("#\n#%10s %11s %7s %11s %7s  %s\n", "calls", "base", "base%", "cum", "cum%",
	       "function");
	for (size_t i = 0; i < n && (!out->top || i < out->top); i++) {
		uint32_t f = fns[i];
		const struct arc_fn_stats *st = arcs_fn(r->arcs, f);
		const struct cf_func *fn = cf_func(r->cf, f);

		printf("#\n");
		for (size_t e = k = 0; e < ne; e++)
			if (arcs_edge(r->arcs, e)->callee == f)
				edges[k++] = arcs_edge(r->arcs, e);
		qsort_r(edges, k, sizeof(*edges), edge_cmp, r->cf);
		for (size_t e = 0; e < k; e++)
			print_arc_line(r, edges[e], true);
		printf("%11" PRIu64 " %11" PRIu64 " %6.2f%% %11" PRIu64 " %6.2f%%  %s [%s]\n",
		       st->calls, st->base, report_percent(st->base, total), st->cum,
		       report_percent(st->cum, total), fr_name(r, f), fn->module);
		for (size_t e = k = 0; e < ne; e++)
			if (arcs_edge(r->arcs, e)->caller == f)
				edges[k++] = arcs_edge(r->arcs, e);
		qsort_r(edges, k, sizeof(*edges), edge_cmp, r->cf);
		for (size_t e = 0; e < k; e++)
			print_arc_line(r, edges[e], false);
	}
	if (out->top && n > out->top)
		printf("#\n# %zu more functions not shown\n", n - out->top);
	free(fns);
	free(edges);
	return report_finish(stdout, "the arc report");
}

/* --check: the invariants arcs.h promises, and how the stacks behaved. */
static int check_report(const struct flow_report *r)
{
	struct cf_stats st;
	int bad = arcs_check(r->arcs);

	cf_get_stats(r->cf, &st);
	printf("steps %" PRIu64 " threads %" PRIu64 " max-depth %u unmatched %" PRIu64
	       " async %" PRIu64 " gaps %" PRIu64 "\n", st.steps, st.threads, st.max_depth,
	       st.unmatched, st.async, st.gaps);
	printf("invariants: %s\n", bad ? "VIOLATED" : "hold");
	if (bad)
		return EXIT_RUNTIME;
	return report_finish(stdout, "the check");
}

int cmd_arc(int argc, char **argv, struct post_opts *opts)
{
	struct session_filter f = SESSION_FILTER_INIT;
	struct report_out out = { 0 };
	bool check = false;
	const struct popt opt[] = {
		OPT_GROUP("Options"),
		OPT_FLAG(0, "check", &check,
			 "only verify the invariants (sum of Base = steps; calls =\n"
			 "calls over the callers; Cum = Base + callees' Cum; trees\n"
			 "likewise) and print the deepest stack; exit 1 if violated"),
		POST_OUTPUT_OPTIONS(&out), POST_FILTER_OPTIONS(&f), POST_WINDOW_OPTIONS(&f),
		POST_TRACE_OPTIONS(opts), OPT_END
	};
	const struct popt *tables[] = { opt, NULL };
	struct flow_report r;
	int ret = post_parse(&cmd, argc, argv, tables, opts, &f, 0, NULL, NULL);

	if (ret)
		return POST_EXIT(ret);
	ret = flow_report_open(&r, opts, &f, FR_ARCS, "arc");
	r.wide = out.wide;
	if (!ret)
		ret = flow_report_run(&r);
	if (!ret)
		ret = check ? check_report(&r) : print_report(&r, &out);
	flow_report_close(&r);
	return ret;
}
