// SPDX-License-Identifier: GPL-2.0
/*
 * The viewer's pass over the trace: the arc tables, and as a call-flow
 * consumer of its own the flow index (one 24-byte line per call, return,
 * interrupt and mark, as post flow prints them, up to a bound) and each
 * thread's calls per arc, which the per-thread views need (tui.h).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "util/alloc.h"
#include "util/log.h"
#include "post/tui.h"

static void *grow(void *p, size_t *size, size_t elem, size_t first)
{
	size_t n = *size ? 2 * *size : first;
	void *q = xreallocarray(p, n, elem);

	*size = n;
	return q;
}

/* ---- threads: (pid, tid) once each; calls per thread and arc ---- */

/* The key looked for, and the table (a thread's or an arc's). */
struct lookup {
	const struct tui_data *d;
	uint32_t pid, tid;	  /* threads */
	uint32_t thread, caller, callee; /* calls */
};

static uint64_t thread_key(uint32_t pid, uint32_t tid)
{
	return row_index_hash(((uint64_t)pid << 32) | tid);
}

static bool thread_eq(const void *ctx, uint32_t row)
{
	const struct lookup *k = ctx;

	return k->d->threads[row].pid == k->pid && k->d->threads[row].tid == k->tid;
}

static uint64_t thread_hash(const void *ctx, uint32_t row)
{
	const struct lookup *k = ctx;

	return thread_key(k->d->threads[row].pid, k->d->threads[row].tid);
}

static const struct row_index_ops thread_index = { thread_eq, thread_hash };

static uint32_t thread_slot(struct tui_data *d, struct cf_thread *t)
{
	struct lookup k = { .d = d, .pid = t->pid, .tid = t->tid };
	uint32_t *slot;

	if (t->user[d->slot])
		return (uint32_t)((uintptr_t)t->user[d->slot] - 1);
	slot = row_index_find(&d->thread_index, d->nr_threads, thread_key(t->pid, t->tid),
			      &thread_index, &k);
	if (!slot)
		xalloc_die();
	if (!*slot) {
		if (d->nr_threads == d->threads_size)
			d->threads = grow(d->threads, &d->threads_size, sizeof(*d->threads), 16);
		d->threads[d->nr_threads] = (struct tui_thread){ t->pid, t->tid };
		*slot = (uint32_t)++d->nr_threads;
	}
	t->user[d->slot] = (void *)(uintptr_t)*slot;
	return *slot - 1;
}

static uint64_t calls_key(uint32_t thread, uint32_t caller, uint32_t callee)
{
	return row_index_hash(((uint64_t)caller << 32 | callee) ^ row_index_hash(thread));
}

static bool calls_eq(const void *ctx, uint32_t row)
{
	const struct lookup *k = ctx;
	const struct tui_calls *c = &k->d->calls[row];

	return c->thread == k->thread && c->caller == k->caller && c->callee == k->callee;
}

static uint64_t calls_hash(const void *ctx, uint32_t row)
{
	const struct lookup *k = ctx;
	const struct tui_calls *c = &k->d->calls[row];

	return calls_key(c->thread, c->caller, c->callee);
}

static const struct row_index_ops calls_index = { calls_eq, calls_hash };

static void count_call(struct tui_data *d, uint32_t thread, uint32_t caller, uint32_t callee)
{
	struct lookup k = { .d = d, .thread = thread, .caller = caller, .callee = callee };
	uint32_t *slot = row_index_find(&d->calls_index, d->nr_calls,
					calls_key(thread, caller, callee), &calls_index, &k);

	if (!slot)
		xalloc_die();
	if (*slot) {
		d->calls[*slot - 1].calls++;
		return;
	}
	if (d->nr_calls == d->calls_size)
		d->calls = grow(d->calls, &d->calls_size, sizeof(*d->calls), 256);
	d->calls[d->nr_calls] = (struct tui_calls){ thread, caller, callee, 1 };
	*slot = (uint32_t)++d->nr_calls;
}

/* ---- the flow index ---- */

static bool in_window(const struct tui_data *d, const struct cf_thread *t, uint64_t index)
{
	return session_in_window(d->r.s, index, t->last_time);
}

/* A new line at index (NULL past the bound: counted as dropped). */
static struct tui_line *add_line(struct tui_data *d, struct cf_thread *t, uint64_t index,
				 enum tui_line_kind kind, uint32_t fn, uint32_t depth)
{
	struct tui_line *l;

	if (d->nr_lines == d->max_lines) {
		d->lines_dropped++;
		return NULL;
	}
	if (d->nr_lines == d->lines_size)
		d->lines = grow(d->lines, &d->lines_size, sizeof(*d->lines), 4096);
	l = &d->lines[d->nr_lines++];
	*l = (struct tui_line){ .index = index, .fn = fn, .depth = depth,
				.thread = thread_slot(d, t), .kind = kind };
	return l;
}

static void on_push(void *ctx, struct cf_thread *t, const struct cf_frame *parent,
		    const struct cf_frame *f)
{
	struct tui_data *d = ctx;
	struct tui_line *l;

	if (cf_counting(d->r.cf) && arcs_entry_is_call(f->kind))
		count_call(d, thread_slot(d, t), f->caller_fn, f->fn);
	if (!in_window(d, t, f->entry_index))
		return;
	l = add_line(d, t, f->entry_index, TL_PUSH, f->fn, cf_shown_depth(t) - 1);
	if (!l)
		return;
	l->how = f->kind;
	l->module = report_module_shown(d->r.cf, f->fn, parent ? parent->fn : CF_NO_FN);
	l->aux = f->kind == CF_ENTRY_TAIL ? f->caller_fn :
		 f->kind == CF_ENTRY_JUMP && parent ? parent->fn : CF_NO_FN;
}

static void on_adopt(void *ctx, struct cf_thread *t, const struct cf_frame *root)
{
	struct tui_data *d = ctx;

	if (in_window(d, t, t->last_index + 1))
		add_line(d, t, t->last_index + 1, TL_ADOPT, root->fn, 0);
}

static void on_pop(void *ctx, struct cf_thread *t, const struct cf_frame *parent,
		   const struct cf_frame *f, const struct cf_cost *cost, enum cf_end_kind how)
{
	struct tui_data *d = ctx;
	struct tui_line *l;

	(void)parent;
	if (!in_window(d, t, cost->end_index))
		return;
	l = add_line(d, t, cost->end_index, TL_POP, f->fn, cf_shown_depth(t));
	if (!l)
		return;
	l->how = how;
	if (d->nr_costs == d->costs_size)
		d->costs = grow(d->costs, &d->costs_size, sizeof(*d->costs), 4096);
	l->aux = (uint32_t)d->nr_costs;
	d->costs[d->nr_costs++] = (struct tui_cost){ cost->incl, cost->self };
}

static void on_mark(void *ctx, struct cf_thread *t, enum cf_mark m, uint64_t index)
{
	struct tui_data *d = ctx;

	enum tui_line_kind kind;

	switch (m) {
	case CF_MARK_GAP:
		kind = TL_GAP;
		break;
	case CF_MARK_OFF:
		kind = TL_OFF;
		break;
	case CF_MARK_EXIT:
		kind = TL_EXIT;
		break;
	default:
		return;
	}
	if (in_window(d, t, index))
		add_line(d, t, index, kind, CF_NO_FN, 0);
}

static void on_interrupt(void *ctx, struct cf_thread *t, const struct cf_interrupt *in)
{
	struct tui_data *d = ctx;
	struct tui_line *l;

	if (!in_window(d, t, in->index))
		return;
	l = add_line(d, t, in->index, TL_INTERRUPT, in->fn, cf_shown_depth(t));
	if (!l)
		return;
	if (d->nr_intr == d->intr_size)
		d->intr = grow(d->intr, &d->intr_size, sizeof(*d->intr), 256);
	l->aux = (uint32_t)d->nr_intr;
	d->intr[d->nr_intr++] = *in->async;
}

static const struct cf_consumer_ops tui_ops = {
	.push = on_push, .adopt = on_adopt, .pop = on_pop, .mark = on_mark,
	.interrupt = on_interrupt,
};

int tui_data_open(struct tui_data *d, const struct post_opts *opts,
		  const struct session_filter *filter, size_t max_lines, const char *source_dir)
{
	int ret;

	memset(d, 0, sizeof(*d));
	d->max_lines = max_lines;
	ret = flow_report_open(&d->r, opts, filter, FR_ARCS, "tui");
	if (ret)
		return ret;
	d->r.wide = true;	/* the screen scrolls: names whole */
	d->ann = annotate_new(&d->r, ANNOT_EVERY_FUNCTION);
	if (!d->ann)
		return EXIT_RUNTIME;
	d->sources = source_files_new(source_dir);
	if (!d->sources) {
		pr_err("out of memory for the source files");
		return EXIT_RUNTIME;
	}
	d->slot = cf_add_consumer(d->r.cf, &tui_ops, d);
	if (d->slot < 0) {
		pr_err("too many report builders on one call flow");
		return EXIT_RUNTIME;
	}
	return 0;
}

int tui_data_run(struct tui_data *d)
{
	struct timespec t0, t1;
	int ret;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	ret = flow_report_run(&d->r);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	d->load_seconds = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	d->nr_fns = cf_nr_funcs(d->r.cf);
	pr_dbg("tui: %zu flow lines (%" PRIu64 " past the bound), %zu threads, %zu thread arcs, "
	       "%u functions, %u tree nodes, %.2f s", d->nr_lines, d->lines_dropped,
	       d->nr_threads, d->nr_calls, d->nr_fns, arcs_nr_nodes(d->r.arcs), d->load_seconds);
	return ret;
}

void tui_data_close(struct tui_data *d)
{
	annotate_free(d->ann);
	source_files_free(d->sources);
	flow_report_close(&d->r);
	free(d->lines);
	free(d->costs);
	free(d->intr);
	free(d->threads);
	row_index_free(&d->thread_index);
	free(d->calls);
	row_index_free(&d->calls_index);
	memset(d, 0, sizeof(*d));
}
