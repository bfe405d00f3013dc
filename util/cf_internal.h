/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the parts of the call-flow engine share (private to util/callflow.c
 * and util/cf_*.c; docs/callflow-internals.md describes the parts): the
 * engine's state, the replays' types, and the steps each part takes of
 * another.  util/callflow.h is the engine's interface to the rest.
 */
#ifndef PT_CF_INTERNAL_H
#define PT_CF_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/alloc.h"
#include "util/assert.h"
#include "util/callflow.h"
#include "util/cf_runs.h"
#include "util/log.h"
#include "util/stepcodec.h"

struct cf_consumer {
	const struct cf_consumer_ops *ops;
	void *ctx;
};

/*
 * Replays: calls cf_steps takes whole.  A call met in cf_steps whose
 * callee ran through known runs and quiet transfers only, calls of its own
 * included (each pushed, replaced and popped in bulk, or taken whole), and
 * returned to the call's run after, all in at most cf_limits.replay_steps steps of
 * one cf_steps run, is remembered by the call's run as a replay (struct
 * cf_replay): its steps' records (the landing's after them), its frames and
 * their costs, the runs and jumps it counted.  When the same call is
 * followed by the same records again, so by the same pcs, the call is
 * taken whole: its runs and jumps count (the replay's own tallies, told
 * with the runs'), its frames cost what they cost before, and the thread's
 * stack is left as stepping through would leave it, because nothing it did
 * depended on anything but those pcs and the stack, as long as
 *   - no task record came since it was made (what is mapped may differ);
 *   - every function it ran is on the stack below the call now if and only
 *     if it was then (a function's Cum counts its outermost activation;
 *     cf_cross_into() unwinds to a function on the stack);
 *   - the return lands in the run it did, which follows.
 * Its frames' costs are differences of the thread's clock, the same every
 * time; what it leaves the caller's clocks is the same too, and an outer
 * activation of a function it ran gets its clocks moved by the same
 * offsets (struct cf_replay_fn).
 */
#define CF_REPLAY_SLOTS CF_LIMIT_REPLAYS_PER_RUN /* a call's run's group of replays */

/*
 * What a replay counted, count times: a run (m > 0: the pool's sites pool
 * .. pool + m - 1, from site off) or a taken jump (m 0: from the pool's
 * site pool to pc to).
 */
struct cf_replay_count {
	uint32_t pool;
	uint16_t m, off;
	uint64_t to;
	uint64_t count;
};

/*
 * A function a replay ran (the caller's aside): whether it was on the
 * stack below the call when it was made, and if so what its outermost
 * frames in it did to the clocks of the innermost activation below (its
 * first frame's entry, the steps between them, its last frame's end:
 * offsets from the call).
 */
struct cf_replay_fn {
	uint32_t fn, slot;	  /* slot: where its state was in a thread's table (a guess) */
	bool on_stack;
	uint32_t first_enter, gaps, last_leave;
};

struct cf_replay {
	size_t size;		  /* bytes allocated for it */
	uint32_t len;		  /* steps: the callee's first to the return */
	uint32_t nbytes;	  /* their records and the landing's */
	uint8_t land_len;	  /* the landing step's record (the last bytes) */
	uint16_t max_depth;	  /* frames above the caller at most */
	uint64_t call_pc;	  /* the call: the records' first delta is from it */
	uint64_t last_pc;	  /* the return's pc */
	uint32_t last_pool;	  /* the return's site in the runs' pool */
	uint32_t gen;		  /* task_gen when made */
	uint32_t land;		  /* the run the return lands in */
	uint32_t pid;
	uint64_t taken;		  /* taken whole since its tallies were told */
	struct cf_replay *next_dead; /* on cf_recorder.dead */
	uint32_t nr_frames, nr_fns, nr_counts;
	struct cf_replay_frame *fr;
	struct cf_replay_fn *fns;
	struct cf_replay_count *counts;
	uint8_t *bytes;		  /* nbytes, then 8 zero bytes: compared eight at a time */
	uint32_t words[CF_MAX_CONSUMERS][CF_REPLAY_WORDS]; /* the consumers' (zero when made) */
};

/* What makes two of a replay's counts one (struct cf_replay_count but count). */
struct cf_count_key {
	uint64_t to;
	uint32_t pool;
	uint16_t m, off;
};

static inline uint64_t cf_count_key_hash(const struct cf_count_key *k)
{
	return hashtab_mix64_short(((uint64_t)k->pool << 32) ^ k->to ^ ((uint64_t)k->m << 16) ^
				   k->off);
}

static inline bool cf_count_key_eq(const struct cf_count_key *a, const struct cf_count_key *b)
{
	return a->pool == b->pool && a->m == b->m && a->off == b->off && a->to == b->to;
}

/* A replay's counts by key, while they are merged: the index of each one's first. */
HASHTAB_DEFINE(cf_count_index, struct cf_count_key, uint32_t, cf_count_key_hash, cf_count_key_eq)

/* A call being recorded: where it began, and where its parts begin in the logs. */
struct cf_rec_level {
	uint32_t call;		  /* its run */
	uint32_t depth;		  /* the thread's depth before its push */
	size_t k;		  /* its callee's first step in the cf_steps run */
	const uint8_t *b;	  /* that step's record */
	uint64_t call_pc;
	uint32_t fr0, counts0, refs0;
	uint32_t frames0;	  /* the frames recorded before it, replays' included */
};

/* A replay taken while calls are recorded: its part of theirs, copied when one of them ends. */
struct cf_rec_ref {
	struct cf_replay *c;
	uint32_t at;		  /* its first step (from cf->cur_base) */
	uint32_t depth;		  /* the thread's depth (its frames are above it) */
	uint32_t fr_pos;	  /* its frames come before the log's frame fr_pos */
};

/*
 * The calls being recorded (one inside the other, in one cf_steps run of
 * one thread) and what they did so far: frames (with costs once they
 * ended), runs and jumps counted, in logs that the calls share; a call's
 * replay is its part of them.
 */
struct cf_recorder {
	bool on;
	uint32_t nr_levels;
	struct cf_rec_level level[CF_LIMIT_REC_LEVELS];
	struct cf_replay_frame *fr;
	uint32_t nr_fr, fr_size;
	uint32_t *open;		  /* per depth above base_depth: the log frame open there */
	uint32_t open_size;
	struct cf_replay_fn *fns;  /* scratch for a replay's functions */
	uint32_t fns_size;
	struct cf_replay_frame *gfr; /* a replay's frames and counts, gathered */
	struct cf_replay_count *gcounts;
	uint32_t gfr_size, gcounts_size;
	struct cf_count_index merge; /* merging the counts */
	uint32_t *open_end, open_end_size;
	uint32_t last_pool;	  /* the pool index of the last run's last site (rec_run) */
	struct cf_replay_count *counts;
	uint32_t nr_counts, counts_size;
	struct cf_rec_ref *refs;
	uint32_t nr_refs, refs_size;
	uint32_t frames;	  /* frames recorded: the log's and the replays' taken */
	struct cf_replay *dead;	  /* replays gone while some may be referred to (a chain through
				   * next_dead) */
};

struct cf_replays {
	struct cf_replay **c;	  /* CF_REPLAY_SLOTS per call's run that has any (replays_per_run
				   * used) */
	uint32_t nr, size;
	uint32_t *of_run;	  /* run index -> its slots' group + 1 */
	uint32_t of_run_size;
	uint8_t *victim;	  /* per group: the slot a new replay goes to when all are full */
	size_t total;		  /* bytes of every replay */
	uint64_t taken;		  /* replays taken */
	uint64_t taken_steps;	  /* their steps */
	uint64_t made;		  /* replays made */
	uint64_t replaced, over_total, too_long, too_deep; /* cf_stats */
	struct cf_recorder rec;
};

/* A function's key: its module and name (the strings are its cf_func's once interned). */
struct cf_func_key {
	const char *module, *name;
};

static inline uint64_t cf_func_key_hash(const struct cf_func_key *k)
{
	return hashtab_str(k->name) ^ hashtab_mix64_short(hashtab_str(k->module));
}

static inline bool cf_func_key_eq(const struct cf_func_key *a, const struct cf_func_key *b)
{
	return !strcmp(a->name, b->name) && !strcmp(a->module, b->module);
}

HASHTAB_DEFINE(cf_func_ids, struct cf_func_key, uint32_t, cf_func_key_hash, cf_func_key_eq)

static inline uint64_t cf_tid_hash(const uint32_t *tid)
{
	return hashtab_mix64_short(*tid);
}

HASHTAB_DEFINE(cf_thread_map, uint32_t, struct cf_thread *, cf_tid_hash, cf_fn_eq)

struct callflow {
	struct cf_source src;
	struct cf_consumer cons[CF_MAX_CONSUMERS];
	int nr_cons;
	/* functions, interned by (module, name) */
	struct cf_func *funcs;
	uint32_t nr_funcs, funcs_size;
	struct cf_func_ids func_ids;
	/* threads, by tid; also in creation order for cf_finish */
	struct cf_thread **threads;
	uint32_t nr_threads, threads_size;
	struct cf_thread_map thread_map;
	struct cf_thread *cur;	  /* the thread of the last step */
	bool block_mode;
	bool counting;		  /* cf_set_counting */
	bool fold;		  /* cf_set_fold: stubs are no frames for the consumers */
	bool in_step;		  /* cur_index: the step being placed */
	uint32_t task_gen;	  /* task records so far: what is mapped may change at each */
	bool in_resume;		  /* resume() is applying the interrupted instruction */
	bool in_native;		  /* cf_thread_step() places a native run's start: no step counts */
	uint64_t cur_index;
	uint64_t cur_base;	  /* cf_steps_bytes: its run's first index (replays' logs count
				   * from it) */
	struct cf_stats stats;
	struct cf_runs runs;	  /* straight-line code met so far (cf_steps) */
	bool bulk_ok;		  /* the source peeks, every step() consumer takes bulk steps */
	/* the consumers without replay(): told of a call taken whole by cf_replay_expand() */
	uint8_t expand[CF_MAX_CONSUMERS];
	uint32_t nr_expand;
	bool expand_bulk;	  /* one of them has bulk() */
	bool interrupts_apart;	  /* a consumer has interrupt(): cf_steps_bytes cuts runs at them */
	struct cf_replays replays;  /* calls taken whole (cf_steps) */
	struct cf_limits lim;	  /* the fast path's */
};

/* ---- the stack and its costs (cf_stack.c) ---- */

struct push_args {
	uint32_t fn, caller_fn, from_fn;
	uint8_t kind, ring;
	uint64_t ret_addr, alt_ret, call_site, resume_from, index, time;
	bool resumes, unexplained, cold;
	bool inherited;		  /* entered as the frame it replaces was (that one passes) */
	uint32_t call_run;	  /* cf_steps: the run whose call this is, + 1 */
};

#define RESUMES(f) ((f)->resumes)

/*
 * fn's state in thread t, added if new (its position in *slot, unless
 * NULL): only adding one may grow the table (move every state).
 */
struct cf_fnstate *cf_fnstate_of(struct cf_thread *t, uint32_t fn, uint32_t *slot);
struct cf_thread *cf_thread_get(struct callflow *cf, uint32_t pid, uint32_t tid);
void cf_emit_mark(struct callflow *cf, struct cf_thread *t, enum cf_mark m, uint64_t index);
void cf_push(struct callflow *cf, struct cf_thread *t, const struct push_args *a);
void cf_pop(struct callflow *cf, struct cf_thread *t, enum cf_end_kind how);
void cf_flush_thread(struct callflow *cf, struct cf_thread *t);
/* Pop every frame above index k (k stays). */
void cf_unwind_to(struct callflow *cf, struct cf_thread *t, uint32_t k);
/* The top frame gives way to site's function (same return address, same caller below). */
void cf_replace(struct callflow *cf, struct cf_thread *t, const struct cf_site *site,
		uint8_t kind, uint64_t call_site, const struct trace_event *ev);
/* The innermost frame (the top included) that returns or resumes at pc, -1 none. */
int32_t cf_find_return(struct cf_thread *t, uint64_t pc, bool resuming_only);
/* The innermost frame of fn below the top, -1 none. */
int32_t cf_find_fn_below(struct cf_thread *t, uint32_t fn);
/* Return into frame k's caller: frames above k unwind, k returns. */
void cf_return_from(struct callflow *cf, struct cf_thread *t, int32_t k);
/* A return out of the oldest frame: its caller goes in below it, then it returns. */
void cf_adopt_caller(struct callflow *cf, struct cf_thread *t, const struct cf_site *site,
		     uint64_t pc, const struct trace_event *ev);

/*
 * fn's state where it was last, at *slot, if it still is there (the table
 * moves its states when it grows), else found and *slot set to it.
 */
static inline struct cf_fnstate *fnstate_at(struct cf_thread *t, uint32_t *slot, uint32_t fn)
{
	struct cf_fnstates_entry *e = cf_fnstates_at(&t->fnstate, *slot);

	if (__builtin_expect(!e || e->key != fn, 0))
		return cf_fnstate_of(t, fn, slot);
	return &e->val;
}

static inline struct cf_frame *top(struct cf_thread *t)
{
	return t->depth ? &t->frames[t->depth - 1] : NULL;
}

/* Would a frame of fn be a folded stub's (whose steps are stepped one at a time)? */
static inline bool folds(const struct callflow *cf, uint32_t fn)
{
	return cf->fold && cf->funcs[fn].fold == CF_FOLD_STUB;
}

/* ---- the inference rules: what a step did to the stack (cf_infer.c) ---- */

/* A step of thread t (the thread of ev). */
void cf_thread_step(struct callflow *cf, struct cf_thread *t, const struct trace_event *ev);
/* Execution went on in another function without a call or return (by from_insn, or NULL). */
void cf_cross_into(struct callflow *cf, struct cf_thread *t, const struct cf_site *site,
		   uint64_t from_pc, const struct arch_insn *from_insn,
		   const struct trace_event *ev);

/*
 * Does the step at pc of site, after from_insn at from_pc in the top
 * frame's function, leave the top frame's activation: into another
 * function, or by a jump or branch back to its own first instruction (a
 * self tail call: clang turns tail recursion into one).  callgrind takes
 * a jump to a function's first instruction for a call, its own included.
 */
static inline bool taken_branch(const struct arch_insn *in, uint64_t from_pc, uint64_t pc)
{
	return (in->cls == ARCH_INSN_JUMP || in->cls == ARCH_INSN_COND) && pc != from_pc + in->len;
}

static inline bool crosses(const struct cf_thread *t, const struct cf_site *site,
			   uint64_t from_pc, const struct arch_insn *from_insn, uint64_t pc)
{
	if (t->frames[t->depth - 1].fn != site->fn)
		return true;
	return site->entry && !site->anon && taken_branch(from_insn, from_pc, pc);
}

/*
 * The transfer from prev_pc (instruction in) to pc is one transition()
 * expects with nothing pending: a fall-through, a conditional branch
 * either way, a jump to its target.  Most steps are: they take this
 * short test instead of the call.
 */
static inline bool expected_flow(const struct cf_thread *t, const struct arch_insn *in,
				 uint64_t prev_pc, uint64_t pc)
{
	bool direct = in->flags & ARCH_INSN_HAS_TARGET;

	if (t->async_pending || (in->flags & (ARCH_INSN_CONDITIONAL | ARCH_INSN_REP)))
		return false;
	switch (in->cls) {
	case ARCH_INSN_OTHER:
		return pc == prev_pc + in->len;
	case ARCH_INSN_COND:
		return pc == prev_pc + in->len || (direct && pc == in->target);
	case ARCH_INSN_JUMP:
		return !direct || pc == in->target;
	default:
		return false;
	}
}

static inline void cf_on_step(struct callflow *cf, const struct trace_event *ev)
{
	struct cf_thread *t = cf_thread_get(cf, ev->pid, ev->tid);

	t->cpu = ev->cpu;
	cf_thread_step(cf, t, ev);
}

/* ---- events (callflow.c) ---- */

/* An interrupt or exception: the statistics and the consumers' interrupt(). */
void cf_on_interrupt(struct callflow *cf, const struct trace_event *ev);
/* A run's or a jump's counts, told to every consumer's tally() (ctx: the engine). */
void cf_tell_tally(void *ctx, const struct cf_tally *tl);

/* ---- block expansion: a block's steps from its start (cf_block.c) ---- */

void cf_expand_block(struct callflow *cf, struct cf_thread *t, bool have_next, uint64_t next_pc);
/* A block starts at ev->pc: the thread's pending one is placed, ending by a branch there. */
void cf_on_block(struct callflow *cf, const struct trace_event *ev);

/* ---- the run follower: steps counted in bulk, calls taken whole (cf_follow.c) ---- */

/*
 * Where cf_steps_bytes is in a run of steps as they are encoded: the next
 * step's record at b (before end), its index first + k of n, the last
 * step's pc at pc (the next one's delta is from it).
 */
struct cf_cursor {
	const uint8_t *b, *end;
	uint64_t pc;
	uint64_t first;
	size_t k, n;
	const struct run_event *evs; /* interrupts between the steps not told yet */
	size_t nr_evs;
};

/*
 * The n bytes at a are those at b (eight readable past each: the runs'
 * pool keeps CF_RUN_SLACK, a run of steps STEP_BYTES_SLACK), compared
 * eight at a time, the last ones masked.
 */
static inline bool same_bytes(const uint8_t *a, const uint8_t *b, uint32_t n)
{
	uint64_t x, y;

	for (; n >= 8; n -= 8, a += 8, b += 8) {
		memcpy(&x, a, 8);
		memcpy(&y, b, 8);
		if (x != y)
			return false;
	}
	if (!n)
		return true;
	memcpy(&x, a, 8);
	memcpy(&y, b, 8);
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	return !((x ^ y) & ((1ull << (8 * n)) - 1));
#else
	return !((x ^ y) & ~(~0ull >> (8 * n)));
#endif
}

/*
 * Run i is known and comes next: its first step the one whose record
 * (lead bytes) is at the cursor, which goes to its first pc (the caller
 * knows), its other steps the records after it (the steps of straight-
 * line code: one byte each, the instructions' lengths).
 */
static inline bool run_follows(const struct cf_runs *rs, int32_t i, const struct cf_cursor *cu,
			       size_t lead)
{
	const struct cf_run *r = &rs->runs[i];

	return r->known && r->m <= cu->n - cu->k &&
	       (size_t)(cu->end - cu->b) >= lead + r->m - 1u &&
	       same_bytes(cu->b + lead, rs->enc + r->first + 1, r->m - 1u);
}

/* ---- the replay store: each call's run's replays (cf_replays.c) ---- */

/* Where run's replays are (CF_REPLAY_SLOTS of them), made if need be; the group's index in *g. */
struct cf_replay **cf_replays_make(struct callflow *cf, uint32_t run, uint32_t *g);
void cf_replay_tally(struct callflow *cf, struct cf_replay *c);
void cf_replay_drop(struct callflow *cf, struct cf_replay *c);
uint32_t cf_replay_slot(struct callflow *cf, struct cf_replay **group, uint32_t g,
			const struct cf_rec_level *l, uint32_t nbytes);
struct cf_replay *cf_replay_find(struct callflow *cf, struct cf_thread *t,
				 const struct cf_cursor *cu, uint32_t call);
void cf_replay_take(struct callflow *cf, struct cf_thread *t, const struct trace_event *ev,
		    uint64_t first, struct cf_replay *c, uint64_t before, uint32_t before_last);
/*
 * Replay c just taken (cf_replay_take: before and b as told to replay())
 * told to each consumer without replay() as the push(), pop() and bulk()
 * calls it stands for (cf_expand.c), the thread as stepping would show it
 * during each.
 */
void cf_replay_expand(struct callflow *cf, struct cf_thread *t, const struct cf_replay *c,
		      const struct cf_bulk *before, const struct cf_bulk *b);
/* Every replay and the store's tables freed (cf_free). */
void cf_replays_release(struct cf_replays *cs);

/* ---- the replay recorder: the calls being recorded (cf_record.c) ---- */

void cf_rec_bury(struct cf_recorder *r);
void cf_rec_start(struct callflow *cf, struct cf_thread *t, uint32_t call,
		  const struct cf_cursor *cu);
/* cf_push() and cf_pop() tell it of every frame while it is on. */
void cf_rec_push(struct callflow *cf, struct cf_thread *t, const struct cf_frame *f);
void cf_rec_pop(struct callflow *cf, struct cf_thread *t, const struct cf_cost *cost,
		enum cf_end_kind how);
void cf_rec_append(struct callflow *cf, struct cf_thread *t, struct cf_replay *c,
		   uint64_t first);
void cf_rec_end(struct callflow *cf, struct cf_thread *t, uint32_t call, uint32_t land,
		const struct cf_cursor *cu, size_t land_len);
/* The recorder's logs freed (cf_free). */
void cf_rec_release(struct cf_recorder *r);

/* Room for need elements of elem bytes at p (*size of them now), grown if short. */
void *cf_rec_grow(void *p, uint32_t *size, uint32_t need, size_t elem);

static inline void *rec_grow(void *p, uint32_t *size, uint32_t need, size_t elem)
{
	if (need <= *size)
		return p;
	return cf_rec_grow(p, size, need, elem);
}

/* The outermost call recorded goes (too long): the others go on. */
void cf_rec_drop_outermost(struct cf_recorder *r);

/* The step at index k is reached: calls recorded that would be too long now go. */
static inline bool rec_room(struct callflow *cf, size_t k, uint32_t frames)
{
	struct cf_recorder *r = &cf->replays.rec;

	while (r->on && (k - r->level[0].k > cf->lim.replay_steps ||
			 r->frames - r->level[0].frames0 + frames > cf->lim.replay_frames)) {
		cf->replays.too_long++;
		cf_rec_drop_outermost(r);
	}
	DASSERT(!r->on || r->nr_levels);
	return r->on;
}

/*
 * Run i was counted in bulk (from site off; via as in follow_runs), its
 * last step before end.  Inline: the run follower counts every run
 * through it while calls are recorded.
 */
static inline void cf_rec_run(struct callflow *cf, uint32_t i, uint32_t off, int64_t via,
			      size_t end)
{
	struct cf_recorder *r = &cf->replays.rec;
	const struct cf_runs *rs = &cf->runs;

	if (!rec_room(cf, end, 0))
		return;
	r->counts = rec_grow(r->counts, &r->counts_size, r->nr_counts + 2, sizeof(*r->counts));
	r->counts[r->nr_counts++] = (struct cf_replay_count){ rs->runs[i].first, rs->runs[i].m,
							      (uint16_t)off, 0, 1 };
	r->last_pool = rs->runs[i].first + rs->runs[i].m - 1u;
	if (via >= 0 && ((rs->runs[via / 2].next_jump >> (via % 2)) & 1)) {
		const struct cf_run *v = &rs->runs[via / 2];

		r->counts[r->nr_counts++] = (struct cf_replay_count){ v->first + v->m - 1u, 0, 0,
								      v->next_pc[via % 2], 1 };
	}
}

/* Stop recording every call (a step one at a time, an unwind, the end of a cf_steps run). */
static inline void rec_abort(struct callflow *cf)
{
	cf->replays.rec.on = false;
	cf->replays.rec.nr_levels = 0;
	if (cf->replays.rec.dead)
		cf_rec_bury(&cf->replays.rec);
}

#endif /* PT_CF_INTERNAL_H */
