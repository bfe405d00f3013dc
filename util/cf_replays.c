// SPDX-License-Identifier: GPL-2.0
/* The call-flow engine's replay store: each call's run's replays, found, taken, dropped. */
#include <string.h>

#include "util/cf_internal.h"

static inline struct cf_replay **replays_of(struct callflow *cf, uint32_t run)
{
	const struct cf_replays *cs = &cf->replays;

	if (run < cs->of_run_size && cs->of_run[run])
		return &cs->c[CF_REPLAY_SLOTS * (cs->of_run[run] - 1)];
	return NULL;
}

struct cf_replay **cf_replays_make(struct callflow *cf, uint32_t run, uint32_t *g)
{
	struct cf_replays *cs = &cf->replays;

	if (run >= cs->of_run_size) {
		uint32_t n = cs->of_run_size ? cs->of_run_size : 1024;

		while (n <= run)
			n *= 2;
		cs->of_run = xrealloc(cs->of_run, n * sizeof(*cs->of_run));
		memset(cs->of_run + cs->of_run_size, 0, (n - cs->of_run_size) * sizeof(*cs->of_run));
		cs->of_run_size = n;
	}
	if (!cs->of_run[run]) {
		if (cs->nr + CF_REPLAY_SLOTS > cs->size) {
			cs->size = cs->size ? 2 * cs->size : 16 * CF_REPLAY_SLOTS;
			cs->c = xrealloc(cs->c, cs->size * sizeof(*cs->c));
			cs->victim = xrealloc(cs->victim, cs->size / CF_REPLAY_SLOTS);
		}
		memset(cs->c + cs->nr, 0, CF_REPLAY_SLOTS * sizeof(*cs->c));
		cs->victim[cs->nr / CF_REPLAY_SLOTS] = 0;
		cs->nr += CF_REPLAY_SLOTS;
		cs->of_run[run] = cs->nr / CF_REPLAY_SLOTS;
	}
	*g = cs->of_run[run] - 1;
	return &cs->c[CF_REPLAY_SLOTS * *g];
}

/* What replay c's takes stood for, told (cf_tally) and cleared. */
void cf_replay_tally(struct callflow *cf, struct cf_replay *c)
{
	const struct cf_runs *rs = &cf->runs;

	if (!c->taken)
		return;
	for (uint32_t k = 0; k < c->nr_counts; k++) {
		const struct cf_replay_count *m = &c->counts[k];

		if (!m->m) {
			cf_tell_tally(cf, &(struct cf_tally){ .pid = c->pid, .pc = rs->pcs[m->pool],
							      .site = &rs->sites[m->pool],
							      .to = m->to,
							      .jumps = m->count * c->taken });
			continue;
		}
		for (uint32_t j = m->off; j < m->m; j++)
			cf_tell_tally(cf, &(struct cf_tally){
				.pid = c->pid, .pc = rs->pcs[m->pool + j],
				.site = &rs->sites[m->pool + j], .steps = m->count * c->taken });
	}
	c->taken = 0;
}

/* Replay c goes (a newer one takes its place): what it stood for told first. */
void cf_replay_drop(struct callflow *cf, struct cf_replay *c)
{
	cf_replay_tally(cf, c);
	for (int i = 0; i < cf->nr_cons; i++)
		if (cf->cons[i].ops->replay_drop)
			cf->cons[i].ops->replay_drop(cf->cons[i].ctx, c->words[i]);
	DASSERT(cf->replays.total >= c->size);
	cf->replays.total -= c->size;
	if (cf->replays.rec.on) {	/* a log may refer to it until recording stops */
		c->next_dead = cf->replays.rec.dead;
		cf->replays.rec.dead = c;
	} else {
		free(c);
	}
}

/*
 * Where in group (index g) the replay of the call recorded at level l goes
 * (its records nbytes long): CF_REPLAY_SLOTS when the group has it already
 * (the same records, made since the last task record: it was not taken
 * for something else, as its landing's run not following), else a slot
 * whose replay is of code no longer known to be mapped, an empty one, or
 * the one made longest ago.
 */
uint32_t cf_replay_slot(struct callflow *cf, struct cf_replay **group, uint32_t g,
			const struct cf_rec_level *l, uint32_t nbytes)
{
	uint32_t slot, empty = CF_REPLAY_SLOTS;

	for (slot = 0; slot < cf->lim.replays_per_run; slot++) {
		const struct cf_replay *c = group[slot];

		if (!c) {
			if (empty == CF_REPLAY_SLOTS)
				empty = slot;
			continue;
		}
		if (c->gen != cf->task_gen)
			return slot;
		if (c->nbytes == nbytes && c->call_pc == l->call_pc &&
		    !memcmp(c->bytes, l->b, nbytes))
			return CF_REPLAY_SLOTS;
	}
	if (empty < CF_REPLAY_SLOTS)
		return empty;
	slot = cf->replays.victim[g];
	cf->replays.victim[g] = (uint8_t)((slot + 1) % cf->lim.replays_per_run);
	return slot;
}

/*
 * The replay of call run call (a call, its callee's run known and next)
 * that the steps at the cursor are, if one is and it holds (struct
 * cf_replay), else NULL.
 */
struct cf_replay *cf_replay_find(struct callflow *cf, struct cf_thread *t,
				 const struct cf_cursor *cu, uint32_t call)
{
	const struct cf_runs *rs = &cf->runs;
	struct cf_replay **group = replays_of(cf, call);
	size_t avail = (size_t)(cu->end - cu->b);

	if (!group)
		return NULL;
	for (uint32_t slot = 0; slot < cf->lim.replays_per_run && group[slot]; slot++) {
		struct cf_replay *c = group[slot];
		struct cf_cursor land;
		uint32_t j;

		if (c->len >= cu->n - cu->k || c->nbytes > avail || c->call_pc != cu->pc ||
		    !same_bytes(cu->b, c->bytes, c->nbytes))
			continue;
		land = (struct cf_cursor){ .b = cu->b + c->nbytes - c->land_len, .end = cu->end,
					   .pc = c->last_pc, .first = cu->first,
					   .k = cu->k + c->len, .n = cu->n };
		if (c->gen != cf->task_gen ||
		    !run_follows(rs, (int32_t)c->land, &land, c->land_len) ||
		    rs->info[c->land].fn != top(t)->fn)
			continue;
		for (j = 0; j < c->nr_fns; j++)
			if ((fnstate_at(t, &c->fns[j].slot, c->fns[j].fn)->count > 0) !=
			    c->fns[j].on_stack)
				break;	/* Cum and cf_cross_into() would see another stack */
		if (j < c->nr_fns)
			continue;
		return c;
	}
	return NULL;
}

/*
 * Take replay c of a call for the steps at the cursor (index first of
 * ev's thread t, in ev's ring), after the top frame's `before` steps
 * counted in bulk and not told yet (the last at pool index before_last):
 * the thread, the runs and the consumers as stepping through it would
 * leave them, up to its return (step first + len - 1).  Its frames cost
 * what they did; the caller's clocks are left as its last frame's pop
 * leaves them, an outer activation of a function it ran as its outermost
 * frames of it leave them (struct cf_replay_fn).
 */
void cf_replay_take(struct callflow *cf, struct cf_thread *t, const struct trace_event *ev,
		    uint64_t first, struct cf_replay *c, uint64_t before, uint32_t before_last)
{
	struct cf_runs *rs = &cf->runs;
	struct cf_bulk pre = { .first = first - before, .n = before, .time_ns = ev->time_ns,
			       .ring = ev->ring, .pc = rs->pcs[before_last],
			       .site = &rs->sites[before_last] };
	struct cf_frame *caller = top(t);
	uint64_t base;
	struct cf_bulk b;

	/* what cf_replay_find() checked: nothing mapped changed, the return lands in the caller */
	DASSERT(c->gen == cf->task_gen && rs->info[c->land].fn == caller->fn);
	/* the caller's steps counted in bulk before the call, as bulk_done() counts them */
	caller->self += before;
	t->steps += before;
	cf->stats.steps += before;
	base = t->steps;
	for (uint32_t j = 0; j < c->nr_fns; j++) {
		struct cf_replay_fn *m = &c->fns[j];
		struct cf_fnstate *st;
		struct cf_frame *o;

		if (!m->on_stack)
			continue;
		/* cf_replay_find() found it at m->slot, but a function added after it may have
		 * grown the table */
		st = fnstate_at(t, &m->slot, m->fn);
		/* on the stack now as when the replay was made (replay_find) */
		DASSERT(st->count > 0 && st->innermost >= 0 && (uint32_t)st->innermost < t->depth);
		o = &t->frames[st->innermost];
		DASSERT(o->fn == m->fn);
		o->child_acc += base + m->first_enter - o->inner_since + m->gaps;
		o->inner_since = base + m->last_leave;
	}
	caller->child_acc = 0;
	caller->inner_since = base + c->len;
	t->steps += c->len;
	cf->stats.steps += c->len;
	cf->replays.taken++;
	cf->replays.taken_steps += c->len;
	c->taken++;
	if (t->depth + c->max_depth > t->max_depth)
		t->max_depth = t->depth + c->max_depth;
	if (t->depth + c->max_depth > cf->stats.max_depth)
		cf->stats.max_depth = t->depth + c->max_depth;
	t->last_slot ^= 1;
	t->sites[t->last_slot] = rs->sites[c->last_pool];
	t->last_pc = c->last_pc;
	t->last_time = ev->time_ns;
	t->last_index = first + c->len - 1;
	if (cf->replays.rec.on)
		cf_rec_append(cf, t, c, first);
	b = (struct cf_bulk){ .first = first, .n = c->len, .time_ns = ev->time_ns,
			      .ring = ev->ring, .pc = t->last_pc, .site = &t->sites[t->last_slot] };
	for (int i = 0; i < cf->nr_cons; i++)
		if (cf->cons[i].ops->replay)
			cf->cons[i].ops->replay(cf->cons[i].ctx, t, c->fr, c->nr_frames,
						before ? &pre : NULL, &b, c->words[i]);
	if (cf->nr_expand)
		cf_replay_expand(cf, t, c, before ? &pre : NULL, &b);
}

void cf_replays_release(struct cf_replays *cs)
{
	for (uint32_t k = 0; k < cs->nr; k++)
		free(cs->c[k]);
	free(cs->c);
	free(cs->of_run);
	free(cs->victim);
}
