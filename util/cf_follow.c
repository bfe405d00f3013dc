// SPDX-License-Identifier: GPL-2.0
/* The call-flow engine's run follower: runs of steps counted in bulk, calls taken whole. */
#include <string.h>

#include "util/cf_internal.h"

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
 * Where follow_runs() is: the thread and the cursor it follows, the steps
 * it counted in bulk and has not told yet, the run that comes next and
 * how it came, and, once that run is counted, the transfer after it.
 */
struct follow {
	struct callflow *cf;
	struct cf_thread *t;
	struct trace_event *ev;
	struct cf_cursor *cu;
	struct cf_runs *rs;
	uint64_t first;		  /* the cursor's first index */
	uint64_t bulk;		  /* steps counted in bulk, not yet told; the last: */
	uint32_t bulk_last;	  /* its place in the pool (step k - 1) */
	int32_t i;		  /* run i's sites from off are next */
	uint32_t off;
	uint32_t fn;		  /* the top frame's function */
	int64_t via;		  /* 2 * run + slot: the successor that led to run i, -1 none */
	bool matched;		  /* run i was compared already (run_follows): it is next */
	size_t lead;		  /* off 0: the bytes of run i's first step at the cursor (its pc
				   * known to be run i's first) */
	/* run i counted: its last site's pool index and instruction, the next step's pc and
	 * record's length */
	uint32_t last;
	const struct arch_insn *in;
	uint64_t pc;
	size_t used;
};

/* What follow_runs() does next. */
enum follow_next {
	FOLLOW_ON,		  /* run i from off */
	FOLLOW_RESTART,		  /* the last step was one at a time: from its site */
	FOLLOW_STOP,		  /* the next step is one at a time */
};

/* The steps counted in bulk, told (bulk_done()). */
static inline void follow_tell(struct follow *fo)
{
	if (!fo->bulk)
		return;	/* (the pool may be empty yet) */
	bulk_done(fo->cf, fo->t, fo->ev, fo->first + fo->cu->k - 1, fo->rs->pcs[fo->bulk_last],
		  &fo->rs->sites[fo->bulk_last], fo->bulk);
	fo->bulk = 0;
}

/* Run nx comes next, at its first site, its first step's record used bytes long. */
static inline void follow_into(struct follow *fo, int32_t nx, size_t used)
{
	fo->i = nx;
	fo->off = 0;
	fo->lead = used;
}

/*
 * The last step was one at a time, of site 0 of the run that begins
 * there: from its site 1 on, unless that run is not the top frame's
 * function's (false).
 */
static bool follow_start(struct follow *fo)
{
	struct cf_thread *t = fo->t;

	if (top(t)->hidden)
		return false;	/* a folded stub's steps count for its caller: one at a time */
	fo->fn = top(t)->fn;
	fo->off = 1;
	fo->i = cf_runs_get(fo->rs, &fo->cf->src, t->pid, fo->ev->ring, t->last_pc,
			    &t->sites[t->last_slot]);
	return fo->i >= 0 && fo->rs->info[fo->i].fn == fo->fn;
}

/* Run i, known, from off (cnt sites; skip: the lead bytes before them) counted in bulk. */
static inline void follow_bulk(struct follow *fo, struct cf_run *r, uint32_t cnt, size_t skip)
{
	struct cf_runs *rs = fo->rs;
	struct cf_cursor *cu = fo->cu;

	if (fo->off)
		r->tail++;
	else
		r->times++;
	if (fo->via >= 0)	/* the jump into it, now that it ran */
		rs->runs[fo->via / 2].jumps[fo->via % 2] +=
			(rs->runs[fo->via / 2].next_jump >> (fo->via % 2)) & 1;
	if (fo->cf->replays.rec.on)
		cf_rec_run(fo->cf, (uint32_t)fo->i, fo->off, fo->via, cu->k + cnt);
	fo->bulk += cnt;
	fo->bulk_last = fo->last;
	cu->b += skip + r->m - 1u;
	cu->k += cnt;
	cu->pc = rs->pcs[fo->last];
}

/*
 * Run i's sites from off, if the steps at the cursor are they: counted in
 * bulk (a known run), or stepped one at a time (then it is known).  false
 * when they are not, or no step is left after them.
 */
static inline bool follow_count(struct follow *fo)
{
	struct cf_runs *rs = fo->rs;
	struct cf_cursor *cu = fo->cu;
	struct cf_run *r = &rs->runs[fo->i];
	uint32_t cnt = r->m - fo->off;
	size_t skip = fo->off ? 0 : fo->lead;

	fo->last = r->first + r->m - 1;
	if (!cnt) {
		r->known = true;	/* one site, stepped just now (off 1) */
		return true;
	}
	if (!fo->matched &&
	    (cnt > cu->n - cu->k || skip + r->m - 1u > (size_t)(cu->end - cu->b) ||
	     !same_bytes(cu->b + skip, rs->enc + r->first + 1, r->m - 1u)))
		return false;	/* not this run (yet): one at a time */
	fo->matched = false;
	if (!r->known) {
		follow_tell(fo);	/* step_at() ends any call being recorded */
		for (uint32_t j = 0; j < cnt; j++)	/* its first step counts the jump */
			step_at(fo->cf, fo->t, fo->ev, cu);
		rs->runs[fo->i].known = true;
	} else {
		follow_bulk(fo, r, cnt, skip);
	}
	fo->via = -1;
	return cu->k != cu->n;
}

/*
 * A call or a return after run i: the run that keeps where it goes
 * (next[slot] of via_run: a call's run keeps its callee's run in [1], an
 * indirect call's last, and in [0] the run its return lands in), the
 * thread's depth before it.
 */
struct follow_xfer {
	bool call;
	uint32_t via_run, slot, depth;
};

/* Is the transfer after run i a call, or a return to the run after the call of the top frame? */
static bool follow_xfer_of(struct follow *fo, struct follow_xfer *x)
{
	struct cf_runs *rs = fo->rs;
	const struct cf_frame *f = top(fo->t);
	const struct cf_run *cr;
	uint32_t cl;

	x->call = fo->in->cls == ARCH_INSN_CALL;
	x->depth = fo->t->depth;
	x->via_run = (uint32_t)fo->i;
	if (x->call) {
		x->slot = 1;
		/* a direct call elsewhere than its target is unexplained */
		return !(fo->in->flags & ARCH_INSN_HAS_TARGET) || fo->pc == fo->in->target;
	}
	x->slot = 0;
	if (x->depth < 2 || f->ret_addr != fo->pc || !f->call_run ||
	    f->call_gen != fo->cf->task_gen)
		return false;
	x->via_run = f->call_run - 1;
	cr = &rs->runs[x->via_run];
	cl = cr->first + cr->m - 1;
	return fo->pc == rs->pcs[cl] + rs->sites[cl].insn.len;
}

/* The call after run i taken whole (replay c), up to its return: the run it lands in next. */
static void follow_replay(struct follow *fo, struct cf_replay *c)
{
	struct cf_cursor *cu = fo->cu;

	cf_replay_take(fo->cf, fo->t, fo->ev, fo->first + cu->k, c, fo->bulk, fo->bulk_last);
	fo->bulk = 0;
	cu->b += c->nbytes - c->land_len;
	cu->k += c->len;
	cu->pc = c->last_pc;
	follow_into(fo, (int32_t)c->land, c->land_len);
	fo->via = -1;
	fo->matched = true;
}

/*
 * The call or return x into run nx, seen before: taken whole if it is a
 * call with a replay that holds, else pushed or popped as transition()
 * would; run nx comes next.  FOLLOW_STOP when run nx does not follow.
 */
static enum follow_next follow_known_xfer(struct follow *fo, const struct follow_xfer *x,
					  int32_t nx)
{
	struct callflow *cf = fo->cf;
	struct cf_runs *rs = fo->rs;
	struct cf_replay *c;

	if (!run_follows(rs, nx, fo->cu, fo->used) ||
	    (!x->call && rs->info[nx].fn != fo->t->frames[x->depth - 2].fn) ||
	    (x->call && folds(cf, rs->info[nx].fn)))
		return FOLLOW_STOP;
	if (x->call && (c = cf_replay_find(cf, fo->t, fo->cu, (uint32_t)fo->i))) {
		follow_replay(fo, c);
		return FOLLOW_ON;
	}
	follow_tell(fo);
	if (x->call) {
		cf_rec_start(cf, fo->t, (uint32_t)fo->i, fo->cu);
		enter_call(cf, fo->t, fo->ev, fo->first + fo->cu->k, fo->fn, rs->info[nx].fn,
			   rs->pcs[fo->last], fo->in, (uint32_t)fo->i);
	} else {
		leave_call(cf, fo->t, fo->first + fo->cu->k);
		if (cf->replays.rec.on)
			cf_rec_end(cf, fo->t, x->via_run, (uint32_t)nx, fo->cu, fo->used);
	}
	fo->fn = rs->info[nx].fn;
	follow_into(fo, nx, fo->used);
	fo->via = -1;
	fo->matched = true;
	return FOLLOW_ON;
}

/*
 * The call or return x met the first time: stepped one at a time, and
 * where it went remembered (a frame it pushed: its call's run).
 */
static enum follow_next follow_new_xfer(struct follow *fo, const struct follow_xfer *x)
{
	struct cf_runs *rs = fo->rs;
	struct cf_thread *t = fo->t;
	struct cf_frame *f;
	int32_t nx;

	follow_tell(fo);
	step_at(fo->cf, t, fo->ev, fo->cu);
	f = top(t);
	if (x->call ? t->depth == x->depth + 1 && f->kind == CF_ENTRY_CALL &&
			      f->call_site == rs->pcs[fo->last] :
		      t->depth == x->depth - 1) {
		nx = cf_runs_get(rs, &fo->cf->src, t->pid, fo->ev->ring, fo->pc,
				 &t->sites[t->last_slot]);
		if (nx >= 0 && rs->info[nx].fn == f->fn) {
			rs->runs[x->via_run].next[x->slot] = (uint32_t)nx + 1;
			rs->runs[x->via_run].next_pc[x->slot] = fo->pc;
			if (x->call)
				f->call_run = x->via_run + 1;
		}
	}
	return FOLLOW_RESTART;
}

/*
 * A call into a known run, a return to the caller's run after the call:
 * pushed and popped as transition() would, the steps counted in bulk.
 * Met the first time, stepped one at a time, and the run remembered.
 */
static enum follow_next follow_xfer(struct follow *fo)
{
	struct follow_xfer x;
	const struct cf_run *cr;

	if (!follow_xfer_of(fo, &x))
		return FOLLOW_STOP;
	cr = &fo->rs->runs[x.via_run];
	if (cr->next[x.slot] && cr->next_pc[x.slot] == fo->pc)
		return follow_known_xfer(fo, &x, (int32_t)cr->next[x.slot] - 1);
	return follow_new_xfer(fo, &x);
}

/*
 * Run i's successor nx, another function's, follows: what
 * cf_thread_step() did there, cross() does again (a tail call, a jump
 * into a function's middle, an unwind).
 */
static bool follow_cross(struct follow *fo, int32_t nx)
{
	struct cf_runs *rs = fo->rs;

	if (!run_follows(rs, nx, fo->cu, fo->used) || folds(fo->cf, rs->info[nx].fn))
		return false;
	follow_tell(fo);
	cross(fo->cf, fo->t, fo->ev, fo->first + fo->cu->k, fo->pc, &rs->sites[rs->runs[nx].first],
	      rs->pcs[fo->last], fo->in);
	fo->fn = top(fo->t)->fn;	/* run nx's (cross()) */
	fo->matched = true;
	return true;
}

/*
 * The transfer from the end of run i that was met the first time, where
 * it goes (run nx, in another function if tail): remembered in next[0]
 * (a fall-through) or next[1] (a branch's target, an indirect jump's
 * last), with whether arcs count it as a jump and whether it crosses.
 */
static void follow_remember(struct follow *fo, struct cf_run *r, int32_t nx, bool tail)
{
	struct cf_runs *rs = fo->rs;
	const struct arch_insn *in = &rs->sites[fo->last].insn;
	uint64_t fall = rs->pcs[fo->last] + in->len;
	uint32_t j = fo->pc == fall && in->cls != ARCH_INSN_JUMP ? 0 : 1;

	if (r->next[j])
		cf_runs_tally_run(rs, (uint32_t)fo->i); /* an indirect jump's other target */
	r->next[j] = (uint32_t)nx + 1;
	r->next_pc[j] = fo->pc;
	r->next_jump &= (uint8_t)~((1u << j) | CF_RUN_CROSS(j));
	if (tail)	/* cross() */
		r->next_jump |= (uint8_t)CF_RUN_CROSS(j);
	/* a taken jump inside a function (to its own entry too): arcs count it */
	if (rs->info[nx].fn == fo->fn && (in->cls == ARCH_INSN_JUMP || in->cls == ARCH_INSN_COND) &&
	    fo->pc != fall)
		r->next_jump |= (uint8_t)(1u << j);
}

/*
 * A transfer from the end of run i not seen before, one cf_thread_step()
 * expects: stepped one at a time, then the run it went to is run i's
 * successor (follow_remember) and comes next, from its site 1.
 */
static enum follow_next follow_new(struct follow *fo)
{
	struct cf_runs *rs = fo->rs;
	struct cf_thread *t = fo->t;
	const struct cf_site *s;
	struct cf_run *r;
	uint32_t r_first, r_m;
	bool tail;
	int32_t nx;

	if (!expected_flow(t, fo->in, rs->pcs[fo->last], fo->pc))
		return FOLLOW_STOP;
	tail = taken_branch(fo->in, rs->pcs[fo->last], fo->pc);
	follow_tell(fo);
	step_at(fo->cf, t, fo->ev, fo->cu);
	/* into another function or its own entry: cf_cross_into() took it, as cross() will again */
	s = &t->sites[t->last_slot];
	tail = s->fn != fo->fn || (tail && s->entry && !s->anon);
	if (tail && top(t)->fn != s->fn)
		return FOLLOW_RESTART;
	r_first = rs->runs[fo->i].first;
	r_m = rs->runs[fo->i].m;
	nx = cf_runs_get(rs, &fo->cf->src, t->pid, fo->ev->ring, fo->pc, s);
	if (nx < 0)
		return FOLLOW_STOP;
	r = &rs->runs[fo->i];	/* the runs may have moved, or run i grown */
	if (r->first != r_first || r->m != r_m || (tail && rs->info[nx].fn != top(t)->fn)) {
		if (tail)
			return FOLLOW_RESTART;
		fo->i = nx;	/* the transition was from the end it no longer has */
		fo->off = 1;
		return FOLLOW_ON;
	}
	follow_remember(fo, r, nx, tail);
	fo->fn = top(t)->fn;
	fo->i = nx;
	fo->off = 1;
	return FOLLOW_ON;
}

/*
 * Run i counted, the transfer after it: a call or a return
 * (follow_xfer), a successor seen before (the next run, crossed into if
 * another function's), or a new one (follow_new).
 */
static enum follow_next follow_next(struct follow *fo)
{
	const struct cf_run *r = &fo->rs->runs[fo->i];
	uint32_t j;
	int32_t nx;

	fo->used = cursor_peek(fo->cu, &fo->pc);
	fo->in = &fo->rs->sites[fo->last].insn;
	if (plain_transfer(fo->in))
		return follow_xfer(fo);
	for (j = 0; j < 2; j++)
		if (r->next[j] && r->next_pc[j] == fo->pc)
			break;
	if (j == 2)
		return follow_new(fo);
	nx = (int32_t)r->next[j] - 1;
	if ((r->next_jump & CF_RUN_CROSS(j)) && !follow_cross(fo, nx))
		return FOLLOW_STOP;
	/* a jump to its own entry is a jump too (arcs count it) */
	fo->via = 2 * (int64_t)fo->i + j;
	follow_into(fo, nx, fo->used);
	return FOLLOW_ON;
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
	struct follow fo = { .cf = cf, .t = t, .ev = ev, .cu = cu, .rs = &cf->runs,
			     .first = cu->first, .via = -1 };
	enum follow_next next = FOLLOW_RESTART;

	do {
		if (next == FOLLOW_RESTART && !follow_start(&fo))
			break;
		next = cu->k < cu->n && follow_count(&fo) ? follow_next(&fo) : FOLLOW_STOP;
	} while (next != FOLLOW_STOP);
	follow_tell(&fo);
}

bool cf_steps_cross_events(const struct callflow *cf)
{
	return !cf->interrupts_apart && !cf->block_mode;
}

void cf_steps_bytes(struct callflow *cf, struct trace_event *ev, const struct step_bytes *sb,
		    const struct run_event *evs, size_t nr_evs)
{
	struct cf_cursor cu = { sb->b, sb->b + sb->len, sb->base_pc, ev->index, 0, sb->steps,
				evs, nr_evs };
	struct cf_thread *t;
	bool runs;

	if (!sb->steps) {
		cursor_events(cf, &cu, 0);
		return;
	}
	if (cf->block_mode) {
		while (cu.k < cu.n) {
			cursor_events(cf, &cu, cu.k);
			cu.b += step_next_pc(cu.b, cu.end, &cu.pc);
			ev->pc = cu.pc;
			ev->index = cu.first + cu.k++;
			cf_on_block(cf, ev);
		}
		cursor_events(cf, &cu, cu.n);
		return;
	}
	t = cf_thread_get(cf, ev->pid, ev->tid);
	t->cpu = ev->cpu;
	/* events the run was not cut at, where each must be placed: every step one at a time */
	runs = cf->bulk_ok && cf->counting && (!nr_evs || cf_steps_cross_events(cf));
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
	if (!buf)
		xalloc_die();
	cf_steps_bytes(cf, ev, &sb, NULL, 0);
	free(buf);
}
