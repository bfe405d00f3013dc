// SPDX-License-Identifier: GPL-2.0
/*
 * The viewer's picker: all threads, each process, each thread, with their
 * steps; Enter makes every view show only the one chosen.
 */
#include <curses.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "post/tui.h"

struct pick {
	struct tui_sel sel;
	uint64_t steps;
	size_t threads;		  /* processes: how many */
};

struct picker_view {
	struct tui_view v;
	struct pick *rows;
};

static int pick_cmp(const void *pa, const void *pb)
{
	const struct pick *a = pa, *b = pb;

	if (a->sel.pid != b->sel.pid)
		return a->sel.pid < b->sel.pid ? -1 : 1;
	/* the process before its threads */
	return a->sel.tid < b->sel.tid ? -1 : a->sel.tid > b->sel.tid;
}

static int build(struct tui *ui, struct picker_view *p)
{
	const struct arcs *a = ui->d->r.arcs;
	size_t nt = arcs_nr_threads(a), n = 1;
	struct pick *rows = calloc(2 * nt + 1, sizeof(*rows));

	if (!rows)
		return -1;
	/* each thread, (pid, tid) once, and each process */
	for (size_t i = 0; i < nt; i++) {
		uint32_t pid, tid;
		uint64_t steps = tui_thread_steps(ui->d, i);
		size_t k, proc;

		arcs_thread_root(a, i, &pid, &tid);
		for (proc = 1; proc < n && !(rows[proc].sel.pid == pid && !rows[proc].sel.tid);
		     proc++)
			;
		if (proc == n)
			rows[n++] = (struct pick){ .sel = { pid, 0 } };
		for (k = 1; k < n && !(rows[k].sel.pid == pid && rows[k].sel.tid == tid); k++)
			;
		if (k == n) {
			rows[n++] = (struct pick){ .sel = { pid, tid } };
			rows[proc].threads++;
		}
		rows[k].steps += steps;
		rows[proc].steps += steps;
		rows[0].steps += steps;
	}
	qsort(rows + 1, n - 1, sizeof(*rows), pick_cmp);
	free(p->rows);
	p->rows = rows;
	p->v.nr_rows = n;
	p->v.cur = 0;
	for (size_t i = 0; i < n; i++)
		if (rows[i].sel.pid == ui->prof->sel.pid && rows[i].sel.tid == ui->prof->sel.tid)
			p->v.cur = i;
	snprintf(p->v.title, sizeof(p->v.title),
		 "Processes and threads: Enter shows only the one chosen, in every view");
	return 0;
}

static void row(struct tui *ui, struct tui_view *v, size_t i, char *buf, size_t size,
		enum tui_heat *heat, int *attr)
{
	const struct pick *p = &((struct picker_view *)v)->rows[i];
	const struct tui_sel *cur = &ui->prof->sel;
	char mark = p->sel.pid == cur->pid && p->sel.tid == cur->tid ? '*' : ' ';
	const char *comm;

	*heat = TUI_COLD;
	if (!i) {
		snprintf(buf, size, "%11" PRIu64 " %6.2f%%  %c all threads", p->steps, 100.0, mark);
		*attr = A_BOLD;
		return;
	}
	comm = trace_comm(session_trace(ui->d->r.s), p->sel.tid ? p->sel.tid : p->sel.pid);
	if (!p->sel.tid) {
		snprintf(buf, size, "%11" PRIu64 " %6.2f%%  %c process %u%s%s%s, %zu thread%s",
			 p->steps, report_percent(p->steps, ((struct picker_view *)v)->rows[0].steps),
			 mark, p->sel.pid, comm ? " (" : "", comm ? comm : "", comm ? ")" : "",
			 p->threads, p->threads == 1 ? "" : "s");
		*attr = A_BOLD;
	} else {
		snprintf(buf, size, "%11" PRIu64 " %6.2f%%  %c   thread %u%s%s%s", p->steps,
			 report_percent(p->steps, ((struct picker_view *)v)->rows[0].steps), mark,
			 p->sel.tid, comm ? " (" : "", comm ? comm : "", comm ? ")" : "");
	}
}

static int key(struct tui *ui, struct tui_view *v, int k)
{
	struct picker_view *p = (struct picker_view *)v;

	if (k != '\n' && k != '\r' && k != KEY_ENTER)
		return 0;
	if (v->nr_rows && !tui_select(ui, p->rows[v->cur].sel)) {
		tui_message(ui, "showing %s", !v->cur ? "all threads" :
			    p->rows[v->cur].sel.tid ? "one thread" : "one process");
		tui_pop(ui);	/* back to the view it was opened from */
	}
	return 1;
}

static int reselect(struct tui *ui, struct tui_view *v)
{
	return build(ui, (struct picker_view *)v);
}

static void view_free(struct tui_view *v)
{
	free(((struct picker_view *)v)->rows);
	free(v);
}

static const struct tui_view_ops ops = {
	.name = "threads",
	.keys = "Enter  every view shows only this process or thread (all threads: all)",
	.row = row, .key = key, .match = tui_row_match, .reselect = reselect, .free = view_free,
};

struct tui_view *tui_picker_new(struct tui *ui)
{
	struct picker_view *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	p->v.ops = &ops;
	snprintf(p->v.heading, sizeof(p->v.heading), "%11s %7s    %s", "steps", "%",
		 "threads (* the one shown)");
	if (build(ui, p)) {
		free(p);
		return NULL;
	}
	return &p->v;
}
