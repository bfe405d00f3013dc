// SPDX-License-Identifier: GPL-2.0
/* The call-flow engine's replays told as push(), pop() and bulk() to consumers without replay(). */
#include "util/cf_internal.h"

/*
 * Where a replay's expansion is: the thread's frames above the caller's
 * (depth0 of them) are the replay's, written on t->frames as cf_push()
 * would have, so that a consumer sees the thread as stepping would show
 * it (its depth, its shown frames, its clock).  at: the steps told so
 * far, from b->first; the step records are read as far as the last one
 * told by bulk (rec, pc: the record after it and its pc).
 */
struct expand {
	struct callflow *cf;
	struct cf_thread *t;
	const struct cf_replay *c;
	const struct cf_bulk *b;
	const struct cf_frame *caller; /* the shown frame below the replay's (NULL: none) */
	uint32_t depth0;
	uint64_t base;		  /* the thread's clock at the callee's first step */
	uint32_t at;
	const uint8_t *rec;
	uint32_t decoded;	  /* steps whose records were read */
	uint64_t pc;
	struct cf_site site;	  /* the site of a bulk's last step */
	uint32_t replaced_depth;  /* the depth of the frame that ended replaced last (0 none) */
	uint32_t replaced_fn;	  /* its function */
	uint64_t replaced_ret;	  /* its ret_addr */
};

/* The thread as stepping leaves it before step at (from b->first), with depth frames. */
static void expand_clock(struct expand *x, uint32_t at, uint32_t depth)
{
	x->t->steps = x->base + at;
	x->t->last_index = x->b->first + at - 1;
	x->t->depth = depth;
}

/* The pc of step k (from b->first; k at least the steps read so far). */
static uint64_t expand_pc(struct expand *x, uint32_t k)
{
	const uint8_t *end = x->c->bytes + x->c->nbytes;

	for (; x->decoded <= k; x->decoded++)
		x->rec += step_next_pc(x->rec, end, &x->pc);
	return x->pc;
}

/* Steps at .. to - 1 of the top frame, as bulk_done() tells them. */
static void expand_bulk(struct expand *x, uint32_t to)
{
	struct callflow *cf = x->cf;
	struct cf_bulk b;
	bool have;

	if (to <= x->at)
		return;
	b = (struct cf_bulk){ .first = x->b->first + x->at, .n = to - x->at,
			      .time_ns = x->b->time_ns, .ring = x->b->ring, .site = &x->site };
	x->at = to;
	if (!cf->expand_bulk)
		return;
	b.pc = expand_pc(x, to - 1);
	memset(&x->site, 0, sizeof(x->site));
	have = cf->src.peek(cf->src.ctx, x->c->pid, b.pc, b.ring, &x->site);
	DASSERT(have);	/* every step of a replay ran through known runs */
	(void)have;
	for (uint32_t i = 0; i < cf->nr_expand; i++) {
		const struct cf_consumer *co = &cf->cons[cf->expand[i]];

		if (co->ops->bulk)
			co->ops->bulk(co->ctx, x->t, &b);
	}
}

/*
 * A frame pushed, not replacing one: a call instruction's (ret_addr after
 * it), or a jump's into the cold part of the function below (enter_cold:
 * a call into its first instruction, else a jump, continuing the frame
 * below's activation).
 */
static void expand_entered(struct expand *x, struct cf_frame *f, const struct cf_frame *parent)
{
	struct cf_site at;

	memset(&at, 0, sizeof(at));
	if (!x->cf->src.peek(x->cf->src.ctx, x->c->pid, f->call_site, x->b->ring, &at))
		DASSERT(!"a replay's call site is known");
	if (at.insn.cls == ARCH_INSN_CALL) {
		f->ret_addr = f->call_site + at.insn.len;
		return;
	}
	f->cold = true;
	f->from_fn = parent ? parent->fn : CF_NO_FN;
}

/* Frame k's push: the frame written where cf_push() would put it. */
static void expand_push(struct expand *x, const struct cf_replay_frame *fr)
{
	struct callflow *cf = x->cf;
	uint32_t at = x->depth0 + fr->depth - 1u;
	struct cf_frame *f = &x->t->frames[at];
	const struct cf_frame *parent = fr->depth > 1 ? f - 1 : x->caller;
	bool replaces = x->replaced_depth == fr->depth;

	expand_clock(x, fr->start, at);
	memset(f, 0, sizeof(*f));
	f->fn = fr->fn;
	f->caller_fn = fr->caller_fn;
	f->call_site = fr->call_site;
	if (replaces) {
		/* cf_replace(): it returns where the frame it replaced would have */
		f->from_fn = x->replaced_fn;
		f->ret_addr = x->replaced_ret;
	} else {
		expand_entered(x, f, parent);
	}
	x->replaced_depth = 0;
	f->kind = fr->kind;
	f->ring = x->b->ring;
	f->entry_steps = x->t->steps;
	f->entry_index = x->b->first + fr->start;
	f->entry_time = x->b->time_ns;
	f->prev_same = -1;
	x->t->depth = at + 1;
	for (uint32_t i = 0; i < cf->nr_expand; i++) {
		const struct cf_consumer *co = &cf->cons[cf->expand[i]];

		if (co->ops->push)
			co->ops->push(co->ctx, x->t, parent, f);
	}
}

/* Frame k's pop, with the cost it had when the replay was made. */
static void expand_pop(struct expand *x, const struct cf_replay_frame *fr)
{
	struct callflow *cf = x->cf;
	uint32_t at = x->depth0 + fr->depth - 1u;
	struct cf_frame *f = &x->t->frames[at];
	const struct cf_frame *parent = fr->depth > 1 ? f - 1 : x->caller;
	struct cf_cost cost = fr->cost;

	DASSERT(x->t->depth == at + 1 && f->fn == fr->fn);
	expand_clock(x, (uint32_t)fr->cost.end_index, at);
	f->self = cost.self;
	if (fr->how == CF_END_REPLACED) {
		x->replaced_depth = fr->depth;
		x->replaced_fn = fr->fn;
		x->replaced_ret = f->ret_addr;
	}
	cost.last_index += x->b->first;
	cost.end_index += x->b->first;
	for (uint32_t i = 0; i < cf->nr_expand; i++) {
		const struct cf_consumer *co = &cf->cons[cf->expand[i]];

		if (co->ops->pop)
			co->ops->pop(co->ctx, x->t, parent, f, &cost, (enum cf_end_kind)fr->how);
	}
}

static void expand_visit(void *ctx, uint32_t k, bool push)
{
	struct expand *x = ctx;
	const struct cf_replay_frame *fr = &x->c->fr[k];

	expand_bulk(x, push ? fr->start : (uint32_t)fr->cost.end_index);
	if (push)
		expand_push(x, fr);
	else
		expand_pop(x, fr);
}

void cf_replay_expand(struct callflow *cf, struct cf_thread *t, const struct cf_replay *c,
		      const struct cf_bulk *before, const struct cf_bulk *b)
{
	struct expand x = { .cf = cf, .t = t, .c = c, .b = b, .depth0 = t->depth,
			    .base = t->steps - b->n, .rec = c->bytes, .pc = c->call_pc };
	uint64_t steps = t->steps, last_index = t->last_index;
	int32_t k = (int32_t)t->depth - 1;

	if (k >= 0 && t->frames[k].hidden)
		k = cf_shown_below(t, k);
	x.caller = k >= 0 ? &t->frames[k] : NULL;
	if (t->depth + c->max_depth > t->frames_size) {
		t->frames_size = t->depth + c->max_depth;
		t->frames = xreallocarray(t->frames, t->frames_size, sizeof(*t->frames));
		x.caller = k >= 0 ? &t->frames[k] : NULL;
	}
	for (uint32_t i = 0; before && i < cf->nr_expand; i++) {
		const struct cf_consumer *co = &cf->cons[cf->expand[i]];

		if (co->ops->bulk)
			co->ops->bulk(co->ctx, t, before);
	}
	cf_replay_walk(c->fr, c->nr_frames, expand_visit, &x);
	DASSERT(x.at == b->n && t->depth == x.depth0);
	/* the replay's last step is its return: nothing is left to tell after its pop */
	t->steps = steps;
	t->last_index = last_index;
	t->depth = x.depth0;
}
