// SPDX-License-Identifier: GPL-2.0
/* Table output shared by post's reports (see report.h and docs/post.md). */
#include <errno.h>
#include <inttypes.h>
#include <langinfo.h>
#include <locale.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "util/callflow.h"
#include "util/log.h"
#include "post/report.h"
#include "util/session.h"
#include "util/trace_dir.h"
#include "util/trace_reader.h"

int report_sort_option(const struct popt *o, const char *arg, const char *cmd)
{
	struct report_sort *sort = o->value;
	char *copy = strdup(arg), *save = NULL, *tok;
	int ret = 0;

	if (!copy)
		return -1;
	sort->n = 0;
	for (tok = strtok_r(copy, ",", &save); tok && !ret; tok = strtok_r(NULL, ",", &save)) {
		int k = -1;

		for (int i = 0; o->choices[i]; i++)
			if (!strcmp(tok, o->choices[i]))
				k = i;
		if (k < 0 || sort->n == REPORT_SORT_MAX) {
			char list[128] = "";
			size_t n = 0;

			for (int i = 0; o->choices[i] && n < sizeof(list); i++)
				n += (size_t)snprintf(list + n, sizeof(list) - n, "%s%s", i ? ", " : "",
						      o->choices[i]);
			if (k < 0)
				pr_err("%s: --sort '%s' is not one of %s", cmd, tok, list);
			else
				pr_err("%s: --sort takes at most %d keys", cmd, REPORT_SORT_MAX);
			ret = -1;
			break;
		}
		sort->key[sort->n++] = k;
	}
	if (!ret && !sort->n) {
		pr_err("%s: --sort needs a key", cmd);
		ret = -1;
	}
	free(copy);
	return ret;
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

/* Back over UTF-8 continuation bytes, so a cut never splits a character. */
static size_t char_start(const char *s, size_t i)
{
	while (i > 0 && ((unsigned char)s[i] & 0xc0) == 0x80)
		i--;
	return i;
}

char *report_command_line(char *const *argv, size_t max)
{
	size_t len = 0, cap = 64;
	char *out = malloc(cap), *q = NULL;

	for (size_t i = 0; out && argv && argv[i]; i++) {
		/* $'\xNN' takes 4 bytes a byte, plus $, quotes and NUL */
		size_t qsize = 4 * strlen(argv[i]) + 8, n;
		char *nq = realloc(q, qsize);

		if (!nq)
			goto oom;
		q = nq;
		n = strlen(td_quote(argv[i], q, qsize));
		if (len + n + 2 > cap) {
			char *no = realloc(out, cap = 2 * (len + n + 2));

			if (!no)
				goto oom;
			out = no;
		}
		if (i)
			out[len++] = ' ';
		memcpy(out + len, q, n);
		len += n;
	}
	free(q);
	if (!out)
		return NULL;
	out[len] = '\0';
	/* cut only what is longer than the note that replaces it (which then fits) */
	if (max && len > max + 64) {
		size_t cut = char_start(out, max);

		snprintf(out + cut, 64, "... (%zu more bytes)", len - cut);
	}
	return out;
oom:
	free(q);
	free(out);
	return NULL;
}

static void print_duration(FILE *f, uint64_t ns)
{
	if (ns % 1000000000u == 0)
		fprintf(f, "%" PRIu64 " s", ns / 1000000000u);
	else if (ns >= 1000000)
		fprintf(f, "%.6g ms", (double)ns / 1e6);
	else
		fprintf(f, "%" PRIu64 " ns", ns);
}

/* "module a, module b": one per repeated option (their values are lines); the next sep. */
static const char *filter_list(FILE *f, const char *sep, const char *what, const char *list)
{
	for (const char *l = list; l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		fprintf(f, "%s%s %.*s", sep, what, (int)strcspn(l, "\n"), l);
		sep = ", ";
	}
	return sep;
}

void report_header(FILE *f, struct session *s, const char *report)
{
	const struct trace *t = session_trace(s);
	const struct trace_info *in = trace_info(t);
	const struct session_filter *fl = session_filter(s);
	static const char *const rings[] = { "all", "user", "kernel" };
	const char *sep = " ";
	char *cmdline;

	fprintf(f, "# %s of trace %s (%s, %s", report, trace_dir(t),
		in->backend[0] ? in->backend : "?", in->state[0] ? in->state : "state unknown");
	if (in->totals.lost)
		fprintf(f, ", %" PRIu64 " steps lost", in->totals.lost);
	cmdline = report_command_line(in->argv, REPORT_COMMAND_MAX);
	fprintf(f, ")\n# command: %s\n", cmdline && cmdline[0] ? cmdline : "?");
	free(cmdline);
	if (fl->pid || fl->tid || fl->module || fl->symbol || fl->ring) {
		fputs("# filter:", f);
		if (fl->pid)
			fprintf(f, "%spid %u", sep, fl->pid), sep = ", ";
		if (fl->tid)
			fprintf(f, "%stid %u", sep, fl->tid), sep = ", ";
		if (fl->module)
			sep = filter_list(f, sep, "module", fl->module);
		if (fl->symbol)
			sep = filter_list(f, sep, "symbol", fl->symbol);
		if (fl->ring)
			fprintf(f, "%s%s code", sep, rings[fl->ring]);
		fputc('\n', f);
	}
	if (fl->from || fl->to != UINT64_MAX || fl->time_from || fl->time_to != UINT64_MAX) {
		fputs("# window:", f);
		if (fl->from || fl->to != UINT64_MAX) {
			fprintf(f, " steps %" PRIu64 " to ", fl->from);
			if (fl->to == UINT64_MAX)
				fputs("the end", f);
			else
				fprintf(f, "%" PRIu64, fl->to);
		}
		if (fl->time_from || fl->time_to != UINT64_MAX) {
			fputs(fl->from || fl->to != UINT64_MAX ? ", time " : " time ", f);
			print_duration(f, fl->time_from);
			fputs(" to ", f);
			if (fl->time_to == UINT64_MAX)
				fputs("the end", f);
			else
				print_duration(f, fl->time_to);
			fputs(" after the start", f);
		}
		fputc('\n', f);
	}
}

void report_total(FILE *f, struct session *s, uint64_t total, uint64_t shown)
{
	const struct session_filter *fl = session_filter(s);
	bool threads = fl->pid || fl->tid;
	bool window = fl->from || fl->to != UINT64_MAX || fl->time_from || fl->time_to != UINT64_MAX;

	fprintf(f, "# total: %" PRIu64 " steps%s%s%s (percentages are of these)\n", total,
		threads ? " of the selected threads" : "", window ? " in the window" : "",
		!threads && !window ? " of the trace" : "");
	if (filter_on_functions(session_select(s)))
		fprintf(f, "# shown: %" PRIu64 " steps (%.2f%%) in the functions the filter "
			"selects\n", shown, report_percent(shown, total));
}

/* ---- names ---- */

/* Is the '<' or '>' at i a template bracket (not in operator<, operator<<, operator->, ...)? */
static bool is_bracket(const char *s, size_t i)
{
	size_t k = i;

	while (k > 0 && (s[k - 1] == '<' || s[k - 1] == '>' || s[k - 1] == '=' || s[k - 1] == '-'))
		k--;
	if (k >= 8 && !strncmp(s + k - 8, "operator", 8))
		return false;
	return !(s[i] == '>' && i > 0 && s[i - 1] == '-');
}

/*
 * C++ names: the template arguments nested deeper than depth, as "<[...]>",
 * into out (size bytes); its length, or 0 when the brackets don't pair up.
 */
static size_t collapse_templates(const char *name, unsigned depth, char *out, size_t size)
{
	size_t n = 0;
	unsigned d = 0;

	for (size_t i = 0; name[i]; i++) {
		bool br = (name[i] == '<' || name[i] == '>') && is_bracket(name, i);

		if (br && name[i] == '>') {
			if (!d)
				return 0;
			d--;
		}
		if (d <= depth || (br && name[i] == '<' && d == depth)) {
			if (n + 1 >= size)
				return 0;
			out[n++] = name[i];
		}
		if (br && name[i] == '<') {
			if (++d == depth + 1) {
				if (n + 6 >= size)
					return 0;
				memcpy(out + n, "[...]", 5);
				n += 5;
			}
		}
	}
	out[n] = '\0';
	return d ? 0 : n;
}

/*
 * A long name shown shorter: first its deepest template arguments go (C++
 * names keep their functions' and classes' own names), then, if still too
 * long, its middle.
 */
static const char *elide(const char *name, char *buf, size_t size)
{
	size_t len = strlen(name), head, tail, max_depth = 0;
	unsigned d = 0;
	char *tmp;

	if (len <= REPORT_NAME_MAX || size < REPORT_NAME_MAX + 8)
		return name;
	for (size_t i = 0; name[i]; i++)
		if ((name[i] == '<' || name[i] == '>') && is_bracket(name, i)) {
			d = name[i] == '<' ? d + 1 : d ? d - 1 : 0;
			if (d > max_depth)
				max_depth = d;
		}
	/* "<[...]>" can be longer than what it stands for */
	tmp = max_depth ? malloc(2 * len + 16) : NULL;
	for (size_t depth = max_depth; tmp && depth-- > 0;) {
		size_t n = collapse_templates(name, (unsigned)depth, tmp, 2 * len + 16);

		if (!n)
			break;
		if (n <= REPORT_NAME_MAX && n < size) {
			memcpy(buf, tmp, n + 1);
			free(tmp);
			return buf;
		}
		if (!depth) {
			/* all templates collapsed and still long: cut the middle of that */
			name = tmp;
			len = n;
		}
	}
	/* cut at "::" where one is near: whole components read better */
	head = char_start(name, REPORT_NAME_MAX / 2 - 2);
	for (size_t k = head; k >= 16; k--)
		if (name[k - 1] == ':' && name[k - 2] == ':') {
			head = k;
			break;
		}
	tail = char_start(name, len - (REPORT_NAME_MAX - head - 5));
	for (size_t k = tail; k + 30 > tail && k > head + 2; k--)
		if (name[k - 1] == ':' && name[k - 2] == ':') {
			tail = k - 2;
			break;
		}
	snprintf(buf, size, "%.*s[...]%s", (int)head, name, name + tail);
	free(tmp);
	return buf;
}

/* How many leading bytes a and b share. */
static size_t common_prefix(const char *a, const char *b)
{
	size_t n = 0;

	while (a[n] && a[n] == b[n])
		n++;
	return n;
}

const char *report_elide(const char *name, char *buf, size_t size)
{
	return elide(name, buf, size);
}

/*
 * name shown as its head, the part around byte at (where it differs from
 * others) and its tail, "[...]" between them; NULL when that is not shorter.
 */
static char *around(const char *name, size_t at)
{
	enum { HEAD = 20, BEFORE = 12, AFTER = 28, TAIL = 30 };
	size_t len = strlen(name), from, to, tail;
	char *out;

	from = char_start(name, at > BEFORE ? at - BEFORE : 0);
	to = char_start(name, at + AFTER < len ? at + AFTER : len);
	tail = char_start(name, len > TAIL ? len - TAIL : 0);
	if (from <= HEAD + 5 || to + 5 >= tail || HEAD + (to - from) + TAIL + 10 >= len)
		return NULL;
	if (asprintf(&out, "%.*s[...]%.*s[...]%s", HEAD, name, (int)(to - from), name + from,
		     name + tail) < 0)
		return NULL;
	return out;
}

/*
 * Names whose short forms (shown[k] for names[k], k in idx[0..n)) look
 * alike: shown again with the part where they differ kept, "[...]" before
 * and after it; whole if that fails.  shown[] entries are malloc'ed (NULL:
 * the name whole).
 */
static void tell_apart(const char *const *names, char **shown, const size_t *idx, size_t n)
{
	size_t at = SIZE_MAX;

	for (size_t k = 1; k < n; k++) {
		size_t c = common_prefix(names[idx[0]], names[idx[k]]);

		if (c < at)
			at = c;
	}
	for (size_t k = 0; k < n; k++) {
		free(shown[idx[k]]);
		shown[idx[k]] = around(names[idx[k]], at);
	}
	for (size_t k = 0; k < n; k++)
		for (size_t j = k + 1; j < n; j++)
			if (shown[idx[k]] && shown[idx[j]] && !strcmp(shown[idx[k]], shown[idx[j]])) {
				free(shown[idx[k]]);
				free(shown[idx[j]]);
				shown[idx[k]] = shown[idx[j]] = NULL;
			}
}

/* String compare of shown names through an index (qsort_r). */
static int idx_cmp(const void *pa, const void *pb, void *arg)
{
	char **shown = arg;
	const char *a = shown[*(const size_t *)pa], *b = shown[*(const size_t *)pb];

	return strcmp(a ? a : "", b ? b : "");
}

/*
 * Short forms of names[0..n) for a table: malloc'ed in shown[] (NULL:
 * whole), none two alike.
 */
static void shorten_all(const char *const *names, size_t n, char **shown)
{
	char buf[2 * REPORT_NAME_MAX];
	size_t *idx = malloc((n + 1) * sizeof(*idx)), nl = 0;

	for (size_t i = 0; i < n; i++) {
		const char *e = report_elide(names[i], buf, sizeof(buf));

		shown[i] = e == names[i] ? NULL : strdup(e);
		if (shown[i] && idx)
			idx[nl++] = i;
	}
	if (!idx)
		return;
	qsort_r(idx, nl, sizeof(*idx), idx_cmp, shown);
	for (size_t i = 0, j; i < nl; i = j) {
		for (j = i + 1; j < nl && !strcmp(shown[idx[i]], shown[idx[j]]); j++)
			;
		if (j - i > 1)
			tell_apart(names, shown, idx + i, j - i);
	}
	free(idx);
}


struct report_names {
	const struct callflow *cf;
	char **shown;		  /* per function: its short name, NULL when shown whole */
	uint32_t n;
};

struct report_names *report_names_new(const struct callflow *cf, bool wide)
{
	struct report_names *rn = calloc(1, sizeof(*rn));
	const char **names;

	if (!rn)
		return NULL;
	rn->cf = cf;
	rn->n = cf_nr_funcs(cf);
	if (wide)
		return rn;
	rn->shown = calloc(rn->n + 1, sizeof(*rn->shown));
	names = malloc((rn->n + 1) * sizeof(*names));
	if (!rn->shown || !names) {
		free(names);
		return rn;	/* without memory, names are shown whole */
	}
	for (uint32_t f = 0; f < rn->n; f++)
		names[f] = cf_func(cf, f)->name;
	shorten_all(names, rn->n, rn->shown);
	free(names);
	return rn;
}

const char *report_name(const struct report_names *rn, uint32_t fn)
{
	if (rn->shown && fn < rn->n && rn->shown[fn])
		return rn->shown[fn];
	return cf_func(rn->cf, fn)->name;
}

const char *report_native_mark(const struct callflow *cf, uint32_t fn)
{
	return fn != CF_NO_FN && cf_func(cf, fn)->native ? " (native)" : "";
}

bool report_module_shown(const struct callflow *cf, uint32_t fn, uint32_t below)
{
	return fn != CF_NO_FN &&
	       (below == CF_NO_FN || strcmp(cf_func(cf, fn)->module, cf_func(cf, below)->module));
}

const char *report_module_tag(const char *module, char *buf, size_t size)
{
	size_t n;

	if (!module)
		return "";
	n = strlen(module);
	if (n >= 2 && module[0] == '[' && module[n - 1] == ']')
		snprintf(buf, size, " %s", module);
	else
		snprintf(buf, size, " [%s]", module);
	return buf;
}

void report_names_free(struct report_names *rn)
{
	if (!rn)
		return;
	for (uint32_t f = 0; rn->shown && f < rn->n; f++)
		free(rn->shown[f]);
	free(rn->shown);
	free(rn);
}

int report_finish(FILE *f, const char *what)
{
	if (fflush(f) != 0 || ferror(f)) {
		pr_err("cannot write %s: %s", what, strerror(errno));
		return EXIT_RUNTIME;
	}
	return 0;
}

/* ---- tables ---- */

void report_locale(void)
{
	setlocale(LC_CTYPE, "");
	/* "C" knows ASCII only; names in ELF files are UTF-8, as compilers write them */
	if (!strcmp(nl_langinfo(CODESET), "ANSI_X3.4-1968"))
		setlocale(LC_CTYPE, "C.UTF-8");
}

int report_width(const char *s)
{
	size_t len = strlen(s);
	mbstate_t st;
	int w = 0;

	memset(&st, 0, sizeof(st));
	while (len) {
		wchar_t wc;
		size_t n = mbrtowc(&wc, s, len, &st);
		int cw;

		if (n == (size_t)-1 || n == (size_t)-2 || n == 0) {
			/* not a character here: a column a byte, as most terminals show them */
			memset(&st, 0, sizeof(st));
			n = 1;
			cw = 1;
		} else {
			cw = wcwidth(wc);
			if (cw < 0)
				cw = 1;
		}
		w += cw;
		s += n;
		len -= n;
	}
	return w;
}

void report_pad(FILE *f, const char *s, int width)
{
	fputs(s, f);
	for (int n = width - report_width(s); n > 0; n--)
		fputc(' ', f);
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

/* The rows' names (malloc'ed short forms in *shorts, NULL: whole). */
static const char **table_names(const struct report_table *t, const struct report_row *rows,
				size_t shown, char ***shorts)
{
	size_t last = t->name_col ? (size_t)t->name_col - 1 : t->nr_cols - 1;
	const char **names = calloc(shown + 1, sizeof(*names));

	*shorts = NULL;
	if (!names)
		return NULL;
	for (size_t i = 0; i < shown; i++)
		names[i] = rows[i].cols[last] ? rows[i].cols[last] : "-";
	if (t->wide)
		return names;
	*shorts = calloc(shown + 1, sizeof(**shorts));
	if (!*shorts)
		return names;
	shorten_all(names, shown, *shorts);
	for (size_t i = 0; i < shown; i++)
		if ((*shorts)[i])
			names[i] = (*shorts)[i];
	return names;
}

size_t report_select_rows(const struct report_table *t, const struct report_row *rows, size_t n,
			  size_t *sel)
{
	size_t shown = 0;

	for (size_t i = 0; i < n && (!t->top || shown < t->top); i++)
		if (!(t->percent_limit > 0) ||
		    report_percent(rows[i].count, t->total) >= t->percent_limit)
			sel[shown++] = i;
	return shown;
}

void report_print_table(FILE *f, const struct report_table *t, const struct report_row *rows,
			size_t n)
{
	const char *count_name = t->count_name ? t->count_name : "count";
	size_t nc = t->name_col ? (size_t)t->name_col - 1 : t->nr_cols - 1, shown = 0;
	int cw = digits(t->total), w[REPORT_MAX_COLS] = { 0 };
	uint64_t rest = 0, sum = 0;
	size_t *sel = malloc((n + 1) * sizeof(*sel));
	char **shorts, num[32];
	/* every row's name: a short form tells the shown rows from the others too */
	const char **names = table_names(t, rows, n, &shorts);

	if (sel)
		shown = report_select_rows(t, rows, n, sel);
	for (size_t k = 0; k < shown; k++)
		if (digits(rows[sel[k]].count) > cw)
			cw = digits(rows[sel[k]].count);
	if (post_output.thousands)
		cw += (cw - 1) / 3;
	/* at least 8 wide, so small tables line up with the '#' column line too */
	if (cw < 8)
		cw = 8;
	if (cw < (int)strlen(count_name) + 2)
		cw = (int)strlen(count_name) + 2;
	/* context columns are padded to their widest shown value; the last (w 0) is not */
	for (size_t c = 0; c + 1 < t->nr_cols; c++) {
		w[c] = (int)strlen(t->col_names[c]);
		for (size_t k = 0; k < shown; k++) {
			const char *v = c == nc && names ? names[sel[k]] : rows[sel[k]].cols[c];
			int l = v ? report_width(v) : 1;

			if (l > w[c])
				w[c] = l;
		}
	}
	fprintf(f, "#%*s  %7s", cw - 1, count_name, "percent");
	for (size_t c = 0; c < t->nr_cols; c++)
		fprintf(f, "  %-*s", w[c], t->col_names[c]);
	fputc('\n', f);
	for (size_t k = 0; k < shown; k++) {
		const struct report_row *row = &rows[sel[k]];
		double pct = report_percent(row->count, t->total);

		fprintf(f, "%s%*s  %6.2f%%", output_hot(pct), cw,
			output_num(row->count, num, sizeof(num)), pct);
		for (size_t c = 0; c < t->nr_cols; c++) {
			const char *v = row->cols[c] ? row->cols[c] : "-";

			if (names && c == nc)
				v = names[sel[k]];
			fputs("  ", f);
			report_pad(f, v, w[c]);
		}
		fprintf(f, "%s\n", output_reset());
	}
	for (size_t i = 0; i < n; i++)
		sum += rows[i].count;
	rest = sum;
	for (size_t k = 0; k < shown; k++)
		rest -= rows[sel[k]].count;
	if (shown < n)
		fprintf(f, "# %zu more rows: %" PRIu64 " (%.2f%%)\n", n - shown, rest,
			report_percent(rest, t->total));
	fprintf(f, "%*s  %6.2f%%  total\n", cw, output_num(sum, num, sizeof(num)),
		report_percent(sum, t->total));
	free(sel);
	free(names);
	for (size_t i = 0; shorts && i < n; i++)
		free(shorts[i]);
	free(shorts);
}
