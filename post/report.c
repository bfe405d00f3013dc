// SPDX-License-Identifier: GPL-2.0
/* Table output shared by post's reports (see report.h and docs/post.md). */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "log.h"
#include "report.h"
#include "trace_reader.h"

int report_opt_value(int argc, char **argv, int *i, const char *name, const char **val)
{
	const char *a = argv[*i];
	size_t n = strlen(name);

	if (strncmp(a, name, n))
		return 0;
	if (a[n] == '=') {
		*val = a + n + 1;
		return 1;
	}
	if (a[n])
		return 0;
	if (*i + 1 >= argc) {
		pr_err("option '%s' needs a value", name);
		return -1;
	}
	*val = argv[++*i];
	return 1;
}

int report_parse_u32(const char *opt, const char *arg, uint32_t *v)
{
	char *end;
	unsigned long long n;

	errno = 0;
	n = strtoull(arg, &end, 10);
	if (errno || end == arg || *end || n == 0 || n > UINT32_MAX || arg[0] == '-') {
		pr_err("option '%s': '%s' is not a positive number", opt, arg);
		return -1;
	}
	*v = (uint32_t)n;
	return 0;
}

int report_parse_top(const char *opt, const char *arg, size_t *top)
{
	char *end;
	unsigned long long v;

	if (!arg) {
		pr_err("option '%s' needs a number of rows", opt);
		return -1;
	}
	errno = 0;
	v = strtoull(arg, &end, 10);
	if (errno || end == arg || *end || v == 0 || arg[0] == '-') {
		pr_err("option '%s': '%s' is not a positive number of rows", opt, arg);
		return -1;
	}
	*top = (size_t)v;
	return 0;
}

static size_t sort_cols;

static int row_cmp(const void *pa, const void *pb)
{
	const struct report_row *a = pa, *b = pb;

	if (a->count != b->count)
		return a->count > b->count ? -1 : 1;
	for (size_t i = sort_cols; i-- > 0;) {
		int d = strcmp(a->cols[i] ? a->cols[i] : "", b->cols[i] ? b->cols[i] : "");

		if (d)
			return d;
	}
	return 0;
}

void report_sort(struct report_row *rows, size_t n, size_t nr_cols)
{
	sort_cols = nr_cols;
	qsort(rows, n, sizeof(*rows), row_cmp);
}

void report_comment(FILE *f, const char *fmt, ...)
{
	va_list ap;

	fputs("# ", f);
	va_start(ap, fmt);
	vfprintf(f, fmt, ap);
	va_end(ap);
	fputc('\n', f);
}

double report_percent(uint64_t part, uint64_t total)
{
	return total ? 100.0 * (double)part / (double)total : 0.0;
}

void report_trace_header(FILE *f, const struct trace *t)
{
	const struct trace_info *in = trace_info(t);

	fprintf(f, "# trace: %s (%s, %s", trace_dir(t), in->backend[0] ? in->backend : "?",
		in->state[0] ? in->state : "state unknown");
	if (in->totals.lost)
		fprintf(f, ", %" PRIu64 " steps lost", in->totals.lost);
	fputs(")\n# command:", f);
	for (size_t i = 0; in->argv[i]; i++)
		fprintf(f, " %s", in->argv[i]);
	if (!in->argv[0])
		fputs(" ?", f);
	fputc('\n', f);
}

static int digits(uint64_t v)
{
	int n = 1;

	while (v >= 10) {
		v /= 10;
		n++;
	}
	return n;
}

void report_print_table(FILE *f, const struct report_table *t, const struct report_row *rows,
			size_t n)
{
	size_t shown = t->top && t->top < n ? t->top : n;
	const char *count_name = t->count_name ? t->count_name : "count";
	int cw = digits(t->total), w[REPORT_MAX_COLS] = { 0 };
	uint64_t rest = 0;

	for (size_t i = 0; i < shown; i++)
		if (digits(rows[i].count) > cw)
			cw = digits(rows[i].count);
	/* at least 8 wide, so small tables line up with the '#' column line too */
	if (cw < 8)
		cw = 8;
	if (cw < (int)strlen(count_name) + 2)
		cw = (int)strlen(count_name) + 2;
	/* context columns are padded to their widest shown value; the name (w 0) is not */
	for (size_t c = 0; c + 1 < t->nr_cols; c++) {
		w[c] = (int)strlen(t->col_names[c]);
		for (size_t i = 0; i < shown; i++) {
			int l = rows[i].cols[c] ? (int)strlen(rows[i].cols[c]) : 1;

			if (l > w[c])
				w[c] = l;
		}
	}
	fprintf(f, "#%*s  %7s", cw - 1, count_name, "percent");
	for (size_t c = 0; c < t->nr_cols; c++)
		fprintf(f, "  %-*s", w[c], t->col_names[c]);
	fputc('\n', f);
	for (size_t i = 0; i < shown; i++) {
		fprintf(f, "%*" PRIu64 "  %6.2f%%", cw, rows[i].count,
			report_percent(rows[i].count, t->total));
		for (size_t c = 0; c < t->nr_cols; c++) {
			const char *s = rows[i].cols[c] ? rows[i].cols[c] : "-";

			fprintf(f, "  %-*s", w[c], s);
		}
		fputc('\n', f);
	}
	for (size_t i = shown; i < n; i++)
		rest += rows[i].count;
	if (shown < n)
		fprintf(f, "# %zu more rows: %" PRIu64 " (%.2f%%)\n", n - shown, rest,
			report_percent(rest, t->total));
	fprintf(f, "%*" PRIu64 "  %6.2f%%  total\n", cw, t->total, t->total ? 100.0 : 0.0);
}
