// SPDX-License-Identifier: GPL-2.0
/*
 * post export --format chrome: Chrome/Perfetto JSON trace events, a B/E
 * pair per frame per thread, written while the engine runs; the window's
 * frames only (those open at its start begin there, those open at its end
 * end there), and M events naming the processes and threads.
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/alloc.h"
#include "post/export.h"
#include "util/log.h"
#include "post/textout.h"

struct chrome {
	struct flow_report *r;
	FILE *out;
	bool first;
	bool steps_clock;	  /* a step a nanosecond; else the trace's time */
	bool windowed;		  /* a window of steps or time: steps may be outside it */
	int slot;		  /* our cf_thread.user[] slot */
	struct chrome_thread *threads; /* all of them, newest first */
	/* events put together here, written to out in large pieces (chrome_flush
	 * before anything else writes to out) */
	char *buf;
	size_t fill;
	/* per function: 0 not known yet, else its name's length + 1 when it is
	 * plain (nothing to escape) and short enough for the buffer, or UINT32_MAX */
	uint32_t *name_len;
	uint32_t nr_names;
};

#define CHROME_BUF_SIZE (64 << 10)

static void chrome_flush(struct chrome *c)
{
	if (c->fill)
		fwrite_unlocked(c->buf, 1, c->fill, c->out);
	c->fill = 0;
}

/* The longest "\",\"ph\":\"B\",\"pid\":P,\"tid\":T,\"ts\":" (16 more: copied by 16). */
#define CHROME_TAIL_MAX (48 + 2 * TEXT_U64_MAX + 16)

/*
 * A thread: its clock, and how far its stack has been written.  The trace
 * gives times now and then (TIME, SWITCH records); steps between get 1 ns
 * each, and a thread's timestamps never go backwards, so its B/E events
 * stay in order.  Its frames[0..open) have had their B events (when
 * selected): from its first step in the window until its first after it.
 */
struct chrome_thread {
	uint32_t pid, tid;
	/* not next to each other: set together, a vector's store, but read from
	 * the engine's step as two numbers (the load would wait for the stores) */
	uint64_t time_ns;
	double last_us;
	uint64_t time_index;
	uint64_t step_index;	  /* with have_step: the last step, not yet in last_us */
	uint32_t open;
	bool in_window, past_window, wrote, have_step;
	struct chrome_thread *next;
	/* its events' text after the category, for 'B' and 'E' (chrome_event_tail), once made */
	char tail[2][CHROME_TAIL_MAX];
	uint8_t tail_len[2];
};

static __attribute__((noinline)) struct chrome_thread *chrome_thread_new(struct chrome *c,
									  struct cf_thread *t)
{
	struct chrome_thread *ct = xcalloc(1, sizeof(*ct));

	ct->pid = t->pid;
	ct->tid = t->tid;
	ct->next = c->threads;
	c->threads = ct;
	t->user[c->slot] = ct;
	return ct;
}

static inline struct chrome_thread *chrome_thread(struct chrome *c, struct cf_thread *t)
{
	struct chrome_thread *ct = t->user[c->slot];

	return ct ? ct : chrome_thread_new(c, t);
}

/* The timestamp (us) of index by the thread's last known time, before clamping. */
static double chrome_raw_ts(const struct chrome_thread *ct, uint64_t index)
{
	return (double)ct->time_ns / 1000.0 + (double)(index - ct->time_index) / 1000.0;
}

/*
 * A thread's timestamps never go backwards: each is at least every one
 * before it, steps' included.  A step's is taken into last_us only when
 * the next timestamp is asked for or the time changes (its time's
 * timestamps grow with the index: the last step of a time is the largest),
 * not at every step.
 */
static void chrome_take_step(struct chrome_thread *ct)
{
	double us;

	if (!ct->have_step)
		return;
	ct->have_step = false;
	us = chrome_raw_ts(ct, ct->step_index);
	if (us > ct->last_us)
		ct->last_us = us;
}

/* The timestamp (us) of the step with this index; time_ns is its time if known (else 0). */
static double chrome_ts(struct chrome *c, struct cf_thread *t, uint64_t index, uint64_t time_ns)
{
	struct chrome_thread *ct;
	double us;

	if (c->steps_clock)
		return (double)index / 1000.0;
	ct = chrome_thread(c, t);
	chrome_take_step(ct);
	if (time_ns && time_ns != ct->time_ns) {
		ct->time_ns = time_ns;
		ct->time_index = index;
	}
	us = chrome_raw_ts(ct, index);
	if (us < ct->last_us)
		us = ct->last_us;
	ct->last_us = us;
	return us;
}

/* A step's time, for the timestamps after it (chrome_ts, later). */
static void chrome_note_step(struct chrome *c, struct chrome_thread *ct, uint64_t index,
			     uint64_t time_ns)
{
	if (c->steps_clock)
		return;
	if (time_ns && time_ns != ct->time_ns) {
		chrome_take_step(ct);
		ct->time_ns = time_ns;
		ct->time_index = index;
	}
	ct->step_index = index;
	ct->have_step = true;
}

/* s holds nothing JSON escapes: it is its string's contents as it is. */
static bool json_plain(const char *s)
{
	for (; *s; s++)
		if (*s == '"' || *s == '\\' || (unsigned char)*s < 0x20)
			return false;
	return true;
}

/* s as a JSON string's contents. */
static void json_chars(FILE *out, const char *s)
{
	if (json_plain(s)) {
		fputs_unlocked(s, out);
		return;
	}
	for (const char *p = s; *p; p++) {
		if (*p == '"' || *p == '\\')
			fprintf(out, "\\%c", *p);
		else if ((unsigned char)*p < 0x20)
			fprintf(out, "\\u%04x", *p);
		else
			fputc(*p, out);
	}
}

/* ts as "%.3f" at p, when the integer way can (chrome_put_ts); NULL when not. */
static char *chrome_ts_text(char *p, double ts)
{
	double x = ts * 1000.0;
	uint64_t n = ts >= 0 && ts < 2e12 ? (uint64_t)(x + 0.5) : 0;

	if (!(ts >= 0 && ts < 2e12) || fabs(x - (double)n) > 0.25)
		return NULL;
	p = text_u64(p, n / 1000);
	*p++ = '.';
	*p++ = (char)('0' + n / 100 % 10);
	*p++ = (char)('0' + n / 10 % 10);
	*p++ = (char)('0' + n % 10);
	return p;
}

/*
 * ts as "%.3f" prints it.  A timestamp is a number of nanoseconds over
 * 1000, near a multiple of 0.001: when it is (the product's distance to
 * the integer n under a quarter), n is the correct rounding and is written
 * without printf's exact decimal conversion; anything else goes to printf.
 */
static void chrome_put_ts(FILE *out, double ts)
{
	char buf[TEXT_U64_MAX + 8], *p = chrome_ts_text(buf, ts);

	if (p)
		fwrite_unlocked(buf, 1, (size_t)(p - buf), out);
	else
		fprintf(out, "%.3f", ts);
}

/* The event's text after its category: "\",\"ph\":...,\"ts\":" (the timestamp apart). */
static char *chrome_event_tail(char *p, struct cf_thread *t, char ph)
{
	p = text_str(p, "\",\"ph\":\"");
	*p++ = ph;
	p = text_str(p, "\",\"pid\":");
	p = text_u64(p, t->pid);
	p = text_str(p, ",\"tid\":");
	p = text_u64(p, t->tid);
	return text_str(p, ",\"ts\":");
}

#define CHROME_NAME_INLINE 200	  /* names up to this long go into the event's one write */
#define CHROME_CAT_MAX 16	  /* categories up to this long too (cf_entry_kind_name) */

/* The most an event of the buffer takes. */
#define CHROME_EVENT_MAX (16 + CHROME_NAME_INLINE + 64 + CHROME_CAT_MAX + 3 * TEXT_U64_MAX + 16)

/* fn's name length + 1 if it goes into the buffer as it is, else UINT32_MAX. */
static uint32_t chrome_name_len(struct chrome *c, uint32_t fn, const char *name)
{
	if (fn >= c->nr_names) {
		uint32_t n = fn + 1 > 2 * c->nr_names ? fn + 1 : 2 * c->nr_names;
		uint32_t *v = realloc(c->name_len, n * sizeof(*v));

		if (!v)
			return UINT32_MAX;	/* the slow way, nothing lost */
		memset(v + c->nr_names, 0, (n - c->nr_names) * sizeof(*v));
		c->name_len = v;
		c->nr_names = n;
	}
	if (!c->name_len[fn]) {
		size_t len = strnlen(name, CHROME_NAME_INLINE + 1);

		c->name_len[fn] = len <= CHROME_NAME_INLINE && json_plain(name) ?
					  (uint32_t)len + 1 : UINT32_MAX;
	}
	return c->name_len[fn];
}

/* chrome_event_tail's text for the thread's 'B' or 'E' events at p, made once. */
static char *chrome_thread_tail(struct chrome *c, struct cf_thread *t, char *p, char ph)
{
	struct chrome_thread *ct = chrome_thread(c, t);
	int k = ph == 'E';

	if (!ct->tail_len[k])
		ct->tail_len[k] = (uint8_t)(chrome_event_tail(ct->tail[k], t, ph) - ct->tail[k]);
	/* by stores of 16 (both have the room): a few bytes, no rep movs */
	for (unsigned j = 0; j < ct->tail_len[k]; j += 16)
		memcpy(p + j, ct->tail[k] + j, 16);
	return p + ct->tail_len[k];
}

static void chrome_event(struct chrome *c, struct cf_thread *t, uint32_t fn, char ph, double ts,
			 const char *cat)
{
	const char *head = c->first ? "\n{\"name\":\"" : ",\n{\"name\":\"";
	const char *name = cf_func(c->r->cf, fn)->name;
	uint32_t len = c->buf ? chrome_name_len(c, fn, name) : UINT32_MAX;
	char buf[CHROME_EVENT_MAX], *p = buf, *e;

	c->first = false;
	chrome_thread(c, t)->wrote = true;
	if (len != UINT32_MAX && strnlen(cat, CHROME_CAT_MAX + 1) <= CHROME_CAT_MAX) {
		/* the usual event: into the buffer */
		if (c->fill + CHROME_EVENT_MAX > CHROME_BUF_SIZE)
			chrome_flush(c);
		p = text_str(c->buf + c->fill, head);
		memcpy(p, name, len - 1);
		p = text_str(p + len - 1, "\",\"cat\":\"");
		p = text_str(p, cat);
		p = ph == 'B' || ph == 'E' ? chrome_thread_tail(c, t, p, ph)
					   : chrome_event_tail(p, t, ph);
		e = chrome_ts_text(p, ts);
		if (e) {
			*e++ = '}';
			c->fill = (size_t)(e - c->buf);
			return;
		}
		/* a time printf writes: the event so far, then it */
		c->fill = (size_t)(p - c->buf);
		chrome_flush(c);
		chrome_put_ts(c->out, ts);
		putc_unlocked('}', c->out);
		return;
	}
	chrome_flush(c);
	{
		fputs_unlocked(head, c->out);
		json_chars(c->out, name);
		fputs_unlocked("\",\"cat\":\"", c->out);
		fputs_unlocked(cat, c->out);
		p = chrome_event_tail(p, t, ph);
	}
	fwrite_unlocked(buf, 1, (size_t)(p - buf), c->out);
	chrome_put_ts(c->out, ts);
	putc_unlocked('}', c->out);
}

/* B events for the frames entered before the window, at ts: the viewer sees them start there. */
static void chrome_open_below(struct chrome *c, struct cf_thread *t, uint32_t depth, double ts)
{
	struct chrome_thread *ct = chrome_thread(c, t);

	for (; ct->open < depth; ct->open++) {
		const struct cf_frame *f = cf_shown_frame(t, ct->open);

		if (fr_selected(c->r, f->fn))
			chrome_event(c, t, f->fn, 'B', ts, cf_entry_kind_name(f->kind));
	}
}

static void chrome_push(void *ctx, struct cf_thread *t, const struct cf_frame *parent,
			const struct cf_frame *f)
{
	struct chrome *c = ctx;
	struct chrome_thread *ct = chrome_thread(c, t);

	(void)parent;
	/* before the window the step that follows opens it, frames and all */
	if (ct->in_window)
		chrome_open_below(c, t, cf_shown_depth(t),
				  chrome_ts(c, t, f->entry_index, f->entry_time));
}

static void chrome_adopt(void *ctx, struct cf_thread *t, const struct cf_frame *root)
{
	struct chrome *c = ctx;
	struct chrome_thread *ct = chrome_thread(c, t);
	const struct cf_frame *old = &t->frames[1];
	double ts;

	if (!ct->open)
		return;
	/* The caller appears below an open frame: close it, open the caller, reopen it. */
	ts = chrome_ts(c, t, t->last_index + 1, 0);
	if (fr_selected(c->r, old->fn))
		chrome_event(c, t, old->fn, 'E', ts, "unmatched");
	if (fr_selected(c->r, root->fn))
		chrome_event(c, t, root->fn, 'B', ts, "unmatched");
	if (fr_selected(c->r, old->fn))
		chrome_event(c, t, old->fn, 'B', ts, "unmatched");
	ct->open++;
}

static void chrome_pop(void *ctx, struct cf_thread *t, const struct cf_frame *parent,
		       const struct cf_frame *f, const struct cf_cost *cost, enum cf_end_kind how)
{
	struct chrome *c = ctx;
	struct chrome_thread *ct = chrome_thread(c, t);

	(void)parent;
	(void)how;
	if (cf_shown_depth(t) >= ct->open)
		return;		  /* not written: entered after the window */
	ct->open = cf_shown_depth(t);
	if (fr_selected(c->r, f->fn))
		chrome_event(c, t, f->fn, 'E', chrome_ts(c, t, cost->end_index, 0),
			     cf_entry_kind_name(f->kind));
}

/*
 * Every step may bring a newer time; a thread's first step in the window
 * opens its stack, its first after the window closes it (a window of steps
 * ends the pass instead: then the end of the trace closes every frame).
 */
static void chrome_step(void *ctx, struct cf_thread *t, const struct cf_step *st)
{
	struct chrome *c = ctx;
	struct chrome_thread *ct = chrome_thread(c, t);
	bool inside = !c->windowed || session_in_window(c->r->s, st->index, st->time_ns);

	chrome_note_step(c, ct, st->index, st->time_ns);
	if (inside == ct->in_window)
		return;		  /* every step but a thread's first in the window and first after it */
	if (inside && !ct->in_window && !ct->past_window) {
		ct->in_window = true;
		chrome_open_below(c, t, cf_shown_depth(t), chrome_ts(c, t, st->index, 0));
	} else if (!inside && ct->in_window) {
		double ts = chrome_ts(c, t, st->index, 0);

		while (ct->open) {
			const struct cf_frame *f = cf_shown_frame(t, --ct->open);

			if (fr_selected(c->r, f->fn))
				chrome_event(c, t, f->fn, 'E', ts, "window end");
		}
		ct->in_window = false;
		ct->past_window = true;
	}
}

/* Steps in bulk: of one time, so the last one's index is all a later timestamp needs. */
static void chrome_bulk(void *ctx, struct cf_thread *t, const struct cf_bulk *b)
{
	struct chrome *c = ctx;
	struct chrome_thread *ct = chrome_thread(c, t);

	if (c->windowed || !ct->in_window) {
		for (uint64_t k = 0; k < b->n; k++)
			chrome_step(c, t, &(struct cf_step){ .pc = b->pc, .index = b->first + k,
							     .time_ns = b->time_ns, .ring = b->ring,
							     .site = b->site });
		return;
	}
	chrome_note_step(c, ct, b->first, b->time_ns);
	chrome_note_step(c, ct, b->first + b->n - 1, b->time_ns);
}

/* A replay walked (cf_replay_walk): its frames' events. */
struct chrome_replay {
	struct chrome *c;
	struct cf_thread *t;
	const struct cf_replay_frame *fr;
	uint64_t first, time_ns;
};

static void chrome_replay_visit(void *ctx, uint32_t k, bool push)
{
	struct chrome_replay *w = ctx;
	struct chrome *c = w->c;
	struct cf_thread *t = w->t;
	struct chrome_thread *ct = chrome_thread(c, t);
	const struct cf_replay_frame *f = &w->fr[k];
	uint32_t shown = cf_shown_depth(t);
	uint32_t depth = shown + f->depth - 1;	/* frames below it */

	if (push) {
		/* chrome_push(): the frames below it written, then it */
		if (ct->in_window) {
			double ts = chrome_ts(c, t, w->first + f->start, w->time_ns);

			chrome_open_below(c, t, depth < shown ? depth : shown, ts);
			if (ct->open == depth) {
				if (fr_selected(c->r, f->fn))
					chrome_event(c, t, f->fn, 'B', ts,
						     cf_entry_kind_name(f->kind));
				ct->open++;
			}
		}
		return;
	}
	/* chrome_pop() */
	if (depth >= ct->open)
		return;
	ct->open = depth;
	if (fr_selected(c->r, f->fn))
		chrome_event(c, t, f->fn, 'E', chrome_ts(c, t, w->first + f->cost.end_index, 0),
			     cf_entry_kind_name(f->kind));
}

/*
 * A call the engine took whole: what chrome_bulk(), chrome_push() and
 * chrome_pop() do for its steps and frames, in their order (the steps
 * before it; each frame's entry and end; its steps, of one time, need no
 * more than their last noted: every timestamp in it is of a later step).
 */
static void chrome_replay(void *ctx, struct cf_thread *t, const struct cf_replay_frame *fr,
			  uint32_t nr, const struct cf_bulk *before, const struct cf_bulk *b,
			  uint32_t *words)
{
	struct chrome *c = ctx;
	struct chrome_replay w = { .c = c, .t = t, .fr = fr, .first = b->first,
				   .time_ns = b->time_ns };

	(void)words;
	if (before)
		chrome_bulk(c, t, before);
	cf_replay_walk(fr, nr, chrome_replay_visit, &w);
	chrome_bulk(c, t, b);
}

static const struct cf_consumer_ops chrome_ops = {
	.push = chrome_push, .adopt = chrome_adopt, .pop = chrome_pop, .step = chrome_step,
	.bulk = chrome_bulk, .replay = chrome_replay,
};

struct chrome *export_chrome_new(struct flow_report *r, FILE *out, bool steps_clock)
{
	struct chrome *c = calloc(1, sizeof(*c));
	const struct session_filter *w;

	if (!c) {
		pr_err("out of memory for the Chrome export");
		return NULL;
	}
	c->r = r;
	c->out = out;
	c->buf = malloc(CHROME_BUF_SIZE);	/* without it, each event is written alone */
	c->first = true;
	c->steps_clock = steps_clock;
	w = session_filter(r->s);
	c->windowed = w->from || w->to != UINT64_MAX || w->time_from || w->time_to != UINT64_MAX;
	c->slot = cf_add_consumer(r->cf, &chrome_ops, c);
	if (c->slot < 0) {
		pr_err("too many report builders on one call flow");
		free(c);
		return NULL;
	}
	/*
	 * ts is in microseconds; the viewers show nanoseconds, and with
	 * --clock steps one nanosecond is one step, so durations read as steps.
	 */
	fprintf(out, "{\"displayTimeUnit\":\"ns\",\"otherData\":{\"clock\":\"%s\"},"
		"\"traceEvents\":[", steps_clock ? "steps: 1 ns a step" : "time");
	return c;
}

static void chrome_name(struct chrome *c, const char *what, uint32_t pid, uint32_t tid,
			const char *name)
{
	chrome_flush(c);
	fprintf(c->out, "%s\n{\"name\":\"%s\",\"ph\":\"M\",\"pid\":%u,\"tid\":%u,\"ts\":0,"
		"\"args\":{\"name\":\"", c->first ? "" : ",", what, pid, tid);
	c->first = false;
	json_chars(c->out, name);
	fputs("\"}}", c->out);
}

/* M events: each process and thread that has events by its name (comm) in the trace. */
static void chrome_names(struct chrome *c)
{
	const struct trace *t = session_trace(c->r->s);
	struct chrome_thread **v;
	size_t n = 0, k = 0;
	char buf[32];

	for (struct chrome_thread *ct = c->threads; ct; ct = ct->next)
		n++;
	v = calloc(n + 1, sizeof(*v));
	if (!v) {
		pr_err("out of memory naming the threads");
		return;
	}
	for (struct chrome_thread *ct = c->threads; ct; ct = ct->next)
		v[n - ++k] = ct;	/* in the order the threads came */
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < n; i++) {
			const char *comm = trace_comm(t, pass ? v[i]->tid : v[i]->pid);
			bool named = false;

			if (!v[i]->wrote)
				continue;
			for (size_t j = 0; j < i && !pass; j++)
				named = named || (v[j]->wrote && v[j]->pid == v[i]->pid);
			if (named)
				continue;	/* its process is named already */
			if (!comm)
				comm = trace_comm(t, v[i]->tid);
			if (!comm) {
				snprintf(buf, sizeof(buf), "%u", pass ? v[i]->tid : v[i]->pid);
				comm = buf;
			}
			chrome_name(c, pass ? "thread_name" : "process_name", v[i]->pid,
				    pass ? v[i]->tid : v[i]->pid, comm);
		}
	free(v);
}

int export_chrome_finish(struct chrome *c)
{
	chrome_flush(c);
	chrome_names(c);
	fprintf(c->out, "\n]}\n");
	return 0;
}

void export_chrome_free(struct chrome *c)
{
	if (!c)
		return;
	chrome_flush(c);
	while (c->threads) {
		struct chrome_thread *next = c->threads->next;

		free(c->threads);
		c->threads = next;
	}
	free(c->buf);
	free(c->name_len);
	free(c);
}
