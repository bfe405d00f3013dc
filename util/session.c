// SPDX-License-Identifier: GPL-2.0
/* The report session: one pass of a trace, filtered, through the report's consumers (session.h). */
#define PR_FMT "session"
#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "util/call_targets.h"
#include "util/demangle.h"
#include "util/log.h"
#include "util/restore.h"
#include "util/session.h"
#include "util/stepcodec.h"
#include "util/trace_arch.h"

#define SESSION_MAX_CONSUMERS 4

struct session {
	struct session_source src;
	struct session_filter f;
	unsigned flags;
	const char *what;
	struct trace *trace;
	struct sym_session *sym;
	struct cf_sites *sites;
	struct callflow *cf;
	bool block_mode;
	struct {
		const struct session_consumer_ops *ops;
		void *ctx;
	} cons[SESSION_MAX_CONSUMERS];
	int nr_cons;
	bool windowed;		  /* a window is set */
	uint64_t t0;		  /* the trace's start (monotonic ns) */
	uint64_t seen, in_window, last_index;
	bool any_index;
	struct filter fl;
	/* filters' verdicts: per function 0 undecided, 1 no, 2 yes */
	uint8_t *fn_verdict;
	size_t fn_verdict_size;
	bool ran;
	bool stop;		  /* session_stop: the pass ends after what it is handing */
	double pass_cpu;	  /* CPU seconds of session_run (every thread's) */
	struct sym_options so;	  /* for the restorer's own symbol session */
	uint64_t restored, late_gaps; /* by the pass (session_restored) */
};

/* ---- opening ---- */

static void expanded_step(void *ctx, struct cf_thread *t, const struct cf_step *st);
static void find_call_targets(void *ctx);

/* filter.h's is_ifunc: a __NAME_* is an ifunc's implementation only when NAME is one. */
static bool session_ifunc(void *ctx, const char *name)
{
	return sym_session_ifunc(ctx, name);
}

int session_open(struct session **out, const struct session_source *src,
		 const struct session_filter *filter, unsigned flags, const char *what)
{
	struct session *s = calloc(1, sizeof(*s));
	struct sym_options so = { 0 };
	const struct trace_info *in;

	*out = NULL;
	if (!s) {
		pr_err("out of memory opening %s", src->input);
		return EXIT_RUNTIME;
	}
	s->src = *src;
	s->f = *filter;
	if (filter_init(&s->fl, filter) < 0) {
		free(s);
		return EXIT_USAGE;
	}
	s->flags = flags;
	s->what = what;
	s->trace = trace_open_arch(src->input, (src->force ? TRACE_OPEN_FORCE : 0) |
						(src->follow ? TRACE_OPEN_FOLLOW : 0));
	/* streams are read as they are written: no decoding ahead on other threads */
	if (src->follow)
		s->src.threads = 1;
	if (!s->trace)
		goto err;
	in = trace_info(s->trace);
	s->t0 = in->start.monotonic_ns;
	s->block_mode = !strcmp(in->mode, "block");
	s->windowed = s->f.from || s->f.to != UINT64_MAX || s->f.time_from ||
		      s->f.time_to != UINT64_MAX;
	so.trace_dir = trace_dir(s->trace);
	so.vmlinux = src->vmlinux;
	so.debug_dir = src->debug_dir;
	so.sysroot = src->symfs;
	so.buildid_dir = src->buildid_dir;
	so.no_demangle = src->no_demangle;
	s->so = so;
	s->sym = sym_session_new(&so);
	if (!s->sym) {
		pr_err("cannot set up symbol resolution for %s", trace_dir(s->trace));
		goto err;
	}
	/* block traces hold no instruction's successor but the next block's */
	if (!s->block_mode)
		sym_on_uncovered(s->sym, find_call_targets, s);
	s->sites = cf_sites_new(s->sym);
	if (!s->sites)
		goto err;
	s->fl.is_ifunc = session_ifunc;
	s->fl.ifunc_ctx = s->sym;
	*out = s;
	return 0;
err:
	session_close(s);
	return EXIT_RUNTIME;
}

static const char *thread_comm(void *ctx, uint32_t tid)
{
	return trace_comm(ctx, tid);
}

void session_close(struct session *s)
{
	if (!s)
		return;
	if (s->ran)
		filter_warn_unmatched(&s->fl, s->seen, s->in_window, s->last_index, thread_comm,
				      s->trace);
	cf_free(s->cf);
	cf_sites_free(s->sites);
	if (s->sym)
		sym_session_free(s->sym);
	if (s->trace)
		trace_close(s->trace);
	free(s->fn_verdict);
	filter_free(&s->fl);
	free(s);
}

struct trace *session_trace(const struct session *s)
{
	return s->trace;
}

struct sym_session *session_symbols(const struct session *s)
{
	return s->sym;
}

struct cf_sites *session_sites(const struct session *s)
{
	return s->sites;
}

const struct session_filter *session_filter(const struct session *s)
{
	return &s->f;
}

struct callflow *session_callflow(struct session *s)
{
	struct cf_source src;

	if (s->cf)
		return s->cf;
	cf_sites_source(s->sites, &src);
	s->cf = cf_new(&src);
	/* block traces hold one step per run of instructions: the engine expands them */
	cf_set_block_mode(s->cf, s->block_mode);
	cf_set_fold(s->cf, !s->src.keep_stubs);
	if (s->block_mode) {
		static const struct cf_consumer_ops ops = { .step = expanded_step };

		if (cf_add_consumer(s->cf, &ops, s) < 0) {
			cf_free(s->cf);
			s->cf = NULL;
		}
	}
	return s->cf;
}

int session_add_consumer(struct session *s, const struct session_consumer_ops *ops, void *ctx)
{
	if (s->nr_cons == SESSION_MAX_CONSUMERS)
		return -1;
	s->cons[s->nr_cons].ops = ops;
	s->cons[s->nr_cons].ctx = ctx;
	return s->nr_cons++;
}

/* ---- the pass ---- */

void session_stop(struct session *s)
{
	s->stop = true;
}

bool session_windowed(const struct session *s)
{
	return s->windowed;
}

bool session_in_window(const struct session *s, uint64_t index, uint64_t time_ns)
{
	if (index < s->f.from || index > s->f.to)
		return false;
	if (s->f.time_from || s->f.time_to != UINT64_MAX) {
		uint64_t t = time_ns > s->t0 ? time_ns - s->t0 : 0;

		if (t < s->f.time_from || t > s->f.time_to)
			return false;
	}
	return true;
}

static void deliver(struct session *s, const struct trace_event *ev)
{
	for (int c = 0; c < s->nr_cons; c++)
		if (s->cons[c].ops->event)
			s->cons[c].ops->event(s->cons[c].ctx, ev);
}

/* A run of a thread's steps, no window: to each consumer whole (cf_steps left ev its last). */
static void deliver_steps(struct session *s, uint64_t first, struct trace_event *ev,
			  const uint64_t *pcs, size_t n)
{
	if (!n)
		return;
	ev->index = first;
	ev->pc = pcs[0];
	for (int c = 0; c < s->nr_cons; c++)
		if (s->cons[c].ops->steps)
			s->cons[c].ops->steps(s->cons[c].ctx, ev, pcs, n);
}

/* Block mode: the engine's expanded instructions are the consumers' steps. */
static void expanded_step(void *ctx, struct cf_thread *t, const struct cf_step *st)
{
	struct session *s = ctx;
	struct trace_event ev = {
		.kind = TEV_STEP, .pid = t->pid, .tid = t->tid, .cpu = UINT32_MAX,
		.ring = st->ring, .pc = st->pc, .index = st->index, .time_ns = st->time_ns,
	};

	if (!(s->flags & SESSION_WINDOW_COUNTS) && !session_in_window(s, st->index, st->time_ns))
		return;
	deliver(s, &ev);
}

static bool thread_selected(struct session *s, const struct trace_event *ev)
{
	if (ev->kind == TEV_TASK)
		return true;	/* address spaces and thread lifetimes: always */
	if (!s->f.pid && !s->f.tid)
		return true;
	return filter_thread(&s->fl, ev->pid, ev->tid);
}

/* Progress on a terminal: steps, percent of the streams' bytes read, rate and time left. */
struct progress {
	bool on;
	uint64_t bytes, next;
	struct timespec start;
	bool shown;
};

static double seconds_since(const struct timespec *t0)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)(now.tv_sec - t0->tv_sec) + (double)(now.tv_nsec - t0->tv_nsec) / 1e9;
}

static void progress_show(struct progress *p, const char *what, uint64_t n, uint64_t done)
{
	double secs = seconds_since(&p->start), rate = secs > 0 ? (double)n / secs : 0;
	double part = p->bytes ? (double)done / (double)p->bytes : 0;

	fprintf(stderr, "\r%s: %s: %.1fM steps", log_progname, what, (double)n / 1e6);
	if (p->bytes) {
		fprintf(stderr, ", %.0f%%", 100.0 * part);
		if (part > 0 && secs > 1)
			fprintf(stderr, ", %.0f s left", secs * (1 - part) / part);
	}
	fprintf(stderr, ", %.1fM steps/s\033[K", rate / 1e6);
	p->shown = true;
}

/* One step of a run: the window, the engine, the consumers. */
static bool session_step(struct session *s, struct trace_event *ev, bool counts_window,
			 bool direct)
{
	bool inside;

	s->seen++;
	inside = session_in_window(s, ev->index, ev->time_ns);
	s->in_window += inside;
	if (ev->index > s->f.to)
		return false;	/* nothing after the window can count */
	if (s->cf && counts_window && s->windowed)
		cf_set_counting(s->cf, inside);
	if (s->cf)
		cf_event(s->cf, ev);
	if (direct && inside)
		deliver(s, ev);
	return true;
}

static double cpu_seconds(void)
{
	struct timespec now;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now);
	return (double)now.tv_sec + (double)now.tv_nsec / 1e9;
}

/* Progress after a run of steps, now and then. */
static void session_progress(struct session *s, struct progress *p, struct trace_iter *it)
{
	if (p->on && s->seen >= p->next) {
		progress_show(p, s->what, s->seen, trace_iter_bytes(it));
		p->next = s->seen + (1u << 20);
	}
}

/*
 * Bytes mode: no window, no block mode, and every consumer takes runs of
 * steps as encoded; the engine takes them so too.  With nothing at all to
 * feed (post info --read) the steps are decoded: that pass is the floor
 * the reports are measured against.
 */
static bool session_bytes_mode(const struct session *s)
{
	if (s->windowed || s->block_mode || s->src.one_at_a_time || (!s->cf && !s->nr_cons))
		return false;
	for (int c = 0; c < s->nr_cons; c++)
		if (!s->cons[c].ops->bytes)
			return false;
	return true;
}

/* Where deliver_bytes is: the session, the run's first step, and whether the engine cuts too. */
struct bytes_delivery {
	struct session *s;
	const struct trace_event *ev;
	bool engine;
};

static void deliver_part(void *ctx, size_t at, uint64_t pc, const struct step_bytes *p)
{
	struct bytes_delivery *d = ctx;
	struct trace_event e = *d->ev;

	e.index += at;
	e.pc = pc;
	if (d->engine) {
		struct trace_event ce = e;

		cf_steps_bytes(d->s->cf, &ce, p, NULL, 0);
	}
	for (int c = 0; c < d->s->nr_cons; c++)
		d->s->cons[c].ops->bytes(d->s->cons[c].ctx, &e, p);
}

static void deliver_event(void *ctx, const struct trace_event *ev)
{
	struct bytes_delivery *d = ctx;

	if (d->engine)
		cf_event(d->s->cf, ev);
	deliver(d->s, ev);
}

/*
 * A run of steps as encoded, ev its first, to the engine and the raw
 * consumers: the one place a run is cut at the events between its steps
 * (evs), which go to them in between.  The engine takes it whole, events
 * and all, when it can (cf_steps_cross_events), first, as with decoded
 * steps; else each part and event goes to the engine, then to the
 * consumers.
 */
static void deliver_bytes(struct session *s, const struct trace_event *ev,
			  const struct step_bytes *sb, const struct run_event *evs, size_t nr_evs)
{
	struct bytes_delivery d = { s, ev, s->cf && nr_evs && !cf_steps_cross_events(s->cf) };

	if (s->cf && !d.engine) {
		struct trace_event e = *ev;

		cf_steps_bytes(s->cf, &e, sb, evs, nr_evs);
	}
	trace_run_parts(sb, evs, nr_evs, deliver_part, deliver_event, &d);
}

/* Bytes mode's pass: every run of steps whole to the engine and the consumers. */
static int session_run_bytes(struct session *s, struct trace_iter *it, struct progress *p)
{
	const struct run_event *evs;
	struct trace_event ev;
	struct step_bytes sb;
	size_t nr_evs;
	int r = 0;

	while (!s->stop && (r = trace_next_bytes(it, &ev, &sb, &evs, &nr_evs)) == 1) {
		if (!thread_selected(s, &ev))
			continue;
		if (ev.kind != TEV_STEP) {
			if (s->cf)
				cf_event(s->cf, &ev);
			deliver(s, &ev);
			continue;
		}
		if (!sb.steps)
			continue;
		s->fl.saw_ring[ev.ring ? 1 : 0] = true;
		deliver_bytes(s, &ev, &sb, evs, nr_evs);
		s->seen += sb.steps;
		s->in_window += sb.steps;
		s->last_index = ev.index + sb.steps - 1;
		s->any_index = true;
		session_progress(s, p, it);
	}
	return r;
}

/* The pass on decoded steps: with a window, in block mode, or for consumers that want them. */
static int session_run_pcs(struct session *s, struct trace_iter *it, struct progress *p)
{
	bool counts_window = s->flags & SESSION_WINDOW_COUNTS;
	bool direct = !s->block_mode;	/* steps go to the consumers as they are */
	bool runs_taken = true;		/* every consumer takes runs of steps */
	struct trace_event ev;
	const uint64_t *pcs;
	size_t n;
	int r = 0;

	for (int c = 0; c < s->nr_cons; c++)
		if (s->cons[c].ops->event && !s->cons[c].ops->steps)
			runs_taken = false;
	while (!s->stop && (r = trace_next_run(it, &ev, &pcs, &n)) == 1) {
		if (!thread_selected(s, &ev))
			continue;
		if (ev.kind == TEV_STEP) {
			uint64_t first = ev.index;
			size_t k = 0;

			s->fl.saw_ring[ev.ring ? 1 : 0] = true;
			if (!s->windowed && !s->src.one_at_a_time && (!direct || runs_taken)) {
				/* no window to ask about: the run to the engine, then the consumers */
				if (s->cf)
					cf_steps(s->cf, &ev, pcs, n);
				if (direct)
					deliver_steps(s, first, &ev, pcs, n);
				k = n;
				s->seen += n;
				s->in_window += n;
			} else {
				for (k = 0; k < n && !s->stop; k++) {
					ev.pc = pcs[k];
					ev.index = first + k;
					if (!session_step(s, &ev, counts_window, direct))
						break;
				}
			}
			if (n) {
				s->last_index = first + (k < n ? k : n - 1);
				s->any_index = true;
			}
			if (k < n)
				break;
			session_progress(s, p, it);
			continue;
		}
		if (s->cf)
			cf_event(s->cf, &ev);
		deliver(s, &ev);
	}
	return r;
}

/*
 * Traces whose recorder did not check every single step for a late trap
 * (older ones, the driver's) have the pass restore the skipped steps.
 */
static int session_restore(struct session *s, struct trace_iter *it)
{
	const struct trace_info *in = trace_info(s->trace);
	struct restorer *rs;

	if (in->restore_checked || strcmp(in->mode, "step") || trace_count_only(s->trace))
		return 0;
	rs = restorer_new(sym_session_new(&s->so));
	if (!rs)
		return -1;
	trace_iter_restore(it, rs);
	return 0;
}

void session_restored(const struct session *s, struct session_restored *out)
{
	const struct trace_info *in = trace_info(s->trace);

	out->recorder_checked = in->restore_checked;
	out->by_recorder = in->restored;
	out->by_pass = s->restored;
	out->gaps = s->late_gaps;
}

/* An iterator over the whole trace, late step traps restored as the pass restores them. */
static struct trace_iter *session_iter(struct session *s, bool bytes)
{
	struct trace_iter *it = trace_iter_new_mode(s->trace, s->src.threads, bytes);

	if (it && session_restore(s, it) < 0) {
		trace_iter_free(it);
		return NULL;
	}
	return it;
}

/*
 * The trace runs code no function covers (sym_on_uncovered): before a
 * step of it is attributed, a pass of its own over every thread finds the
 * calls into it, whatever the report, its filters and its window, so that
 * every report cuts it the same way.
 */
static void find_call_targets(void *ctx)
{
	struct session *s = ctx;
	double cpu0 = cpu_seconds();
	struct trace_iter *it;
	int r;

	/* What the trace says wrong the report's own pass says, once. */
	log_quiet++;
	it = session_iter(s, false);
	r = it ? call_targets_find(s->sym, it) : 0;	/* no iterator: the report's says why */
	trace_iter_free(it);
	log_quiet--;
	if (r < 0)
		pr_warn("code without symbols stays one function per module (out of memory)");
	pr_dbg("code without symbols: cut at the calls into it in %.4f s of CPU",
	       cpu_seconds() - cpu0);
}

int session_run(struct session *s)
{
	double cpu0 = cpu_seconds();
	struct trace_iter *it;
	struct progress p = { .on = log_is_tty(), .next = 1u << 20 };
	bool bytes;
	int r;

	if (s->block_mode && s->nr_cons)
		session_callflow(s);
	bytes = session_bytes_mode(s);
	it = session_iter(s, bytes);
	if (!it)
		return EXIT_RUNTIME;
	p.bytes = trace_iter_total_bytes(it);
	clock_gettime(CLOCK_MONOTONIC, &p.start);
	r = bytes ? session_run_bytes(s, it, &p) : session_run_pcs(s, it, &p);
	if (p.shown)
		fprintf(stderr, "\r\033[K");
	trace_iter_restored(it, &s->restored, &s->late_gaps);
	if (s->restored || s->late_gaps)
		pr_dbg("%" PRIu64 " steps restored after late step traps, %" PRIu64 " gaps where "
		       "one could not be", s->restored, s->late_gaps);
	trace_iter_free(it);
	trace_follow_finish(s->trace);
	if (s->src.pass_stats) {
		s->src.pass_stats->passes++;
		s->src.pass_stats->steps += s->seen;
	}
	if (s->cf) {
		struct cf_stats st;

		cf_finish(s->cf);
		cf_get_stats(s->cf, &st);
		if (s->src.pass_stats) {
			s->src.pass_stats->steps_single += st.steps_single;
			s->src.pass_stats->calls_whole += st.calls_whole;
			s->src.pass_stats->steps_whole += st.steps_whole;
		}
		pr_dbg("call flow: %" PRIu64 " steps, %" PRIu64 " threads, max depth %u, %" PRIu64
		       " unmatched returns, %" PRIu64 " async entries, %" PRIu64 " gaps",
		       st.steps, st.threads, st.max_depth, st.unmatched, st.async, st.gaps);
		pr_dbg("call flow: %" PRIu64 " steps one at a time, %" PRIu64 " calls taken whole "
		       "(%" PRIu64 " steps; %" PRIu64 " replays made)", st.steps_single,
		       st.calls_whole, st.steps_whole, st.replays);
		/* in the kernel they come of its text patched at run time: no damage;
		 * after an error there is no report for it to qualify, and the
		 * error said what is wrong: one line */
		if (st.unexplained_capped_user && r >= 0)
			pr_warn("%" PRIu64 " transfers that no instruction, record or ring change "
				"explains came on top of %u others, and were taken as jumps: the "
				"trace looks damaged", st.unexplained_capped_user,
				CF_MAX_UNEXPLAINED);
	}
	s->pass_cpu = cpu_seconds() - cpu0;
	pr_dbg("pass: %" PRIu64 " steps in %.4f s of CPU%s", s->seen, s->pass_cpu,
	       bytes ? " (steps as encoded)" : "");
	if (r < 0)
		return EXIT_RUNTIME;
	s->ran = true;
	return 0;
}

double session_pass_cpu(const struct session *s)
{
	return s->pass_cpu;
}

uint64_t session_steps_seen(const struct session *s)
{
	return s->seen;
}

uint64_t session_steps_in_window(const struct session *s)
{
	return s->in_window;
}

/* ---- function filters ---- */

struct filter *session_select(struct session *s)
{
	return &s->fl;
}

bool session_fn_selected(struct session *s, uint32_t fn)
{
	const struct cf_func *f;
	bool yes;

	if (fn == CF_NO_FN)
		return !filter_on_functions(&s->fl);
	if (fn < s->fn_verdict_size && s->fn_verdict[fn])
		return s->fn_verdict[fn] == 2;
	f = cf_func(s->cf, fn);
	yes = filter_ring(&s->fl, f->ring) && filter_module(&s->fl, f->module, f->module_path) &&
	      filter_symbol(&s->fl, f->name, NULL);
	if (fn >= s->fn_verdict_size) {
		size_t n = s->fn_verdict_size ? 2 * s->fn_verdict_size : 256;
		uint8_t *v;

		while (n <= fn)
			n *= 2;
		v = realloc(s->fn_verdict, n);
		if (!v)
			return yes;	/* decided anew next time */
		memset(v + s->fn_verdict_size, 0, n - s->fn_verdict_size);
		s->fn_verdict = v;
		s->fn_verdict_size = n;
	}
	s->fn_verdict[fn] = yes ? 2 : 1;
	return yes;
}
