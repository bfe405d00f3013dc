// SPDX-License-Identifier: GPL-2.0
/* post counts: instruction counts by process, thread, module, symbol, line or instruction. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "post/cmdline.h"
#include "util/counts.h"
#include "util/log.h"
#include "post/report.h"

static const char *const by_names[] = { "process", "thread", "module", "symbol", "line", "insn",
					NULL };

static const struct popt_cmd cmd = {
	.name = "counts", .synopsis = "[--by KEY] [OPTIONS]",
	.description =
	"Instruction counts, sorted by count.  One count is one executed instruction;\n"
	"a rep-prefixed string instruction counts once per iteration (once when it\n"
	"does none).  Count-only traces can't be split by function or ring.",
};

enum { CK_COUNT, CK_NAME };
static const char *const counts_sort_keys[] = { "count", "name", NULL };

/* --sort name: rows by name, then the context columns; count: as counts_result gives them. */
static int name_cmp(const void *pa, const void *pb, void *arg)
{
	const struct report_row *a = pa, *b = pb;
	size_t nr_cols = *(const size_t *)arg;

	for (size_t i = nr_cols; i-- > 0;) {
		int d = strcmp(a->cols[i] ? a->cols[i] : "", b->cols[i] ? b->cols[i] : "");

		if (d)
			return d;
	}
	return 0;
}

/*
 * Code that ran natively (the ptrace backend's vDSO calls): rows of their
 * own, after the table, since their instructions are not in the total.
 */
static void print_native(const struct counts *c)
{
	const struct counts_native_row *v;
	size_t n = counts_native(c, &v);

	if (!n)
		return;
	report_comment(stdout, "ran natively, untraced (in no row above, not in the total):");
	printf("#%10s  %-12s  %-20s  %s\n", "runs", "count", "module", "symbol");
	for (size_t i = 0; i < n; i++) {
		char count[32];

		if (v[i].counted == v[i].runs)
			snprintf(count, sizeof(count), "%" PRIu64, v[i].count);
		else
			snprintf(count, sizeof(count), "unknown");
		printf(" %10" PRIu64 "  %-12s  ", v[i].runs, count);
		report_pad(stdout, v[i].module, 20);
		printf("  %s (native)\n", v[i].symbol);
	}
}

/* The report for programs (tabout.h): the facts print_report's '#' lines state, the rows. */
static void tab_report(struct counts *c, struct session *s, enum counts_by by, int format,
		       const struct report_table *table, const struct report_row *rows, size_t n)
{
	const struct counts_native_row *v;
	size_t nv = counts_native(c, &v);
	static const char *const native_cols[] = { "runs", "count", "module", "symbol" };
	struct session_restored rs;
	struct tabout t;

	tab_start(&t, stdout, format, "counts");
	tab_fact_str(&t, "by", counts_by_name(by));
	report_tab_header(&t, s);
	report_tab_total(&t, s, counts_seen(c), counts_total(c));
	if (!strcmp(trace_info(session_trace(s))->mode, "block"))
		tab_fact_u64(&t, "block_records", session_steps_in_window(s));
	tab_fact_u64(&t, "lost_steps", counts_lost(c));
	session_restored(s, &rs);
	tab_fact_u64(&t, "restored", rs.by_pass);
	tab_fact_u64(&t, "restore_gaps", rs.gaps);
	report_tab_table(&t, table, rows, n);
	if (nv) {
		tab_rows_begin(&t, "native", native_cols, 4);
		for (size_t i = 0; i < nv; i++) {
			tab_row_begin(&t);
			tab_u64(&t, v[i].runs);
			if (v[i].counted == v[i].runs)
				tab_u64(&t, v[i].count);
			else
				tab_null(&t);
			tab_str(&t, v[i].module);
			tab_str(&t, v[i].symbol);
			tab_row_end(&t);
		}
		tab_rows_end(&t);
	}
	tab_end(&t);
}

static void print_report(struct counts *c, struct session *s, enum counts_by by,
			 const struct report_out *out, const struct report_sort *sort)
{
	const struct counts_row *crows;
	struct report_row *rows;
	const char *const *names;
	size_t nr_cols = counts_columns(by, &names);
	size_t n = counts_result(c, &crows);
	const struct trace_info *in = trace_info(session_trace(s));
	struct session_restored rs;
	bool block = !strcmp(in->mode, "block");
	struct report_table table = {
		.col_names = names, .nr_cols = nr_cols, .count_name = "count",
		.total = counts_seen(c), .top = out->top, .wide = out->wide,
		.name_col = by == COUNTS_BY_INSN ? 2 : 0,	/* symbol+offset */
		.percent_limit = out->percent_limit,
	};

	rows = calloc(n ? n : 1, sizeof(*rows));
	if (!rows) {
		pr_err("out of memory");
		return;
	}
	for (size_t i = 0; i < n; i++) {
		rows[i].count = crows[i].count;
		for (size_t k = 0; k < nr_cols && k < REPORT_MAX_COLS; k++)
			rows[i].cols[k] = crows[i].cols[k];
	}
	if (sort->n && sort->key[0] == CK_NAME)
		qsort_r(rows, n, sizeof(*rows), name_cmp, &nr_cols);
	if (out->format != TAB_TEXT) {
		table.wide = true;
		tab_report(c, s, by, out->format, &table, rows, n);
		free(rows);
		return;
	}
	{
		char what[64];

		snprintf(what, sizeof(what), "counts by %s", counts_by_name(by));
		report_header(stdout, s, what);
	}
	report_comment(stdout, "one count is one executed instruction (a rep-prefixed string "
		       "instruction counts once per iteration)");
	if (block)
		report_comment(stdout, "block mode: %" PRIu64 " block records expanded into %" PRIu64
			       " instructions", session_steps_in_window(s), counts_seen(c));
	report_total(stdout, s, counts_seen(c), counts_total(c));
	if (counts_lost(c))
		report_comment(stdout, "lost: %" PRIu64 " steps the recorder could not keep "
			       "(in no row)", counts_lost(c));
	session_restored(s, &rs);
	if (rs.by_pass || rs.gaps)
		report_comment(stdout, "restored: %" PRIu64 " steps a late step trap skipped "
			       "(%" PRIu64 " gaps where one could not be)", rs.by_pass, rs.gaps);
	if (!block && !session_filter(s)->pid && !session_filter(s)->tid &&
	    counts_seen(c) == session_steps_seen(s) &&
	    in->totals.steps + rs.by_pass != counts_seen(c))
		report_comment(stdout, "note: the header says %" PRIu64 " steps were recorded",
			       in->totals.steps);
	report_print_table(stdout, &table, rows, n);
	free(rows);
	print_native(c);
}

static void counts_consume(void *ctx, const struct trace_event *ev)
{
	counts_event(ctx, ev);
}

static void counts_consume_steps(void *ctx, const struct trace_event *ev, const uint64_t *pcs,
				 size_t n)
{
	counts_steps(ctx, ev, pcs, n);
}

static void counts_consume_bytes(void *ctx, const struct trace_event *ev,
				 const struct step_bytes *sb)
{
	counts_bytes(ctx, ev, sb);
}

int cmd_counts(int argc, char **argv, struct post_opts *opts)
{
	static const struct session_consumer_ops ops = { .event = counts_consume,
							   .steps = counts_consume_steps,
							   .bytes = counts_consume_bytes };
	struct session_filter f = SESSION_FILTER_INIT;
	struct report_out out = { 0 };
	struct report_sort sort = { { CK_COUNT }, 1 };
	int by = COUNTS_BY_SYMBOL;
	const struct popt opt[] = {
		OPT_GROUP("Options"),
		{ .type = POPT_CALLBACK, .long_name = "sort", .value = &sort, .arg = "KEY",
		  .help = "the rows' order: count (the default) or name",
		  .choices = counts_sort_keys, .cb = report_sort_option },
		OPT_CHOICE(0, "by", &by, "KEY", by_names,
			   "what a row is: process, thread, module, symbol (the\n"
			   "default), line or insn"),
		POST_OUTPUT_OPTIONS(&out), POST_FILTER_OPTIONS(&f), POST_WINDOW_OPTIONS(&f),
		POST_TRACE_OPTIONS(opts), OPT_END
	};
	const struct popt *tables[] = { opt, NULL };
	struct counts_sym_arg arg = { 0 };
	struct counts_options o = { .by = COUNTS_BY_SYMBOL };
	struct session_source src;
	struct counts_resolver res;
	struct counts *c = NULL;
	struct session *s = NULL;
	int ret = post_parse(&cmd, argc, argv, tables, opts, &f, 0, NULL, NULL);

	if (ret)
		return POST_EXIT(ret);
	src = post_source(opts);
	ret = session_open(&s, &src, &f, SESSION_WINDOW_COUNTS, "counts");
	if (ret)
		return ret;
	arg.sym = session_symbols(s);
	arg.trace = session_trace(s);
	counts_sym_resolver(&res, &arg);
	o.by = (enum counts_by)by;
	o.filter = session_select(s);
	c = counts_new(&o, &res);
	ret = EXIT_RUNTIME;
	if (c && session_add_consumer(s, &ops, c) >= 0 && !session_run(s)) {
		output_start(&out.o);
		print_report(c, s, o.by, &out, &sort);
		ret = report_finish(stdout, "the report");
	}
	counts_free(c);
	session_close(s);
	return ret;
}
