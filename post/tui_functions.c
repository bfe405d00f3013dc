// SPDX-License-Identifier: GPL-2.0
/* The viewer's functions view: the profile of the selected threads, sortable (tui.h). */
#include <curses.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "post/tui.h"

enum fn_sort { SORT_BASE, SORT_CUM, SORT_CALLS, SORT_NAME, NR_SORTS };

static const char *const sort_names[NR_SORTS] = { "Base", "Cum", "calls", "name" };

struct fn_view {
	struct tui_view v;
	enum fn_sort sort;
	bool reverse;
	uint32_t *rows;		  /* functions, sorted */
};

struct sort_ctx {
	const struct tui_profile *p;
	const struct callflow *cf;
	enum fn_sort sort;
	bool reverse;
};

static int by_number(uint64_t a, uint64_t b)
{
	return a == b ? 0 : a > b ? -1 : 1;
}

static int fn_cmp(const void *pa, const void *pb, void *arg)
{
	const struct sort_ctx *c = arg;
	uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;
	const struct arc_fn_stats *sa = &c->p->fn[a], *sb = &c->p->fn[b];
	const struct cf_func *fa = cf_func(c->cf, a), *fb = cf_func(c->cf, b);
	int r = 0;

	switch (c->sort) {
	case SORT_BASE:
		r = by_number(sa->base, sb->base) ?: by_number(sa->cum, sb->cum);
		break;
	case SORT_CUM:
		r = by_number(sa->cum, sb->cum) ?: by_number(sa->base, sb->base);
		break;
	case SORT_CALLS:
		r = by_number(sa->calls, sb->calls) ?: by_number(sa->base, sb->base);
		break;
	default:
		break;
	}
	r = r ?: strcmp(fa->name, fb->name) ?: strcmp(fa->module, fb->module);
	return c->reverse ? -r : r;
}

/* Sort the selection's functions, the cursor staying on its function. */
static int build(struct tui *ui, struct fn_view *f)
{
	struct sort_ctx c = { ui->prof, ui->d->r.cf, f->sort, f->reverse };
	uint32_t at = f->rows && f->v.nr_rows ? f->rows[f->v.cur] : CF_NO_FN;
	uint32_t *rows = malloc((ui->prof->nr_listed + 1) * sizeof(*rows));

	if (!rows)
		return -1;
	memcpy(rows, ui->prof->listed, ui->prof->nr_listed * sizeof(*rows));
	qsort_r(rows, ui->prof->nr_listed, sizeof(*rows), fn_cmp, &c);
	free(f->rows);
	f->rows = rows;
	f->v.nr_rows = ui->prof->nr_listed;
	f->v.cur = 0;
	for (size_t i = 0; at != CF_NO_FN && i < f->v.nr_rows; i++)
		if (rows[i] == at)
			tui_view_goto(ui, &f->v, i);
	snprintf(f->v.title, sizeof(f->v.title), "Functions by %s%s: %zu, with %" PRIu64
		 " of the %" PRIu64 " steps as Base", sort_names[f->sort],
		 f->reverse ? " (reversed)" : "", ui->prof->nr_listed, ui->prof->listed_base,
		 ui->prof->total);
	return 0;
}

static void row(struct tui *ui, struct tui_view *v, size_t i, char *buf, size_t size,
		enum tui_heat *heat, int *attr)
{
	char mt[REPORT_MODULE_TAG_SIZE];
	struct fn_view *f = (struct fn_view *)v;
	uint32_t fn = f->rows[i];
	const struct arc_fn_stats *st = &ui->prof->fn[fn];
	uint64_t total = ui->prof->total;

	(void)attr;
	snprintf(buf, size, "%11" PRIu64 " %11" PRIu64 " %6.2f%% %11" PRIu64 " %6.2f%%  %s%s%s",
		 st->calls, st->base, report_percent(st->base, total), st->cum,
		 report_percent(st->cum, total), tui_fn_name(ui->d, fn),
		 report_module_tag(cf_func(ui->d->r.cf, fn)->module, mt, sizeof(mt)),
		 report_native_mark(ui->d->r.cf, fn));
	*heat = tui_heat_of(f->sort == SORT_CUM ? st->cum : st->base, total);
}

static int key(struct tui *ui, struct tui_view *v, int k)
{
	struct fn_view *f = (struct fn_view *)v;

	switch (k) {
	case 's':
		f->sort = (f->sort + 1) % NR_SORTS;
		break;
	case 'r':
		f->reverse = !f->reverse;
		break;
	case '\n':
	case '\r':
	case KEY_ENTER:
		if (v->nr_rows && tui_push(ui, tui_callers_new(ui, f->rows[v->cur])))
			tui_message(ui, "out of memory opening the view");
		return 1;
	default:
		return 0;
	}
	if (build(ui, f))
		tui_message(ui, "out of memory sorting");
	return 1;
}

static bool match(struct tui *ui, struct tui_view *v, size_t i, const char *text)
{
	return tui_text_match(tui_fn_name(ui->d, ((struct fn_view *)v)->rows[i]), text);
}

static uint32_t fn_at(struct tui *ui, struct tui_view *v, size_t i)
{
	(void)ui;
	return ((struct fn_view *)v)->rows[i];
}

static int reselect(struct tui *ui, struct tui_view *v)
{
	return build(ui, (struct fn_view *)v);
}

static void view_free(struct tui_view *v)
{
	free(((struct fn_view *)v)->rows);
	free(v);
}

static const struct tui_view_ops ops = {
	.name = "functions",
	.keys = "Enter  callers and callees of the function\n"
		"s      sort by Base, Cum, calls, name (in turn)\n"
		"r      reverse the order",
	.row = row, .key = key, .match = match, .fn_at = fn_at, .reselect = reselect,
	.free = view_free,
};

struct tui_view *tui_functions_new(struct tui *ui)
{
	struct fn_view *f = calloc(1, sizeof(*f));

	if (!f)
		return NULL;
	f->v.ops = &ops;
	snprintf(f->v.heading, sizeof(f->v.heading), "%11s %11s %7s %11s %7s  %s", "calls", "base",
		 "base%", "cum", "cum%", "function [module]");
	if (build(ui, f)) {
		free(f);
		return NULL;
	}
	return &f->v;
}
