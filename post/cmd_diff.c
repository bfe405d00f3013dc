// SPDX-License-Identifier: GPL-2.0
/*
 * post diff A B: per function, calls, Base and Cum of two traces, their
 * deltas and ratios, sorted by the size of the change (like perf diff or
 * uftrace report --diff).  Functions are matched by module and name.
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "post/flowreport.h"
#include "util/log.h"

static const struct popt_cmd cmd = {
	.name = "diff", .synopsis = "[OPTIONS] A.data B.data",
	.description =
	"Calls, Base and Cum of each function in two traces (by module and name),\n"
	"with B - A and B / A, sorted by the change of Base (the largest first).\n"
	"A function in one trace only shows as new or gone.  The filters and the\n"
	"window apply to both traces.",
};

/* diff's keys: the change of Base (default), of Cum, of calls, B/A of Base, name. */
enum { DK_DELTA, DK_CUM, DK_CALLS, DK_RATIO, DK_NAME };
static const char *const diff_keys[] = { "delta", "cum", "calls", "ratio", "name", NULL };

struct fn_numbers {
	char *module, *name;
	uint64_t calls, base, cum;
};

struct side {
	struct fn_numbers *f;
	size_t n;
	uint64_t total;
	char *label;		  /* "DIR (backend, state): command" */
	const char *dir;
};

static int key_cmp(const void *pa, const void *pb)
{
	const struct fn_numbers *a = pa, *b = pb;

	return strcmp(a->module, b->module) ?: strcmp(a->name, b->name);
}

/* One trace's functions (those the filters select) with their numbers, by module and name. */
static int load_side(const char *dir, const struct post_opts *opts,
		     const struct session_filter *f, struct side *sd)
{
	struct post_opts o = *opts;
	struct flow_report r;
	const struct trace_info *in;
	int ret;

	o.input = dir;
	sd->dir = dir;
	ret = flow_report_open(&r, &o, f, FR_ARCS, "diff");
	if (!ret)
		ret = flow_report_run(&r);
	if (ret)
		goto out;
	in = trace_info(session_trace(r.s));
	if (asprintf(&sd->label, "%s (%s, %s): %s", dir, in->backend, in->state,
		     in->argv && in->argv[0] ? in->argv[0] : "?") < 0)
		sd->label = NULL;
	sd->total = arcs_total(r.arcs);
	sd->f = calloc(cf_nr_funcs(r.cf) + 1, sizeof(*sd->f));
	if (!sd->f || !sd->label) {
		pr_err("out of memory comparing traces");
		ret = EXIT_RUNTIME;
		goto out;
	}
	for (uint32_t fn = 0; fn < cf_nr_funcs(r.cf); fn++) {
		const struct arc_fn_stats *st = arcs_fn(r.arcs, fn);
		struct fn_numbers *x = &sd->f[sd->n];

		if ((!st->cum && !st->calls) || !fr_selected(&r, fn))
			continue;
		x->module = strdup(cf_func(r.cf, fn)->module);
		x->name = strdup(cf_func(r.cf, fn)->name);
		if (!x->module || !x->name) {
			pr_err("out of memory comparing traces");
			ret = EXIT_RUNTIME;
			goto out;
		}
		x->calls = st->calls;
		x->base = st->base;
		x->cum = st->cum;
		sd->n++;
	}
	qsort(sd->f, sd->n, sizeof(*sd->f), key_cmp);
out:
	flow_report_close(&r);
	return ret;
}

static void side_free(struct side *sd)
{
	for (size_t i = 0; i < sd->n; i++) {
		free(sd->f[i].module);
		free(sd->f[i].name);
	}
	free(sd->f);
	free(sd->label);
}

/* A function in both (or one: the other zero). */
struct row {
	const struct fn_numbers *a, *b;
};

static const struct fn_numbers zero = { .module = "", .name = "" };

static const struct fn_numbers *num(const struct fn_numbers *x)
{
	return x ? x : &zero;
}

static uint64_t dist(uint64_t a, uint64_t b)
{
	return a > b ? a - b : b - a;
}

/* B / A of Base; infinity when A has none. */
static double ratio(const struct row *r)
{
	uint64_t a = num(r->a)->base, b = num(r->b)->base;

	return a ? (double)b / (double)a : b ? INFINITY : 1.0;
}

static const struct report_sort *row_sort;

static int row_cmp(const void *pa, const void *pb)
{
	const struct row *x = pa, *y = pb;
	const struct fn_numbers *xa = num(x->a), *xb = num(x->b), *ya = num(y->a), *yb = num(y->b);

	for (int k = 0; k < row_sort->n; k++) {
		int d = 0;

		switch (row_sort->key[k]) {
		case DK_DELTA:
			d = fr_desc(dist(xa->base, xb->base), dist(ya->base, yb->base));
			break;
		case DK_CUM:
			d = fr_desc(dist(xa->cum, xb->cum), dist(ya->cum, yb->cum));
			break;
		case DK_CALLS:
			d = fr_desc(dist(xa->calls, xb->calls), dist(ya->calls, yb->calls));
			break;
		case DK_RATIO: {
			double rx = fabs(log(ratio(x))), ry = fabs(log(ratio(y)));

			d = rx == ry ? 0 : rx > ry ? -1 : 1;
			break;
		}
		case DK_NAME:
			break;
		}
		if (d)
			return d;
	}
	{
		const struct fn_numbers *nx = x->a ? x->a : x->b, *ny = y->a ? y->a : y->b;

		return strcmp(nx->name, ny->name) ?: strcmp(nx->module, ny->module);
	}
}

/* "+1,234" / "-56" / "0" */
static const char *signed_num(uint64_t a, uint64_t b, char *buf, size_t size)
{
	if (size < 2)
		return "";
	buf[0] = a == b ? '0' : b > a ? '+' : '-';
	buf[1] = '\0';
	if (a != b)
		output_num(dist(a, b), buf + 1, size - 1);
	return buf;
}

/* Is this row left out by --percent-limit (its change of Base, of the larger total)? */
static bool below_limit(const struct report_out *out, const struct side *A, const struct side *B,
			const struct row *r)
{
	uint64_t a = num(r->a)->base, b = num(r->b)->base;

	return out->percent_limit > 0 &&
	       report_percent(dist(a, b), A->total > B->total ? A->total : B->total) <
		       out->percent_limit;
}

static void tab_side(struct tabout *t, const char *key, const struct side *sd)
{
	tab_object_begin(t, key);
	tab_fact_str(t, "trace", sd->dir);
	tab_fact_str(t, "label", sd->label);
	tab_fact_u64(t, "total", sd->total);
	tab_fact_u64(t, "functions", sd->n);
	tab_object_end(t);
}

/* The diff for programs (tabout.h): the rows the text shows, with both sides' numbers. */
static void tab_diff(const struct side *A, const struct side *B, const struct report_out *out,
		     const struct row *rows, size_t n)
{
	static const char *const cols[] = {
		"function", "module", "status", "base_a", "base_b", "base_delta", "ratio",
		"cum_a", "cum_b", "cum_delta", "calls_a", "calls_b", "calls_delta",
	};
	size_t shown = 0;
	struct tabout t;

	tab_start(&t, stdout, out->format, "diff");
	tab_side(&t, "a", A);
	tab_side(&t, "b", B);
	tab_fact_f64(&t, "total_ratio", A->total ? (double)B->total / (double)A->total : 0.0, 3);
	tab_fact_u64(&t, "functions", n);
	tab_fact_u64(&t, "in_both", A->n + B->n - n);
	tab_fact_u64(&t, "only_a", n - B->n);
	tab_fact_u64(&t, "only_b", n - A->n);
	tab_rows_begin(&t, NULL, cols, sizeof(cols) / sizeof(cols[0]));
	for (size_t k = 0; k < n && (!out->top || shown < out->top); k++) {
		const struct row *r = &rows[k];
		const struct fn_numbers *a = num(r->a), *b = num(r->b), *id = r->a ? r->a : r->b;

		if (below_limit(out, A, B, r))
			continue;
		shown++;
		tab_row_begin(&t);
		tab_str(&t, id->name);
		tab_str(&t, id->module);
		tab_str(&t, !r->a ? "new" : !r->b ? "gone" : "both");
		tab_u64(&t, a->base);
		tab_u64(&t, b->base);
		tab_delta(&t, a->base, b->base);
		tab_f64(&t, r->a && r->b ? ratio(r) : NAN, 3);
		tab_u64(&t, a->cum);
		tab_u64(&t, b->cum);
		tab_delta(&t, a->cum, b->cum);
		tab_u64(&t, a->calls);
		tab_u64(&t, b->calls);
		tab_delta(&t, a->calls, b->calls);
		tab_row_end(&t);
	}
	tab_rows_end(&t);
	tab_fact_u64(&t, "more_functions", n - shown);
	tab_end(&t);
}

static int print_diff(const struct side *A, const struct side *B, const struct report_out *out,
		      const struct report_sort *sort)
{
	char mt[REPORT_MODULE_TAG_SIZE];
	struct row *rows = calloc(A->n + B->n + 1, sizeof(*rows));
	size_t n = 0, i = 0, j = 0, shown = 0;
	int w = post_output.thousands ? 14 : 11;
	char c1[32], c2[32], c3[32], c4[32], c5[32], c6[32], c7[32], rb[32];

	if (!rows) {
		pr_err("out of memory comparing traces");
		return EXIT_RUNTIME;
	}
	while (i < A->n || j < B->n) {
		int d = i == A->n ? 1 : j == B->n ? -1 : key_cmp(&A->f[i], &B->f[j]);

		rows[n].a = d <= 0 ? &A->f[i++] : NULL;
		rows[n].b = d >= 0 ? &B->f[j++] : NULL;
		n++;
	}
	row_sort = sort;
	qsort(rows, n, sizeof(*rows), row_cmp);
	if (out->format != TAB_TEXT) {
		tab_diff(A, B, out, rows, n);
		free(rows);
		return report_finish(stdout, "the diff");
	}
	printf("# diff of two traces: A %s\n#                     B %s\n", A->label, B->label);
	printf("# total: A %" PRIu64 " steps, B %" PRIu64 " steps, B/A %.3f\n", A->total, B->total,
	       A->total ? (double)B->total / (double)A->total : 0.0);
	printf("# %zu functions: %zu in both, %zu only in A (gone), %zu only in B (new); "
	       "delta = B - A, ratio = B/A of Base\n", n, A->n + B->n - n, n - B->n, n - A->n);
	printf("#%*s %*s %*s %8s %*s %*s %*s %*s  %s\n", w - 1, "base A", w, "base B", w, "delta",
	       "ratio", w, "cum A", w, "cum B", w, "cum delta", w, "calls B-A", "function [module]");
	for (size_t k = 0; k < n && (!out->top || shown < out->top); k++) {
		const struct row *r = &rows[k];
		const struct fn_numbers *a = num(r->a), *b = num(r->b), *id = r->a ? r->a : r->b;
		double rt = ratio(r);
		double change = report_percent(dist(a->base, b->base), A->total > B->total ? A->total
											: B->total);

		if (below_limit(out, A, B, r))
			continue;
		shown++;
		if (!r->a)
			snprintf(rb, sizeof(rb), "new");
		else if (!r->b)
			snprintf(rb, sizeof(rb), "gone");
		else
			snprintf(rb, sizeof(rb), "%.3f", rt);
		printf("%s%*s %*s %*s %8s %*s %*s %*s %*s  %s%s%s\n", output_hot(change), w,
		       output_num(a->base, c1, sizeof(c1)), w, output_num(b->base, c2, sizeof(c2)), w,
		       signed_num(a->base, b->base, c3, sizeof(c3)), rb, w,
		       output_num(a->cum, c4, sizeof(c4)), w, output_num(b->cum, c5, sizeof(c5)), w,
		       signed_num(a->cum, b->cum, c6, sizeof(c6)), w,
		       signed_num(a->calls, b->calls, c7, sizeof(c7)), id->name,
		       report_module_tag(id->module, mt, sizeof(mt)),
		       output_reset());
	}
	if (shown < n)
		printf("# %zu more functions not shown\n", n - shown);
	free(rows);
	return report_finish(stdout, "the diff");
}

int cmd_diff(int argc, char **argv, struct post_opts *opts)
{
	struct session_filter f = SESSION_FILTER_INIT;
	struct report_out out = { 0 };
	struct report_sort sort = { { DK_DELTA }, 1 };
	const struct popt opt[] = {
		OPT_GROUP("Options"),
		{ .type = POPT_CALLBACK, .long_name = "sort", .value = &sort, .arg = "KEY[,KEY]",
		  .help = "the order: delta (of Base, the default), cum, calls (their\n"
			  "changes), ratio (of Base, the farthest from 1), name",
		  .choices = diff_keys, .cb = report_sort_option },
		POST_OUTPUT_OPTIONS(&out), POST_FILTER_OPTIONS(&f), POST_WINDOW_OPTIONS(&f),
		POST_TRACE_OPTIONS(opts), OPT_END
	};
	const struct popt *tables[] = { opt, NULL };
	struct side A = { 0 }, B = { 0 };
	char **args;
	int nargs, ret = post_parse(&cmd, argc, argv, tables, opts, &f, 2, &args, &nargs);

	if (ret)
		return POST_EXIT(ret);
	if (nargs != 2) {
		pr_err("diff: needs two trace directories, A and B (see 'post diff --help')");
		return EXIT_USAGE;
	}
	ret = load_side(args[0], opts, &f, &A);
	if (!ret)
		ret = load_side(args[1], opts, &f, &B);
	if (!ret) {
		output_start(&out.o);
		ret = print_diff(&A, &B, &out, &sort);
	}
	side_free(&A);
	side_free(&B);
	return ret;
}
