// SPDX-License-Identifier: GPL-2.0
/*
 * The viewer's annotate view of one function: post annotate's rows
 * (annotate.h gathers, annotate_view.h lays out, annotate_text.h writes
 * them), its source lines interleaved with its instructions, the steps
 * of each and their share of the function's, the hottest marked, jump
 * arrows; Tab: instructions only, then the source lines only.  With a
 * process or thread picked, that process's steps.
 */
#include <curses.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "post/annotate_text.h"
#include "post/tui.h"

/* Tab's order: the modes in turn. */
static const enum annot_mode modes[] = { ANNOT_MIXED, ANNOT_ASM, ANNOT_SOURCE };
#define NR_MODES (sizeof(modes) / sizeof(modes[0]))
#define MAX_NOTES 4
#define NOTE_SIZE 512

struct ann_view {
	struct tui_view v;
	uint32_t fn;
	size_t mode;		  /* modes[] index */
	const struct annot_fn *f; /* annotate's, of the picked process (or every one) */
	struct annot_view *av;
	struct annot_widths w;
	/* rows: the notes first, then av's */
	char notes[MAX_NOTES][NOTE_SIZE];
	size_t nr_notes;
};

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

static void note(struct ann_view *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void note(struct ann_view *a, const char *fmt, ...)
{
	va_list ap;

	if (a->nr_notes == MAX_NOTES)
		return;
	va_start(ap, fmt);
	vsnprintf(a->notes[a->nr_notes++], NOTE_SIZE, fmt, ap);
	va_end(ap);
}

/* What post annotate's function header says that the rows do not. */
static void notes(struct tui *ui, struct ann_view *a)
{
	const struct annot_fn *f = a->f;
	const struct source_file *src = a->av->source;
	char buf[NOTE_SIZE];
	const char *why;

	a->nr_notes = 0;
	if (!f->nr_insns)
		note(a, "none of its instructions ran");
	else if ((why = annot_why_no_code(f, buf, sizeof(buf))))
		note(a, "code: %s", why);
	if (!f->file)
		note(a, "source: none: %s", annot_why_no_lines(f, buf, sizeof(buf)));
	else if (!src->found)
		note(a, "source: %s: %s (lines by number only)", f->file, src->error);
	else if (src->newer)
		note(a, "source: %s: modified after %s was built: lines may not match", f->file,
		     f->module_path);
	if (ui->prof->sel.tid)
		note(a, "the counts are of the thread's process: addresses are counted per process");
	if (a->av->arrows_left_out)
		note(a, "%zu jump targets without an arrow (more than %d side by side): see the "
		     "targets' labels", a->av->arrows_left_out, ANNOT_LANES);
}

static int build(struct tui *ui, struct ann_view *a)
{
	char mt[REPORT_MODULE_TAG_SIZE];
	const struct cf_func *fn = cf_func(ui->d->r.cf, a->fn);
	size_t ran = 0;

	annot_view_free(a->av);
	a->av = NULL;
	a->v.nr_rows = 0;
	a->f = annotate_fn(ui->d->ann, a->fn, ui->prof->sel.pid);
	if (!a->f || !(a->av = annot_view_new(a->f, modes[a->mode], ui->d->sources, 5)))
		return -1;
	for (size_t i = 0; i < a->f->nr_insns; i++)
		ran += a->f->insns[i].count > 0;
	notes(ui, a);
	a->w = annot_text_widths(a->av);
	a->v.nr_rows = a->nr_notes + a->av->nr_rows;
	snprintf(a->v.title, sizeof(a->v.title),
		 "Annotate %s%s: %" PRIu64 " steps, %zu of %zu instructions ran%s%s%s", fn->name,
		 report_module_tag(fn->module, mt, sizeof(mt)), a->f->base, ran, a->f->nr_insns, a->f->file ? " (" : "",
		 a->f->file ? base_name(a->f->file) : "", a->f->file ? ")" : "");
	annot_text_heading(a->av, &a->w, ' ', a->v.heading, sizeof(a->v.heading) - 8);
	strcat(a->v.heading, " (Tab)");
	return 0;
}

static void row(struct tui *ui, struct tui_view *v, size_t i, char *buf, size_t size,
		enum tui_heat *heat, int *attr)
{
	struct ann_view *a = (struct ann_view *)v;
	const struct annot_row *r;

	(void)ui;
	if (i < a->nr_notes) {
		snprintf(buf, size, "(%s)", a->notes[i]);
		return;
	}
	r = &a->av->rows[i - a->nr_notes];
	annot_text_row(a->av, r, &a->w, a->f->base, buf, size);
	if (r->counted)
		*heat = tui_heat_of(r->count, a->f->base);
	if (r->kind == ANNOT_ROW_FILE || (r->kind == ANNOT_ROW_LINE && a->av->mode == ANNOT_MIXED))
		*attr = A_BOLD;
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

	annot_view_free(a->av);
	free(a);
}

static const struct tui_view_ops ops = {
	.name = "annotate",
	.keys = "Tab    source lines and instructions, instructions only, source lines\n"
		"       only (in turn)\n"
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
	for (size_t i = 0, best = 0; i < a->av->nr_rows; i++) {
		const struct annot_row *r = &a->av->rows[i];

		if (r->kind == ANNOT_ROW_INSN && r->count > best) {
			best = r->count;
			a->v.cur = a->nr_notes + i;
		}
	}
	return &a->v;
}
