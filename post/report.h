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

#include <stdbool.h>
#include <stddef.h>

#include "util/popt.h"

struct callflow;
struct session;
struct trace;

#define REPORT_MAX_COLS 4

/*
 * Names longer than this are elided in the middle in table columns,
 * "std::vector<int, std::[...]>::_M_realloc_insert(int const&)", unless
 * --wide; the head and the tail are kept (where C++ names, and symbol+0xOFF,
 * differ), and names that would then look alike are shown whole.
 */
#define REPORT_NAME_MAX 100

#include "post/output.h"

/*
 * Lines of the call tree and the call flow are indented two columns a
 * level down to this depth, and no further: past it the depth column
 * alone says how deep a line is, so that a line costs the same at any
 * depth (a recursion millions of levels deep would otherwise print
 * terabytes of spaces).
 */
#define REPORT_INDENT_MAX 100

/* The indentation of a line at depth, in columns. */
static inline int report_indent(unsigned depth)
{
	return 2 * (int)(depth < REPORT_INDENT_MAX ? depth : REPORT_INDENT_MAX);
}

/* The output options of the table reports (cmdline.h: POST_OUTPUT_OPTIONS). */
struct report_out {
	size_t top;		  /* at most this many rows (0: all) */
	double percent_limit;	  /* leave out rows under this percent */
	bool wide;		  /* names whole */
	int format;		  /* enum tab_format (tabout.h): --format text|json|csv */
	struct output_opts o;	  /* colour, pager */
};

/*
 * --sort KEY[,KEY...]: the order of a report's rows, by the first key,
 * ties by the next; numbers largest first, names and addresses in order.
 * Each report names its keys (a POPT_CALLBACK entry's choices); a key is
 * its index there.  The function reports' (fr_sort_keys) are these:
 */
enum report_key { RK_CALLS, RK_BASE, RK_CUM, RK_NAME, RK_ADDR };
#define REPORT_SORT_MAX 5
struct report_sort {
	int key[REPORT_SORT_MAX]; /* the keys' indexes in the option's choices */
	int n;
};

/* POPT_CALLBACK for --sort: the entry's choices are the keys the report takes. */
int report_sort_option(const struct popt *o, const char *arg, const char *cmd);

struct report_row {
	uint64_t count;
	const char *cols[REPORT_MAX_COLS]; /* context columns, then the name (may hold spaces) */
};

struct report_table {
	const char *const *col_names;	  /* names of cols[] for the column line */
	size_t nr_cols;			  /* 1..REPORT_MAX_COLS; the last is the name */
	const char *count_name;		  /* heading of the count column ("count") */
	uint64_t total;			  /* 100%: every step of the selected threads */
	size_t top;			  /* print at most this many rows (0: all) */
	bool wide;			  /* names whole */
	int name_col;			  /* the column of names to shorten, from 1 (0: the last) */
	double percent_limit;		  /* leave out rows under this percent */
};

/* Sort rows by count (descending), ties by name, then by the other columns. */
void report_sort(struct report_row *rows, size_t n, size_t nr_cols);

/* A '#' line: report_comment(f, "counts by %s", by) prints "# counts by symbol". */
void report_comment(FILE *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Bytes of the quoted command line a report's header shows (post info shows it whole). */
#define REPORT_COMMAND_MAX 200

/*
 * The traced command as a shell would quote it, each word as td_quote does
 * (the line can be run again), malloc'ed; much longer than max bytes (0:
 * no limit), cut at a character with "... (N more bytes)".  NULL without memory.
 */
char *report_command_line(char *const *argv, size_t max);

/*
 * The first lines of every report:
 *   # REPORT of trace DIR (backend, state[, N steps lost])
 *   # command: ARGV                     (quoted, cut at REPORT_COMMAND_MAX bytes)
 *   # filter: pid P, module M, ...      (the filters set)
 *   # window: steps A to B, ...         (when one is set)
 */
void report_header(FILE *f, struct session *s, const char *report);

/*
 * "# total: N steps (percentages are of these)", saying whose steps they
 * are; with a function filter also how many of them the rows hold.
 */
void report_total(FILE *f, struct session *s, uint64_t total, uint64_t shown);

/*
 * Display names of the engine's functions for table columns (elided as
 * REPORT_NAME_MAX says, unless wide), valid until report_names_free.
 */
struct report_names;
struct report_names *report_names_new(const struct callflow *cf, bool wide);
const char *report_name(const struct report_names *rn, uint32_t fn);
void report_names_free(struct report_names *rn);
/*
 * " (native)" after the name of a function that ran natively, untraced
 * (cf_func.native: its instructions are in no count, its count unknown
 * unless the recorder counted it), else "".
 */
const char *report_native_mark(const struct callflow *cf, uint32_t fn);
/*
 * Whether tree and flow name the module of fn's entry ("printf [libc.so.6]")
 * when below is the function it was entered above (CF_NO_FN: none): where
 * the entry goes into another module than below's, and for a thread's
 * first function.  A line whose module is not named is in the module of
 * the nearest line above it at a lower depth: ld.so's strcmp and libc's
 * show their modules where they are entered from elsewhere.
 */
bool report_module_shown(const struct callflow *cf, uint32_t fn, uint32_t below);
/*
 * A module as reports show it after a function's name, as perf does:
 * " [libc.so.6]"; a module the kernel already names in brackets
 * ("[vdso]") keeps its own, " [vdso]".  module NULL: "".  buf holds at
 * least REPORT_MODULE_TAG_SIZE bytes (a file name is at most 255).
 */
#define REPORT_MODULE_TAG_SIZE 264
const char *report_module_tag(const char *module, char *buf, size_t size);

/*
 * Columns line up by what a terminal shows, not by bytes: a name of
 * non-ASCII characters (café) takes fewer columns than bytes.
 * report_locale: post's LC_CTYPE, the user's (UTF-8 in place of "C").
 * report_width: the columns s takes (wcwidth; a byte that is not part of
 * a character, one).  report_pad: s, then spaces up to width columns.
 */
void report_locale(void);
int report_width(const char *s);
void report_pad(FILE *f, const char *s, int width);

/* name, elided to at most REPORT_NAME_MAX bytes plus the marker, into buf (>= 128 bytes). */
const char *report_elide(const char *name, char *buf, size_t size);

/* Finish writing f (stdout or a file): 0, or EXIT_RUNTIME with a message. */
int report_finish(FILE *f, const char *what);

/*
 * The column line, the rows (--top of them, then a '#' line saying how many
 * rows and steps were left out), and the total row (the sum of all rows,
 * shown or not, with its percent of the table's total):
 *   #    count  percent  module     symbol
 *       123456   45.67%  demo       main
 *       270336  100.00%  total
 */
void report_print_table(FILE *f, const struct report_table *t, const struct report_row *rows,
			size_t n);

/* The rows shown, --top of those over --percent-limit, in order: their indexes in sel[n]. */
size_t report_select_rows(const struct report_table *t, const struct report_row *rows, size_t n,
			  size_t *sel);

/* 100 * part / total, 0 when total is 0. */
double report_percent(uint64_t part, uint64_t total);

#endif /* POST_REPORT_H */
