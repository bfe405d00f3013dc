/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Table output shared by post's reports: '#' header lines, then rows of
 * "count  percent  [context columns]  name", then a total row.  The layout
 * is documented in docs/post.md ("Report output"); scripts and tests parse
 * it, so keep it stable.
 */
#ifndef POST_REPORT_H
#define POST_REPORT_H

#include <stdint.h>
#include <stdio.h>

struct trace;

#define REPORT_MAX_COLS 4

struct report_row {
	uint64_t count;
	const char *cols[REPORT_MAX_COLS]; /* context columns, then the name (may hold spaces) */
};

struct report_table {
	const char *const *col_names;	  /* names of cols[] for the column line */
	size_t nr_cols;			  /* 1..REPORT_MAX_COLS; the last is the name */
	const char *count_name;		  /* heading of the count column ("count") */
	uint64_t total;			  /* 100%: the sum of every row, shown rows or not */
	size_t top;			  /* print at most this many rows (0: all) */
};

/*
 * An option with a value, as "--name VALUE" or "--name=VALUE": 1 with *val
 * set (and *i advanced past a separate value), 0 if argv[*i] is not this
 * option, -1 if the value is missing (printed).
 */
int report_opt_value(int argc, char **argv, int *i, const char *name, const char **val);

/* A positive integer that fits in 32 bits (pid, tid); -1 with a usage message. */
int report_parse_u32(const char *opt, const char *arg, uint32_t *v);

/*
 * Parse a --top argument (a positive integer); 0 on success, -1 with a
 * usage message printed.
 */
int report_parse_top(const char *opt, const char *arg, size_t *top);

/* Sort rows by count (descending), ties by name, then by the other columns. */
void report_sort(struct report_row *rows, size_t n, size_t nr_cols);

/* A '#' line: report_comment(f, "counts by %s", by) prints "# counts by symbol". */
void report_comment(FILE *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The standard first lines of a report: the trace, its command, its state. */
void report_trace_header(FILE *f, const struct trace *t);

/*
 * The column line, the rows (--top of them, then a '#' line saying how many
 * rows and steps were left out), and the total row:
 *   #    count  percent  module     symbol
 *       123456   45.67%  demo       main
 *       270336  100.00%  total
 */
void report_print_table(FILE *f, const struct report_table *t, const struct report_row *rows,
			size_t n);

/* 100 * part / total, 0 when total is 0. */
double report_percent(uint64_t part, uint64_t total);

#endif /* POST_REPORT_H */
