// SPDX-License-Identifier: GPL-2.0
/* Call-flow reconstruction: per-thread call stacks rebuilt from the step stream (callflow.h). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arch/arch_vectors.h"
#include "util/cf_internal.h"

const struct cf_limits cf_limits_default = {
	.run_sites = CF_LIMIT_RUN_SITES,
	.replay_steps = 8192,
	.replay_bytes = 32768,
	.replay_frames = CF_REPLAY_DEPTH_MAX,
	.replays_per_run = CF_LIMIT_REPLAYS_PER_RUN,
	.rec_levels = CF_LIMIT_REC_LEVELS,
	.replays_total = 64u << 20,
};

void cf_func_set_ring(struct callflow *cf, uint32_t fn, uint8_t ring)
{
	if (fn < cf->nr_funcs)
		cf->funcs[fn].ring = ring;
}

void cf_func_set_fold(struct callflow *cf, uint32_t fn, enum cf_fold fold)
{
	if (fn < cf->nr_funcs)
		cf->funcs[fn].fold = (uint8_t)fold;
}

uint32_t cf_func_intern(struct callflow *cf, const char *module, const char *module_path,
			const char *name, uint64_t addr)
{
	struct cf_func_key key = { module, name };
	struct cf_func_ids_entry *e;
	struct cf_func *f;
	bool added;

	e = cf_func_ids_insert(&cf->func_ids, &key, &added);
	if (!e)
		xalloc_die();
	if (!added)
		return e->val;
	if (cf->nr_funcs == cf->funcs_size) {
		cf->funcs_size = cf->funcs_size ? cf->funcs_size * 2 : 256;
		cf->funcs = xrealloc(cf->funcs, cf->funcs_size * sizeof(*cf->funcs));
	}
	f = &cf->funcs[cf->nr_funcs];
	f->name = xstrdup(name);
	f->module = xstrdup(module);
	f->module_path = xstrdup(module_path ? module_path : module);
	f->addr = addr;
	f->native = false;
	f->ring = 0;
	f->fold = CF_FOLD_NONE;
	e->key = (struct cf_func_key){ f->module, f->name };	/* the caller's strings go */
	e->val = cf->nr_funcs++;
	return e->val;
}

const struct cf_func *cf_func(const struct callflow *cf, uint32_t fn)
{
	static const struct cf_func none = { "(root)", "", "", 0, 0, false, CF_FOLD_NONE };

	return fn < cf->nr_funcs ? &cf->funcs[fn] : &none;
}

uint32_t cf_nr_funcs(const struct callflow *cf)
{
	return cf->nr_funcs;
}

static void on_task(struct callflow *cf, const struct trace_event *ev)
{
	const struct trace_task_rec *rec = ev->task;
	struct cf_thread *t;

	if (cf->src.task)
		cf->src.task(cf->src.ctx, rec);
	cf->task_gen++;		  /* frames' call runs may be of code no longer there */
	switch (rec->type) {
	case PT_TASK_EXEC:
		/* The old program's frames are gone; the new one starts afresh. */
		t = cf_thread_get(cf, rec->c.pid, rec->c.tid);
		cf_flush_thread(cf, t);
		break;
	case PT_TASK_EXIT:
		t = cf_thread_get(cf, rec->c.pid, rec->c.tid);
		cf_flush_thread(cf, t);
		cf_emit_mark(cf, t, CF_MARK_EXIT, ev->index);
		break;
	default:
		break;
	}
}

/*
 * Recording switched off: the thread's frames end here, not at the next
 * recorded step, so an activation's costs are its own and the time off is
 * a gap between frames.  A frame whose last step was its own return (how an
 * --on region ends) ended by returning.
 */
static void recording_off(struct callflow *cf, struct cf_thread *t, uint64_t index)
{
	bool returned = t->have_last && t->depth == 1 && t->sites[t->last_slot].insn.cls == ARCH_INSN_RET;

	if (!t->depth)
		return;
	while (t->depth)
		cf_pop(cf, t, returned ? CF_END_RETURN : CF_END_OFF);
	t->have_last = t->have_last_user = false;
	cf->stats.gaps++;
	cf_emit_mark(cf, t, CF_MARK_OFF, index);
}

void cf_set_fold(struct callflow *cf, bool on)
{
	cf->fold = on;
}

void cf_set_counting(struct callflow *cf, bool on)
{
	cf->counting = on;
}

bool cf_counting(const struct callflow *cf)
{
	return cf->counting;
}

/*
 * An interrupt or exception: the gate that took it is invisible to the
 * step sequence (the interrupted instruction was reported once, before
 * it ran or faulted), so nothing changes but the statistics.
 */
void cf_on_interrupt(struct callflow *cf, const struct trace_event *ev)
{
	struct cf_thread *t = cf_thread_get(cf, ev->pid, ev->tid);
	struct trace_async copy = ev->async;
	const struct trace_async *as = &copy;
	struct cf_interrupt in = { .async = as, .index = ev->index, .fn = CF_NO_FN };
	bool want_fn = false;

	if (!copy.kind) {
		/* an event made without the decoded record: kind and number only */
		copy.kind = ev->a;
		copy.number = ev->b;
	}

	switch (as->kind) {
	case PT_ASYNC_INTERRUPT:
		cf->stats.interrupts++;
		break;
	case PT_ASYNC_IRQ:
		cf->stats.irqs++;
		break;
	default:
		cf->stats.exceptions++;
		cf->stats.page_faults += arch_exception_is_page_fault(as->number);
		break;
	}
	cf_emit_mark(cf, t, CF_MARK_INTERRUPT, ev->index);
	for (int c = 0; c < cf->nr_cons; c++)
		want_fn |= cf->cons[c].ops->interrupt != NULL;
	if (!want_fn)
		return;
	if (as->detail && as->pc && as->ring != PT_ASYNC_RING_UNKNOWN) {
		struct cf_site site;

		memset(&site, 0, sizeof(site));
		cf->src.site(cf->src.ctx, cf, ev->pid, as->pc, as->ring, &site);
		in.fn = site.fn;
	}
	for (int c = 0; c < cf->nr_cons; c++)
		if (cf->cons[c].ops->interrupt)
			cf->cons[c].ops->interrupt(cf->cons[c].ctx, t, &in);
}

/*
 * Code ran natively from ev->pc to ev->end (a NATIVE record): placed as a
 * step at ev->pc that counts nothing, so that its entry is what a step
 * there would have made of it (a call of the vDSO function from the call
 * before, a resumption after a signal handler).  A run that returned
 * returns then: its frame ends, with no step.  The thread's last step is
 * then a jump to ev->end from nowhere known: the next step is expected
 * there, and an asynchronous entry before it (a signal at the return)
 * resumes there.  The last step's index and time stay the last real one's.
 */
static void on_native(struct callflow *cf, const struct trace_event *ev)
{
	struct cf_thread *t = cf_thread_get(cf, ev->pid, ev->tid);
	uint64_t last_index = t->last_index, last_time = t->last_time;
	bool had_last = t->have_last;
	struct cf_site *last = &t->sites[t->last_slot ^ 1];
	struct trace_event at = *ev;
	int32_t k;

	cf_expand_block(cf, t, false, 0);
	memset(last, 0, sizeof(*last));
	cf->src.site(cf->src.ctx, cf, ev->pid, ev->pc, ev->ring, last);
	cf->funcs[last->fn].native = true;	/* before its frame is told */
	at.kind = TEV_STEP;
	cf->in_native = true;
	cf_thread_step(cf, t, &at);
	cf->in_native = false;
	if (had_last) {
		t->last_index = last_index;
		t->last_time = last_time;
	}
	if ((ev->a & PT_NATIVE_RETURNED) && (k = cf_find_return(t, ev->end, false)) > 0) {
		cf->in_step = true;
		cf->cur_index = ev->index;
		cf_return_from(cf, t, k);
		cf->in_step = false;
	}
	last = &t->sites[t->last_slot];
	memset(last, 0, sizeof(*last));
	last->fn = top(t)->fn;
	last->insn.cls = ARCH_INSN_JUMP;
	last->insn.flags = ARCH_INSN_HAS_TARGET;
	last->insn.target = ev->end;
	last->insn.len = 1;
	t->last_pc = 0;
	t->native_gap = true;
}

void cf_event(struct callflow *cf, const struct trace_event *ev)
{
	struct cf_thread *t;

	switch (ev->kind) {
	case TEV_STEP:
		if (cf->block_mode)
			cf_on_block(cf, ev);
		else
			cf_on_step(cf, ev);
		break;
	case TEV_TASK:
		if (!ev->task)
			break;
		if (cf->block_mode && (ev->task->type == PT_TASK_EXIT ||
				       ev->task->type == PT_TASK_EXEC)) {
			t = cf_thread_get(cf, ev->task->c.pid, ev->task->c.tid);
			cf_expand_block(cf, t, false, 0);
		}
		on_task(cf, ev);
		break;
	case TEV_ASYNC:
		if (pt_async_is_info(ev->a)) {
			cf_on_interrupt(cf, ev);
			break;
		}
		t = cf_thread_get(cf, ev->pid, ev->tid);
		if (cf->block_mode) {
			/* it comes before the next block: keep it for that one */
			t->next_sigreturn |= ev->a == PT_ASYNC_SIGRETURN;
			t->next_async = true;
			break;
		}
		if (ev->a == PT_ASYNC_SIGRETURN)
			t->sigreturn_pending = true;
		t->async_pending = true;
		break;
	case TEV_OFF:
		t = cf_thread_get(cf, ev->pid, ev->tid);
		cf_expand_block(cf, t, false, 0);
		recording_off(cf, t, ev->index);
		break;
	case TEV_ON:
		t = cf_thread_get(cf, ev->pid, ev->tid);
		cf_expand_block(cf, t, false, 0);
		recording_off(cf, t, ev->index);	/* an ON without OFF: the same */
		t->switched_on = true;
		break;
	case TEV_NATIVE:
		on_native(cf, ev);
		break;
	case TEV_GAP:
	case TEV_LOST:
		t = cf_thread_get(cf, ev->pid, ev->tid);
		if (ev->kind == TEV_GAP && ev->a == PT_GAP_NATIVE && t->native_gap) {
			t->native_gap = false;	/* its steps are the native run's, placed */
			break;
		}
		cf_expand_block(cf, t, false, 0);
		if (!t->gap && t->have_last) {
			cf->stats.gaps++;
			cf_emit_mark(cf, t, CF_MARK_GAP, ev->index);
		}
		t->gap = true;
		break;
	default:
		break;
	}
}

void cf_tell_tally(void *ctx, const struct cf_tally *tl)
{
	struct callflow *cf = ctx;

	for (int c = 0; c < cf->nr_cons; c++)
		if (cf->cons[c].ops->tally)
			cf->cons[c].ops->tally(cf->cons[c].ctx, tl);
}

void cf_finish(struct callflow *cf)
{
	cf_runs_tally_all(&cf->runs);
	for (uint32_t k = 0; k < cf->replays.nr; k++)
		if (cf->replays.c[k])
			cf_replay_tally(cf, cf->replays.c[k]);
	for (uint32_t i = 0; i < cf->nr_threads; i++)
		cf_expand_block(cf, cf->threads[i], false, 0);
	for (uint32_t i = 0; i < cf->nr_threads; i++)
		cf_flush_thread(cf, cf->threads[i]);
}

void cf_replay_walk(const struct cf_replay_frame *fr, uint32_t nr,
		    void (*visit)(void *ctx, uint32_t k, bool push), void *ctx)
{
	uint32_t open[CF_REPLAY_DEPTH_MAX], sp = 0;

	for (uint32_t k = 0; k < nr; k++) {
		while (sp && fr[open[sp - 1]].cost.end_index <= fr[k].start)
			visit(ctx, open[--sp], false);
		visit(ctx, k, true);
		if (sp < CF_REPLAY_DEPTH_MAX)
			open[sp++] = k;
	}
	while (sp)
		visit(ctx, open[--sp], false);
}

struct callflow *cf_new(const struct cf_source *src)
{
	struct callflow *cf = xcalloc(1, sizeof(*cf));

	cf->src = *src;
	cf->counting = true;
	cf_runs_init(&cf->runs, cf_tell_tally, cf);
	cf->bulk_ok = src->peek != NULL;
	cf_set_limits(cf, &cf_limits_default);
	return cf;
}

static uint32_t clamp_u32(uint32_t v, uint32_t lo, uint32_t hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

struct cf_limits cf_set_limits(struct callflow *cf, const struct cf_limits *lim)
{
	struct cf_limits *l = &cf->lim;

	*l = *lim;
	l->run_sites = clamp_u32(l->run_sites, 1, CF_LIMIT_RUN_SITES);
	l->replay_frames = clamp_u32(l->replay_frames, 1, CF_REPLAY_DEPTH_MAX);
	l->replays_per_run = clamp_u32(l->replays_per_run, 1, CF_LIMIT_REPLAYS_PER_RUN);
	l->rec_levels = clamp_u32(l->rec_levels, 1, CF_LIMIT_REC_LEVELS);
	cf->runs.max_sites = l->run_sites;
	return *l;
}

int cf_add_consumer(struct callflow *cf, const struct cf_consumer_ops *ops, void *ctx)
{
	if (cf->nr_cons == CF_MAX_CONSUMERS)
		return -1;
	cf->cons[cf->nr_cons].ops = ops;
	cf->cons[cf->nr_cons].ctx = ctx;
	if (ops->step && !ops->bulk)
		cf->bulk_ok = false;	/* it wants every step by step() */
	if (!ops->replay) {
		/* calls taken whole come to it as the frames and steps they stand for */
		cf->expand[cf->nr_expand++] = (uint8_t)cf->nr_cons;
		cf->expand_bulk |= ops->bulk != NULL;
	}
	if (ops->interrupt)
		cf->interrupts_apart = true;	/* it wants each where it came */
	return cf->nr_cons++;
}

void cf_free(struct callflow *cf)
{
	if (!cf)
		return;
	for (uint32_t i = 0; i < cf->nr_threads; i++) {
		free(cf->threads[i]->frames);
		cf_fnstates_free(&cf->threads[i]->fnstate);
		cf_rets_free(&cf->threads[i]->rets);
		free(cf->threads[i]);
	}
	for (uint32_t i = 0; i < cf->nr_funcs; i++) {
		free((char *)cf->funcs[i].name);
		free((char *)cf->funcs[i].module);
		free((char *)cf->funcs[i].module_path);
	}
	cf_runs_release(&cf->runs);
	cf_replays_release(&cf->replays);
	cf_rec_release(&cf->replays.rec);
	free(cf->threads);
	cf_thread_map_free(&cf->thread_map);
	free(cf->funcs);
	cf_func_ids_free(&cf->func_ids);
	free(cf);
}

void cf_get_stats(const struct callflow *cf, struct cf_stats *st)
{
	*st = cf->stats;
	st->calls_whole = cf->replays.taken;
	st->steps_whole = cf->replays.taken_steps;
	st->replays = cf->replays.made;
	st->replays_replaced = cf->replays.replaced;
	st->replays_over_total = cf->replays.over_total;
	st->rec_too_long = cf->replays.too_long;
	st->rec_too_deep = cf->replays.too_deep;
}

const char *cf_entry_kind_name(unsigned kind)
{
	static const char *const names[] = {
		[CF_ENTRY_ROOT] = "root",     [CF_ENTRY_CALL] = "call",
		[CF_ENTRY_TAIL] = "tail",     [CF_ENTRY_JUMP] = "jump",
		[CF_ENTRY_ASYNC] = "async",   [CF_ENTRY_KERNEL] = "kernel",
		[CF_ENTRY_UNMATCHED] = "unmatched",
	};

	return kind < sizeof(names) / sizeof(names[0]) ? names[kind] : "?";
}
