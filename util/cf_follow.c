// SPDX-License-Identifier: GPL-2.0
/* The call-flow engine's run follower: runs of steps counted in bulk, calls taken whole. */
#include <string.h>

#include "cf_internal.h"

/*
 * The interrupts before step k (its index first + k), told (cf_steps_bytes:
 * no consumer places them).
 */
static inline void cursor_events(struct callflow *cf, struct cf_cursor *cu, size_t k)
{
	while (cu->nr_evs && cu->evs->at <= k) {
		cf_on_interrupt(cf, &cu->evs->ev);
		cu->evs++;
		cu->nr_evs--;
	}
}

/* The next step's pc (not taken): its record's length, 0 when there is none. */
static inline size_t cursor_peek(const struct cf_cursor *cu, uint64_t *pc)
{
	*pc = cu->pc;
	return cu->k < cu->n ? step_next_pc(cu->b, cu->end, pc) : 0;
}

/* The next step, one at a time. */
static void step_at(struct callflow *cf, struct cf_thread *t, struct trace_event *ev,
		    struct cf_cursor *cu)
{
	if (cu->nr_evs)
		cursor_events(cf, cu, cu->k);
	cu->b += step_next_pc(cu->b, cu->end, &cu->pc);
	ev->pc = cu->pc;
	ev->index = cu->first + cu->k++;
	rec_abort(cf);	/* a call stepped through is no replay */
	cf_thread_step(cf, t, ev);
}

/*
 * n steps counted in bulk, the last one (index last) at pc with site:
 * the thread as if each had been a step (nothing but its count happened:
 * the top frame's self, the clocks, the last site), then the consumers.
 */
static void bulk_done(struct callflow *cf, struct cf_thread *t, const struct trace_event *ev,
		      uint64_t last, uint64_t pc, const struct cf_site *site, uint64_t n)
{
	struct cf_bulk b;

	if (!n)
		return;
	top(t)->self += n;
	t->steps += n;
	cf->stats.steps += n;
	t->last_slot ^= 1;
	t->sites[t->last_slot] = *site;
	t->last_pc = pc;
	t->last_time = ev->time_ns;
	t->last_index = last;
	b = (struct cf_bulk){ .first = last + 1 - n, .n = n, .time_ns = ev->time_ns,
			      .ring = ev->ring, .pc = pc, .site = &t->sites[t->last_slot] };
	for (int c = 0; c < cf->nr_cons; c++)
		if (cf->cons[c].ops->bulk)
			cf->cons[c].ops->bulk(cf->cons[c].ctx, t, &b);
}

/* A call or return that always transfers (not ppc64's conditional ones, no rep). */
static inline bool plain_transfer(const struct arch_insn *in)
{
	return (in->cls == ARCH_INSN_CALL || in->cls == ARCH_INSN_RET) &&
	       !(in->flags & (ARCH_INSN_CONDITIONAL | ARCH_INSN_REP));
}

/*
 * Step index (of ev's thread t, in ev's ring) is the callee's first: what
 * transition() does for the call at site in the top frame's function
 * caller, the last step, with nothing pending.  run: the call's run.
 */
static void enter_call(struct callflow *cf, struct cf_thread *t, const struct trace_event *ev,
		       uint64_t index, uint32_t caller, uint32_t fn, uint64_t site,
		       const struct arch_insn *in, uint32_t run)
{
	struct push_args a = {
		.fn = fn, .caller_fn = caller, .kind = CF_ENTRY_CALL, .ring = ev->ring,
		.ret_addr = site + in->len, .call_site = site, .index = index, .time = ev->time_ns,
		.call_run = run + 1,
	};

	cf->in_step = true;
	cf->cur_index = index;
	cf_push(cf, t, &a);
	cf->in_step = false;
}

/* Step index returns from the top frame to its ret_addr, in the caller's function. */
static void leave_call(struct callflow *cf, struct cf_thread *t, uint64_t index)
{
	cf->in_step = true;
	cf->cur_index = index;
	cf_pop(cf, t, CF_END_RETURN);
	cf->in_step = false;
}

/*
 * Step index, at pc of site, follows from_pc (instruction from_insn) in
 * the top frame's function by a transfer that cf_thread_step() expects (a
 * fall-through, a branch, a jump to its target) into another function:
 * what cf_thread_step() does there, cf_cross_into() (a tail call, a jump into a
 * function's middle, such as a cold part's or glibc's shared tails, or an
 * unwind to a frame further down).  The top frame is site's function's
 * after it, whichever it was.
 */
static void cross(struct callflow *cf, struct cf_thread *t, struct trace_event *ev, uint64_t index,
		  uint64_t pc, const struct cf_site *site, uint64_t from_pc,
		  const struct arch_insn *from_insn)
{
	ev->pc = pc;
	ev->index = index;
	cf->in_step = true;
	cf->cur_index = index;
	cf_cross_into(cf, t, site, from_pc, from_insn, ev);
	cf->in_step = false;
}

/*
 * After a step of site x (the thread's last, the cursor's pc): as many of
 * the steps at the cursor as follow known runs through quiet transitions,
 * counted in bulk; the cursor is left at the next step to take one at a
 * time.  A quiet transition is one cf_thread_step() would take with nothing
 * but the count: an ordinary instruction's fall-through, a branch either
 * way or a jump to its target, into the top frame's own function, with
 * nothing pending (a step has just cleared it; the ring and the thread
 * stay: a cf_steps run is one thread's in one ring); or with the frame it
 * would push, pop or replace, done here as transition() does it: a call, a
 * return to the top frame's ret_addr, any of the transfers above into
 * another function (cross(): a tail call, a jump into its middle, an
 * unwind).  A run met for the first time, or a transition not seen
 * before, is stepped one by one (so the consumers see every site and jump
 * by step() first), then remembered.  Runs are compared as the streams
 * encode them: each step after a run's first is one byte, the length of
 * the instruction before it, so a run's bytes are the same every time and
 * only the steps that move from one run to another are decoded.
 */
static void follow_runs(struct callflow *cf, struct cf_thread *t, struct trace_event *ev,
			struct cf_cursor *cu)
{
	struct cf_runs *rs = &cf->runs;
	const uint64_t first = cu->first;
	uint64_t bulk = 0;	  /* steps counted in bulk, not yet told; the last: */
	uint32_t bulk_last = 0;	  /* its place in the pool (step k - 1) */
	uint32_t off, fn;	  /* run i's sites from off are next; the top frame's function */
	int32_t i;
	int64_t via = -1;	  /* 2 * run + slot: the successor that led to run i */
	bool matched = false;	  /* run i was compared already (run_follows): it is next */
	size_t lead = 0;	  /* off 0: the bytes of run i's first step at the cursor (its pc
				   * known to be run i's first) */
	struct cf_replay *rp;	  /* a call taken whole */

#define BULK_DONE()                                                                        \
	do {                                                                               \
		bulk_done(cf, t, ev, first + cu->k - 1, rs->pcs[bulk_last],               \
			  &rs->sites[bulk_last], bulk);                                    \
		bulk = 0;                                                                  \
	} while (0)

restart:	/* the last step was one at a time, of site 0 of run i */
	if (top(t)->hidden)
		return;	/* a folded stub's steps count for its caller: one at a time */
	fn = top(t)->fn;
	off = 1;
	i = cf_runs_get(rs, &cf->src, t->pid, ev->ring, t->last_pc, &t->sites[t->last_slot]);
	if (i < 0 || rs->info[i].fn != fn)
		return;
	while (cu->k < cu->n) {
		struct cf_run *r = &rs->runs[i];
		uint32_t cnt = r->m - off, last = r->first + r->m - 1, j, r_first, r_m, depth;
		bool tail;
		const struct arch_insn *in;
		uint64_t pc;
		size_t used;
		int32_t nx;

		if (!cnt) {
			r->known = true;	/* one site, stepped just now (off 1) */
		} else {
			if (!matched) {
				size_t need = (off ? 0 : lead) + r->m - 1u;

				if (cnt > cu->n - cu->k || need > (size_t)(cu->end - cu->b) ||
				    !same_bytes(cu->b + (off ? 0 : lead), rs->enc + r->first + 1,
						r->m - 1u))
					break;	/* not this run (yet): one at a time */
			}
			matched = false;
			if (!r->known) {
				BULK_DONE();	/* step_at() ends any call being recorded */
				for (j = 0; j < cnt; j++)	/* its first step counts the jump */
					step_at(cf, t, ev, cu);
				rs->runs[i].known = true;
			} else {
				if (off)
					r->tail++;
				else
					r->times++;
				if (via >= 0)	/* the jump into it, now that it ran */
					rs->runs[via / 2].jumps[via % 2] +=
						(rs->runs[via / 2].next_jump >> (via % 2)) & 1;
				if (cf->replays.rec.on)
					cf_rec_run(cf, (uint32_t)i, off, via, cu->k + cnt);
				bulk += cnt;
				bulk_last = last;
				cu->b += (off ? 0 : lead) + r->m - 1u;
				cu->k += cnt;
				cu->pc = rs->pcs[last];
			}
			via = -1;
			if (cu->k == cu->n)
				break;
		}
		used = cursor_peek(cu, &pc);
		in = &rs->sites[last].insn;
		if (plain_transfer(in)) {
			/*
			 * A call into a known run, a return to the caller's run
			 * after the call: pushed and popped as transition() would,
			 * the steps counted in bulk.  Met the first time, stepped
			 * one at a time, and the run remembered: a call's run keeps
			 * its callee's ([1], an indirect call's last) and the run it
			 * returns to ([0]); a frame it pushed, the call's run.
			 */
			struct cf_frame *f = top(t);
			uint32_t via_run = (uint32_t)i, slot;
			bool call = in->cls == ARCH_INSN_CALL;
			struct cf_run *cr = r;

			depth = t->depth;
			if (call) {
				if ((in->flags & ARCH_INSN_HAS_TARGET) && pc != in->target)
					break;	/* unexplained */
				slot = 1;
			} else {
				uint32_t cl;

				if (depth < 2 || f->ret_addr != pc || !f->call_run ||
				    f->call_gen != cf->task_gen)
					break;
				via_run = f->call_run - 1;
				cr = &rs->runs[via_run];
				cl = cr->first + cr->m - 1;
				if (pc != rs->pcs[cl] + rs->sites[cl].insn.len)
					break;
				slot = 0;
			}
			if (cr->next[slot] && cr->next_pc[slot] == pc) {
				nx = (int32_t)cr->next[slot] - 1;
				if (!run_follows(rs, nx, cu, used) ||
				    (!call && rs->info[nx].fn != t->frames[depth - 2].fn) ||
				    (call && folds(cf, rs->info[nx].fn)))
					break;
				if (call && cf->replays_ok &&
				    (rp = cf_replay_find(cf, t, cu, (uint32_t)i))) {
					/* the call whole (a replay), up to its return: the run it lands in next */
					cf_replay_take(cf, t, ev, first + cu->k, rp, bulk, bulk_last);
					bulk = 0;
					cu->b += rp->nbytes - rp->land_len;
					cu->k += rp->len;
					cu->pc = rp->last_pc;
					i = (int32_t)rp->land;
					off = 0;
					lead = rp->land_len;
					via = -1;
					matched = true;
					continue;
				}
				BULK_DONE();
				if (call) {
					cf_rec_start(cf, t, (uint32_t)i, cu);
					enter_call(cf, t, ev, first + cu->k, fn, rs->info[nx].fn,
						   rs->pcs[last], in, (uint32_t)i);
				} else {
					leave_call(cf, t, first + cu->k);
					if (cf->replays.rec.on)
						cf_rec_end(cf, t, via_run, (uint32_t)nx, cu, used);
				}
				fn = rs->info[nx].fn;
				i = nx;
				off = 0;
				lead = used;
				via = -1;
				matched = true;
				continue;
			}
			BULK_DONE();
			step_at(cf, t, ev, cu);
			f = top(t);
			if (call ? t->depth == depth + 1 && f->kind == CF_ENTRY_CALL &&
					   f->call_site == rs->pcs[last] :
				   t->depth == depth - 1) {
				nx = cf_runs_get(rs, &cf->src, t->pid, ev->ring, pc,
						 &t->sites[t->last_slot]);
				if (nx >= 0 && rs->info[nx].fn == f->fn) {
					rs->runs[via_run].next[slot] = (uint32_t)nx + 1;
					rs->runs[via_run].next_pc[slot] = pc;
					if (call)
						f->call_run = via_run + 1;
				}
			}
			goto restart;
		}
		/* the next run: a successor seen before, or a new one */
		for (j = 0; j < 2; j++)
			if (r->next[j] && r->next_pc[j] == pc)
				break;
		if (j < 2) {
			nx = (int32_t)r->next[j] - 1;
			if (r->next_jump & CF_RUN_CROSS(j)) {
				if (!run_follows(rs, nx, cu, used) || folds(cf, rs->info[nx].fn))
					break;
				BULK_DONE();
				cross(cf, t, ev, first + cu->k, pc, &rs->sites[rs->runs[nx].first],
				      rs->pcs[last], in);
				fn = top(t)->fn;	/* run nx's (cross()) */
				/* a jump to its own entry is a jump too (arcs count it) */
				via = 2 * (int64_t)i + j;
				matched = true;
			} else {
				via = 2 * (int64_t)i + j;
			}
			i = nx;
			off = 0;
			lead = used;
			continue;
		}
		if (!expected_flow(t, in, rs->pcs[last], pc))
			break;
		tail = taken_branch(in, rs->pcs[last], pc);
		BULK_DONE();
		step_at(cf, t, ev, cu);
		/* into another function or its own entry: cf_cross_into() took it, as cross() will again */
		tail = t->sites[t->last_slot].fn != fn ||
		       (tail && t->sites[t->last_slot].entry && !t->sites[t->last_slot].anon);
		if (tail && top(t)->fn != t->sites[t->last_slot].fn)
			goto restart;
		r_first = r->first;
		r_m = r->m;
		nx = cf_runs_get(rs, &cf->src, t->pid, ev->ring, pc, &t->sites[t->last_slot]);
		if (nx < 0)
			return;
		r = &rs->runs[i];	/* the runs may have moved, or run i grown */
		if (r->first != r_first || r->m != r_m || (tail && rs->info[nx].fn != top(t)->fn)) {
			if (tail)
				goto restart;
			i = nx;		/* the transition was from the end it no longer has */
			off = 1;
			continue;
		}
		in = &rs->sites[last].insn;
		j = pc == rs->pcs[last] + in->len && in->cls != ARCH_INSN_JUMP ? 0 : 1;
		if (r->next[j])
			cf_runs_tally_run(rs, (uint32_t)i); /* an indirect jump's other target */
		r->next[j] = (uint32_t)nx + 1;
		r->next_pc[j] = pc;
		r->next_jump &= (uint8_t)~((1u << j) | CF_RUN_CROSS(j));
		if (tail)	/* cross() */
			r->next_jump |= (uint8_t)CF_RUN_CROSS(j);
		/* a taken jump inside a function (to its own entry too): arcs count it */
		if (rs->info[nx].fn == fn && (in->cls == ARCH_INSN_JUMP || in->cls == ARCH_INSN_COND) &&
		    pc != rs->pcs[last] + in->len)
			r->next_jump |= (uint8_t)(1u << j);
		fn = top(t)->fn;
		i = nx;
		off = 1;
	}
	BULK_DONE();
#undef BULK_DONE
}

/* steps_apart: the engine, the run's event (its first step's index, first) */
struct steps_apart {
	struct callflow *cf;
	struct trace_event *ev;
	uint64_t first;
};

static void apart_part(void *ctx, size_t at, uint64_t pc, const struct step_bytes *p)
{
	struct steps_apart *a = ctx;

	a->ev->index = a->first + at;
	a->ev->pc = pc;
	cf_steps_bytes(a->cf, a->ev, p, NULL, 0);
}

static void apart_event(void *ctx, const struct trace_event *ev)
{
	cf_event(((struct steps_apart *)ctx)->cf, ev);
}

/* A consumer places interrupts: the run in parts, each interrupt between them by cf_event. */
static void steps_apart(struct callflow *cf, struct trace_event *ev, const struct step_bytes *sb,
			const struct run_event *evs, size_t nr_evs)
{
	struct steps_apart a = { cf, ev, ev->index };

	trace_run_parts(sb, evs, nr_evs, apart_part, apart_event, &a);
}

void cf_steps_bytes(struct callflow *cf, struct trace_event *ev, const struct step_bytes *sb,
		    const struct run_event *evs, size_t nr_evs)
{
	struct cf_cursor cu = { sb->b, sb->b + sb->len, sb->base_pc, ev->index, 0, sb->steps,
				evs, nr_evs };
	struct cf_thread *t;
	bool runs;

	if (nr_evs && (cf->interrupts_apart || cf->block_mode)) {
		steps_apart(cf, ev, sb, evs, nr_evs);
		return;
	}
	if (!sb->steps) {
		cursor_events(cf, &cu, 0);
		return;
	}
	if (cf->block_mode) {
		while (cu.k < cu.n) {
			cu.b += step_next_pc(cu.b, cu.end, &cu.pc);
			ev->pc = cu.pc;
			ev->index = cu.first + cu.k++;
			cf_on_block(cf, ev);
		}
		return;
	}
	t = cf_thread_get(cf, ev->pid, ev->tid);
	runs = cf->bulk_ok && cf->counting;
	cf->cur_base = cu.first;
	while (cu.k < cu.n) {
		step_at(cf, t, ev, &cu);
		if (runs && cu.k < cu.n)
			follow_runs(cf, t, ev, &cu);
	}
	rec_abort(cf);	/* a replay is of one run's records */
	cursor_events(cf, &cu, cu.n);
	ev->pc = cu.pc;
	ev->index = cu.first + cu.n - 1;
}

void cf_steps(struct callflow *cf, struct trace_event *ev, const uint64_t *pcs, size_t n)
{
	struct step_bytes sb;
	uint8_t *buf;

	if (!n)
		return;
	buf = step_bytes_of_pcs(pcs, n, &sb);
	if (!buf) {
		pr_err("out of memory for the call flow");
		exit(EXIT_RUNTIME);
	}
	cf_steps_bytes(cf, ev, &sb, NULL, 0);
	free(buf);
}
