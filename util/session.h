/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One pass of a trace for a report: the report session.  It opens the
 * trace and its symbols, applies the filters (threads, a window of steps or
 * time, and the function filters reports ask it about), runs the event
 * loop with progress on a terminal, and feeds the report's consumers:
 * raw events (counts), the call-flow engine's callbacks (arc, tree,
 * profile, flow, steps, exports), or both.  docs/session.md is its
 * contract: what a consumer gets, in what order, and what it may keep.
 */
#ifndef PT_SESSION_H
#define PT_SESSION_H

#include <stdbool.h>
#include <stdint.h>

#include "util/callflow.h"
#include "util/cf_sites.h"
#include "util/filter.h"
#include "util/symbols.h"
#include "util/trace_reader.h"

/*
 * What a report looks at (filter.h: struct session_filter).  Threads
 * (pid, tid) and the window select events: the other threads' events
 * reach no consumer and not the engine.  The window (steps from..to, time
 * from..to since the trace's start, inclusive) selects the steps that
 * count: with SESSION_WINDOW_COUNTS the engine still sees every step
 * before and in it, to rebuild the stacks, but its clock and its step
 * callbacks move only inside it, so every cost is of the window's steps;
 * without it (listings: flow, steps) the engine counts everything and the
 * report asks session_in_window().  module, symbol and ring select
 * functions and addresses: reports ask session_fn_selected() or the
 * session's filter (session_select()).
 */

/* Where the trace and its symbols come from. */
struct session_source {
	const char *input;	  /* the trace directory */
	bool force;		  /* read a damaged trace up to the damage */
	const char *vmlinux;	  /* sym_options */
	const char *debug_dir;
	const char *symfs;
	const char *buildid_dir;
	bool no_demangle;
	unsigned threads;	  /* stream decoding threads: 0 one per online CPU */
	bool keep_stubs;	  /* PLT stubs are frames of their own (callflow.h: stubs) */
	bool follow;		  /* a recording in progress: TRACE_OPEN_FOLLOW */
	bool one_at_a_time;	  /* every step to the engine and the consumers alone, never a
				   * run of them: the fast paths' oracle (post --verify) */
	struct session_pass_stats *pass_stats; /* session_run adds its pass's to it, or NULL */
};

/* How passes went: the steps read, and of the engine's, those taken in calls taken whole. */
struct session_pass_stats {
	uint64_t passes, steps;
	uint64_t steps_single, calls_whole, steps_whole;
};

/* session_open() flags. */
#define SESSION_WINDOW_COUNTS (1u << 0) /* the window decides what the engine counts */

/* A consumer of raw events; every member is optional. */
struct session_consumer_ops {
	/*
	 * Every event of the selected threads, in trace order: task records
	 * always, steps only inside the window (block-mode traces: their
	 * expanded instructions, each with its block's index), and the other
	 * records (GAP, LOST, COUNT, ASYNC, ...) as they come.  ev and what it
	 * points to are valid during the call only.
	 */
	void (*event)(void *ctx, const struct trace_event *ev);
	/*
	 * Optional: a run of n steps of one thread instead of n step events,
	 * when no window is set (not in block mode): ev the first step (pid,
	 * tid, ring, time and index), pcs[k] the pc of step ev->index + k.
	 * The same as event on each step in order.  The pass hands runs only
	 * when every consumer takes them.
	 */
	void (*steps)(void *ctx, const struct trace_event *ev, const uint64_t *pcs, size_t n);
	/*
	 * Optional: the same run as its steps are encoded (stepcodec.h's
	 * struct step_bytes: sb->steps steps, the first at ev->index and
	 * ev->pc), not decoded one by one.  When every consumer takes these
	 * (and the call-flow engine is used or there is a consumer at all),
	 * the pass reads the streams in bytes mode and hands runs only so.
	 */
	void (*bytes)(void *ctx, const struct trace_event *ev, const struct step_bytes *sb);
};

struct session;

/*
 * Open the trace and set up its symbols; exit status on failure (printed).
 * what names the report in progress lines ("counts", "call flow").
 */
int session_open(struct session **out, const struct session_source *src,
		 const struct session_filter *filter, unsigned flags, const char *what);
void session_close(struct session *s);

/* What the session holds, for consumers; valid until session_close. */
struct trace *session_trace(const struct session *s);
struct sym_session *session_symbols(const struct session *s);
struct cf_sites *session_sites(const struct session *s);
const struct session_filter *session_filter(const struct session *s);

/* The call-flow engine (made on first use, before session_run); NULL when out of memory. */
struct callflow *session_callflow(struct session *s);

/* Add a raw-event consumer (before session_run); -1 when there are too many. */
int session_add_consumer(struct session *s, const struct session_consumer_ops *ops, void *ctx);

/*
 * The pass: every event to the engine and the consumers, progress on a
 * terminal, then cf_finish; 0, or EXIT_RUNTIME when the trace could not
 * be read (printed).  When the report closes the session after a pass, a
 * filter that matched nothing is said on stderr (a warning), with what
 * the trace has instead.
 */
int session_run(struct session *s);

/*
 * Stop the pass after the event or run of steps being handed (a consumer
 * that has seen what it needs): session_run returns as at the end.
 */
void session_stop(struct session *s);

/* Is a step at index and time (0: unknown) inside the window? */
bool session_in_window(const struct session *s, uint64_t index, uint64_t time_ns);
/* Is a window set (else every step is in it)? */
bool session_windowed(const struct session *s);

/* A function of the engine: does its ring, module and name pass the filters? */
bool session_fn_selected(struct session *s, uint32_t fn);
/* The filters and what they matched, for questions about addresses (counts). */
struct filter *session_select(struct session *s);

/* CPU seconds of the pass, every thread's (the report's own work after it not counted); -v says it. */
double session_pass_cpu(const struct session *s);

/* Steps the pass saw (of the selected threads) and of them, inside the window. */
uint64_t session_steps_seen(const struct session *s);
uint64_t session_steps_in_window(const struct session *s);

/*
 * Steps a late step trap skipped (docs/record.md, Fidelity), put back: by
 * the recorder (its RESTORED attribute) or, when it did not check, by the
 * pass (steps every report then sees, and GAPs where none could be).
 */
struct session_restored {
	bool recorder_checked;	  /* the recorder checked every step: the pass need not */
	uint64_t by_recorder;
	uint64_t by_pass, gaps;	  /* after session_run */
};
void session_restored(const struct session *s, struct session_restored *out);

#endif /* PT_SESSION_H */
