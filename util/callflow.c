// SPDX-License-Identifier: GPL-2.0
/* Call-flow reconstruction: per-thread call stacks rebuilt from the step stream (callflow.h). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arch_vectors.h"
#include "assert.h"
#include "callflow.h"
#include "stepcodec.h"
#include "cf_runs.h"
#include "log.h"

/* Per thread, per function: how many frames it has and its innermost one. */
struct cf_fnstate {
	uint32_t fn_plus1;	  /* 0: empty slot */
	uint32_t count;		  /* frames of fn on the stack */
	int32_t innermost;	  /* index of the innermost frame, -1 none */
	uint64_t since;		  /* thread clock when count went from 0 to 1 */
};

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
 *     cross_into() unwinds to a function on the stack);
 *   - the return lands in the run it did, which follows.
 * Its frames' costs are differences of the thread's clock, the same every
 * time; what it leaves the caller's clocks is the same too, and an outer
 * activation of a function it ran gets its clocks moved by the same
 * offsets (struct cf_replay_fn).
 */
#define CF_REPLAY_SLOTS CF_LIMIT_REPLAYS_PER_RUN /* a call's run's group of replays */

const struct cf_limits cf_limits_default = {
	.run_sites = CF_LIMIT_RUN_SITES,
	.replay_steps = 8192,
	.replay_bytes = 32768,
	.replay_frames = CF_REPLAY_DEPTH_MAX,
	.replays_per_run = CF_LIMIT_REPLAYS_PER_RUN,
	.rec_levels = CF_LIMIT_REC_LEVELS,
	.replays_total = 64u << 20,
};

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
	uint32_t *slots, slots_size; /* merging the counts */
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

struct callflow {
	struct cf_source src;
	struct cf_consumer cons[CF_MAX_CONSUMERS];
	int nr_cons;
	/* functions, interned by (module, name) */
	struct cf_func *funcs;
	uint32_t nr_funcs, funcs_size;
	uint32_t *func_hash;	  /* id + 1, 0 empty */
	uint32_t func_hash_size;
	/* threads, by tid; also in creation order for cf_finish */
	struct cf_thread **threads;
	uint32_t nr_threads, threads_size;
	struct cf_thread **thread_hash;
	uint32_t thread_hash_size;
	struct cf_thread *cur;	  /* the thread of the last step */
	bool block_mode;
	bool counting;		  /* cf_set_counting */
	bool fold;		  /* cf_set_fold: stubs are no frames for the consumers */
	bool in_step;		  /* cur_index: the step being placed */
	uint32_t task_gen;	  /* task records so far: what is mapped may change at each */
	bool in_resume;		  /* resume() is applying the interrupted instruction */
	bool in_native;		  /* thread_step() places a native run's start: no step counts */
	uint64_t cur_index;
	uint64_t cur_base;	  /* cf_steps_bytes: its run's first index (replays' logs count
				   * from it) */
	struct cf_stats stats;
	struct cf_runs runs;	  /* straight-line code met so far (cf_steps) */
	bool bulk_ok;		  /* the source peeks, every step() consumer takes bulk steps */
	bool replays_ok;	  /* every consumer takes calls whole (cf_consumer_ops.replay) */
	bool interrupts_apart;	  /* a consumer has interrupt(): cf_steps_bytes cuts runs at them */
	struct cf_replays replays;  /* calls taken whole (cf_steps) */
	struct cf_limits lim;	  /* the fast path's */
};

static void *xrealloc(void *p, size_t size)
{
	void *q = realloc(p, size);

	if (!q) {
		pr_err("out of memory (%zu bytes) rebuilding call stacks", size);
		exit(EXIT_RUNTIME);
	}
	return q;
}

static void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n, size);

	if (!p) {
		pr_err("out of memory (%zu bytes) rebuilding call stacks", n * size);
		exit(EXIT_RUNTIME);
	}
	return p;
}

static uint64_t hash_str(uint64_t h, const char *s)
{
	for (; *s; s++)
		h = (h ^ (uint8_t)*s) * 0x100000001b3ull;
	return h;
}

static uint64_t hash_u64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	return x;
}

/* ---- functions ---- */

static uint64_t func_key(const char *module, const char *name)
{
	return hash_str(hash_str(0xcbf29ce484222325ull, module) * 31 + 7, name);
}

static void func_hash_grow(struct callflow *cf)
{
	uint32_t size = cf->func_hash_size ? cf->func_hash_size * 2 : 1024;

	free(cf->func_hash);
	cf->func_hash = xcalloc(size, sizeof(*cf->func_hash));
	cf->func_hash_size = size;
	for (uint32_t id = 0; id < cf->nr_funcs; id++) {
		uint64_t h = func_key(cf->funcs[id].module, cf->funcs[id].name);

		for (uint32_t i = h & (size - 1);; i = (i + 1) & (size - 1))
			if (!cf->func_hash[i]) {
				cf->func_hash[i] = id + 1;
				break;
			}
	}
}

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
	uint64_t h = func_key(module, name);
	uint32_t i, mask;
	struct cf_func *f;

	if (2 * (cf->nr_funcs + 1) > cf->func_hash_size)
		func_hash_grow(cf);
	mask = cf->func_hash_size - 1;
	for (i = h & mask; cf->func_hash[i]; i = (i + 1) & mask) {
		f = &cf->funcs[cf->func_hash[i] - 1];
		if (!strcmp(f->name, name) && !strcmp(f->module, module))
			return cf->func_hash[i] - 1;
	}
	if (cf->nr_funcs == cf->funcs_size) {
		cf->funcs_size = cf->funcs_size ? cf->funcs_size * 2 : 256;
		cf->funcs = xrealloc(cf->funcs, cf->funcs_size * sizeof(*cf->funcs));
	}
	f = &cf->funcs[cf->nr_funcs];
	f->name = strdup(name);
	f->module = strdup(module);
	f->module_path = strdup(module_path ? module_path : module);
	f->addr = addr;
	f->native = false;
	f->ring = 0;
	f->fold = CF_FOLD_NONE;
	if (!f->name || !f->module || !f->module_path) {
		pr_err("out of memory interning function names");
		exit(EXIT_RUNTIME);
	}
	cf->func_hash[i] = ++cf->nr_funcs;
	return cf->nr_funcs - 1;
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

/* ---- threads ---- */

/* The table twice as large, every state rehashed: their slots change. */
static void fnstate_grow(struct cf_thread *t)
{
	struct cf_fnstate *old = t->fnstate;
	uint32_t old_size = t->fnstate_size, mask;

	t->fnstate_size = old_size ? old_size * 2 : 64;
	t->fnstate = xcalloc(t->fnstate_size, sizeof(*t->fnstate));
	mask = t->fnstate_size - 1;
	for (uint32_t k = 0; k < old_size; k++) {
		uint32_t i;

		if (!old[k].fn_plus1)
			continue;
		for (i = hash_u64(old[k].fn_plus1) & mask; t->fnstate[i].fn_plus1; i = (i + 1) & mask)
			;
		t->fnstate[i] = old[k];
	}
	free(old);
}

/*
 * fn's state in thread t, added if new.  Only adding one may grow the
 * table (so move every state): finding one moves none.
 */
static struct cf_fnstate *fnstate(struct cf_thread *t, uint32_t fn)
{
	uint32_t mask, i;

	if (t->fnstate_size) {
		mask = t->fnstate_size - 1;
		for (i = hash_u64(fn + 1) & mask; t->fnstate[i].fn_plus1; i = (i + 1) & mask)
			if (t->fnstate[i].fn_plus1 == fn + 1)
				return &t->fnstate[i];
	}
	if (2 * (t->fnstate_used + 1) > t->fnstate_size)
		fnstate_grow(t);
	mask = t->fnstate_size - 1;
	for (i = hash_u64(fn + 1) & mask; t->fnstate[i].fn_plus1; i = (i + 1) & mask)
		;
	t->fnstate[i].fn_plus1 = fn + 1;
	t->fnstate[i].innermost = -1;
	t->fnstate_used++;
	DASSERT(2 * t->fnstate_used <= t->fnstate_size);	/* probes end at an empty slot */
	return &t->fnstate[i];
}

/*
 * fn's state where it was last, at *slot, if it still is there (the table
 * moves its states when it grows), else found and *slot set to it.
 */
static inline struct cf_fnstate *fnstate_at(struct cf_thread *t, uint32_t *slot, uint32_t fn)
{
	if (*slot >= t->fnstate_size || t->fnstate[*slot].fn_plus1 != fn + 1)
		*slot = (uint32_t)(fnstate(t, fn) - t->fnstate);
	return &t->fnstate[*slot];
}

static struct cf_thread *thread_get(struct callflow *cf, uint32_t pid, uint32_t tid)
{
	uint32_t mask, i;
	struct cf_thread *t = cf->cur;

	if (t && t->tid == tid) {	/* most steps are the thread of the step before */
		t->pid = pid;
		return t;
	}
	if (2 * (cf->nr_threads + 1) > cf->thread_hash_size) {
		uint32_t size = cf->thread_hash_size ? cf->thread_hash_size * 2 : 64;

		free(cf->thread_hash);
		cf->thread_hash = xcalloc(size, sizeof(*cf->thread_hash));
		cf->thread_hash_size = size;
		for (uint32_t k = 0; k < cf->nr_threads; k++) {
			for (i = hash_u64(cf->threads[k]->tid) & (size - 1); cf->thread_hash[i];
			     i = (i + 1) & (size - 1))
				;
			cf->thread_hash[i] = cf->threads[k];
		}
	}
	mask = cf->thread_hash_size - 1;
	for (i = hash_u64(tid) & mask; cf->thread_hash[i]; i = (i + 1) & mask)
		if (cf->thread_hash[i]->tid == tid) {
			cf->thread_hash[i]->pid = pid;
			return cf->thread_hash[i];
		}
	t = xcalloc(1, sizeof(*t));
	t->pid = pid;
	t->tid = tid;
	t->top_resuming = -1;
	cf->thread_hash[i] = t;
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

struct cf_retslot {
	uint64_t addr;
	uint32_t chain;		  /* enum cf_chain; 0: an empty slot */
	int32_t frame;		  /* the innermost frame on the chain */
};

static uint32_t retslot_home(uint64_t addr, uint32_t chain, uint32_t mask)
{
	return (uint32_t)hash_u64(addr * 4 + chain) & mask;
}

static struct cf_retslot *retslot_find(const struct cf_thread *t, uint64_t addr, uint32_t chain)
{
	uint32_t mask = t->rets_size - 1;

	if (!t->rets_size)
		return NULL;
	for (uint32_t i = retslot_home(addr, chain, mask); t->rets[i].chain; i = (i + 1) & mask)
		if (t->rets[i].addr == addr && t->rets[i].chain == chain)
			return &t->rets[i];
	return NULL;
}

static void retslot_grow(struct cf_thread *t)
{
	struct cf_retslot *old = t->rets;
	uint32_t old_size = t->rets_size, mask;

	t->rets_size = old_size ? 2 * old_size : 64;
	t->rets = xcalloc(t->rets_size, sizeof(*t->rets));
	mask = t->rets_size - 1;
	for (uint32_t k = 0; k < old_size; k++) {
		uint32_t i;

		if (!old[k].chain)
			continue;
		for (i = retslot_home(old[k].addr, old[k].chain, mask); t->rets[i].chain;
		     i = (i + 1) & mask)
			;
		t->rets[i] = old[k];
	}
	free(old);
}

/* Empty slot i, moving later entries of its probe run back (no tombstones). */
static void retslot_remove(struct cf_thread *t, uint32_t i)
{
	uint32_t mask = t->rets_size - 1;

	for (uint32_t j = (i + 1) & mask; t->rets[j].chain; j = (j + 1) & mask) {
		uint32_t h = retslot_home(t->rets[j].addr, t->rets[j].chain, mask);

		/* the entry at j may fill the hole unless its home lies in (i, j] */
		if (i <= j ? h <= i || h > j : h <= i && h > j) {
			t->rets[i] = t->rets[j];
			i = j;
		}
	}
	t->rets[i].chain = 0;
	t->rets_used--;
}

/* Frame k becomes the innermost on (addr, chain); *prev: the one it hides, -1 none. */
static void chain_push(struct cf_thread *t, uint64_t addr, uint32_t chain, int32_t k,
		       int32_t *prev)
{
	struct cf_retslot *s;
	uint32_t mask, i;

	*prev = -1;
	if (!addr)
		return;
	s = retslot_find(t, addr, chain);
	if (s) {
		*prev = s->frame;
		s->frame = k;
		return;
	}
	if (2 * (t->rets_used + 1) > t->rets_size)
		retslot_grow(t);
	mask = t->rets_size - 1;
	for (i = retslot_home(addr, chain, mask); t->rets[i].chain; i = (i + 1) & mask)
		;
	t->rets[i] = (struct cf_retslot){ .addr = addr, .chain = chain, .frame = k };
	t->rets_used++;
}

/* The innermost frame on (addr, chain) leaves it; prev is the next outer one. */
static void chain_pop(struct cf_thread *t, uint64_t addr, uint32_t chain, int32_t prev)
{
	struct cf_retslot *s = addr ? retslot_find(t, addr, chain) : NULL;

	if (!s)
		return;
	if (prev >= 0)
		s->frame = prev;
	else
		retslot_remove(t, (uint32_t)(s - t->rets));
}

static int32_t chain_innermost(const struct cf_thread *t, uint64_t addr, uint32_t chain)
{
	const struct cf_retslot *s = retslot_find(t, addr, chain);

	return s ? s->frame : -1;
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

static void emit_mark(struct callflow *cf, struct cf_thread *t, enum cf_mark m, uint64_t index)
{
	for (int c = 0; c < cf->nr_cons; c++)
		if (cf->cons[c].ops->mark)
			cf->cons[c].ops->mark(cf->cons[c].ctx, t, m, index);
}

static struct cf_frame *top(struct cf_thread *t)
{
	return t->depth ? &t->frames[t->depth - 1] : NULL;
}

/* Would a frame of fn be a folded stub's (whose steps are stepped one at a time)? */
static inline bool folds(const struct callflow *cf, uint32_t fn)
{
	return cf->fold && cf->funcs[fn].fold == CF_FOLD_STUB;
}

/* Calls being recorded as replays see every frame pushed and popped (the replays' section). */
static void rec_push(struct callflow *cf, struct cf_thread *t, const struct cf_frame *f);
static void rec_pop(struct callflow *cf, struct cf_thread *t, const struct cf_cost *cost,
		    enum cf_end_kind how);

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

struct push_args {
	uint32_t fn, caller_fn, from_fn;
	uint8_t kind, ring;
	uint64_t ret_addr, alt_ret, call_site, resume_from, index, time;
	bool resumes, unexplained, cold;
	bool inherited;		  /* entered as the frame it replaces was (that one passes) */
	uint32_t call_run;	  /* cf_steps: the run whose call this is, + 1 */
};

/*
 * The clocks a frame's entry moves, at thread clock now: its parent's
 * (from now on the parent's innermost steps belong to the arc to this
 * child), an outer activation of its function's (outer: no longer the
 * innermost), its function's state st.  push() and replay_take().
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

/* ... and its end, with what its function's and its arc's Cum get.  pop() and replay_take(). */
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

static void push(struct callflow *cf, struct cf_thread *t, const struct push_args *a)
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
	st = fnstate(t, a->fn);
	f->fnslot = (uint32_t)(st - t->fnstate);
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
		rec_push(cf, t, f);
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

#define RESUMES(f) ((f)->resumes)

static void pop(struct callflow *cf, struct cf_thread *t, enum cf_end_kind how)
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
		rec_pop(cf, t, &cost, how);
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

static void flush_thread(struct callflow *cf, struct cf_thread *t)
{
	while (t->depth)
		pop(cf, t, CF_END_FLUSH);
	t->have_last = t->have_last_user = false;
}

/* Pop every frame above index k (k stays). */
static void unwind_to(struct callflow *cf, struct cf_thread *t, uint32_t k)
{
	while (t->depth > k + 1)
		pop(cf, t, CF_END_UNWIND);
}

/* The top frame gives way to fn (same return address, same caller below). */
static void replace(struct callflow *cf, struct cf_thread *t, const struct cf_site *site,
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
		push(cf, t, &a);
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
		pop(cf, t, CF_END_REPLACED);	/* out of a stub tail-called: the jumper goes */
	pop(cf, t, CF_END_REPLACED);
	push(cf, t, &a);
}

static void push_root(struct callflow *cf, struct cf_thread *t, const struct cf_site *site,
		      const struct trace_event *ev)
{
	struct push_args a = {
		.fn = site->fn, .caller_fn = CF_NO_FN, .from_fn = CF_NO_FN, .kind = CF_ENTRY_ROOT,
		.ring = ev->ring,
		.index = ev->index, .time = ev->time_ns,
	};

	push(cf, t, &a);
}

/*
 * Recording switched on at a function's first instruction (--on SYMBOL's
 * breakpoint): the transfer there was not recorded, but entering a
 * function at its entry is a call.  Each activation is one call from the
 * root, so calls, Base and Cum are per activation.
 */
static void push_switched_on(struct callflow *cf, struct cf_thread *t, const struct cf_site *site,
			     const struct trace_event *ev)
{
	struct push_args a = {
		.fn = site->fn, .caller_fn = CF_NO_FN, .from_fn = CF_NO_FN, .kind = CF_ENTRY_CALL,
		.ring = ev->ring, .index = ev->index, .time = ev->time_ns,
	};

	push(cf, t, &a);
}

/*
 * Index of the innermost frame (the top included) that returns to pc, or
 * resumes there (resuming frames: their alt_ret too); -1 when none does.
 */
static int32_t find_return(struct cf_thread *t, uint64_t pc, bool resuming_only)
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
static int32_t find_fn_below(struct cf_thread *t, uint32_t fn)
{
	struct cf_fnstate *st = fnstate(t, fn);
	int32_t k = st->innermost;

	if (k == (int32_t)t->depth - 1)
		k = t->frames[k].prev_same;
	return k;
}

/* Return into frame k's caller: frames above k unwind, k returns. */
static void return_from(struct callflow *cf, struct cf_thread *t, int32_t k)
{
	unwind_to(cf, t, (uint32_t)k);
	pop(cf, t, CF_END_RETURN);
}

/*
 * The trace returns out of its oldest frame: the caller existed before the
 * first step.  Insert it below as if it had been there since then.
 */
static void adopt_caller(struct callflow *cf, struct cf_thread *t, const struct cf_site *site,
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
		st = fnstate(t, g->fn);
		st->count = 1;
		st->since = f->entry_steps;
		st->innermost = 0;
		g->inner = true;
		g->inner_since = f->entry_steps;
		fnstate(t, f->fn)->innermost = 1;
	} else {
		st = fnstate(t, f->fn);
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
	emit_mark(cf, t, CF_MARK_UNMATCHED, ev->index);
	pop(cf, t, CF_END_RETURN);
}

/* Does a jump by from_insn into site go back to where the top frame was jumped to from? */
static bool jumps_back(struct cf_thread *t, const struct cf_site *site,
		       const struct arch_insn *from_insn)
{
	const struct cf_frame *f = top(t);

	if (f->from_fn != site->fn)
		return false;
	if (f->kind == CF_ENTRY_JUMP)
		return true;
	/* entered at its first instruction: only a direct jump goes back (not longjmp's) */
	return f->kind == CF_ENTRY_TAIL && from_insn && (from_insn->flags & ARCH_INSN_HAS_TARGET) &&
	       (from_insn->cls == ARCH_INSN_JUMP || from_insn->cls == ARCH_INSN_COND);
}

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
 * Is part gcc's cold part of fn ("fn.cold", "fn.cold.N", in the same
 * module): code of fn's activations that gcc placed apart.
 */
static bool cold_part_of(const struct callflow *cf, uint32_t part, uint32_t fn)
{
	const struct cf_func *p = cf_func(cf, part), *f = cf_func(cf, fn);
	size_t n = strlen(f->name);
	const char *s;

	if (strncmp(p->name, f->name, n) || strncmp(p->name + n, ".cold", 5) ||
	    strcmp(p->module_path ? p->module_path : "", f->module_path ? f->module_path : ""))
		return false;
	s = p->name + n + 5;
	if (*s == '.' && s[1])
		for (s++; *s >= '0' && *s <= '9'; s++)
			;
	return !*s;
}

/*
 * A direct jump from f into its cold part (gcc, before a throw or an
 * abort): the same activation of f goes on in its cold code, as a frame
 * of the cold part above f's, which a jump back into f's body ends and a
 * return returns from with f.  Into its first instruction it is a call,
 * as callgrind counts it; into its middle a jump (no call).
 */
static void enter_cold(struct callflow *cf, struct cf_thread *t, const struct cf_site *site,
		       uint64_t from_pc, const struct trace_event *ev)
{
	struct cf_frame *f = top(t);
	struct push_args a = {
		.fn = site->fn, .caller_fn = f->fn, .from_fn = f->fn,
		.kind = site->entry ? CF_ENTRY_CALL : CF_ENTRY_JUMP,
		.ring = f->ring, .call_site = from_pc, .index = ev->index, .time = ev->time_ns,
		.cold = true,
	};

	push(cf, t, &a);
}

static inline bool direct_jump(const struct arch_insn *in)
{
	return in && (in->flags & ARCH_INSN_HAS_TARGET) &&
	       (in->cls == ARCH_INSN_JUMP || in->cls == ARCH_INSN_COND);
}

/* Execution went on in another function without a call or return (by from_insn, or NULL). */
static void cross_into(struct callflow *cf, struct cf_thread *t, const struct cf_site *site,
		       uint64_t from_pc, const struct arch_insn *from_insn,
		       const struct trace_event *ev)
{
	int32_t k;

	if (!site->anon && direct_jump(from_insn)) {
		const struct cf_frame *f = top(t);

		if (f->cold && !site->entry && t->depth > 1 &&
		    t->frames[t->depth - 2].fn == site->fn) {
			pop(cf, t, CF_END_RETURN);	/* back in its function's body */
			return;
		}
		if (f->fn != site->fn && cold_part_of(cf, site->fn, f->fn)) {
			enter_cold(cf, t, site, from_pc, ev);
			return;
		}
	}
	if (site->entry) {
		replace(cf, t, site, CF_ENTRY_TAIL, from_pc, ev);
		return;
	}
	/*
	 * longjmp, exception landing pads: back into a frame further down.  But
	 * a direct jump back into the function this frame was jumped to from
	 * continues that activation: gcc's f.cold parts are entered by a jump
	 * to their first instruction (a tail call to the engine) or into their
	 * middle, and jump back into f's body while outer activations of a
	 * recursive f are still on the stack (longjmp's jump is indirect).
	 */
	k = site->anon || jumps_back(t, site, from_insn) ? -1 : find_fn_below(t, site->fn);
	if (k >= 0)
		unwind_to(cf, t, (uint32_t)k);
	else
		replace(cf, t, site, CF_ENTRY_JUMP, from_pc, ev);
}

static void push_async(struct callflow *cf, struct cf_thread *t, const struct cf_site *prev,
		       uint64_t prev_pc, const struct cf_site *site, const struct trace_event *ev)
{
	struct cf_frame *f = top(t);
	struct push_args a = {
		.fn = site->fn, .caller_fn = f ? f->fn : CF_NO_FN, .kind = CF_ENTRY_ASYNC,
		.ring = ev->ring, .index = ev->index, .time = ev->time_ns, .resumes = true,
		/* an ASYNC record or a change of ring says what it was */
		.unexplained = !t->async_pending && ev->ring == t->ring,
	};
	unsigned cls = prev ? prev->insn.cls : ARCH_INSN_INVALID;

	if (a.unexplained && f && t->unexplained >= CF_MAX_UNEXPLAINED) {
		/* a damaged trace, most likely: bounded, taken as a jump */
		cf->stats.unexplained_capped++;
		cf->stats.unexplained_capped_user += ev->ring == 0;
		if (f->fn != site->fn)
			replace(cf, t, site, CF_ENTRY_JUMP, prev ? prev_pc : 0, ev);
		return;
	}
	cf->stats.unexplained += a.unexplained;
	/* Where the interrupted frame resumes: what would have run next. */
	if (prev)
		a.resume_from = prev_pc;
	if (prev && prev->insn.len) {
		a.ret_addr = prev_pc + prev->insn.len;
		if ((prev->insn.flags & ARCH_INSN_HAS_TARGET) &&
		    (cls == ARCH_INSN_CALL || cls == ARCH_INSN_JUMP))
			a.ret_addr = prev->insn.target;
		else if ((prev->insn.flags & ARCH_INSN_HAS_TARGET) && cls == ARCH_INSN_COND)
			a.alt_ret = prev->insn.target;
		else if (prev->insn.flags & ARCH_INSN_REP)
			a.alt_ret = prev_pc;
	}
	cf->stats.async++;
	emit_mark(cf, t, CF_MARK_ASYNC, ev->index);
	push(cf, t, &a);
}

static void transition(struct callflow *cf, struct cf_thread *t, const struct cf_site *prev,
		       uint64_t prev_pc, uint64_t pc, const struct cf_site *site,
		       const struct trace_event *ev);

/*
 * The asynchronous frame k ends (sigreturn) and the frame below resumes at
 * pc.  The interrupted instruction's own transfer (a call whose callee had
 * not started yet, a return) happens only now: apply it.
 */
static void resume(struct callflow *cf, struct cf_thread *t, int32_t k, uint64_t pc,
		   const struct cf_site *site, const struct trace_event *ev)
{
	uint64_t from = t->frames[k].resume_from;
	uint8_t ring = k > 0 ? t->frames[k - 1].ring : t->frames[k].ring;

	return_from(cf, t, k);
	t->async_pending = t->sigreturn_pending = false;
	if (!t->depth) {
		push_root(cf, t, site, ev);
	} else if (from) {
		struct cf_site prev;

		memset(&prev, 0, sizeof(prev));
		cf->src.site(cf->src.ctx, cf, t->pid, from, ring, &prev);
		cf->in_resume = true;
		transition(cf, t, &prev, from, pc, site, ev);
		cf->in_resume = false;
	} else if (top(t)->fn != site->fn) {
		cross_into(cf, t, site, 0, NULL, ev);
	}
}

/*
 * A transfer no instruction explains: either a return from an asynchronous
 * entry (sigreturn) to the frame it interrupted, or a new asynchronous entry.
 */
static void unexplained(struct callflow *cf, struct cf_thread *t, const struct cf_site *prev,
			uint64_t prev_pc, uint64_t pc, const struct cf_site *site,
			const struct trace_event *ev)
{
	int32_t k = find_return(t, pc, true);

	/*
	 * Resuming applies the interrupted instruction's own transfer, which
	 * explains pc unless the code there changed meanwhile: then pc is a new
	 * asynchronous entry, not a resumption of the next frame down (which
	 * would recurse once per frame).
	 */
	if (cf->in_resume) {
		push_async(cf, t, prev, prev_pc, site, ev);
		return;
	}
	if (k >= 0 && !(t->async_pending && !t->sigreturn_pending)) {
		resume(cf, t, k, pc, site, ev);
		return;
	}
	/*
	 * After a system call with no record: a sigreturn to an address we could
	 * not predict, ending the innermost handler.  But a signal record pending
	 * says a handler is entered at the call's exit (raise() in a handler):
	 * the handler below it is interrupted, not ended.
	 */
	if (t->sigreturn_pending ||
	    (!t->async_pending && prev && prev->insn.cls == ARCH_INSN_SYSCALL)) {
		k = t->top_resuming;
		if (k >= 1) {
			resume(cf, t, k, pc, site, ev);
			return;
		}
	}
	push_async(cf, t, prev, prev_pc, site, ev);
}

/* Steps are missing before this one: place it as well as the stack allows. */
static void after_gap(struct callflow *cf, struct cf_thread *t, uint64_t pc,
		      const struct cf_site *site, const struct trace_event *ev)
{
	int32_t k;

	if (top(t)->fn == site->fn)
		return;
	k = find_return(t, pc, false);
	if (k >= 0) {
		return_from(cf, t, k);
		if (top(t) && top(t)->fn != site->fn)
			replace(cf, t, site, CF_ENTRY_JUMP, 0, ev);
		return;
	}
	k = site->anon ? -1 : find_fn_below(t, site->fn);
	if (k >= 0)
		unwind_to(cf, t, (uint32_t)k);
	else
		replace(cf, t, site, CF_ENTRY_JUMP, 0, ev);
}

static void after_return(struct callflow *cf, struct cf_thread *t, uint64_t prev_pc, uint64_t pc,
			 const struct cf_site *site, const struct trace_event *ev)
{
	int32_t k = find_return(t, pc, false);

	if (k >= 0) {
		return_from(cf, t, k);
		if (!t->depth)
			push_root(cf, t, site, ev);
		else if (top(t)->fn != site->fn)
			replace(cf, t, site, CF_ENTRY_JUMP, prev_pc, ev);
		return;
	}
	/* Exception unwinding returns into a landing pad of a frame further down. */
	k = site->anon ? -1 : find_fn_below(t, site->fn);
	if (k >= 0) {
		unwind_to(cf, t, (uint32_t)k);
		return;
	}
	if (RESUMES(top(t)) && t->depth > 1) {
		/* a signal handler returning into the restorer, which will sigreturn */
		replace(cf, t, site, CF_ENTRY_JUMP, prev_pc, ev);
		return;
	}
	if (t->depth == 1) {
		adopt_caller(cf, t, site, pc, ev);
		return;
	}
	cf->stats.unmatched++;
	pr_dbg2("step %" PRIu64 ": return from %s to %s at %#" PRIx64 " matches no frame",
		ev->index, cf_func(cf, top(t)->fn)->name, cf_func(cf, site->fn)->name, pc);
	emit_mark(cf, t, CF_MARK_UNMATCHED, ev->index);
	replace(cf, t, site, CF_ENTRY_JUMP, prev_pc, ev);
}

/* Apply the transfer from the instruction prev (at prev_pc) to the step at pc. */
static void transition(struct callflow *cf, struct cf_thread *t, const struct cf_site *prev,
		       uint64_t prev_pc, uint64_t pc, const struct cf_site *site,
		       const struct trace_event *ev)
{
	const struct arch_insn *in = &prev->insn;
	uint64_t fall = prev_pc + in->len;
	bool direct = in->flags & ARCH_INSN_HAS_TARGET;
	bool expected;

	if (t->async_pending) {
		unexplained(cf, t, prev, prev_pc, pc, site, ev);
		return;
	}
	/* A conditional call, return or indirect jump (ppc64 beqlr) that was not taken. */
	if ((in->flags & ARCH_INSN_CONDITIONAL) && pc == fall && !(direct && in->target == fall)) {
		if (top(t)->fn != site->fn)
			cross_into(cf, t, site, prev_pc, in, ev);
		return;
	}
	switch (in->cls) {
	case ARCH_INSN_CALL:
		if (direct && pc != in->target) {
			unexplained(cf, t, prev, prev_pc, pc, site, ev);
		} else {
			struct push_args a = {
				.fn = site->fn, .caller_fn = top(t)->fn, .kind = CF_ENTRY_CALL,
				.ring = ev->ring, .ret_addr = fall, .call_site = prev_pc,
				.index = ev->index, .time = ev->time_ns,
			};

			push(cf, t, &a);
		}
		return;
	case ARCH_INSN_RET:
		after_return(cf, t, prev_pc, pc, site, ev);
		return;
	case ARCH_INSN_INVALID:
		/* Bytes unknown: an entry is most likely a call, else guess as after a gap. */
		if (site->entry && top(t)->fn != site->fn) {
			struct push_args a = {
				.fn = site->fn, .caller_fn = top(t)->fn, .kind = CF_ENTRY_CALL,
				.ring = ev->ring, .call_site = prev_pc,
				.index = ev->index, .time = ev->time_ns,
			};

			push(cf, t, &a);
		} else {
			after_gap(cf, t, pc, site, ev);
		}
		return;
	case ARCH_INSN_JUMP:
		expected = direct ? pc == in->target : true;
		break;
	case ARCH_INSN_COND:
		expected = pc == fall || (direct && pc == in->target);
		break;
	default:
		expected = pc == fall;
		break;
	}
	if (!expected && (in->flags & ARCH_INSN_REP) && pc == prev_pc)
		expected = true;	/* another iteration of a rep string instruction */
	if (!expected)
		unexplained(cf, t, prev, prev_pc, pc, site, ev);
	else if (crosses(t, site, prev_pc, in, pc))
		cross_into(cf, t, site, prev_pc, in, ev);
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

/* A step of thread t (the thread of ev). */
static void thread_step(struct callflow *cf, struct cf_thread *t, const struct trace_event *ev)
{
	struct cf_site *site = &t->sites[t->last_slot ^ 1];
	const struct cf_site *last_site = &t->sites[t->last_slot];
	struct cf_step s;

	memset(site, 0, sizeof(*site));
	cf->in_step = true;
	cf->cur_index = ev->index;
	cf->src.site(cf->src.ctx, cf, ev->pid, ev->pc, ev->ring, site);
	if (cf->cur != t) {
		if (cf->cur)
			emit_mark(cf, t, CF_MARK_SWITCH, ev->index);
		cf->cur = t;
	}
	if (!t->depth || !t->have_last) {
		flush_thread(cf, t);
		if (t->switched_on && site->entry)
			push_switched_on(cf, t, site, ev);
		else
			push_root(cf, t, site, ev);
	} else if (ev->ring > t->ring) {
		/* Into the kernel: a system call nests under its site; anything else is async. */
		if (last_site->insn.cls == ARCH_INSN_SYSCALL && !t->async_pending) {
			struct push_args a = {
				.fn = site->fn, .caller_fn = top(t)->fn, .kind = CF_ENTRY_KERNEL,
				.ring = ev->ring, .ret_addr = t->last_pc + last_site->insn.len,
				.call_site = t->last_pc, .index = ev->index, .time = ev->time_ns,
				.resumes = true,
			};

			push(cf, t, &a);
		} else {
			push_async(cf, t, last_site, t->last_pc, site, ev);
		}
	} else if (ev->ring < t->ring) {
		/* Back to user space: the kernel frames end, then user code goes on
		 * from its last instruction (a signal delivery shows up as async). */
		while (t->depth > 1 && top(t)->ring > ev->ring)
			pop(cf, t, CF_END_RETURN);
		if (top(t)->ring > ev->ring) {
			flush_thread(cf, t);
			push_root(cf, t, site, ev);
		} else if (t->have_last_user) {
			transition(cf, t, &t->last_user_site, t->last_user_pc, ev->pc, site, ev);
		} else {
			after_gap(cf, t, ev->pc, site, ev);
		}
	} else if (t->gap) {
		after_gap(cf, t, ev->pc, site, ev);
	} else if (expected_flow(t, &last_site->insn, t->last_pc, ev->pc)) {
		if (crosses(t, site, t->last_pc, &last_site->insn, ev->pc))
			cross_into(cf, t, site, t->last_pc, &last_site->insn, ev);
	} else {
		transition(cf, t, last_site, t->last_pc, ev->pc, site, ev);
	}
	t->gap = t->async_pending = t->sigreturn_pending = t->switched_on = false;
	t->native_gap = false;
	if (cf->counting && !cf->in_native) {
		top(t)->self++;
		t->steps++;
		cf->stats.steps++;
		cf->stats.steps_single++;
		s.pc = ev->pc;
		s.index = ev->index;
		s.time_ns = ev->time_ns;
		s.ring = ev->ring;
		s.site = site;
		s.fn = site->fn;
		if (top(t)->hidden)	/* a folded stub's step counts for the frame below */
			s.fn = t->frames[cf_shown_below(t, (int32_t)t->depth - 1)].fn;
		for (int c = 0; c < cf->nr_cons; c++)
			if (cf->cons[c].ops->step)
				cf->cons[c].ops->step(cf->cons[c].ctx, t, &s);
	}
	/*
	 * The last user step is read only while the thread is in the kernel:
	 * while it stays in user space it is the last step, kept once when it
	 * leaves (no second copy of the site every step).
	 */
	if (ev->ring != 0 && t->ring == 0) {
		t->have_last_user = t->have_last;
		t->last_user_pc = t->last_pc;
		t->last_user_site = *last_site;
	}
	t->last_pc = ev->pc;
	t->last_slot ^= 1;
	t->last_time = ev->time_ns;
	t->last_index = ev->index;
	t->have_last = true;
	cf->in_step = false;
	t->ring = ev->ring;
}

static void on_step(struct callflow *cf, const struct trace_event *ev)
{
	thread_step(cf, thread_get(cf, ev->pid, ev->tid), ev);
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
		t = thread_get(cf, rec->c.pid, rec->c.tid);
		flush_thread(cf, t);
		break;
	case PT_TASK_EXIT:
		t = thread_get(cf, rec->c.pid, rec->c.tid);
		flush_thread(cf, t);
		emit_mark(cf, t, CF_MARK_EXIT, ev->index);
		break;
	default:
		break;
	}
}

/* Longest run of instructions one block is expanded to (a guard against bad code). */
#define CF_BLOCK_MAX 65536

/*
 * Place the pending block of t: its instructions from its start up to the
 * taken branch to next_pc (have_next), or to the first instruction that
 * always transfers (calls, returns, jumps, system calls).
 */
static void expand_block(struct callflow *cf, struct cf_thread *t, bool have_next,
			 uint64_t next_pc)
{
	struct trace_event e = t->block;
	uint64_t pc = e.pc;

	if (!t->have_block)
		return;
	t->have_block = false;
	t->async_pending = t->block_async;
	t->sigreturn_pending = t->block_sigreturn;
	for (unsigned n = 0; n < CF_BLOCK_MAX; n++) {
		struct cf_site s;
		uint64_t fall;

		memset(&s, 0, sizeof(s));
		cf->src.site(cf->src.ctx, cf, e.pid, pc, e.ring, &s);
		e.pc = pc;
		on_step(cf, &e);
		fall = pc + s.insn.len;
		/* Falling through onto the next block's start does not end a
		 * block: only a taken branch (or a transfer) does, so a loop
		 * entered by fall-through runs on to its back edge. */
		if (!s.insn.len)
			return;
		if (s.insn.cls == ARCH_INSN_COND && have_next &&
		    (s.insn.flags & ARCH_INSN_HAS_TARGET) && s.insn.target == next_pc)
			return;		/* taken */
		if (s.insn.cls != ARCH_INSN_OTHER && s.insn.cls != ARCH_INSN_COND)
			return;
		pc = fall;
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
		pop(cf, t, returned ? CF_END_RETURN : CF_END_OFF);
	t->have_last = t->have_last_user = false;
	cf->stats.gaps++;
	emit_mark(cf, t, CF_MARK_OFF, index);
}

void cf_set_block_mode(struct callflow *cf, bool on)
{
	cf->block_mode = on;
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

static void on_block(struct callflow *cf, const struct trace_event *ev)
{
	struct cf_thread *t = thread_get(cf, ev->pid, ev->tid);

	expand_block(cf, t, true, ev->pc);
	t->block = *ev;
	t->have_block = true;
	t->block_async = t->next_async;
	t->block_sigreturn = t->next_sigreturn;
	t->next_async = t->next_sigreturn = false;
}

/*
 * An interrupt or exception: the gate that took it is invisible to the
 * step sequence (the interrupted instruction was reported once, before
 * it ran or faulted), so nothing changes but the statistics.
 */
static void on_interrupt(struct callflow *cf, const struct trace_event *ev)
{
	struct cf_thread *t = thread_get(cf, ev->pid, ev->tid);
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
	emit_mark(cf, t, CF_MARK_INTERRUPT, ev->index);
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
	struct cf_thread *t = thread_get(cf, ev->pid, ev->tid);
	uint64_t last_index = t->last_index, last_time = t->last_time;
	bool had_last = t->have_last;
	struct cf_site *last = &t->sites[t->last_slot ^ 1];
	struct trace_event at = *ev;
	int32_t k;

	expand_block(cf, t, false, 0);
	memset(last, 0, sizeof(*last));
	cf->src.site(cf->src.ctx, cf, ev->pid, ev->pc, ev->ring, last);
	cf->funcs[last->fn].native = true;	/* before its frame is told */
	at.kind = TEV_STEP;
	cf->in_native = true;
	thread_step(cf, t, &at);
	cf->in_native = false;
	if (had_last) {
		t->last_index = last_index;
		t->last_time = last_time;
	}
	if ((ev->a & PT_NATIVE_RETURNED) && (k = find_return(t, ev->end, false)) > 0) {
		cf->in_step = true;
		cf->cur_index = ev->index;
		return_from(cf, t, k);
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
			on_block(cf, ev);
		else
			on_step(cf, ev);
		break;
	case TEV_TASK:
		if (!ev->task)
			break;
		if (cf->block_mode && (ev->task->type == PT_TASK_EXIT ||
				       ev->task->type == PT_TASK_EXEC)) {
			t = thread_get(cf, ev->task->c.pid, ev->task->c.tid);
			expand_block(cf, t, false, 0);
		}
		on_task(cf, ev);
		break;
	case TEV_ASYNC:
		if (pt_async_is_info(ev->a)) {
			on_interrupt(cf, ev);
			break;
		}
		t = thread_get(cf, ev->pid, ev->tid);
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
		t = thread_get(cf, ev->pid, ev->tid);
		expand_block(cf, t, false, 0);
		recording_off(cf, t, ev->index);
		break;
	case TEV_ON:
		t = thread_get(cf, ev->pid, ev->tid);
		expand_block(cf, t, false, 0);
		recording_off(cf, t, ev->index);	/* an ON without OFF: the same */
		t->switched_on = true;
		break;
	case TEV_NATIVE:
		on_native(cf, ev);
		break;
	case TEV_GAP:
	case TEV_LOST:
		t = thread_get(cf, ev->pid, ev->tid);
		if (ev->kind == TEV_GAP && ev->a == PT_GAP_NATIVE && t->native_gap) {
			t->native_gap = false;	/* its steps are the native run's, placed */
			break;
		}
		expand_block(cf, t, false, 0);
		if (!t->gap && t->have_last) {
			cf->stats.gaps++;
			emit_mark(cf, t, CF_MARK_GAP, ev->index);
		}
		t->gap = true;
		break;
	default:
		break;
	}
}

/* ---- runs: straight-line code counted in bulk (cf_runs.h) ---- */

static void tell_tally(void *ctx, const struct cf_tally *tl)
{
	struct callflow *cf = ctx;

	for (int c = 0; c < cf->nr_cons; c++)
		if (cf->cons[c].ops->tally)
			cf->cons[c].ops->tally(cf->cons[c].ctx, tl);
}

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

static void on_interrupt(struct callflow *cf, const struct trace_event *ev);

/*
 * The interrupts before step k (its index first + k), told (cf_steps_bytes:
 * no consumer places them).
 */
static inline void cursor_events(struct callflow *cf, struct cf_cursor *cu, size_t k)
{
	while (cu->nr_evs && cu->evs->at <= k) {
		on_interrupt(cf, &cu->evs->ev);
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

static void rec_bury(struct cf_recorder *r);

/* Stop recording every call (a step one at a time, an unwind, the end of a cf_steps run). */
static inline void rec_abort(struct callflow *cf)
{
	cf->replays.rec.on = false;
	cf->replays.rec.nr_levels = 0;
	if (cf->replays.rec.dead)
		rec_bury(&cf->replays.rec);
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
	thread_step(cf, t, ev);
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
	push(cf, t, &a);
	cf->in_step = false;
}

/* Step index returns from the top frame to its ret_addr, in the caller's function. */
static void leave_call(struct callflow *cf, struct cf_thread *t, uint64_t index)
{
	cf->in_step = true;
	cf->cur_index = index;
	pop(cf, t, CF_END_RETURN);
	cf->in_step = false;
}

/*
 * Step index, at pc of site, follows from_pc (instruction from_insn) in
 * the top frame's function by a transfer that thread_step() expects (a
 * fall-through, a branch, a jump to its target) into another function:
 * what thread_step() does there, cross_into() (a tail call, a jump into a
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
	cross_into(cf, t, site, from_pc, from_insn, ev);
	cf->in_step = false;
}

/* ---- replays: calls taken whole (struct cf_replay) ---- */

static void *rec_grow(void *p, uint32_t *size, uint32_t need, size_t elem)
{
	uint32_t n = *size ? *size : 64;

	if (need <= *size)
		return p;
	while (n < need)
		n *= 2;
	*size = n;
	return xrealloc(p, (size_t)n * elem);
}

/* The replays that went while calls were recorded (their logs may have referred to them). */
static void rec_bury(struct cf_recorder *r)
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
	rec_bury(r);
}

/*
 * The outermost call recorded goes: it is too long (its inner ones may
 * still make replays); the logs keep what the others need.
 */
static void rec_drop_outermost(struct cf_recorder *r)
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

/* The step at index k is reached: calls recorded that would be too long now go. */
static inline bool rec_room(struct callflow *cf, size_t k, uint32_t frames)
{
	struct cf_recorder *r = &cf->replays.rec;

	while (r->on && (k - r->level[0].k > cf->lim.replay_steps ||
			 r->frames - r->level[0].frames0 + frames > cf->lim.replay_frames)) {
		cf->replays.too_long++;
		rec_drop_outermost(r);
	}
	DASSERT(!r->on || r->nr_levels);
	return r->on;
}

/* The call of run call (its last instruction) pushes at the cursor (the callee's first step). */
static void rec_start(struct callflow *cf, struct cf_thread *t, uint32_t call,
		      const struct cf_cursor *cu)
{
	struct cf_recorder *r = &cf->replays.rec;

	if (!cf->replays_ok)
		return;
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

/* push(): frame f is pushed (at t->depth - 1): the logs' next frame. */
static void rec_push(struct callflow *cf, struct cf_thread *t, const struct cf_frame *f)
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

/* pop(): the top frame f (at t->depth - 1) ends with cost, how. */
static void rec_pop(struct callflow *cf, struct cf_thread *t, const struct cf_cost *cost,
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

/* Run i was counted in bulk (from site off; via as in follow_runs), its last step before end. */
static void rec_run(struct callflow *cf, uint32_t i, uint32_t off, int64_t via, size_t end)
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

/* Replay c was taken at step index first while calls are recorded: its part of theirs. */
static void rec_append(struct callflow *cf, struct cf_thread *t, struct cf_replay *c,
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

static bool same_count_key(const struct cf_replay_count *a, const struct cf_replay_count *b)
{
	return a->pool == b->pool && a->m == b->m && a->off == b->off && a->to == b->to;
}

/*
 * counts[0..n), the same run's or jump's added into one (found by an
 * open-addressing table of slot: room for 2 * n, rounded up to a power
 * of two): how many are left, in place.
 */
static uint32_t replay_counts_merge(struct cf_replay_count *counts, uint32_t n, uint32_t *slot,
				    uint32_t size)
{
	uint32_t w = 0, mask = size - 1;

	memset(slot, 0, size * sizeof(*slot));
	for (uint32_t k = 0; k < n; k++) {
		uint64_t key = ((uint64_t)counts[k].pool << 32) ^ counts[k].to ^
			       ((uint64_t)counts[k].m << 16) ^ counts[k].off;
		uint32_t h = (uint32_t)hash_u64(key) & mask;

		while (slot[h] && !same_count_key(&counts[slot[h] - 1], &counts[k]))
			h = (h + 1) & mask;
		if (slot[h]) {
			counts[slot[h] - 1].count += counts[k].count;
			continue;
		}
		counts[w] = counts[k];
		slot[h] = ++w;
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
			struct cf_fnstate *st = fnstate(t, fr[k].fn);

			*m = (struct cf_replay_fn){ .fn = fr[k].fn,
						    .slot = (uint32_t)(st - t->fnstate),
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

/* Where run's replays are (CF_REPLAY_SLOTS of them), made if need be; the group's index in *g. */
static struct cf_replay **replays_make(struct callflow *cf, uint32_t run, uint32_t *g);

static inline struct cf_replay **replays_of(struct callflow *cf, uint32_t run)
{
	const struct cf_replays *cs = &cf->replays;

	if (run < cs->of_run_size && cs->of_run[run])
		return &cs->c[CF_REPLAY_SLOTS * (cs->of_run[run] - 1)];
	return NULL;
}

static struct cf_replay **replays_make(struct callflow *cf, uint32_t run, uint32_t *g)
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
static void replay_tally(struct callflow *cf, struct cf_replay *c)
{
	const struct cf_runs *rs = &cf->runs;

	if (!c->taken)
		return;
	for (uint32_t k = 0; k < c->nr_counts; k++) {
		const struct cf_replay_count *m = &c->counts[k];

		if (!m->m) {
			tell_tally(cf, &(struct cf_tally){ .pid = c->pid, .pc = rs->pcs[m->pool],
							   .site = &rs->sites[m->pool], .to = m->to,
							   .jumps = m->count * c->taken });
			continue;
		}
		for (uint32_t j = m->off; j < m->m; j++)
			tell_tally(cf, &(struct cf_tally){
				.pid = c->pid, .pc = rs->pcs[m->pool + j],
				.site = &rs->sites[m->pool + j], .steps = m->count * c->taken });
	}
	c->taken = 0;
}

/* Replay c goes (a newer one takes its place): what it stood for told first. */
static void replay_drop(struct callflow *cf, struct cf_replay *c)
{
	replay_tally(cf, c);
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
static uint32_t replay_slot(struct callflow *cf, struct cf_replay **group, uint32_t g,
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
static void rec_end(struct callflow *cf, struct cf_thread *t, uint32_t call, uint32_t land,
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
	group = replays_make(cf, call, &g);
	slot = replay_slot(cf, group, g, &l, nbytes);
	DASSERT(slot < cf->lim.replays_per_run || slot == CF_REPLAY_SLOTS);
	if (slot == CF_REPLAY_SLOTS)
		goto done;	  /* it has this replay already */
	r->fns = rec_grow(r->fns, &r->fns_size, nr_fr, sizeof(*r->fns));
	r->open_end = rec_grow(r->open_end, &r->open_end_size, nr_fr, sizeof(*r->open_end));
	rec_gather(r, &l, &nr_counts);
	{
		uint32_t size = 16;

		while (size < 2 * nr_counts)
			size *= 2;
		r->slots = rec_grow(r->slots, &r->slots_size, size, sizeof(*r->slots));
		nr_counts = replay_counts_merge(r->gcounts, nr_counts, r->slots, size);
	}
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
		replay_drop(cf, group[slot]);
		cs->replaced++;
	}
	group[slot] = c;
	cs->total += size;
	cs->made++;
done:
	if (!r->nr_levels)
		rec_off(r);
}

/*
 * The replay of call run call (a call, its callee's run known and next)
 * that the steps at the cursor are, if one is and it holds (struct
 * cf_replay), else NULL.
 */
static struct cf_replay *replay_find(struct callflow *cf, struct cf_thread *t,
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
				break;	/* Cum and cross_into() would see another stack */
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
static void replay_take(struct callflow *cf, struct cf_thread *t, const struct trace_event *ev,
			uint64_t first, struct cf_replay *c, uint64_t before, uint32_t before_last)
{
	struct cf_runs *rs = &cf->runs;
	struct cf_bulk pre = { .first = first - before, .n = before, .time_ns = ev->time_ns,
			       .ring = ev->ring, .pc = rs->pcs[before_last],
			       .site = &rs->sites[before_last] };
	struct cf_frame *caller = top(t);
	uint64_t base;
	struct cf_bulk b;

	/* what replay_find() checked: nothing mapped changed, the return lands in the caller */
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
		/* replay_find() found it at m->slot, but a function added after it may have
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
		rec_append(cf, t, c, first);
	b = (struct cf_bulk){ .first = first, .n = c->len, .time_ns = ev->time_ns,
			      .ring = ev->ring, .pc = t->last_pc, .site = &t->sites[t->last_slot] };
	for (int i = 0; i < cf->nr_cons; i++)
		cf->cons[i].ops->replay(cf->cons[i].ctx, t, c->fr, c->nr_frames,
					before ? &pre : NULL, &b, c->words[i]);
}

/*
 * After a step of site x (the thread's last, the cursor's pc): as many of
 * the steps at the cursor as follow known runs through quiet transitions,
 * counted in bulk; the cursor is left at the next step to take one at a
 * time.  A quiet transition is one thread_step() would take with nothing
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
					rec_run(cf, (uint32_t)i, off, via, cu->k + cnt);
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
				    (rp = replay_find(cf, t, cu, (uint32_t)i))) {
					/* the call whole (a replay), up to its return: the run it lands in next */
					replay_take(cf, t, ev, first + cu->k, rp, bulk, bulk_last);
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
					rec_start(cf, t, (uint32_t)i, cu);
					enter_call(cf, t, ev, first + cu->k, fn, rs->info[nx].fn,
						   rs->pcs[last], in, (uint32_t)i);
				} else {
					leave_call(cf, t, first + cu->k);
					if (cf->replays.rec.on)
						rec_end(cf, t, via_run, (uint32_t)nx, cu, used);
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
		/* into another function or its own entry: cross_into() took it, as cross() will again */
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
			on_block(cf, ev);
		}
		return;
	}
	t = thread_get(cf, ev->pid, ev->tid);
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

void cf_finish(struct callflow *cf)
{
	cf_runs_tally_all(&cf->runs);
	for (uint32_t k = 0; k < cf->replays.nr; k++)
		if (cf->replays.c[k])
			replay_tally(cf, cf->replays.c[k]);
	for (uint32_t i = 0; i < cf->nr_threads; i++)
		expand_block(cf, cf->threads[i], false, 0);
	for (uint32_t i = 0; i < cf->nr_threads; i++)
		flush_thread(cf, cf->threads[i]);
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
	cf_runs_init(&cf->runs, tell_tally, cf);
	cf->bulk_ok = src->peek != NULL;
	cf->replays_ok = true;
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
	if (!ops->replay)
		cf->replays_ok = false;	/* it wants every frame by push() and pop() */
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
		free(cf->threads[i]->fnstate);
		free(cf->threads[i]->rets);
		free(cf->threads[i]);
	}
	for (uint32_t i = 0; i < cf->nr_funcs; i++) {
		free((char *)cf->funcs[i].name);
		free((char *)cf->funcs[i].module);
		free((char *)cf->funcs[i].module_path);
	}
	cf_runs_release(&cf->runs);
	for (uint32_t k = 0; k < cf->replays.nr; k++)
		free(cf->replays.c[k]);
	free(cf->replays.c);
	free(cf->replays.of_run);
	free(cf->replays.victim);
	free(cf->replays.rec.fr);
	free(cf->replays.rec.open);
	free(cf->replays.rec.fns);
	free(cf->replays.rec.open_end);
	free(cf->replays.rec.counts);
	free(cf->replays.rec.refs);
	free(cf->replays.rec.gfr);
	free(cf->replays.rec.gcounts);
	free(cf->replays.rec.slots);
	rec_bury(&cf->replays.rec);
	free(cf->threads);
	free(cf->thread_hash);
	free(cf->funcs);
	free(cf->func_hash);
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
