// SPDX-License-Identifier: GPL-2.0
/* The call-flow engine's replay recorder: the calls of a run of steps, made into replays. */
#include <string.h>

#include "util/cf_internal.h"

/* rec_grow() when the room is short: twice as much as the last, until enough. */
void *cf_rec_grow(void *p, uint32_t *size, uint32_t need, size_t elem)
{
	uint32_t n = *size ? *size : 64;

	while (n < need)
		n *= 2;
	*size = n;
	return xrealloc(p, (size_t)n * elem);
}

/* The replays that went while calls were recorded (their logs may have referred to them). */
void cf_rec_bury(struct cf_recorder *r)
{
	while (r->dead) {
		struct cf_replay *c = r->dead;

		r->dead = c->next_dead;
		free(c);
	}
}

/* Recording stops (every call recorded has ended or gone). */
static void rec_off(struct cf_recorder *r)
{
	r->on = false;
	r->nr_levels = 0;
	cf_rec_bury(r);
}

/*
 * The outermost call recorded goes: it is too long (its inner ones may
 * still make replays); the logs keep what the others need.
 */
void cf_rec_drop_outermost(struct cf_recorder *r)
{
	const struct cf_rec_level *l1 = &r->level[1];
	uint32_t f = l1->fr0, ru = l1->counts0, rf = l1->refs0, fs = l1->frames0;

	if (r->nr_levels <= 1) {
		rec_off(r);
		return;
	}
	memmove(r->fr, r->fr + f, (r->nr_fr - f) * sizeof(*r->fr));
	memmove(r->counts, r->counts + ru, (r->nr_counts - ru) * sizeof(*r->counts));
	memmove(r->refs, r->refs + rf, (r->nr_refs - rf) * sizeof(*r->refs));
	for (uint32_t d = 0; d < r->open_size; d++)
		r->open[d] =
			r->open[d] != UINT32_MAX && r->open[d] >= f ? r->open[d] - f : UINT32_MAX;
	r->nr_fr -= f;
	r->nr_counts -= ru;
	r->nr_refs -= rf;
	r->frames -= fs;
	for (uint32_t k = 0; k < r->nr_refs; k++)
		r->refs[k].fr_pos -= f;
	for (uint32_t k = 1; k < r->nr_levels; k++) {
		r->level[k].fr0 -= f;
		r->level[k].counts0 -= ru;
		r->level[k].refs0 -= rf;
		r->level[k].frames0 -= fs;
	}
	memmove(r->level, r->level + 1, (r->nr_levels - 1) * sizeof(*r->level));
	r->nr_levels--;
}

/* The call of run call (its last instruction) pushes at the cursor (the callee's first step). */
void cf_rec_start(struct callflow *cf, struct cf_thread *t, uint32_t call,
		  const struct cf_cursor *cu)
{
	struct cf_recorder *r = &cf->replays.rec;

	if (!r->on) {
		r->on = true;
		r->nr_levels = r->nr_fr = r->nr_counts = r->nr_refs = r->frames = 0;
	}
	if (r->nr_levels == cf->lim.rec_levels) {
		cf->replays.too_deep++;
		return;	/* not this one: the calls around it go on */
	}
	DASSERT(r->nr_levels < CF_LIMIT_REC_LEVELS);
	DASSERT(!r->nr_levels || r->level[r->nr_levels - 1].depth < t->depth);	/* one inside the other */
	r->level[r->nr_levels++] = (struct cf_rec_level){
		.call = call, .depth = t->depth, .k = cu->k, .b = cu->b, .call_pc = cu->pc,
		.fr0 = r->nr_fr, .counts0 = r->nr_counts, .refs0 = r->nr_refs,
		.frames0 = r->frames,
	};
}

/* cf_push(): frame f is pushed (at t->depth - 1): the logs' next frame. */
void cf_rec_push(struct callflow *cf, struct cf_thread *t, const struct cf_frame *f)
{
	struct cf_recorder *r = &cf->replays.rec;

	if (t->depth <= r->level[0].depth || f->resumes || f->unexplained ||
	    !rec_room(cf, f->entry_index - cf->cur_base, 1)) {
		rec_abort(cf);
		return;
	}
	r->fr = rec_grow(r->fr, &r->fr_size, r->nr_fr + 1, sizeof(*r->fr));
	r->open = rec_grow(r->open, &r->open_size, t->depth + 1, sizeof(*r->open));
	r->open[t->depth] = r->nr_fr;
	r->frames++;
	r->fr[r->nr_fr++] = (struct cf_replay_frame){
		.fn = f->fn,
		.caller_fn = f->caller_fn,
		.kind = f->kind,
		.depth = (uint16_t)t->depth,
		.start = (uint32_t)(f->entry_index - cf->cur_base),
		.call_site = f->call_site,
	};
}

/* cf_pop(): the top frame f (at t->depth - 1) ends with cost, how. */
void cf_rec_pop(struct callflow *cf, struct cf_thread *t, const struct cf_cost *cost,
		enum cf_end_kind how)
{
	struct cf_recorder *r = &cf->replays.rec;
	struct cf_replay_frame *fr;

	if (t->depth <= r->level[0].depth || t->depth >= r->open_size ||
	    r->open[t->depth] == UINT32_MAX || r->open[t->depth] >= r->nr_fr ||
	    (how != CF_END_RETURN && how != CF_END_REPLACED)) {
		rec_abort(cf);
		return;
	}
	fr = &r->fr[r->open[t->depth]];
	fr->how = (uint8_t)how;
	fr->cost = *cost;
	fr->cost.last_index -= cf->cur_base;
	fr->cost.end_index -= cf->cur_base;
	r->open[t->depth] = UINT32_MAX;
}

/* Replay c was taken at step index first while calls are recorded: its part of theirs. */
void cf_rec_append(struct callflow *cf, struct cf_thread *t, struct cf_replay *c,
		   uint64_t first)
{
	struct cf_recorder *r = &cf->replays.rec;
	uint64_t at = first - cf->cur_base;

	if (!rec_room(cf, at + c->len, c->nr_frames))
		return;
	r->refs = rec_grow(r->refs, &r->refs_size, r->nr_refs + 1, sizeof(*r->refs));
	r->refs[r->nr_refs++] = (struct cf_rec_ref){ c, (uint32_t)at, t->depth, r->nr_fr };
	r->frames += c->nr_frames;
}

/* counts[0..n), the same run's or jump's added into one: how many are left, in place. */
static uint32_t replay_counts_merge(struct cf_replay_count *counts, uint32_t n,
				    struct cf_count_index *ix)
{
	uint32_t w = 0;

	cf_count_index_clear(ix);
	for (uint32_t k = 0; k < n; k++) {
		struct cf_count_key key = { counts[k].to, counts[k].pool, counts[k].m,
					    counts[k].off };
		struct cf_count_index_entry *e;
		bool added;

		e = cf_count_index_insert(ix, &key, &added);
		if (!e)
			xalloc_die();
		if (!added) {
			counts[e->val].count += counts[k].count;
			continue;
		}
		counts[w] = counts[k];
		e->val = w++;
	}
	return w;
}

/*
 * The functions of frames fr[0..n) but caller's, into fns (room for n):
 * how many.  For those on the thread's stack now (below the call), what
 * their outermost frames (no frame of theirs around them) do to the clocks
 * of the activation below them: the first one's entry, the steps between
 * them, the last one's end.  open_end: scratch, room for n.
 */
static uint32_t replay_fns(struct cf_thread *t, uint32_t caller, const struct cf_replay_frame *fr,
			   uint32_t n, struct cf_replay_fn *fns, uint32_t *open_end)
{
	uint32_t nr = 0;

	for (uint32_t k = 0; k < n; k++) {
		uint32_t j;
		struct cf_replay_fn *m;

		if (fr[k].fn == caller)
			continue;
		for (j = 0; j < nr && fns[j].fn != fr[k].fn; j++)
			;
		m = &fns[j];
		if (j == nr) {
			uint32_t slot;
			struct cf_fnstate *st = cf_fnstate_of(t, fr[k].fn, &slot);

			*m = (struct cf_replay_fn){ .fn = fr[k].fn, .slot = slot,
						    .on_stack = st->count > 0 };
			open_end[nr++] = UINT32_MAX;	/* none of its frames yet */
		}
		if (!m->on_stack)
			continue;
		if (open_end[j] == UINT32_MAX)
			m->first_enter = fr[k].start;
		else if (open_end[j] > fr[k].start)
			continue;	/* inside a frame of its own: not an outermost one */
		else
			m->gaps += fr[k].start - m->last_leave;
		m->last_leave = (uint32_t)fr[k].cost.end_index;
		open_end[j] = m->last_leave;
	}
	return nr;
}

/*
 * The logs' frames of level l, the replays' taken in it among them, each
 * rebased to l's call (its callee's first step, its caller's depth), into
 * r->gfr; what it counted (the replays' too, unmerged) into r->gcounts
 * (*nr_counts of them).  The logs stay as they are: the calls around l
 * have l's part in theirs.
 */
static void rec_gather(struct cf_recorder *r, const struct cf_rec_level *l, uint32_t *nr_counts)
{
	uint32_t n = 0, ref = l->refs0, base = (uint32_t)l->k;
	uint32_t counts = r->nr_counts - l->counts0;

	for (uint32_t x = ref; x < r->nr_refs; x++)
		counts += r->refs[x].c->nr_counts;
	r->gfr = rec_grow(r->gfr, &r->gfr_size, r->frames - l->frames0, sizeof(*r->gfr));
	r->gcounts = rec_grow(r->gcounts, &r->gcounts_size, counts, sizeof(*r->gcounts));
	counts = r->nr_counts - l->counts0;
	memcpy(r->gcounts, r->counts + l->counts0, counts * sizeof(*r->counts));
	for (uint32_t p = l->fr0;; p++) {
		for (; ref < r->nr_refs && r->refs[ref].fr_pos == p; ref++) {
			const struct cf_rec_ref *x = &r->refs[ref];
			const struct cf_replay *c = x->c;
			uint32_t at = x->at - base, depth = x->depth - l->depth;

			for (uint32_t k = 0; k < c->nr_frames; k++, n++) {
				struct cf_replay_frame *f = &r->gfr[n];

				*f = c->fr[k];
				f->depth = (uint16_t)(f->depth + depth);
				f->start += at;
				f->cost.last_index += at;
				f->cost.end_index += at;
			}
			memcpy(r->gcounts + counts, c->counts, c->nr_counts * sizeof(*c->counts));
			counts += c->nr_counts;
		}
		if (p == r->nr_fr)
			break;
		r->gfr[n] = r->fr[p];
		r->gfr[n].depth = (uint16_t)(r->gfr[n].depth - l->depth);
		r->gfr[n].start -= base;
		r->gfr[n].cost.last_index -= base;
		r->gfr[n].cost.end_index -= base;
		n++;
	}
	DASSERT(n == r->frames - l->frames0);	/* the logs' frames and the replays' taken */
	*nr_counts = counts;
}

/*
 * The return whose landing step (land_len bytes) is at the cursor has
 * ended the innermost call recorded, if this was its return (the thread
 * back at its depth): its part of the logs becomes one of the call's
 * run's replays, unless it has it, in an empty slot or in place of the one
 * made longest ago.  Its bytes: the callee's steps' records and the
 * landing's.
 */
void cf_rec_end(struct callflow *cf, struct cf_thread *t, uint32_t call, uint32_t land,
		const struct cf_cursor *cu, size_t land_len)
{
	struct cf_replays *cs = &cf->replays;
	struct cf_recorder *r = &cs->rec;
	struct cf_rec_level l;
	uint32_t len, nbytes, nr_fr, nr_counts, nr_fns, g, slot, max_depth = 0, last_pool;
	struct cf_replay **group, *c;
	size_t size;

	if (!r->on || !r->nr_levels || r->level[r->nr_levels - 1].depth != t->depth)
		return;
	l = r->level[--r->nr_levels];
	len = (uint32_t)(cu->k - l.k);
	nbytes = (uint32_t)(cu->b - l.b) + (uint32_t)land_len;
	nr_fr = r->frames - l.frames0;
	last_pool = r->last_pool;	/* the return's: the last run counted */
	if (call != l.call || !nr_fr || r->nr_counts == l.counts0 || !len || len > cf->lim.replay_steps ||
	    nbytes > cf->lim.replay_bytes)
		goto done;
	group = cf_replays_make(cf, call, &g);
	slot = cf_replay_slot(cf, group, g, &l, nbytes);
	DASSERT(slot < cf->lim.replays_per_run || slot == CF_REPLAY_SLOTS);
	if (slot == CF_REPLAY_SLOTS)
		goto done;	  /* it has this replay already */
	r->fns = rec_grow(r->fns, &r->fns_size, nr_fr, sizeof(*r->fns));
	r->open_end = rec_grow(r->open_end, &r->open_end_size, nr_fr, sizeof(*r->open_end));
	rec_gather(r, &l, &nr_counts);
	nr_counts = replay_counts_merge(r->gcounts, nr_counts, &r->merge);
	size = sizeof(*c) + nr_fr * sizeof(*c->fr) + nr_fr * sizeof(*c->fns) +
	       nr_counts * sizeof(*c->counts) + nbytes + 8;
	if (!group[slot] && cs->total + size > cf->lim.replays_total) {
		cs->over_total++;
		goto done;	  /* replays take all the room they may: only new for old */
	}
	c = xcalloc(1, size);
	c->size = size;
	c->fr = (struct cf_replay_frame *)(c + 1);
	c->fns = (struct cf_replay_fn *)(c->fr + nr_fr);
	c->counts = (struct cf_replay_count *)(c->fns + nr_fr);
	c->bytes = (uint8_t *)(c->counts + nr_counts);
	memcpy(c->fr, r->gfr, nr_fr * sizeof(*c->fr));
	for (uint32_t k = 0; k < nr_fr; k++)
		if (c->fr[k].depth > max_depth)
			max_depth = c->fr[k].depth;
	nr_fns = replay_fns(t, top(t)->fn, c->fr, nr_fr, r->fns, r->open_end);
	memcpy(c->fns, r->fns, nr_fns * sizeof(*c->fns));
	memcpy(c->counts, r->gcounts, nr_counts * sizeof(*c->counts));
	memcpy(c->bytes, l.b, nbytes);
	c->len = len;
	c->nbytes = nbytes;
	c->land_len = (uint8_t)land_len;
	c->max_depth = (uint16_t)max_depth;
	c->call_pc = l.call_pc;
	c->last_pc = cu->pc;
	c->last_pool = last_pool;
	c->gen = cf->task_gen;
	c->land = land;
	c->pid = cf->runs.info[call].pid;
	c->nr_frames = nr_fr;
	c->nr_fns = nr_fns;
	c->nr_counts = nr_counts;
	if (group[slot]) {
		cf_replay_drop(cf, group[slot]);
		cs->replaced++;
	}
	group[slot] = c;
	cs->total += size;
	cs->made++;
done:
	if (!r->nr_levels)
		rec_off(r);
}

void cf_rec_release(struct cf_recorder *r)
{
	free(r->fr);
	free(r->open);
	free(r->fns);
	free(r->open_end);
	free(r->counts);
	free(r->refs);
	free(r->gfr);
	free(r->gcounts);
	cf_count_index_free(&r->merge);
	cf_rec_bury(r);
}
