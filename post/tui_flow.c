// SPDX-License-Identifier: GPL-2.0
/*
 * The viewer's flow view: the call flow in the order it happened, the
 * lines post flow prints, paged through the flow index the pass built
 * (tui_data.c).  The rows are the index's lines of the selected threads
 * (and functions, and a step window set with w), with a thread switch line
 * where the thread changes: 4 bytes a row, rebuilt when the selection or
 * the window changes.  Enter goes from a call to its return and back.
 */
#include <curses.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "post/flowtext.h"
#include "post/tui.h"

#define SWITCH_ROW (1u << 31)	  /* the row is the switch to the thread of this line */
#define LINE_OF(r) ((r) & ~SWITCH_ROW)
#define MAX_INDENT 60		  /* levels indented; deeper ones at this indentation */

struct flow_view {
	struct tui_view v;
	uint32_t *rows;		  /* line numbers, | SWITCH_ROW */
	uint64_t from, to;	  /* the step window (w) */
	uint8_t *fn_match;	  /* per function: matches the last search (search) */
	char fn_match_text[256];
};

static bool line_shown(const struct tui *ui, const struct flow_view *f, const struct tui_line *l,
		       bool filtered)
{
	const struct tui_thread *th = &ui->d->threads[l->thread];

	if (!tui_sel_has(ui->prof->sel, th->pid, th->tid) || l->index < f->from || l->index > f->to)
		return false;
	if (!filtered)
		return true;
	/* with function filters, as post flow: only their lines, no marks */
	return l->kind != TL_GAP && l->kind != TL_OFF && l->kind != TL_EXIT && l->fn != CF_NO_FN &&
	       tui_fn_selected(ui->d, l->fn);
}

static int build(struct tui *ui, struct flow_view *f)
{
	const struct tui_data *d = ui->d;
	bool filtered = filter_on_functions(session_select(d->r.s));
	uint32_t *rows, *shrunk, last_thread;
	uint64_t at = f->rows && f->v.nr_rows ? d->lines[LINE_OF(f->rows[f->v.cur])].index : 0;
	size_t n = 0;

	/* at most a switch row before each line; what is not used is given back */
	rows = malloc((2 * d->nr_lines + 1) * sizeof(*rows));
	if (!rows)
		return -1;
	last_thread = UINT32_MAX;
	for (size_t i = 0; i < d->nr_lines; i++) {
		const struct tui_line *l = &d->lines[i];

		if (!line_shown(ui, f, l, filtered))
			continue;
		if (last_thread != UINT32_MAX && l->thread != last_thread)
			rows[n++] = (uint32_t)i | SWITCH_ROW;
		last_thread = l->thread;
		rows[n++] = (uint32_t)i;
	}
	shrunk = realloc(rows, (n + 1) * sizeof(*rows));
	if (shrunk)
		rows = shrunk;
	free(f->rows);
	f->rows = rows;
	f->v.nr_rows = n;
	f->v.cur = 0;
	for (size_t r = 0; at && r < n; r++)
		if (d->lines[LINE_OF(rows[r])].index >= at) {
			tui_view_goto(ui, &f->v, r);
			break;
		}
	n = snprintf(f->v.title, sizeof(f->v.title), "Call flow: %zu lines", f->v.nr_rows);
	if (n < sizeof(f->v.title) && (f->from || f->to != UINT64_MAX))
		n += snprintf(f->v.title + n, sizeof(f->v.title) - n,
			      ", steps %" PRIu64 " to %" PRIu64 " (w)", f->from, f->to);
	if (n < sizeof(f->v.title) && d->lines_dropped)
		snprintf(f->v.title + n, sizeof(f->v.title) - n,
			 "; the index holds the first %zu lines, %" PRIu64 " more are not shown "
			 "(--flow-lines, --from)", d->nr_lines, d->lines_dropped);
	else if (n < sizeof(f->v.title) && !d->max_lines)
		snprintf(f->v.title + n, sizeof(f->v.title) - n, " (--flow-lines 0: no index)");
	return 0;
}

static void row(struct tui *ui, struct tui_view *v, size_t i, char *buf, size_t size,
		enum tui_heat *heat, int *attr)
{
	struct flow_view *f = (struct flow_view *)v;
	const struct tui_data *d = ui->d;
	const struct tui_line *l = &d->lines[LINE_OF(f->rows[i])];
	const struct tui_thread *th = &d->threads[l->thread];
	const struct callflow *cf = d->r.cf;
	FILE *out;
	int n;

	if (f->rows[i] & SWITCH_ROW) {
		snprintf(buf, size, "%10" PRIu64 " %7u %5s  = thread %u (pid %u)", l->index, th->tid,
			 "", th->tid, th->pid);
		*attr = A_BOLD;
		return;
	}
	if (l->kind == TL_GAP || l->kind == TL_OFF || l->kind == TL_EXIT) {
		snprintf(buf, size, "%10" PRIu64 " %7u %5s  ", l->index, th->tid, "");
		n = (int)strlen(buf);
		if (l->kind == TL_GAP)
			snprintf(buf + n, size - (size_t)n, "- steps missing");
		else if (l->kind == TL_OFF)
			snprintf(buf + n, size - (size_t)n, "- recording off");
		else
			snprintf(buf + n, size - (size_t)n, "= thread %u exits", th->tid);
		return;
	}
	n = snprintf(buf, size, "%10" PRIu64 " %7u %5u  %*s", l->index, th->tid, l->depth,
		     2 * (int)(l->depth < MAX_INDENT ? l->depth : MAX_INDENT), "");
	if (n < 0 || (size_t)n >= size || !(out = fmemopen(buf + n, size - (size_t)n, "w")))
		return;
	switch (l->kind) {
	case TL_PUSH:
		flow_text_push(out, cf, l->how, l->fn, l->aux, l->module);
		break;
	case TL_ADOPT:
		flow_text_adopt(out, cf, l->fn);
		break;
	case TL_POP:
		flow_text_pop(out, cf, l->fn, d->costs[l->aux].incl, d->costs[l->aux].self, l->how);
		*heat = tui_heat_of(d->costs[l->aux].incl, ui->prof->total);
		break;
	default:
		flow_text_interrupt(out, cf, &d->intr[l->aux], l->fn);
		break;
	}
	fclose(out);
}

/* The row of line number line, or the first row after it. */
static size_t row_of_line(const struct flow_view *f, uint32_t line)
{
	size_t lo = 0, hi = f->v.nr_rows;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		uint32_t m = LINE_OF(f->rows[mid]);

		if (m < line || (m == line && (f->rows[mid] & SWITCH_ROW)))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* From a call to its end, from an end to its call. */
static void to_match(struct tui *ui, struct flow_view *f)
{
	const struct tui_data *d = ui->d;
	uint32_t at = LINE_OF(f->rows[f->v.cur]);
	const struct tui_line *l = &d->lines[at];
	bool forward = l->kind == TL_PUSH;
	size_t r;

	if ((l->kind != TL_PUSH && l->kind != TL_POP) || (f->rows[f->v.cur] & SWITCH_ROW)) {
		tui_message(ui, "Enter goes from a call (>) to its end (<) and back");
		return;
	}
	for (size_t i = at; forward ? ++i < d->nr_lines : i-- > 0;) {
		const struct tui_line *m = &d->lines[i];

		if (m->thread != l->thread || m->depth != l->depth ||
		    m->kind != (forward ? TL_POP : TL_PUSH))
			continue;
		r = row_of_line(f, (uint32_t)i);
		if (r < f->v.nr_rows && LINE_OF(f->rows[r]) == i)
			tui_view_goto(ui, &f->v, r);
		else
			tui_message(ui, "its %s is not shown (window or filter)",
				    forward ? "end" : "call");
		return;
	}
	tui_message(ui, forward ? "it does not end in the index" : "its call is not in the index");
}

static void go_to_step(struct tui *ui, struct flow_view *f)
{
	char buf[64], *end;
	uint64_t step;

	if (!tui_prompt(ui, "go to step: ", buf, sizeof(buf)) || !buf[0])
		return;
	step = strtoull(buf, &end, 0);
	if (*end) {
		tui_message(ui, "not a step number: %s", buf);
		return;
	}
	for (size_t r = 0; r < f->v.nr_rows; r++)
		if (ui->d->lines[LINE_OF(f->rows[r])].index >= step) {
			tui_view_goto(ui, &f->v, r);
			return;
		}
	tui_message(ui, "no line at or after step %" PRIu64, step);
}

static void set_window(struct tui *ui, struct flow_view *f)
{
	char buf[128], *end;
	uint64_t from = 0, to = UINT64_MAX;

	if (!tui_prompt(ui, "steps FROM-TO (FROM-, -TO; empty: all): ", buf, sizeof(buf)))
		return;
	if (buf[0]) {
		char *dash = strchr(buf, '-');

		if (!dash) {
			tui_message(ui, "a window is FROM-TO, FROM- or -TO");
			return;
		}
		*dash = '\0';
		if (buf[0] && (from = strtoull(buf, &end, 0), *end))
			goto bad;
		if (dash[1] && (to = strtoull(dash + 1, &end, 0), *end))
			goto bad;
		if (from > to)
			goto bad;
	}
	f->from = from;
	f->to = to;
	if (build(ui, f))
		tui_message(ui, "out of memory");
	return;
bad:
	tui_message(ui, "a window is FROM-TO with FROM <= TO");
}

static int key(struct tui *ui, struct tui_view *v, int k)
{
	struct flow_view *f = (struct flow_view *)v;

	switch (k) {
	case '\n':
	case '\r':
	case KEY_ENTER:
		if (v->nr_rows)
			to_match(ui, f);
		return 1;
	case 'g':
		go_to_step(ui, f);
		return 1;
	case 'w':
		set_window(ui, f);
		return 1;
	default:
		return 0;
	}
}

/* Search function names: which functions match is decided once per search text. */
static int search(struct tui *ui, struct tui_view *v, const char *text, int dir)
{
	struct flow_view *f = (struct flow_view *)v;
	const struct tui_data *d = ui->d;
	size_t n = v->nr_rows;

	if (!f->fn_match || strcmp(f->fn_match_text, text)) {
		free(f->fn_match);
		f->fn_match = malloc(d->nr_fns + 1);
		if (!f->fn_match)
			return 0;
		for (uint32_t fn = 0; fn < d->nr_fns; fn++)
			f->fn_match[fn] = tui_text_match(tui_fn_name(d, fn), text);
		snprintf(f->fn_match_text, sizeof(f->fn_match_text), "%s", text);
	}
	for (size_t k = 1; k <= n; k++) {
		size_t i = dir > 0 ? (v->cur + k) % n : (v->cur + n - k % n) % n;
		const struct tui_line *l = &d->lines[LINE_OF(f->rows[i])];

		if (!(f->rows[i] & SWITCH_ROW) && l->fn < d->nr_fns && f->fn_match[l->fn]) {
			if (dir > 0 ? i <= v->cur : i >= v->cur)
				tui_message(ui, "search wrapped");
			tui_view_goto(ui, v, i);
			return 1;
		}
	}
	return 0;
}

static uint32_t fn_at(struct tui *ui, struct tui_view *v, size_t i)
{
	struct flow_view *f = (struct flow_view *)v;

	return f->rows[i] & SWITCH_ROW ? CF_NO_FN : ui->d->lines[LINE_OF(f->rows[i])].fn;
}

static int reselect(struct tui *ui, struct tui_view *v)
{
	return build(ui, (struct flow_view *)v);
}

static void view_free(struct tui_view *v)
{
	struct flow_view *f = (struct flow_view *)v;

	free(f->rows);
	free(f->fn_match);
	free(f);
}

static const struct tui_view_ops ops = {
	.name = "flow",
	.keys = "Enter  from a call (>) to its end (<), and back\n"
		"g      go to a step\n"
		"w      show only the lines of a window of steps (FROM-TO)\n"
		"/ n N  search function names",
	.row = row, .key = key, .search = search, .fn_at = fn_at, .reselect = reselect,
	.free = view_free,
};

struct tui_view *tui_flow_new(struct tui *ui)
{
	struct flow_view *f = calloc(1, sizeof(*f));

	if (!f)
		return NULL;
	f->v.ops = &ops;
	f->to = UINT64_MAX;
	snprintf(f->v.heading, sizeof(f->v.heading), "%10s %7s %5s  %s", "step", "tid", "depth",
		 "event");
	if (build(ui, f)) {
		free(f);
		return NULL;
	}
	return &f->v;
}
