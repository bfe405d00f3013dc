// SPDX-License-Identifier: GPL-2.0
/*
 * The viewer's annotate view of one function: its instructions with the
 * steps at each and their share of the function's, under the source line
 * they come from (Tab: instructions only, or the source listing with the
 * steps per line).  The data comes from tui_annotate_data.c.
 */
#include <curses.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "tui.h"

enum ann_mode { MODE_MIXED, MODE_ASM, MODE_SOURCE, NR_MODES };

enum ann_row_kind { AR_INSN, AR_LINE, AR_FILE, AR_NOTE };

struct ann_row {
	uint8_t kind;
	bool counted;		  /* AR_LINE: some instruction of it is in the function */
	int line;
	size_t insn;		  /* AR_INSN */
	const char *file;
	uint64_t count;
};

struct ann_view {
	struct tui_view v;
	uint32_t fn;
	enum ann_mode mode;
	struct ann_function f;
	struct ann_row *rows;
	size_t size;
};

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

static bool take(void *ctx, uint32_t pid)
{
	const struct tui_sel *sel = ctx;

	return !sel->pid || sel->pid == pid;
}

static int add(struct ann_view *a, struct ann_row r)
{
	if (a->v.nr_rows == a->size) {
		size_t n = a->size ? 2 * a->size : 256;
		struct ann_row *nr = realloc(a->rows, n * sizeof(*nr));

		if (!nr)
			return -1;
		a->rows = nr;
		a->size = n;
	}
	a->rows[a->v.nr_rows++] = r;
	return 0;
}

static int rows_mixed(struct ann_view *a, bool lines)
{
	const struct ann_function *f = &a->f;

	for (size_t i = 0; i < f->n; i++) {
		const struct ann_insn *in = &f->insns[i];

		if (lines && in->file && (!i || in->file != f->insns[i - 1].file ||
					  in->line != f->insns[i - 1].line)) {
			struct ann_row r = { .kind = AR_LINE, .file = in->file, .line = in->line,
					     .counted = true };

			for (size_t j = i; j < f->n && f->insns[j].file == in->file &&
					   f->insns[j].line == in->line; j++)
				r.count += f->insns[j].count;
			if (add(a, r))
				return -1;
		}
		if (add(a, (struct ann_row){ .kind = AR_INSN, .insn = i, .count = in->count }))
			return -1;
	}
	return 0;
}

static int line_cmp(const void *pa, const void *pb)
{
	const struct ann_row *a = pa, *b = pb;
	int r = strcmp(a->file, b->file);

	return r ?: a->line - b->line;
}

/* The function's main file from its first line to its last, then lines of other files. */
static int rows_source(struct tui *ui, struct ann_view *a)
{
	const struct ann_function *f = &a->f;
	const char *file = f->file;
	int lo = 0, hi = 0;
	uint64_t *count;
	bool *has;
	struct ann_row *others = NULL;
	size_t nr_others = 0;

	if (!file)
		return add(a, (struct ann_row){ .kind = AR_NOTE,
						.file = "no source lines are known for this function" });
	for (size_t i = 0; i < f->n; i++)
		if (f->insns[i].file == file && f->insns[i].line > 0) {
			if (!lo || f->insns[i].line < lo)
				lo = f->insns[i].line;
			if (f->insns[i].line > hi)
				hi = f->insns[i].line;
		}
	count = calloc((size_t)(hi - lo + 1), sizeof(*count));
	has = calloc((size_t)(hi - lo + 1), sizeof(*has));
	others = malloc((f->n + 1) * sizeof(*others));
	if (!count || !has || !others || add(a, (struct ann_row){ .kind = AR_FILE, .file = file }))
		goto oom;
	for (size_t i = 0; i < f->n; i++) {
		const struct ann_insn *in = &f->insns[i];

		if (in->file == file && in->line >= lo && in->line <= hi && lo) {
			count[in->line - lo] += in->count;
			has[in->line - lo] = true;
		} else if (in->file && in->line > 0) {
			others[nr_others++] = (struct ann_row){ .kind = AR_LINE, .file = in->file,
								.line = in->line, .count = in->count,
								.counted = true };
		}
	}
	for (int l = lo; lo && l <= hi; l++)
		if (add(a, (struct ann_row){ .kind = AR_LINE, .file = file, .line = l,
					     .count = count[l - lo], .counted = has[l - lo] }))
			goto oom;
	qsort(others, nr_others, sizeof(*others), line_cmp);
	for (size_t i = 0; i < nr_others; i++) {
		if (!i || strcmp(others[i].file, others[i - 1].file)) {
			if (add(a, (struct ann_row){ .kind = AR_FILE, .file = others[i].file }))
				goto oom;
		} else if (others[i].line == others[i - 1].line) {
			a->rows[a->v.nr_rows - 1].count += others[i].count;
			continue;
		}
		if (add(a, others[i]))
			goto oom;
	}
	(void)ui;
	free(count);
	free(has);
	free(others);
	return 0;
oom:
	free(count);
	free(has);
	free(others);
	return -1;
}

static int build_rows(struct tui *ui, struct ann_view *a)
{
	a->v.nr_rows = 0;
	if (a->f.why && add(a, (struct ann_row){ .kind = AR_NOTE, .file = a->f.why }))
		return -1;
	if (ui->prof->sel.tid &&
	    add(a, (struct ann_row){ .kind = AR_NOTE, .file = "the counts are of the thread's "
				     "process: addresses are counted per process" }))
		return -1;
	switch (a->mode) {
	case MODE_SOURCE:
		return rows_source(ui, a);
	default:
		return rows_mixed(a, a->mode == MODE_MIXED);
	}
}

static int build(struct tui *ui, struct ann_view *a)
{
	const struct cf_func *fn = cf_func(ui->d->r.cf, a->fn);
	size_t ran = 0;

	ann_function_free(&a->f);
	if (ann_function_get(ui->d->ann, a->fn, take, &ui->prof->sel, &a->f))
		return -1;
	for (size_t i = 0; i < a->f.n; i++)
		ran += a->f.insns[i].ran;
	snprintf(a->v.title, sizeof(a->v.title),
		 "Annotate %s [%s]: %" PRIu64 " steps, %zu of %zu instructions ran%s%s%s", fn->name,
		 fn->module, a->f.total, ran, a->f.n, a->f.file ? " (" : "",
		 a->f.file ? base_name(a->f.file) : "", a->f.file ? ")" : "");
	if (a->mode == MODE_SOURCE)
		snprintf(a->v.heading, sizeof(a->v.heading), "%11s %7s  %6s  %s", "steps", "%",
			 "line", "source (Tab)");
	else
		snprintf(a->v.heading, sizeof(a->v.heading), "%11s %7s  %12s    %s", "steps", "%",
			 "address", a->mode == MODE_MIXED ?
			 "instructions under source lines (Tab)" : "instructions (Tab)");
	return build_rows(ui, a);
}

/* A source line with tabs as spaces. */
static void source_text(char *out, size_t size, const char *line)
{
	size_t o = 0;

	for (const char *p = line ? line : ""; *p && o + 1 < size; p++) {
		if (*p == '\t') {
			do
				out[o++] = ' ';
			while (o % 8 && o + 1 < size);
		} else if (*p != '\r') {
			out[o++] = *p;
		}
	}
	out[o] = '\0';
}

static void count_cols(char *buf, size_t size, bool show, uint64_t count, uint64_t total)
{
	if (show)
		snprintf(buf, size, "%11" PRIu64 " %6.2f%%", count, report_percent(count, total));
	else
		snprintf(buf, size, "%11s %7s", "", "");
}

static void row(struct tui *ui, struct tui_view *v, size_t i, char *buf, size_t size,
		enum tui_heat *heat, int *attr)
{
	struct ann_view *a = (struct ann_view *)v;
	const struct ann_row *r = &a->rows[i];
	uint64_t total = a->f.total;
	char counts[64], text[1024];

	switch (r->kind) {
	case AR_NOTE:
		snprintf(buf, size, "(%s)", r->file);
		return;
	case AR_FILE:
		snprintf(buf, size, "%s%s", r->file, ann_source_lines(ui->d->ann, r->file) ? "" :
			 " (cannot be read here: line numbers only)");
		*attr = A_BOLD;
		return;
	case AR_LINE:
		count_cols(counts, sizeof(counts), r->counted, r->count, total);
		source_text(text, sizeof(text), ann_source_line(ui->d->ann, r->file, r->line));
		if (a->mode == MODE_SOURCE)
			snprintf(buf, size, "%s  %6d  %s", counts, r->line, text);
		else
			snprintf(buf, size, "%s  %s:%d  %s", counts, base_name(r->file), r->line,
				 text);
		if (a->mode == MODE_MIXED)
			*attr = A_BOLD;
		*heat = tui_heat_of(r->count, total);
		return;
	default: {
		const struct ann_insn *in = &a->f.insns[r->insn];
		char jumps[64] = "";

		if (in->jumped_in)
			snprintf(jumps, sizeof(jumps), "   <- %" PRIu64 " jump%s", in->jumped_in,
				 in->jumped_in == 1 ? "" : "s");
		count_cols(counts, sizeof(counts), in->ran, in->count, total);
		snprintf(buf, size, "%s  %12" PRIx64 ":   %s%s", counts, in->offset, in->text, jumps);
		*heat = tui_heat_of(in->count, total);
	}
	}
}

static int key(struct tui *ui, struct tui_view *v, int k)
{
	struct ann_view *a = (struct ann_view *)v;

	if (k != '\t')
		return 0;
	a->mode = (a->mode + 1) % NR_MODES;
	v->cur = v->top = 0;
	if (build(ui, a))
		tui_message(ui, "out of memory");
	return 1;
}

static uint32_t fn_at(struct tui *ui, struct tui_view *v, size_t i)
{
	(void)ui;
	(void)i;
	return ((struct ann_view *)v)->fn;
}

static int reselect(struct tui *ui, struct tui_view *v)
{
	return build(ui, (struct ann_view *)v);
}

static void view_free(struct tui_view *v)
{
	struct ann_view *a = (struct ann_view *)v;

	ann_function_free(&a->f);
	free(a->rows);
	free(a);
}

static const struct tui_view_ops ops = {
	.name = "annotate",
	.keys = "Tab    instructions under their source lines, instructions only, the\n"
		"       source listing with the steps per line (in turn)\n"
		"/ n N  search the rows' text (instructions, source)",
	.row = row, .key = key, .match = tui_row_match, .fn_at = fn_at, .reselect = reselect,
	.free = view_free,
};

struct tui_view *tui_annotate_new(struct tui *ui, uint32_t fn)
{
	struct ann_view *a = calloc(1, sizeof(*a));

	if (!a)
		return NULL;
	a->v.ops = &ops;
	a->fn = fn;
	if (build(ui, a)) {
		view_free(&a->v);
		return NULL;
	}
	/* on the hottest instruction */
	for (size_t i = 0, best = 0; i < a->v.nr_rows; i++)
		if (a->rows[i].kind == AR_INSN && a->rows[i].count > best) {
			best = a->rows[i].count;
			a->v.cur = i;
		}
	return &a->v;
}
