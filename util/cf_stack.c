// SPDX-License-Identifier: GPL-2.0
/* The call-flow engine's stacks and cost model: threads, frames, clocks, push and pop. */
#include <inttypes.h>

#include "util/cf_internal.h"

/* ---- threads ---- */

/*
 * fn's state in thread t, added if new (its position in *slot, unless
 * NULL).  Only adding one may grow the table (so move every state):
 * finding one moves none.
 */
struct cf_fnstate *cf_fnstate_of(struct cf_thread *t, uint32_t fn, uint32_t *slot)
{
	struct cf_fnstates_entry *e;
	bool added;

	e = cf_fnstates_insert(&t->fnstate, &fn, &added);
	if (!e)
		xalloc_die();
	if (added)
		e->val.innermost = -1;
	if (slot)
		*slot = cf_fnstates_index(&t->fnstate, e);
	return &e->val;
}

struct cf_thread *cf_thread_get(struct callflow *cf, uint32_t pid, uint32_t tid)
{
	struct cf_thread_map_entry *e;
	struct cf_thread *t = cf->cur;
	bool added;

	if (t && t->tid == tid) {	/* most steps are the thread of the step before */
		t->pid = pid;
		return t;
	}
	e = cf_thread_map_insert(&cf->thread_map, &tid, &added);
	if (!e)
		xalloc_die();
	if (!added) {
		e->val->pid = pid;
		return e->val;
	}
	t = xcalloc(1, sizeof(*t));
	t->pid = pid;
	t->tid = tid;
	t->cpu = UINT32_MAX;
	t->top_resuming = -1;
	e->val = t;
	if (cf->nr_threads == cf->threads_size) {
		cf->threads_size = cf->threads_size ? cf->threads_size * 2 : 16;
		cf->threads = xrealloc(cf->threads, cf->threads_size * sizeof(*cf->threads));
	}
	cf->threads[cf->nr_threads++] = t;
	cf->stats.threads++;
	return t;
}

/* ---- the frame index: frames by where they return to ---- */

/*
 * A return, a sigreturn or a step after a gap looks for the innermost frame
 * that returns (or resumes) at its address.  Scanning the stack would cost
 * its depth at each: a stack that grows by one asynchronous frame a step (a
 * transfer no instruction explains, repeated) would make the pass
 * quadratic.  So each thread keeps, per address and chain, its innermost
 * frame, and each frame the next outer one on the same chain.  The top
 * frame is the innermost on every chain it is on, so a pop restores them
 * in constant time.  Address 0 (unknown) is on no chain.
 *
 * Most frames end by returning to the top frame's ret_addr, which needs
 * no index: frames go on CHAIN_RET only when a return looks further down
 * (t->ret_indexed: frames below it are on it, none above), in the order
 * of the stack, so each finds the same next outer frame as if it had gone
 * on at its push.
 */
enum cf_chain {
	CHAIN_RET = 1,		  /* ret_addr, every frame */
	CHAIN_RET_RESUMING,	  /* ret_addr, resuming frames only */
	CHAIN_ALT,		  /* alt_ret (resuming frames only have one) */
};

/* Frame k becomes the innermost on (addr, chain); *prev: the one it hides, -1 none. */
static void chain_push(struct cf_thread *t, uint64_t addr, uint32_t chain, int32_t k,
		       int32_t *prev)
{
	struct cf_ret_key key = { addr, chain };
	struct cf_rets_entry *e;
	bool added;

	*prev = -1;
	if (!addr)
		return;
	e = cf_rets_insert(&t->rets, &key, &added);
	if (!e)
		xalloc_die();
	if (!added)
		*prev = e->val;
	e->val = k;
}

/* The innermost frame on (addr, chain) leaves it; prev is the next outer one. */
static void chain_pop(struct cf_thread *t, uint64_t addr, uint32_t chain, int32_t prev)
{
	struct cf_ret_key key = { addr, chain };
	struct cf_rets_entry *e = addr ? cf_rets_find(&t->rets, &key) : NULL;

	if (!e)
		return;
	if (prev >= 0)
		e->val = prev;
	else
		cf_rets_erase(&t->rets, e);
}

static int32_t chain_innermost(const struct cf_thread *t, uint64_t addr, uint32_t chain)
{
	struct cf_ret_key key = { addr, chain };
	const struct cf_rets_entry *e = cf_rets_find(&t->rets, &key);

	return e ? e->val : -1;
}

/* Frame k (the top, or the only frames) goes on its chains (CHAIN_RET when looked up). */
static void index_frame(struct cf_thread *t, int32_t k)
{
	struct cf_frame *f = &t->frames[k];

	f->prev_ret = f->prev_ret_resuming = f->prev_alt = f->prev_resuming = -1;
	if (!f->resumes)
		return;
	chain_push(t, f->ret_addr, CHAIN_RET_RESUMING, k, &f->prev_ret_resuming);
	chain_push(t, f->alt_ret, CHAIN_ALT, k, &f->prev_alt);
	f->prev_resuming = t->top_resuming;
	t->top_resuming = k;
}

/* Frame k, the innermost on each of its chains, leaves them. */
static void unindex_frame(struct cf_thread *t, int32_t k)
{
	const struct cf_frame *f = &t->frames[k];

	if (f->resumes) {
		t->top_resuming = f->prev_resuming;
		chain_pop(t, f->alt_ret, CHAIN_ALT, f->prev_alt);
		chain_pop(t, f->ret_addr, CHAIN_RET_RESUMING, f->prev_ret_resuming);
	}
	if (k < (int32_t)t->ret_indexed) {
		chain_pop(t, f->ret_addr, CHAIN_RET, f->prev_ret);
		t->ret_indexed = (uint32_t)k;
	}
}

/* Every frame goes on CHAIN_RET, from the first that is not, outwards in. */
static void ret_index_all(struct cf_thread *t)
{
	for (; t->ret_indexed < t->depth; t->ret_indexed++) {
		struct cf_frame *f = &t->frames[t->ret_indexed];

		chain_push(t, f->ret_addr, CHAIN_RET, (int32_t)t->ret_indexed, &f->prev_ret);
	}
}

/* ---- frames and their costs ---- */

void cf_emit_mark(struct callflow *cf, struct cf_thread *t, enum cf_mark m, uint64_t index)
{
	for (int c = 0; c < cf->nr_cons; c++)
		if (cf->cons[c].ops->mark)
			cf->cons[c].ops->mark(cf->cons[c].ctx, t, m, index);
}

int32_t cf_shown_below(const struct cf_thread *t, int32_t k)
{
	while (--k >= 0 && t->frames[k].hidden)
		;
	return k;
}

const struct cf_frame *cf_shown_frame(const struct cf_thread *t, uint32_t k)
{
	uint32_t i = 0;

	if (!t->hidden)
		return &t->frames[k];
	for (;; i++)
		if (!t->frames[i].hidden && !k--)
			return &t->frames[i];
}

/*
 * The parent of a frame above frame k, as consumers see the stack: frame
 * k, or above a folded stub's the frame below it (NULL: none).  Its clocks
 * are the ones the frame moves (clocks_enter, clocks_leave), so its arc's
 * Cum is the shown parent's: a recursion of that function (a handler above
 * the stub calling it again) ends its innermost activation's share, as it
 * would without the stub.
 */
static struct cf_frame *shown_parent(struct cf_thread *t, int32_t k)
{
	if (k >= 0 && t->frames[k].hidden)
		k = cf_shown_below(t, k);
	return k >= 0 ? &t->frames[k] : NULL;
}

/*
 * The clocks a frame's entry moves, at thread clock now: its parent's
 * (from now on the parent's innermost steps belong to the arc to this
 * child), an outer activation of its function's (outer: no longer the
 * innermost), its function's state st.  cf_push(); cf_replay_take()
 * moves the same clocks by a replay's offsets (struct cf_replay_fn).
 */
static inline void clocks_enter(struct cf_frame *parent, struct cf_frame *outer,
				struct cf_fnstate *st, uint64_t now)
{
	if (parent) {
		parent->child_acc = 0;
		if (parent->inner)
			parent->inner_since = now;
	}
	if (outer && outer->inner) {
		outer->child_acc += now - outer->inner_since;
		outer->inner = false;
	}
	if (st->count++ == 0)
		st->since = now;
}

/* ... and its end, with what its function's and its arc's Cum get.  cf_pop(). */
static inline void clocks_leave(struct cf_frame *parent, struct cf_frame *outer,
				struct cf_fnstate *st, uint64_t now, struct cf_cost *cost)
{
	if (--st->count == 0)
		cost->fn_cum = now - st->since;
	if (parent) {
		cost->arc_cum = parent->child_acc + (parent->inner ? now - parent->inner_since : 0);
		parent->child_acc = 0;
		if (parent->inner)
			parent->inner_since = now;
	}
	if (outer) {
		outer->inner = true;
		outer->inner_since = now;
	}
}

void cf_push(struct callflow *cf, struct cf_thread *t, const struct push_args *a)
{
	uint64_t now = t->steps;
	struct cf_frame *parent, *shown, *f;
	struct cf_fnstate *st;
	uint8_t fold = cf->funcs[a->fn].fold;

	if (t->depth == t->frames_size) {
		t->frames_size = t->frames_size ? t->frames_size * 2 : 64;
		t->frames = xrealloc(t->frames, t->frames_size * sizeof(*t->frames));
	}
	parent = top(t);
	shown = shown_parent(t, (int32_t)t->depth - 1);
	f = &t->frames[t->depth];
	/*
	 * Field by field, no memset: a frame a call is the engine's commonest
	 * write, and rep stos's start-up was most of push (the rest of the
	 * fields are set below and by index_frame).
	 */
	f->fn = a->fn;
	f->caller_fn = a->caller_fn;
	f->from_fn = a->from_fn;
	f->kind = a->kind;
	f->ring = a->ring;
	f->ret_addr = a->ret_addr;
	f->alt_ret = a->alt_ret;
	f->resume_from = a->resume_from;
	f->entry_steps = now;
	f->entry_index = a->index;
	f->entry_time = a->time;
	f->call_site = a->call_site;
	f->self = 0;
	f->child_acc = 0;
	DASSERT(a->fn < cf->nr_funcs);
	st = cf_fnstate_of(t, a->fn, &f->fnslot);
	/* a function's frames are chained innermost first, each below the last */
	DASSERT(st->innermost < (int32_t)t->depth);
	DASSERT((st->innermost >= 0) == (st->count > 0));
	f->prev_same = st->innermost;
	clocks_enter(shown, st->innermost >= 0 ? &t->frames[st->innermost] : NULL, st, now);
	st->innermost = (int32_t)t->depth;
	f->inner = true;
	f->inner_since = now;
	f->resumes = a->resumes;
	f->unexplained = a->unexplained;
	f->cold = a->cold;
	f->call_run = a->call_run;
	f->call_gen = cf->task_gen;
	/* a stub called, tail-called or reached from one is folded (callflow.h: stubs) */
	f->hidden = cf->fold && parent && !parent->hidden && fold == CF_FOLD_STUB &&
		    (a->kind == CF_ENTRY_CALL || a->kind == CF_ENTRY_TAIL || a->inherited);
	f->passes = f->hidden || (a->inherited && fold == CF_FOLD_PASS);
	t->unexplained += a->unexplained;
	t->hidden += f->hidden;
	index_frame(t, (int32_t)t->depth);
	t->depth++;
	DASSERT(!f->hidden || !cf->replays.rec.on);
	if (cf->replays.rec.on)
		cf_rec_push(cf, t, f);
	if (t->depth > t->max_depth)
		t->max_depth = t->depth;
	if (t->depth > cf->stats.max_depth)
		cf->stats.max_depth = t->depth;
	if (f->hidden)
		return;
	for (int c = 0; c < cf->nr_cons; c++)
		if (cf->cons[c].ops->push)
			cf->cons[c].ops->push(cf->cons[c].ctx, t, shown, f);
}

void cf_pop(struct callflow *cf, struct cf_thread *t, enum cf_end_kind how)
{
	uint64_t now = t->steps;
	struct cf_frame *f = top(t), *parent, *shown, saved;
	struct cf_fnstate *st;
	struct cf_cost cost = { 0 };

	if (!f)
		return;
	parent = t->depth > 1 ? &t->frames[t->depth - 2] : NULL;
	shown = shown_parent(t, (int32_t)t->depth - 2);
	cost.incl = now - f->entry_steps;
	cost.last_index = t->last_index;
	cost.end_index = cf->in_step ? cf->cur_index : t->last_index + 1;
	cost.self = f->self;
	st = fnstate_at(t, &f->fnslot, f->fn);	/* where push found it, unless the table grew */
	/* the top frame is its function's innermost, counted */
	DASSERT(st->innermost == (int32_t)t->depth - 1 && st->count > 0);
	st->innermost = f->prev_same;
	clocks_leave(shown, f->prev_same >= 0 ? &t->frames[f->prev_same] : NULL, st, now, &cost);
	/* folded stubs are stepped one at a time (follow_runs): no call is recorded then */
	DASSERT(!f->hidden || !cf->replays.rec.on);
	if (cf->replays.rec.on)
		cf_rec_pop(cf, t, &cost, how);
	saved = *f;
	unindex_frame(t, (int32_t)t->depth - 1);
	t->unexplained -= f->unexplained;
	t->hidden -= f->hidden;
	t->depth--;
	if (saved.hidden) {
		/* a folded stub's steps are the Base of the frame below (hidden only above one) */
		DASSERT(parent && parent == shown);
		parent->self += saved.self;
		return;
	}
	for (int c = 0; c < cf->nr_cons; c++)
		if (cf->cons[c].ops->pop)
			cf->cons[c].ops->pop(cf->cons[c].ctx, t, shown, &saved, &cost, how);
}

void cf_flush_thread(struct callflow *cf, struct cf_thread *t)
{
	while (t->depth)
		cf_pop(cf, t, CF_END_FLUSH);
	t->have_last = t->have_last_user = false;
}

/* Pop every frame above index k (k stays). */
void cf_unwind_to(struct callflow *cf, struct cf_thread *t, uint32_t k)
{
	while (t->depth > k + 1)
		cf_pop(cf, t, CF_END_UNWIND);
}

/* The top frame gives way to fn (same return address, same caller below). */
void cf_replace(struct callflow *cf, struct cf_thread *t, const struct cf_site *site,
		uint8_t kind, uint64_t call_site, const struct trace_event *ev)
{
	struct cf_frame *f = top(t);
	struct push_args a = {
		.fn = site->fn, .caller_fn = f->fn, .from_fn = f->fn, .kind = kind, .ring = f->ring,
		.ret_addr = f->ret_addr, .alt_ret = f->alt_ret, .call_site = call_site,
		.resume_from = f->resume_from, .index = ev->index, .time = ev->time_ns,
		.resumes = RESUMES(f), .unexplained = f->unexplained,
		/* it returns where the frame it replaces would have */
		.call_run = f->call_gen == cf->task_gen ? f->call_run : 0,
	};

	if (kind == CF_ENTRY_JUMP)
		a.caller_fn = f->caller_fn;
	if (kind == CF_ENTRY_TAIL && !f->passes && folds(cf, site->fn)) {
		/* a tail call of a stub: it runs above the function that jumped, whose Base
		 * its steps are, until the frame that replaces it replaces that one too */
		cf_push(cf, t, &a);
		DASSERT(top(t)->hidden);
		return;
	}
	if (f->passes) {
		/* out of a folded stub or a resolver: entered as it was (callflow.h: stubs) */
		a.kind = f->kind;
		a.caller_fn = f->caller_fn;
		a.call_site = f->call_site;
		a.inherited = true;
	}
	if (f->hidden && f->kind == CF_ENTRY_TAIL && !folds(cf, site->fn))
		cf_pop(cf, t, CF_END_REPLACED);	/* out of a stub tail-called: the jumper goes */
	cf_pop(cf, t, CF_END_REPLACED);
	cf_push(cf, t, &a);
}

/*
 * Index of the innermost frame (the top included) that returns to pc, or
 * resumes there (resuming frames: their alt_ret too); -1 when none does.
 */
int32_t cf_find_return(struct cf_thread *t, uint64_t pc, bool resuming_only)
{
	int32_t k, alt;

	if (!pc)
		return -1;
	if (!resuming_only) {
		/* the top frame is the innermost of every chain it is on */
		if (t->depth && t->frames[t->depth - 1].ret_addr == pc)
			return (int32_t)t->depth - 1;
		ret_index_all(t);
	}
	k = chain_innermost(t, pc, resuming_only ? CHAIN_RET_RESUMING : CHAIN_RET);
	alt = chain_innermost(t, pc, CHAIN_ALT);
	return alt > k ? alt : k;
}

/* Index of fn's innermost frame below the top, or -1. */
int32_t cf_find_fn_below(struct cf_thread *t, uint32_t fn)
{
	struct cf_fnstate *st = cf_fnstate_of(t, fn, NULL);
	int32_t k = st->innermost;

	if (k == (int32_t)t->depth - 1)
		k = t->frames[k].prev_same;
	return k;
}

/* Return into frame k's caller: frames above k unwind, k returns. */
void cf_return_from(struct callflow *cf, struct cf_thread *t, int32_t k)
{
	cf_unwind_to(cf, t, (uint32_t)k);
	cf_pop(cf, t, CF_END_RETURN);
}

/*
 * The trace returns out of its oldest frame: the caller existed before the
 * first step.  Insert it below as if it had been there since then.
 */
void cf_adopt_caller(struct callflow *cf, struct cf_thread *t, const struct cf_site *site,
		     uint64_t pc, const struct trace_event *ev)
{
	struct cf_frame *g, *f;
	struct cf_fnstate *st;

	if (t->depth == t->frames_size) {
		t->frames_size *= 2;
		t->frames = xrealloc(t->frames, t->frames_size * sizeof(*t->frames));
	}
	unindex_frame(t, 0);
	memmove(&t->frames[1], &t->frames[0], sizeof(*t->frames));
	t->depth = 2;
	f = &t->frames[1];
	g = &t->frames[0];
	memset(g, 0, sizeof(*g));
	g->fn = site->fn;
	g->caller_fn = CF_NO_FN;
	g->kind = CF_ENTRY_UNMATCHED;
	g->ring = f->ring;
	g->entry_steps = f->entry_steps;
	g->entry_index = f->entry_index;
	g->entry_time = f->entry_time;
	g->prev_same = -1;
	f->ret_addr = pc;
	f->caller_fn = site->fn;
	if (g->fn != f->fn) {
		st = cf_fnstate_of(t, g->fn, NULL);
		st->count = 1;
		st->since = f->entry_steps;
		st->innermost = 0;
		g->inner = true;
		g->inner_since = f->entry_steps;
		cf_fnstate_of(t, f->fn, NULL)->innermost = 1;
	} else {
		st = cf_fnstate_of(t, f->fn, NULL);
		st->count = 2;
		st->innermost = 1;
		f->prev_same = 0;
	}
	index_frame(t, 0);
	index_frame(t, 1);
	if (t->depth > t->max_depth)
		t->max_depth = t->depth;
	if (t->depth > cf->stats.max_depth)
		cf->stats.max_depth = t->depth;
	cf->stats.unmatched++;
	pr_dbg2("step %" PRIu64 ": return out of the oldest frame %s into %s", ev->index,
		cf_func(cf, f->fn)->name, cf_func(cf, g->fn)->name);
	for (int c = 0; c < cf->nr_cons; c++)
		if (cf->cons[c].ops->adopt)
			cf->cons[c].ops->adopt(cf->cons[c].ctx, t, g);
	cf_emit_mark(cf, t, CF_MARK_UNMATCHED, ev->index);
	cf_pop(cf, t, CF_END_RETURN);
}
