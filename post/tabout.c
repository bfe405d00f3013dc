// SPDX-License-Identifier: GPL-2.0
/* The table reports as JSON or CSV for programs (tabout.h, docs/reports.md). */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/log.h"
#include "post/tabout.h"

const char *const tab_format_names[] = { "text", "json", "csv", NULL };

int tab_format_option(const struct popt *o, const char *arg, const char *cmd)
{
	static const char *const exports[] = { "callgrind", "chrome", "folded", "svg", NULL };

	for (int i = 0; tab_format_names[i]; i++)
		if (!strcmp(arg, tab_format_names[i])) {
			*(int *)o->value = i;
			return 0;
		}
	for (int i = 0; exports[i]; i++)
		if (!strcmp(arg, exports[i])) {
			pr_err("%s: --format '%s' is not one of text, json, csv (it is one of "
			       "'post export --format')", cmd, arg);
			return -1;
		}
	pr_err("%s: --format '%s' is not one of text, json, csv", cmd, arg);
	return -1;
}

/* ---- strings ---- */

/* The length of the valid UTF-8 sequence at s (1 to 4), 0 when s[0] does not start one. */
static size_t utf8_seq(const unsigned char *s)
{
	unsigned char c = s[0], lo = 0x80, hi = 0xbf;
	size_t n;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		n = 2;
	else if (c >= 0xe0 && c <= 0xef)
		n = 3;
	else if (c >= 0xf0 && c <= 0xf4)
		n = 4;
	else
		return 0;	/* a continuation byte, an overlong lead, or past U+10FFFF */
	/* the second byte's range rules out overlongs, surrogates and past U+10FFFF */
	if (c == 0xe0)
		lo = 0xa0;
	else if (c == 0xed)
		hi = 0x9f;
	else if (c == 0xf0)
		lo = 0x90;
	else if (c == 0xf4)
		hi = 0x8f;
	if (s[1] < lo || s[1] > hi)
		return 0;
	for (size_t i = 2; i < n; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	return n;
}

#define REPLACEMENT "\xef\xbf\xbd"	/* U+FFFD */

/* What JSON writes for byte c instead of itself, or NULL when c is written as it is. */
static const char *json_escape(unsigned char c, char *buf, size_t size)
{
	switch (c) {
	case '"':
		return "\\\"";
	case '\\':
		return "\\\\";
	case '\n':
		return "\\n";
	case '\t':
		return "\\t";
	case '\r':
		return "\\r";
	}
	if (c >= 0x20 && c != 0x7f)
		return NULL;
	snprintf(buf, size, "\\u%04x", c);
	return buf;
}

/*
 * s with each byte that is not valid UTF-8 as U+FFFD, and each other byte
 * as escape says (NULL: itself); the plain runs in one write each.
 */
static void write_utf8(FILE *f, const char *s,
		       const char *(*escape)(unsigned char c, char *buf, size_t size))
{
	const unsigned char *p = (const unsigned char *)s, *run = p;
	char buf[8];

	while (*p) {
		size_t n = utf8_seq(p);
		const char *e = !n ? REPLACEMENT : escape(*p, buf, sizeof(buf));

		if (!e) {
			p += n;
			continue;
		}
		fwrite(run, 1, (size_t)(p - run), f);
		fputs(e, f);
		run = ++p;	/* an escaped byte is ASCII; a replaced one is one byte */
	}
	fwrite(run, 1, (size_t)(p - run), f);
}

/* CSV doubles a quote inside a quoted field. */
static const char *csv_escape(unsigned char c, char *buf, size_t size)
{
	(void)buf;
	(void)size;
	return c == '"' ? "\"\"" : NULL;
}

void tab_json_string(FILE *f, const char *s)
{
	fputc('"', f);
	write_utf8(f, s, json_escape);
	fputc('"', f);
}

void tab_csv_field(FILE *f, const char *s)
{
	bool quote = strpbrk(s, ",\"\r\n") != NULL;

	if (quote)
		fputc('"', f);
	write_utf8(f, s, csv_escape);
	if (quote)
		fputc('"', f);
}

/* ---- JSON structure ---- */

/* Before a value in the array or object open: a comma unless it is the first. */
static void json_next(struct tabout *t, bool newline)
{
	if (!t->first[t->depth - 1])
		fputc(',', t->f);
	if (newline)
		fputc('\n', t->f);
	t->first[t->depth - 1] = false;
}

static void json_key(struct tabout *t, const char *key)
{
	json_next(t, t->depth == 1);
	tab_json_string(t->f, key);
	fputc(':', t->f);
}

static void json_open(struct tabout *t, char c)
{
	fputc(c, t->f);
	if (t->depth < TAB_MAX_DEPTH)
		t->first[t->depth++] = true;
}

static void json_close(struct tabout *t, char c)
{
	fputc(c, t->f);
	if (t->depth > 1)
		t->depth--;
}

void tab_start(struct tabout *t, FILE *f, enum tab_format fmt, const char *report)
{
	memset(t, 0, sizeof(*t));
	t->f = f;
	t->fmt = fmt;
	t->depth = 1;
	t->first[0] = true;
	if (fmt != TAB_JSON)
		return;
	fputc('{', f);
	json_key(t, "schema");
	tab_json_string(f, TAB_SCHEMA);
	json_key(t, "version");
	fprintf(f, "%d", TAB_SCHEMA_VERSION);
	tab_fact_str(t, "report", report);
}

void tab_end(struct tabout *t)
{
	if (t->fmt == TAB_JSON)
		fputs("\n}\n", t->f);
}

/* ---- facts ---- */

void tab_fact_str(struct tabout *t, const char *key, const char *s)
{
	if (t->fmt != TAB_JSON)
		return;
	json_key(t, key);
	if (s)
		tab_json_string(t->f, s);
	else
		fputs("null", t->f);
}

void tab_fact_u64(struct tabout *t, const char *key, uint64_t v)
{
	if (t->fmt != TAB_JSON)
		return;
	json_key(t, key);
	fprintf(t->f, "%" PRIu64, v);
}

void tab_fact_f64(struct tabout *t, const char *key, double v, int decimals)
{
	if (t->fmt != TAB_JSON)
		return;
	json_key(t, key);
	if (isfinite(v))
		fprintf(t->f, "%.*f", decimals, v);
	else
		fputs("null", t->f);
}

void tab_fact_bool(struct tabout *t, const char *key, bool v)
{
	if (t->fmt != TAB_JSON)
		return;
	json_key(t, key);
	fputs(v ? "true" : "false", t->f);
}

void tab_fact_strv(struct tabout *t, const char *key, const char *const *strv)
{
	if (t->fmt != TAB_JSON)
		return;
	json_key(t, key);
	json_open(t, '[');
	for (size_t i = 0; strv && strv[i]; i++) {
		json_next(t, false);
		tab_json_string(t->f, strv[i]);
	}
	json_close(t, ']');
}

void tab_object_begin(struct tabout *t, const char *key)
{
	if (t->fmt != TAB_JSON)
		return;
	json_key(t, key);
	json_open(t, '{');
}

void tab_object_end(struct tabout *t)
{
	if (t->fmt == TAB_JSON)
		json_close(t, '}');
}

/* ---- rows ---- */

void tab_rows_begin(struct tabout *t, const char *key, const char *const *cols, size_t n)
{
	t->named = key != NULL;
	t->quiet = t->fmt == TAB_CSV && key;
	if (t->fmt == TAB_CSV && !t->quiet) {
		for (size_t i = 0; i < n; i++) {
			if (i)
				fputc(',', t->f);
			tab_csv_field(t->f, cols[i]);
		}
		fputc('\n', t->f);
	}
	if (t->fmt != TAB_JSON)
		return;
	if (key)
		tab_object_begin(t, key);
	json_key(t, "columns");
	json_open(t, '[');
	for (size_t i = 0; i < n; i++) {
		json_next(t, false);
		tab_json_string(t->f, cols[i]);
	}
	json_close(t, ']');
	json_key(t, "rows");
	json_open(t, '[');
}

void tab_rows_end(struct tabout *t)
{
	if (t->fmt == TAB_JSON) {
		fputc('\n', t->f);	/* a row a line, the bracket on its own */
		json_close(t, ']');
		if (t->named)
			json_close(t, '}');
	}
	t->quiet = t->named = false;
}

void tab_row_begin(struct tabout *t)
{
	if (t->fmt == TAB_JSON) {
		json_next(t, true);
		json_open(t, '[');
	} else if (t->fmt == TAB_CSV) {
		t->first[0] = true;	/* the row's first field */
	}
}

void tab_row_end(struct tabout *t)
{
	if (t->fmt == TAB_JSON)
		json_close(t, ']');
	else if (t->fmt == TAB_CSV && !t->quiet)
		fputc('\n', t->f);
}

/* Before a cell: false when it is not to be written (text, or a CSV table not written). */
static bool cell(struct tabout *t)
{
	if (t->fmt == TAB_JSON) {
		json_next(t, false);
		return true;
	}
	if (t->fmt != TAB_CSV || t->quiet)
		return false;
	if (!t->first[0])
		fputc(',', t->f);
	t->first[0] = false;
	return true;
}

void tab_u64(struct tabout *t, uint64_t v)
{
	if (cell(t))
		fprintf(t->f, "%" PRIu64, v);
}

void tab_delta(struct tabout *t, uint64_t a, uint64_t b)
{
	if (cell(t))
		fprintf(t->f, "%s%" PRIu64, b < a ? "-" : "", b < a ? a - b : b - a);
}

void tab_f64(struct tabout *t, double v, int decimals)
{
	if (!cell(t))
		return;
	if (isfinite(v))
		fprintf(t->f, "%.*f", decimals, v);
	else if (t->fmt == TAB_JSON)
		fputs("null", t->f);
}

void tab_pct(struct tabout *t, double percent)
{
	tab_f64(t, percent, 2);
}

void tab_str(struct tabout *t, const char *s)
{
	if (!cell(t))
		return;
	if (t->fmt == TAB_JSON) {
		if (s)
			tab_json_string(t->f, s);
		else
			fputs("null", t->f);
	} else if (s) {
		tab_csv_field(t->f, s);
	}
}

void tab_bool(struct tabout *t, bool v)
{
	if (cell(t))
		fputs(v ? "true" : "false", t->f);
}

void tab_null(struct tabout *t)
{
	if (cell(t) && t->fmt == TAB_JSON)
		fputs("null", t->f);
}
