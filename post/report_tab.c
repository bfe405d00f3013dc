// SPDX-License-Identifier: GPL-2.0
/* The facts of report_header and report_total for JSON documents (tabout.h). */
#include <stdlib.h>

#include "post/report.h"
#include "util/session.h"
#include "post/tabout.h"
#include "util/trace_reader.h"

void report_tab_header(struct tabout *t, struct session *s)
{
	const struct trace_info *in = trace_info(session_trace(s));
	const struct session_filter *fl = session_filter(s);
	static const char *const rings[] = { "all", "user", "kernel" };

	tab_fact_str(t, "trace", trace_dir(session_trace(s)));
	tab_fact_str(t, "backend", in->backend[0] ? in->backend : NULL);
	tab_fact_str(t, "state", in->state[0] ? in->state : NULL);
	tab_fact_u64(t, "lost", in->totals.lost);
	tab_fact_strv(t, "command", (const char *const *)in->argv);
	tab_object_begin(t, "filter");
	if (fl->pid)
		tab_fact_u64(t, "pid", fl->pid);
	if (fl->tid)
		tab_fact_u64(t, "tid", fl->tid);
	if (fl->module)
		tab_fact_str(t, "module", fl->module);
	if (fl->symbol)
		tab_fact_str(t, "symbol", fl->symbol);
	if (fl->ring)
		tab_fact_str(t, "ring", rings[fl->ring]);
	tab_object_end(t);
	tab_object_begin(t, "window");
	if (fl->from || fl->to != UINT64_MAX) {
		tab_fact_u64(t, "from", fl->from);
		if (fl->to != UINT64_MAX)
			tab_fact_u64(t, "to", fl->to);
	}
	if (fl->time_from || fl->time_to != UINT64_MAX) {
		tab_fact_u64(t, "time_from_ns", fl->time_from);
		if (fl->time_to != UINT64_MAX)
			tab_fact_u64(t, "time_to_ns", fl->time_to);
	}
	tab_object_end(t);
}

void report_tab_total(struct tabout *t, struct session *s, uint64_t total, uint64_t shown)
{
	const struct session_filter *fl = session_filter(s);
	bool threads = fl->pid || fl->tid;
	bool window = fl->from || fl->to != UINT64_MAX || fl->time_from ||
		      fl->time_to != UINT64_MAX;

	tab_fact_u64(t, "total", total);
	tab_fact_str(t, "total_of", threads && window ? "selected threads in the window" :
				    threads ? "selected threads" : window ? "window" : "trace");
	if (filter_on_functions(session_select(s)))
		tab_fact_u64(t, "shown", shown);
}

void report_tab_table(struct tabout *t, const struct report_table *tb,
		      const struct report_row *rows, size_t n)
{
	const char *cols[REPORT_MAX_COLS + 2] = { tb->count_name ? tb->count_name : "count",
						  "percent" };
	size_t *sel = malloc((n + 1) * sizeof(*sel)), shown = 0;
	uint64_t sum = 0, rest;

	for (size_t c = 0; c < tb->nr_cols && c < REPORT_MAX_COLS; c++)
		cols[c + 2] = tb->col_names[c];
	tab_rows_begin(t, NULL, cols, tb->nr_cols + 2);
	if (sel)
		shown = report_select_rows(tb, rows, n, sel);
	for (size_t k = 0; k < shown; k++) {
		const struct report_row *row = &rows[sel[k]];

		tab_row_begin(t);
		tab_u64(t, row->count);
		tab_pct(t, report_percent(row->count, tb->total));
		for (size_t c = 0; c < tb->nr_cols; c++)
			tab_str(t, row->cols[c]);
		tab_row_end(t);
	}
	tab_rows_end(t);
	for (size_t i = 0; i < n; i++)
		sum += rows[i].count;
	rest = sum;
	for (size_t k = 0; k < shown; k++)
		rest -= rows[sel[k]].count;
	tab_fact_u64(t, "sum", sum);
	tab_fact_u64(t, "more_rows", n - shown);
	tab_fact_u64(t, "more", rest);
	free(sel);
}
