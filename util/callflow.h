/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Call-flow reconstruction: a streaming consumer of trace events that keeps
 * a call stack per thread and tells report builders about every call,
 * return and asynchronous entry, with exact instruction counts.
 *
 * Input is an event callback (cf_event), so the engine runs on a trace
 * directory or on synthetic events alike.  What an instruction is (its
 * class, length, target) and which function it belongs to comes from a
 * site source (struct cf_source): cf_sites.c has the one built on symbols
 * and the arch decoder; tests give their own.  Memory grows with call depth,
 * threads and functions, never with the number of steps.
 *
 * Exact costs.  A thread's clock T counts its steps.  A frame is one
 * activation of a function.
 *   Base(f)      steps executed while f's frame is on top.
 *   Cum(f)       steps executed while f is anywhere on the stack, counted once
 *                under recursion (from the push of its outermost activation to
 *                that activation's pop).
 *   arc(p->c)    Cum: steps during which p's innermost activation has a child
 *                frame of function c on top of it (the step is not p's own).
 *                Every step where f is on the stack but not on top falls into
 *                exactly one arc out of f, so Cum(f) = Base(f) + sum of the
 *                Cum of f's callee arcs; self-recursive arcs get 0 Cum.
 *                Base: steps of the callee frame itself, so the Base over a
 *                function's caller arcs (root included) sums to its Base.
 *   calls        one per call instruction, tail call (a jump to another
 *                function's first instruction) or asynchronous entry; the
 *                arc is credited to the function that made the transfer.  A
 *                tail call ends the caller's frame: the callee's later costs go
 *                to the arc from the frame below (which then may show Cum with
 *                0 calls).
 *   native runs  code that ran natively, untraced (a NATIVE record, then a GAP):
 *                a step at its start that counts nothing, so a call of a vDSO
 *                function is a frame of it with its call counted and Base and
 *                Cum 0 (its instructions are in no count); where the run
 *                returned, the next step is its return's.  cf_func.native
 *                marks the functions that ran so.
 *   stubs        with cf_set_fold (reports' default), linkers' call stubs (PLT
 *                entries: cf_func.fold CF_FOLD_STUB) are no frames of their
 *                own, as callgrind's --skip-plt has it: a stub's steps are the
 *                Base of the frame below it, and the function its jump reaches
 *                is entered as the stub was (a call from the stub's caller,
 *                at the stub's call site).  ld.so's lazy binding resolver
 *                (CF_FOLD_PASS) keeps its frame and costs but passes the call
 *                on the same way to the function it resolved.  The engine
 *                keeps the stub's frame (cf_frame.hidden) to follow the
 *                stack; consumers are not told of it, and a frame's parent
 *                is the nearest one they were told of.
 */
#ifndef PT_CALLFLOW_H
#define PT_CALLFLOW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "arch/arch_decode.h"
#include "util/hashtab.h"
#include "util/trace_reader.h"

#define CF_NO_FN UINT32_MAX	  /* "no function": a root frame's caller */
#define CF_MAX_CONSUMERS 4
#define CF_REPLAY_WORDS 16	  /* words a consumer keeps with each replay */
#define CF_REPLAY_DEPTH_MAX 1024  /* a replay's frames are at most this deep above its caller */
/*
 * At most this many frames of a thread are open at once for transfers that
 * nothing explains: no instruction, no ASYNC record, no change of ring.  A
 * real program makes one now and then (and returns from it); a damaged
 * trace, or code changed under the tracer, makes one at every step, each
 * on top of the last.  Past this many, such a transfer is taken as a jump
 * within the innermost of them (counted in cf_stats.unexplained_capped),
 * so the stacks, and every report built on them, grow with the trace, not
 * with the square of it.
 */
#define CF_MAX_UNEXPLAINED 32

/* A function as reports name it. */
struct cf_func {
	const char *name;	  /* symbol, or "module+0xOFFSET"-style when none */
	const char *module;	  /* short module name */
	const char *module_path;  /* full path of the module */
	uint64_t addr;		  /* first address seen of it (its start when known) */
	uint8_t ring;		  /* 0 user, 1 kernel (the ring its steps ran in) */
	bool native;		  /* code of it ran natively, untraced (a NATIVE record: the
				   * ptrace backend's vDSO calls); those runs count no steps */
	uint8_t fold;		  /* enum cf_fold: a call stub, a resolver, or neither */
};

/* What a function is when stubs are folded (cf_set_fold, cf_func_set_fold). */
enum cf_fold {
	CF_FOLD_NONE,		  /* an ordinary function */
	CF_FOLD_STUB,		  /* a linker's call stub (PLT entry, PLT header): no frame */
	CF_FOLD_PASS,		  /* ld.so's lazy binding resolver: a frame that passes the
				   * call it was entered by on to the function it jumps to */
};

/* What the engine needs to know about the instruction at one address. */
struct cf_site {
	struct arch_insn insn;	  /* INVALID when the bytes were not available */
	uint32_t fn;		  /* from cf_func_intern */
	uint32_t id;		  /* the source's number for this site (pid, pc, ring and
				   * what is mapped there), dense from 1; 0 none.  Consumers
				   * index per-address tables by it */
	bool entry;		  /* pc is fn's first instruction */
	bool anon;		  /* fn stands for code without symbols (e.g. a whole module):
				   * never taken for a frame further down to unwind to */
};

struct callflow;

/* Where sites come from. */
struct cf_source {
	/* required: describe the instruction at pc of process pid in ring (0 user, 1 kernel) */
	void (*site)(void *ctx, struct callflow *cf, uint32_t pid, uint64_t pc, uint8_t ring,
		     struct cf_site *out);
	/* optional: a task record, in trace order, before the steps that follow it */
	void (*task)(void *ctx, const struct trace_task_rec *rec);
	/*
	 * optional: the site at pc if the source has described it already
	 * (true), without describing a new one (false).  With it, cf_steps
	 * counts straight-line code in runs (cf_runs.h) instead of a step at
	 * a time; ids must then be new whenever what is mapped at an address
	 * may have changed.
	 */
	bool (*peek)(void *ctx, uint32_t pid, uint64_t pc, uint8_t ring, struct cf_site *out);
	void *ctx;
};

/* How a frame came to be. */
enum cf_entry_kind {
	CF_ENTRY_ROOT,		  /* first frame of a thread (or after a gap reset, or the
				   * first after recording was switched on, not at an entry) */
	CF_ENTRY_CALL,		  /* call instruction; also a function entered at its first
				   * instruction as recording is switched on (--on: each
				   * activation is a call from the root, caller CF_NO_FN) */
	CF_ENTRY_TAIL,		  /* jump to another function's entry, replacing its frame */
	CF_ENTRY_JUMP,		  /* jump or fall-through into the middle of another one */
	CF_ENTRY_ASYNC,		  /* transfer no instruction explains (signal, interrupt) */
	CF_ENTRY_KERNEL,	  /* system call: kernel steps under the syscall site */
	CF_ENTRY_UNMATCHED,	  /* caller reconstructed: a return out of the oldest frame */
};

struct cf_frame {
	uint32_t fn;
	uint32_t caller_fn;	  /* credited with the call (CF_NO_FN for roots) */
	uint32_t from_fn;	  /* TAIL, JUMP: the function whose frame it replaced */
	uint8_t kind;		  /* enum cf_entry_kind */
	uint8_t ring;
	bool hidden;		  /* a folded stub's: consumers are not told of it */
	bool passes;		  /* the frame that replaces it is entered as it was (a
				   * folded stub's, or a resolver's entered so) */
	bool resumes;		  /* ends where an interrupted frame goes on (async, kernel) */
	bool unexplained;	  /* async with no record and no ring change (CF_MAX_UNEXPLAINED) */
	bool cold;		  /* JUMP into the middle of the cold part of the function below,
				   * whose activation it continues (ret_addr 0: a return is that
				   * frame's, a jump back into its body ends this one) */
	uint64_t ret_addr;	  /* where the frame below resumes after this one (0 unknown) */
	uint64_t alt_ret;	  /* async frames: the other possible resume address */
	uint64_t resume_from;	  /* async frames: pc of the interrupted insn, 0 unknown */
	uint64_t entry_steps;	  /* the thread's step clock at entry */
	uint64_t entry_index;	  /* global index of the frame's first step */
	uint64_t entry_time;	  /* time_ns at entry (0 unknown) */
	uint64_t call_site;	  /* pc of the transferring instruction, 0 if none */
	uint64_t self;		  /* steps while on top so far */
	/* cost bookkeeping, private to the engine */
	int32_t prev_same;	  /* next outer frame of the same function, -1 none */
	bool inner;		  /* this is its function's innermost frame */
	uint64_t inner_since, child_acc;
	/* the frame index, private: next outer frame with the same ret_addr (all
	 * frames; resuming frames), the same alt_ret, and the next resuming one */
	int32_t prev_ret, prev_ret_resuming, prev_alt, prev_resuming;
	/* a call cf_steps followed: its run + 1 (0 none), in the engine's task generation */
	uint32_t call_run, call_gen;
	uint32_t fnslot;	  /* where its function's state was in the thread's table */
};

/* Per thread, per function (the engine's): how many frames it has and its innermost one. */
struct cf_fnstate {
	uint32_t count;		  /* frames of fn on the stack */
	int32_t innermost;	  /* index of the innermost frame, -1 none */
	uint64_t since;		  /* thread clock when count went from 0 to 1 */
};

static inline uint64_t cf_fn_hash(const uint32_t *fn)
{
	return hashtab_mix64_short(*fn + 1ull);
}

static inline bool cf_fn_eq(const uint32_t *a, const uint32_t *b)
{
	return *a == *b;
}

/* A thread's function states, by function id. */
HASHTAB_DEFINE(cf_fnstates, uint32_t, struct cf_fnstate, cf_fn_hash, cf_fn_eq)

/* The frame index's key (cf_stack.c): a return address on one of its chains. */
struct cf_ret_key {
	uint64_t addr;
	uint32_t chain;		  /* enum cf_chain */
};

static inline uint64_t cf_ret_hash(const struct cf_ret_key *k)
{
	return hashtab_mix64_short(k->addr * 4 + k->chain);
}

static inline bool cf_ret_eq(const struct cf_ret_key *a, const struct cf_ret_key *b)
{
	return a->addr == b->addr && a->chain == b->chain;
}

/* A thread's innermost frame per (return address, chain). */
HASHTAB_DEFINE(cf_rets, struct cf_ret_key, int32_t, cf_ret_hash, cf_ret_eq)

/* One thread as the engine sees it. Consumers may keep state in user[]. */
struct cf_thread {
	uint32_t pid, tid;
	uint32_t cpu;		  /* the CPU of its last steps (per-CPU streams), else UINT32_MAX */
	uint64_t steps;		  /* steps of this thread so far (its clock) */
	uint32_t depth;		  /* frames on the stack */
	uint32_t max_depth;
	uint32_t unexplained;	  /* frames on the stack that are unexplained */
	uint32_t hidden;	  /* frames on the stack that are hidden (folded stubs') */
	struct cf_frame *frames;  /* frames[0] the oldest, frames[depth - 1] on top */
	void *user[CF_MAX_CONSUMERS];
	/* private */
	uint32_t frames_size;
	uint64_t last_pc, last_user_pc, last_time, last_index;
	struct cf_site sites[2];  /* sites[last_slot] the last step's, the other the next's:
				   * a step's site is written once, not copied to be kept */
	struct cf_site last_user_site;
	uint8_t last_slot;
	bool have_last, have_last_user, gap, async_pending, sigreturn_pending;
	bool switched_on;	  /* recording was switched on: the next step starts afresh */
	bool native_gap;	  /* a native run was placed: the GAP after it says nothing more */
	uint8_t ring;
	struct cf_fnstates fnstate;
	/* frames by where they return to (cf_stack.c: the frame index) */
	struct cf_rets rets;
	uint32_t ret_indexed;	  /* frames below it are on CHAIN_RET, none above */
	int32_t top_resuming;	  /* the innermost resuming frame, -1 none */
	/* block mode: the block whose extent the next block start tells */
	struct trace_event block;
	bool have_block, block_async, block_sigreturn, next_async, next_sigreturn;
};

/* A step, after the transition that led to it was applied. */
struct cf_step {
	uint64_t pc;
	uint64_t index;		  /* global step index */
	uint64_t time_ns;
	uint8_t ring;
	const struct cf_site *site;
	uint32_t fn;		  /* the function it counts for: site->fn, or for a folded
				   * stub's step (callflow.h: stubs) the frame below's */
};

/* How a frame ended. */
enum cf_end_kind {
	CF_END_RETURN,		  /* its return instruction (or sigreturn, kernel exit) */
	CF_END_UNWIND,		  /* popped by a return or jump to a frame further down */
	CF_END_REPLACED,	  /* replaced by a tail call or jump into another function */
	CF_END_FLUSH,		  /* thread exit, exec, gap or end of the trace */
	CF_END_OFF,		  /* recording was switched off while it ran (a frame whose
				   * own return was the last step ends CF_END_RETURN) */
};

/* Costs of a frame that ended, to add to the totals. */
struct cf_cost {
	uint64_t incl;		  /* steps from its entry to its end */
	uint64_t self;		  /* steps while it was on top */
	uint64_t fn_cum;	  /* add to Cum(fn): non-zero when its outermost frame ended */
	uint64_t arc_cum;	  /* add to the Cum of arc (parent fn -> fn) */
	uint64_t last_index;	  /* global index of the thread's last step in the frame */
	uint64_t end_index;	  /* index of the step it ended before (last + 1 at the end) */
};

enum cf_mark {
	CF_MARK_SWITCH,		  /* the next steps are another thread's */
	CF_MARK_GAP,		  /* steps missing (gap, lost, recording off) */
	CF_MARK_UNMATCHED,	  /* a return out of the oldest frame: caller reconstructed */
	CF_MARK_ASYNC,		  /* an asynchronous entry (a frame of kind ASYNC follows) */
	CF_MARK_EXIT,		  /* the thread exited */
	CF_MARK_INTERRUPT,	  /* an interrupt, irq or exception was taken: information
				   * only, stack and counts unchanged (ops.interrupt says more) */
	CF_MARK_OFF,		  /* recording switched off: every frame of the thread has
				   * ended; it starts afresh when recording is on again */
};

/* An interrupt, device irq or exception the thread took (ASYNC kinds INTERRUPT, IRQ, EXCEPTION). */
struct cf_interrupt {
	const struct trace_async *async; /* the record: kind, vector or irq, ring, pc, fault */
	uint64_t index;		  /* the next step's global index */
	uint32_t fn;		  /* the function of async->pc, CF_NO_FN when unknown */
};

/*
 * Steps the engine counted in bulk (cf_steps, straight-line code and the
 * branches inside one function that take nothing but the count): n steps
 * of the top frame, indexes first .. first + n - 1, all of one time and
 * ring; pc and site are the last one's.  The consumer has seen each of
 * these sites, and each taken jump among them, by step() before.
 */
struct cf_bulk {
	uint64_t first;
	uint64_t n;
	uint64_t time_ns;
	uint8_t ring;
	uint64_t pc;
	const struct cf_site *site;
};

/*
 * A frame of a replay (cf_consumer_ops.replay): what push() and pop() would
 * have told.  Frames come in the order they were pushed; each is depth
 * frames above the replay's caller (the top frame: depth 1 is directly
 * above it), below the frame of depth - 1 pushed last before it.  A frame
 * ends (how) before step b->first + cost.end_index: CF_END_REPLACED by
 * the next frame at its depth (a tail call or a jump), CF_END_RETURN by
 * its return; frames above it have ended first.  cost.last_index and
 * cost.end_index are offsets from b->first.
 */
struct cf_replay_frame {
	uint32_t fn, caller_fn;	  /* as in struct cf_frame */
	uint8_t kind;
	uint8_t how;		  /* enum cf_end_kind: CF_END_RETURN or CF_END_REPLACED */
	uint16_t depth;
	uint32_t start;		  /* its first step: b->first + start */
	uint64_t call_site;
	struct cf_cost cost;
};

/*
 * What bulk steps stood for, told at the end of the pass (cf_finish,
 * before the frames end) or earlier: site (at pc of pid) executed steps
 * more times; a taken jump of the same function from pc to `to`, jumps
 * more times (its count is not in steps).
 */
struct cf_tally {
	uint32_t pid;
	uint64_t pc;
	const struct cf_site *site;
	uint64_t steps;
	uint64_t to;
	uint64_t jumps;
};

/* A report builder. Every callback is optional. */
struct cf_consumer_ops {
	/* a frame was pushed; parent is the frame below (NULL for a root) */
	void (*push)(void *ctx, struct cf_thread *t, const struct cf_frame *parent,
		     const struct cf_frame *f);
	/* a root frame was inserted below the oldest one (kind UNMATCHED), as if it had
	 * existed since the oldest frame's entry */
	void (*adopt)(void *ctx, struct cf_thread *t, const struct cf_frame *root);
	/* a frame ends; parent is the frame below (NULL for a root) */
	void (*pop)(void *ctx, struct cf_thread *t, const struct cf_frame *parent,
		    const struct cf_frame *f, const struct cf_cost *cost, enum cf_end_kind how);
	/* one step executed by the top frame */
	void (*step)(void *ctx, struct cf_thread *t, const struct cf_step *s);
	/*
	 * Steps in bulk (struct cf_bulk) and what they stood for (struct
	 * cf_tally, for a consumer that counts sites or jumps): a consumer
	 * with step() that has bulk() lets the engine count runs; one with
	 * step() only gets every step by it.
	 */
	void (*bulk)(void *ctx, struct cf_thread *t, const struct cf_bulk *b);
	void (*tally)(void *ctx, const struct cf_tally *tl);
	/*
	 * A call that cf_steps took whole, as it took the same call before (a
	 * replay): nr frames ran above the top frame (struct cf_replay_frame:
	 * the call's, the calls it made, the tail calls and jumps that replaced
	 * any of them; the last of depth 1 returned), with their costs; b says
	 * the steps (the last one, the return, at b->pc of b->site); before,
	 * if not NULL, the top frame's steps counted in bulk just before the
	 * call.  It stands for the bulk() of before, and the push(), pop() and
	 * bulk() calls of those frames and steps; their sites and jumps come by
	 * tally() as bulk steps' do.  words: CF_REPLAY_WORDS words the consumer
	 * may keep with this replay (zero when it is made; the same frames,
	 * functions and caller's function every time, not the same thread or
	 * caller frame), until replay_drop says it is gone.
	 *
	 * A consumer without replay() is told the same call as the bulk() of
	 * before, then the push() and pop() of each frame with the bulk() of
	 * the steps between them, in the order stepping tells them, the
	 * thread's depth, clock and last index during each as stepping leaves
	 * them.  A frame told so has what struct cf_replay_frame keeps of it
	 * (from_fn too; cold only for a jump into a cold part's middle) and
	 * ret_addr, alt_ret and resume_from 0 (unknown).  So one consumer
	 * without replay() costs the others nothing: calls are taken whole
	 * for every consumer.
	 */
	void (*replay)(void *ctx, struct cf_thread *t, const struct cf_replay_frame *fr, uint32_t nr,
		       const struct cf_bulk *before, const struct cf_bulk *b, uint32_t *words);
	/* optional: the replay these words are of is gone (what they point to may go too) */
	void (*replay_drop)(void *ctx, uint32_t *words);
	/* something worth showing happened (index: the next step's global index) */
	void (*mark)(void *ctx, struct cf_thread *t, enum cf_mark m, uint64_t index);
	/*
	 * an interrupt or exception, after its CF_MARK_INTERRUPT mark.  Step
	 * mode: between the step of the interrupted instruction and the next;
	 * block mode: before the steps of the block it happened in.
	 */
	void (*interrupt)(void *ctx, struct cf_thread *t, const struct cf_interrupt *in);
};

/*
 * A replay's frames in the order the engine would have pushed and popped
 * them: visit(ctx, k, true) at frame k's push, visit(ctx, k, false) at its
 * pop (each frame's pop after those of the frames above it and before the
 * push of the frame that replaces it).
 */
void cf_replay_walk(const struct cf_replay_frame *fr, uint32_t nr,
		    void (*visit)(void *ctx, uint32_t k, bool push), void *ctx);

struct callflow *cf_new(const struct cf_source *src);
void cf_free(struct callflow *cf);

/*
 * The fast path's limits (cf_steps, cf_steps_bytes): how long a run of
 * straight code and a call taken whole (a replay) may be, how many calls
 * are recorded at once, how many replays a call's run keeps and how many
 * bytes all of them may take.  They bound memory and time, never a
 * result: past one, steps are counted one at a time or a replay is made
 * in place of another, with the same counts.  Tests shrink them so that
 * eviction, overflow and the total cap happen on small traces.
 */
#define CF_LIMIT_RUN_SITES 64	  /* the most run_sites may be (a run's sites are 16 bits) */
#define CF_LIMIT_REPLAYS_PER_RUN 8 /* the most replays_per_run may be */
#define CF_LIMIT_REC_LEVELS 64	  /* the most rec_levels may be */
struct cf_limits {
	uint32_t run_sites;	  /* sites of a run of straight code, 1..CF_LIMIT_RUN_SITES */
	uint32_t replay_steps;	  /* a replay's steps, at most */
	uint32_t replay_bytes;	  /* their records, at most */
	uint32_t replay_frames;	  /* its frames, 1..CF_REPLAY_DEPTH_MAX (so no deeper) */
	uint32_t replays_per_run; /* replays a call's run keeps, 1..CF_LIMIT_REPLAYS_PER_RUN */
	uint32_t rec_levels;	  /* calls recorded at once, one inside the other,
				   * 1..CF_LIMIT_REC_LEVELS */
	uint64_t replays_total;	  /* bytes all replays may take before new ones replace old */
};
/* What cf_new() starts with. */
extern const struct cf_limits cf_limits_default;
/* Before the first event; a value out of its range is clamped into it.  The limits in force. */
struct cf_limits cf_set_limits(struct callflow *cf, const struct cf_limits *lim);

/* Register a report builder; returns its slot in cf_thread.user[], -1 if full. */
int cf_add_consumer(struct callflow *cf, const struct cf_consumer_ops *ops, void *ctx);

/* Feed one trace event (any kind), in trace order. */
void cf_event(struct callflow *cf, const struct trace_event *ev);
/*
 * A run of n steps of one thread: ev a TEV_STEP with the first step's
 * index, pcs[k] the pc of step index + k; the same as cf_event on each in
 * order, without finding the thread each time.  ev is left the last step.
 * With a source that peeks and consumers that take bulk steps, while
 * counting: straight-line code and the quiet branches between it are
 * counted a run at a time (struct cf_bulk, cf_tally).
 */
void cf_steps(struct callflow *cf, struct trace_event *ev, const uint64_t *pcs, size_t n);
/*
 * The same with the run as its steps are encoded (stepcodec.h's struct
 * step_bytes; ev the first step): counted in bulk without decoding what
 * follows known runs.  evs[0..nr_evs): interrupts, irqs and exceptions
 * the thread took between the run's steps (trace_next_bytes), each as
 * cf_event takes it before the step of its index.  When
 * cf_steps_cross_events(), steps counted in bulk and calls taken whole go
 * on across them (their counts and marks are the same; a mark comes no
 * later than the next step taken one at a time, or the run's end).
 * Otherwise the caller cuts the run at its events (trace_run_parts: the
 * session does, for the engine and its own consumers at once) and gives
 * the parts and the events in order; a run given whole with its events
 * then is taken a step at a time.
 */
struct step_bytes;
struct run_event;
void cf_steps_bytes(struct callflow *cf, struct trace_event *ev, const struct step_bytes *sb,
		    const struct run_event *evs, size_t nr_evs);
/*
 * Does the engine take a run of steps whole across the events between
 * them (no consumer places interrupts, cf_consumer_ops.interrupt, and
 * not block mode)?
 */
bool cf_steps_cross_events(const struct callflow *cf);

/*
 * Block mode (traces of mode "block"): each step record is the start of a
 * run of instructions that ends at the first taken branch.  The engine
 * expands it, decoding from its start: through other instructions and
 * conditional branches not taken, to the first branch taken (to the next
 * block's start) or, for a thread's last block, to the first instruction
 * that always transfers.  Expanded steps carry their block's index, and a
 * thread's block is placed when its next one arrives.
 */
void cf_set_block_mode(struct callflow *cf, bool on);

/*
 * Counting (on by default): while off, steps still move the stacks (calls,
 * returns, everything the rules above do) but not the threads' clocks, so
 * they add to no cost, and the consumers' step callbacks are not called.
 * A report session turns it off outside a window of steps or time: every
 * cost is then the window's, with the stacks as they were.
 */
void cf_set_counting(struct callflow *cf, bool on);
bool cf_counting(const struct callflow *cf);

/*
 * Folding of call stubs (off by default; see "stubs" above): before the
 * first event.  Site sources mark the functions (cf_func_set_fold).
 */
void cf_set_fold(struct callflow *cf, bool on);
/* The nearest frame below index k that consumers were told of (not hidden), -1 none. */
int32_t cf_shown_below(const struct cf_thread *t, int32_t k);
/* How many of t's frames consumers were told of (its depth as they see it). */
static inline uint32_t cf_shown_depth(const struct cf_thread *t)
{
	return t->depth - t->hidden;
}
/* The k-th of them from the oldest (k < cf_shown_depth(t)). */
const struct cf_frame *cf_shown_frame(const struct cf_thread *t, uint32_t k);

/* End of input: every open frame ends (CF_END_FLUSH), oldest threads first. */
void cf_finish(struct callflow *cf);

/* The function table (ids are dense from 0). */
/* Record the ring fn's code runs in (site resolvers call it after cf_func_intern). */
void cf_func_set_ring(struct callflow *cf, uint32_t fn, uint8_t ring);
/* Record what fn is to folding (site resolvers, after cf_func_intern). */
void cf_func_set_fold(struct callflow *cf, uint32_t fn, enum cf_fold fold);
uint32_t cf_func_intern(struct callflow *cf, const char *module, const char *module_path,
			const char *name, uint64_t addr);
const struct cf_func *cf_func(const struct callflow *cf, uint32_t fn);
uint32_t cf_nr_funcs(const struct callflow *cf);

/* Statistics for tests and -v: deepest stack seen, steps seen, frames never matched. */
struct cf_stats {
	uint32_t max_depth;
	uint64_t steps;
	uint64_t threads;
	uint64_t unmatched;	  /* returns out of the oldest frame */
	uint64_t async;		  /* asynchronous entries */
	uint64_t unexplained;	  /* of them, explained by nothing (no record, no ring change) */
	uint64_t unexplained_capped; /* transfers taken as jumps: CF_MAX_UNEXPLAINED reached */
	uint64_t unexplained_capped_user; /* of them, in user code (the kernel's text is
				   * patched as it runs: what the engine decodes from
				   * vmlinux explains less of it) */
	uint64_t gaps;
	/* taken by the threads (information, not entries): */
	uint64_t interrupts;	  /* interrupts with a vector (timer, IPIs) */
	uint64_t irqs;		  /* device interrupts */
	uint64_t exceptions;	  /* exceptions, page faults included */
	uint64_t page_faults;
	/* how the pass went (cf_steps), not counts of the trace: */
	uint64_t steps_single;	  /* steps taken one at a time */
	uint64_t calls_whole;	  /* calls taken whole (cf_consumer_ops.replay) */
	uint64_t steps_whole;	  /* their steps */
	uint64_t replays;	  /* replays made */
	uint64_t replays_replaced; /* of them, made in place of another (cf_limits) */
	uint64_t replays_over_total; /* not made: all of them took replays_total */
	uint64_t rec_too_long;	  /* calls no longer recorded: past replay_steps or _frames */
	uint64_t rec_too_deep;	  /* calls not recorded: rec_levels inside one another */
};
void cf_get_stats(const struct callflow *cf, struct cf_stats *st);

/* Names for reports. */
const char *cf_entry_kind_name(unsigned kind);

#endif /* PT_CALLFLOW_H */
