// SPDX-License-Identifier: GPL-2.0
/* post arc: per function, its callers and callees with calls, Base and Cum instructions. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "arcflow.h"
#include "log.h"

static void usage(FILE *f)
{
	fprintf(f, "usage: post arc [OPTIONS]\n\n"
		   "One entry per function, sorted by inclusive instructions (Cum): its callers\n"
		   "(<) above it and its callees (>) below it, each with calls, Base (self) and\n"
		   "Cum attributed to that arc.  Options:\n"
		   "  -i DIR           trace directory (default pitrace.data)\n"
		   "  --check          only verify the invariants (sum of Base = steps; calls =\n"
		   "                   calls over the callers; Cum = Base + callees' Cum; trees\n"
		   "                   likewise) and print the deepest stack; exit 1 if violated\n"
		   "%s", af_filter_help);
}

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

static void print_arc_line(const struct af_session *s, const struct arc_edge *e, bool caller)
{
	uint32_t other = caller ? e->caller : e->callee;

	printf("%11" PRIu64 " %11" PRIu64 " %7s %11" PRIu64 " %7s     %s %s\n", e->calls,
	       e->base, "", e->cum, "", caller ? "<" : ">", cf_func(s->cf, other)->name);
}

static int print_report(const struct af_session *s)
{
	size_t n, ne = arcs_nr_edges(s->arcs), k;
	uint32_t *fns = af_sorted_functions(s, AF_BY_CUM, &n);
	const struct arc_edge **edges = malloc((ne + 1) * sizeof(*edges));
	uint64_t total = arcs_total(s->arcs);

	if (!fns || !edges) {
		pr_err("out of memory sorting the arc report");
		free(fns);
		free(edges);
		return EXIT_RUNTIME;
	}
	af_print_header(stdout, s, "arc");
	printf("# total: %" PRIu64 " steps, %zu functions\n", total, n);
	printf("# callers (<) above each function, callees (>) below; "
	       "Base = self, Cum = inclusive\n");
	printf("#\n#%10s %11s %7s %11s %7s  %s\n", "calls", "base", "base%", "cum", "cum%",
	       "function");
	for (size_t i = 0; i < n; i++) {
		uint32_t f = fns[i];
		const struct arc_fn_stats *st = arcs_fn(s->arcs, f);
		const struct cf_func *fn = cf_func(s->cf, f);

		printf("#\n");
		for (size_t e = k = 0; e < ne; e++)
			if (arcs_edge(s->arcs, e)->callee == f)
				edges[k++] = arcs_edge(s->arcs, e);
		qsort_r(edges, k, sizeof(*edges), edge_cmp, s->cf);
		for (size_t e = 0; e < k; e++)
			print_arc_line(s, edges[e], true);
		printf("%11" PRIu64 " %11" PRIu64 " %6.2f%% %11" PRIu64 " %6.2f%%  %s [%s]\n",
		       st->calls, st->base, total ? 100.0 * (double)st->base / (double)total : 0.0,
		       st->cum, total ? 100.0 * (double)st->cum / (double)total : 0.0, fn->name,
		       fn->module);
		for (size_t e = k = 0; e < ne; e++)
			if (arcs_edge(s->arcs, e)->caller == f)
				edges[k++] = arcs_edge(s->arcs, e);
		qsort_r(edges, k, sizeof(*edges), edge_cmp, s->cf);
		for (size_t e = 0; e < k; e++)
			print_arc_line(s, edges[e], false);
	}
	free(fns);
	free(edges);
	return af_finish_output(stdout, "the arc report");
}

/* --check: the invariants arcs.h promises, and how the stacks behaved. */
static int check_report(const struct af_session *s)
{
	struct cf_stats st;
	int bad = arcs_check(s->arcs);

	cf_get_stats(s->cf, &st);
	printf("steps %" PRIu64 " threads %" PRIu64 " max-depth %u unmatched %" PRIu64
	       " async %" PRIu64 " gaps %" PRIu64 "\n", st.steps, st.threads, st.max_depth,
	       st.unmatched, st.async, st.gaps);
	printf("invariants: %s\n", bad ? "VIOLATED" : "hold");
	if (bad)
		return EXIT_RUNTIME;
	return af_finish_output(stdout, "the check");
}

int cmd_arc(int argc, char **argv, struct post_opts *opts)
{
	struct af_session s = { 0 };
	bool check = false;
	int ret;

	for (int i = 1; i < argc; i++) {
		int r = af_common_option(argc, argv, &i, opts, &s.filter);

		if (r < 0)
			return EXIT_USAGE;
		if (r)
			continue;
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			usage(stdout);
			return 0;
		}
		if (!strcmp(argv[i], "--check")) {
			check = true;
			continue;
		}
		pr_err("arc: unknown option '%s' (see 'post arc --help')", argv[i]);
		return EXIT_USAGE;
	}
	ret = af_open(&s, opts, true);
	if (!ret)
		ret = af_run(&s);
	if (!ret)
		ret = check ? check_report(&s) : print_report(&s);
	af_close(&s);
	return ret;
}
