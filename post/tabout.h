/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Reports for programs: the table reports (counts, profile, arc, tree,
 * diff, info) write their header facts and rows here, typed, and a back
 * end writes them as one JSON document or as CSV (--format json|csv).
 * Text, the default, is each report's own layout for people (report.h);
 * its numbers are these.  The formats are documented in docs/reports.md
 * ("Machine-readable output"); scripts parse them, so keep them stable
 * and raise TAB_SCHEMA_VERSION when a key or column changes meaning.
 *
 * JSON:  {"schema": "pitrace-report", "version": 1, "report": "counts",
 *         FACTS..., "columns": ["count", ...], "rows": [[123, ...], ...],
 *         FACTS...}
 * CSV:   the column names, then one line per row (the main table only).
 */
#ifndef POST_TABOUT_H
#define POST_TABOUT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "util/popt.h"

#define TAB_SCHEMA "pitrace-report"
#define TAB_SCHEMA_VERSION 1

enum tab_format { TAB_TEXT = 0, TAB_JSON, TAB_CSV };

extern const char *const tab_format_names[]; /* "text", "json", "csv" */

/*
 * POPT_CALLBACK for --format (value: an int, enum tab_format); its error
 * points at 'post export --format' for the export formats.
 */
int tab_format_option(const struct popt *o, const char *arg, const char *cmd);

#define TAB_MAX_DEPTH 8		  /* objects and arrays open at once */

struct tabout {
	FILE *f;
	enum tab_format fmt;
	bool first[TAB_MAX_DEPTH]; /* per open object or array: nothing written in it yet */
	int depth;
	bool quiet;		  /* CSV: a table other than the main one, not written */
	bool named;		  /* the rows are in an object of their own ("native": {...}) */
};

/* Start a document for report (JSON: the schema, its version and the report's name). */
void tab_start(struct tabout *t, FILE *f, enum tab_format fmt, const char *report);

/* Finish it (report_finish then checks that f was written). */
void tab_end(struct tabout *t);

/*
 * Header facts: JSON members of the document (or of the object open);
 * CSV has none (its rows only).  A NULL string is null; strv is a
 * NULL-terminated array of strings (NULL: []).
 */
void tab_fact_str(struct tabout *t, const char *key, const char *s);
void tab_fact_u64(struct tabout *t, const char *key, uint64_t v);
void tab_fact_f64(struct tabout *t, const char *key, double v, int decimals);
void tab_fact_bool(struct tabout *t, const char *key, bool v);
void tab_fact_strv(struct tabout *t, const char *key, const char *const *strv);
void tab_object_begin(struct tabout *t, const char *key);
void tab_object_end(struct tabout *t);

/*
 * A table: its columns' names, then rows of as many cells.  key NULL: the
 * report's main table ("columns" and "rows" in the document; CSV's header
 * line and lines); else a table of its own under key (JSON only).
 */
void tab_rows_begin(struct tabout *t, const char *key, const char *const *cols, size_t n);
void tab_rows_end(struct tabout *t);
void tab_row_begin(struct tabout *t);
void tab_row_end(struct tabout *t);

/* Cells.  A NULL string is null (CSV: empty); a double that is not finite too. */
void tab_u64(struct tabout *t, uint64_t v);
void tab_delta(struct tabout *t, uint64_t a, uint64_t b); /* b - a, signed, exact */
void tab_f64(struct tabout *t, double v, int decimals);	  /* "%.*f", as the text rounds it */
void tab_pct(struct tabout *t, double percent);		  /* tab_f64(t, percent, 2) */
void tab_str(struct tabout *t, const char *s);
void tab_bool(struct tabout *t, bool v);		  /* true, false (CSV too) */
void tab_null(struct tabout *t);

/*
 * s as a JSON string (quoted); as one CSV field (quoted when it holds a
 * comma, a quote, CR or LF; quotes doubled).  Both write valid UTF-8:
 * a byte that is not part of valid UTF-8 becomes U+FFFD.  JSON escapes
 * '"', '\\', the control characters and DEL; the rest passes as it is.
 */
void tab_json_string(FILE *f, const char *s);
void tab_csv_field(FILE *f, const char *s);

/*
 * What report_header and report_total print, as facts (report_tab.c):
 * "trace", "backend", "state", "lost", "command" (its arguments), "filter"
 * and "window" (objects of what is set), then "total", "total_of" and,
 * with a function filter, "shown".
 */
struct session;
void report_tab_header(struct tabout *t, struct session *s);
void report_tab_total(struct tabout *t, struct session *s, uint64_t total, uint64_t shown);

/*
 * report_print_table's rows (the same --top and --percent-limit): columns
 * count, percent, then the table's own, names whole; then the facts "sum"
 * (of all rows, shown or not), "more_rows" and "more" (what is left out).
 */
struct report_table;
struct report_row;
void report_tab_table(struct tabout *t, const struct report_table *tb,
		      const struct report_row *rows, size_t n);

#endif /* POST_TABOUT_H */
