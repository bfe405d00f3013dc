// SPDX-License-Identifier: GPL-2.0
/*
 * The viewer's callers and callees view of one function (the arc report):
 * its callers (<) above it, its callees (>) below, each arc's calls, Base
 * and Cum; Enter moves to the caller or callee (q comes back).
 */
#include <curses.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "post/tui.h"

struct callers_view {
	struct tui_view v;
	uint32_t fn;
	size_t nr_in, nr_out;	  /* rows: nr_in callers, the function, nr_out callees */
};

static const struct tui_edge *edge_at(const struct tui *ui, const struct callers_view *c,
				      size_t i, bool *caller)
{
	const struct tui_profile *p = ui->prof;

	if (c->fn >= p->nr_fns || i == c->nr_in)
		return NULL;
	*caller = i < c->nr_in;
	if (*caller)
		return &p->edges[p->in[p->in_start[c->fn] + i]];
	return &p->edges[p->out[p->out_start[c->fn] + i - c->nr_in - 1]];
}

static int build(struct tui *ui, struct callers_view *c)
{
	char mt[REPORT_MODULE_TAG_SIZE];
	const struct tui_profile *p = ui->prof;
	const struct cf_func *f = cf_func(ui->d->r.cf, c->fn);
	const struct arc_fn_stats *st = c->fn < p->nr_fns ? &p->fn[c->fn] : NULL;

	c->nr_in = c->fn < p->nr_fns ? p->in_start[c->fn + 1] - p->in_start[c->fn] : 0;
	c->nr_out = c->fn < p->nr_fns ? p->out_start[c->fn + 1] - p->out_start[c->fn] : 0;
	c->v.nr_rows = c->nr_in + 1 + c->nr_out;
	snprintf(c->v.title, sizeof(c->v.title),
		 "Callers (<) and callees (>) of %s%s: %" PRIu64 " calls, Base %" PRIu64
		 ", Cum %" PRIu64, f->name, report_module_tag(f->module, mt, sizeof(mt)), st ? st->calls : 0, st ? st->base : 0,
		 st ? st->cum : 0);
	return 0;
}

static void row(struct tui *ui, struct tui_view *v, size_t i, char *buf, size_t size,
		enum tui_heat *heat, int *attr)
{
	struct callers_view *c = (struct callers_view *)v;
	const struct tui_profile *p = ui->prof;
	bool caller;
	const struct tui_edge *e = edge_at(ui, c, i, &caller);
	uint64_t calls, base, cum;
	uint32_t other;

	if (e) {
		calls = e->calls, base = e->base, cum = e->cum;
		other = caller ? e->caller : e->callee;
	} else {
		const struct arc_fn_stats *st = c->fn < p->nr_fns ? &p->fn[c->fn] : NULL;

		calls = st ? st->calls : 0, base = st ? st->base : 0, cum = st ? st->cum : 0;
		other = c->fn;
		*attr = A_BOLD;
	}
	snprintf(buf, size, "%11" PRIu64 " %11" PRIu64 " %11" PRIu64 " %6.2f%%  %s %s%s%s%s%s",
		 calls, base, cum, report_percent(cum, p->total), e ? caller ? "<" : ">" : "=",
		 tui_fn_name(ui->d, other), e ? "" : " [", e ? "" : cf_func(ui->d->r.cf, c->fn)->module,
		 e ? "" : "]", report_native_mark(ui->d->r.cf, other));
	*heat = tui_heat_of(cum, p->total);
}

static uint32_t fn_at(struct tui *ui, struct tui_view *v, size_t i)
{
	struct callers_view *c = (struct callers_view *)v;
	bool caller;
	const struct tui_edge *e = edge_at(ui, c, i, &caller);

	return e ? caller ? e->caller : e->callee : c->fn;
}

static int key(struct tui *ui, struct tui_view *v, int k)
{
	struct callers_view *c = (struct callers_view *)v;
	uint32_t fn;

	if (k != '\n' && k != '\r' && k != KEY_ENTER)
		return 0;
	fn = fn_at(ui, v, v->cur);
	if (fn == CF_NO_FN)
		tui_message(ui, "the threads' first frames: no function called them");
	else if (tui_push(ui, fn == c->fn ? tui_annotate_new(ui, fn) : tui_callers_new(ui, fn)))
		tui_message(ui, "out of memory opening the view");
	return 1;
}

static bool match(struct tui *ui, struct tui_view *v, size_t i, const char *text)
{
	uint32_t fn = fn_at(ui, v, i);

	return fn != CF_NO_FN && tui_text_match(tui_fn_name(ui->d, fn), text);
}

static int reselect(struct tui *ui, struct tui_view *v)
{
	return build(ui, (struct callers_view *)v);
}

static void view_free(struct tui_view *v)
{
	free(v);
}

static const struct tui_view_ops ops = {
	.name = "callers",
	.keys = "Enter  on a caller or callee: its callers and callees (q comes back);\n"
		"       on the function (=): annotate it",
	.row = row, .key = key, .match = match, .fn_at = fn_at, .reselect = reselect,
	.free = view_free,
};

struct tui_view *tui_callers_new(struct tui *ui, uint32_t fn)
{
	struct callers_view *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->v.ops = &ops;
	c->fn = fn;
	snprintf(c->v.heading, sizeof(c->v.heading), "%11s %11s %11s %7s  %s", "calls", "base",
		 "cum", "cum%", "callers <, function =, callees >");
	build(ui, c);
	c->v.cur = c->nr_in;	/* on the function */
	return &c->v;
}
