// SPDX-License-Identifier: GPL-2.0
/* post arc: per function, its callers and callees with calls, Base and Cum instructions. */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "post/flowreport.h"
#include "util/log.h"

static const struct popt_cmd cmd = {
	.name = "arc", .synopsis = "[OPTIONS]",
	.description =
	"One entry per function, sorted by inclusive instructions (Cum): its callers\n"
	"(<) above it and its callees (>) below it, each with calls, Base (self) and\n"
	"Cum attributed to that arc.",
};

/* Arcs of one function, biggest first: by Cum, calls, Base, then the other end's name. */
static int edge_cmp(const void *pa, const void *pb, void *arg)
{
	const struct arc_edge *a = *(const struct arc_edge *const *)pa;
	const struct arc_edge *b = *(const struct arc_edge *const *)pb;
	struct callflow *cf = arg;

	return fr_desc(a->cum, b->cum) ?: fr_desc(a->calls, b->calls) ?:
	       fr_desc(a->base, b->base) ?:
	       strcmp(cf_func(cf, a->caller)->name, cf_func(cf, b->caller)->name) ?:
	       strcmp(cf_func(cf, a->callee)->name, cf_func(cf, b->callee)->name);
}

/* Arcs grouped by one end (callers or callees), each group sorted. */
struct arc_index {
	const struct arc_edge **e;
	size_t *first;		  /* per function: its group's start; first[f + 1] its end */
};

static int arc_index_build(const struct flow_report *r, bool by_callee, struct arc_index *x)
{
	size_t ne = arcs_nr_edges(r->arcs), nf = cf_nr_funcs(r->cf);

	x->e = malloc((ne + 1) * sizeof(*x->e));
	x->first = calloc(nf + 2, sizeof(*x->first));
	if (!x->e || !x->first)
		return -1;
	for (size_t i = 0; i < ne; i++) {
		const struct arc_edge *e = arcs_edge(r->arcs, i);
		uint32_t f = by_callee ? e->callee : e->caller;

		if (f != CF_NO_FN)
			x->first[f + 1]++;
	}
	for (size_t f = 0; f < nf; f++)
		x->first[f + 1] += x->first[f];
	{
		size_t *at = malloc((nf + 1) * sizeof(*at));

		if (!at)
			return -1;
		memcpy(at, x->first, (nf + 1) * sizeof(*at));
		for (size_t i = 0; i < ne; i++) {
			const struct arc_edge *e = arcs_edge(r->arcs, i);
			uint32_t f = by_callee ? e->callee : e->caller;

			if (f != CF_NO_FN)
				x->e[at[f]++] = e;
		}
		free(at);
	}
	for (size_t f = 0; f < nf; f++)
		qsort_r(x->e + x->first[f], x->first[f + 1] - x->first[f], sizeof(*x->e), edge_cmp,
			r->cf);
	return 0;
}

static void arc_index_free(struct arc_index *x)
{
	free(x->e);
	free(x->first);
}

static void print_arc_line(const struct flow_report *r, const struct arc_edge *e, bool caller,
			   int w)
{
	uint32_t other = caller ? e->caller : e->callee;
	char a[32], b[32], c[32];

	printf("%*s %*s %7s %*s %7s     %s %s%s\n", w, output_num(e->calls, a, sizeof(a)), w,
	       output_num(e->base, b, sizeof(b)), "", w, output_num(e->cum, c, sizeof(c)), "",
	       caller ? "<" : ">", other == CF_NO_FN ? "(root)" : fr_name(r, other),
	       report_native_mark(r->cf, other));
}

/* Is this function's entry left out by --percent-limit (of its first key, Cum unless Base)? */
static bool below_limit(const struct report_out *out, const struct report_sort *sort,
			const struct arc_fn_stats *st, uint64_t total)
{
	return out->percent_limit > 0 &&
	       report_percent(sort->key[0] == RK_BASE ? st->base : st->cum, total) <
		       out->percent_limit;
}

static const char *const tab_cols[] = { "entry", "entry_module", "kind", "calls", "base",
					"base_percent", "cum", "cum_percent", "name", "module" };

/* One row: an arc (kind caller or callee; the other end's name, NULL the root) or the entry's. */
static void tab_line(struct tabout *t, const struct flow_report *r, uint32_t f, const char *kind,
		     uint64_t calls, uint64_t base, uint64_t cum, uint32_t other, bool pct)
{
	const struct cf_func *fn = cf_func(r->cf, f);
	const struct cf_func *o = other == CF_NO_FN ? NULL : cf_func(r->cf, other);
	uint64_t total = arcs_total(r->arcs);

	tab_row_begin(t);
	tab_str(t, fn->name);
	tab_str(t, fn->module);
	tab_str(t, kind);
	tab_u64(t, calls);
	tab_u64(t, base);
	tab_f64(t, pct ? report_percent(base, total) : NAN, 2);
	tab_u64(t, cum);
	tab_f64(t, pct ? report_percent(cum, total) : NAN, 2);
	tab_str(t, o ? o->name : NULL);
	tab_str(t, o ? o->module : NULL);
	tab_row_end(t);
}

/* The arc report for programs (tabout.h): one row per line of the text, names whole. */
static void tab_report(const struct flow_report *r, const struct report_out *out,
		       const struct report_sort *sort, const uint32_t *fns, size_t n,
		       const struct arc_index *in, const struct arc_index *outs)
{
	uint64_t total = arcs_total(r->arcs);
	size_t shown = 0;
	struct tabout t;

	tab_start(&t, stdout, out->format, "arc");
	report_tab_header(&t, r->s);
	report_tab_total(&t, r->s, total, fr_selected_base(r));
	tab_fact_u64(&t, "functions", n);
	tab_rows_begin(&t, NULL, tab_cols, sizeof(tab_cols) / sizeof(tab_cols[0]));
	for (size_t i = 0; i < n && (!out->top || shown < out->top); i++) {
		uint32_t f = fns[i];
		const struct arc_fn_stats *st = arcs_fn(r->arcs, f);

		if (below_limit(out, sort, st, total))
			continue;
		shown++;
		for (size_t e = in->first[f]; e < in->first[f + 1]; e++)
			tab_line(&t, r, f, "caller", in->e[e]->calls, in->e[e]->base, in->e[e]->cum,
				 in->e[e]->caller, false);
		tab_line(&t, r, f, "function", st->calls, st->base, st->cum, f, true);
		for (size_t e = outs->first[f]; e < outs->first[f + 1]; e++)
			tab_line(&t, r, f, "callee", outs->e[e]->calls, outs->e[e]->base,
				 outs->e[e]->cum, outs->e[e]->callee, false);
	}
	tab_rows_end(&t);
	tab_fact_u64(&t, "more_functions", n - shown);
	tab_end(&t);
}

static int print_report(const struct flow_report *r, const struct report_out *out,
			const struct report_sort *sort)
{
	char mt[REPORT_MODULE_TAG_SIZE];
	size_t n, shown = 0;
	uint32_t *fns = fr_sorted_functions(r, sort, &n);
	struct arc_index in = { 0 }, outs = { 0 };
	uint64_t total = arcs_total(r->arcs);
	int w = post_output.thousands ? 14 : 11, ret;
	char a[32], b[32], c[32];

	if (!fns || arc_index_build(r, true, &in) < 0 || arc_index_build(r, false, &outs) < 0) {
		pr_err("out of memory sorting the arc report");
		ret = EXIT_RUNTIME;
		goto out;
	}
	if (out->format != TAB_TEXT) {
		tab_report(r, out, sort, fns, n, &in, &outs);
		ret = report_finish(stdout, "the arc report");
		goto out;
	}
	report_header(stdout, r->s, "arc");
	report_total(stdout, r->s, total, fr_selected_base(r));
	printf("# %zu functions; callers (<) above each function, callees (>) below; "
	       "Base = self, Cum = inclusive\n", n);
	printf("#\n#%*s %*s %7s %*s %7s  %s\n", w - 1, "calls", w, "base", "base%", w, "cum",
	       "cum%", "function");
	for (size_t i = 0; i < n && (!out->top || shown < out->top); i++) {
		uint32_t f = fns[i];
		const struct arc_fn_stats *st = arcs_fn(r->arcs, f);
		const struct cf_func *fn = cf_func(r->cf, f);
		double pc = report_percent(st->cum, total);

		if (below_limit(out, sort, st, total))
			continue;
		shown++;
		printf("#\n");
		for (size_t e = in.first[f]; e < in.first[f + 1]; e++)
			print_arc_line(r, in.e[e], true, w);
		printf("%s%*s %*s %6.2f%% %*s %6.2f%%  %s%s%s%s\n", output_hot(pc), w,
		       output_num(st->calls, a, sizeof(a)), w, output_num(st->base, b, sizeof(b)),
		       report_percent(st->base, total), w, output_num(st->cum, c, sizeof(c)), pc,
		       fr_name(r, f), report_module_tag(fn->module, mt, sizeof(mt)),
		       report_native_mark(r->cf, f), output_reset());
		for (size_t e = outs.first[f]; e < outs.first[f + 1]; e++)
			print_arc_line(r, outs.e[e], false, w);
	}
	if (shown < n)
		printf("#\n# %zu more functions not shown\n", n - shown);
	ret = report_finish(stdout, "the arc report");
out:
	free(fns);
	arc_index_free(&in);
	arc_index_free(&outs);
	return ret;
}

/* --check: the invariants arcs.h promises, and how the stacks behaved. */
static int check_report(const struct flow_report *r)
{
	struct session_restored rs;
	struct cf_stats st;
	int bad = arcs_check(r->arcs);

	cf_get_stats(r->cf, &st);
	session_restored(r->s, &rs);
	printf("steps %" PRIu64 " threads %" PRIu64 " max-depth %u unmatched %" PRIu64
	       " async %" PRIu64 " unexplained %" PRIu64 " capped %" PRIu64 " gaps %" PRIu64
	       " restored %" PRIu64 "\n",
	       st.steps, st.threads, st.max_depth, st.unmatched, st.async, st.unexplained,
	       st.unexplained_capped, st.gaps, rs.by_recorder + rs.by_pass);
	printf("invariants: %s\n", bad ? "VIOLATED" : "hold");
	if (bad)
		return EXIT_RUNTIME;
	return report_finish(stdout, "the check");
}

int cmd_arc(int argc, char **argv, struct post_opts *opts)
{
	struct session_filter f = SESSION_FILTER_INIT;
	struct report_out out = { 0 };
	struct report_sort sort = { { RK_CUM, RK_BASE }, 2 };
	bool check = false;
	const struct popt opt[] = {
		OPT_GROUP("Options"),
		{ .type = POPT_CALLBACK, .long_name = "sort", .value = &sort, .arg = "KEY[,KEY]",
		  .help = "the functions' order: calls, base, cum (the default), name, addr",
		  .choices = fr_sort_keys, .cb = report_sort_option },
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
	if (!ret && !check)
		output_start(&out.o);
	if (!ret)
		ret = check ? check_report(&r) : print_report(&r, &out, &sort);
	flow_report_close(&r);
	return ret;
}
