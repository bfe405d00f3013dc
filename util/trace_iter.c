// SPDX-License-Identifier: GPL-2.0
/* The events of a trace in the order they happened: its step streams merged, task records in place. */
#define PR_FMT "reader"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "log.h"
#include "stepcodec.h"
#include "trace_reader.h"

struct iter_stream {
	struct stream_reader *r;
	const struct trace_stream_info *info;
	uint32_t pid, tid;
	uint8_t ring;
	uint64_t time_ns;
	uint64_t key;		  /* seq (per-thread) or time (per-CPU) it resumes at */
	bool done;
	bool has_pending;	  /* the record it stopped at, applied when resumed */
	unsigned pending_type;
	uint8_t pending[64];
	size_t pending_len;
};

struct trace_iter {
	struct trace *t;
	struct iter_stream *s;
	size_t n;
	struct iter_stream *cur;
	bool by_time;		  /* per-CPU streams: merge by time */
	size_t next_task;
	uint64_t index;		  /* steps returned so far */
	uint64_t counted;	  /* the sum of the COUNT records returned so far */
	struct trace_event held;  /* the next stream event, once looked at */
	int held_state;		  /* 0 none, 1 held, 2 streams exhausted */
	bool failed;
};

/* Merging keeps every stream open: a program with many threads needs many fds. */
static void raise_fd_limit(size_t need)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) < 0 || rl.rlim_cur >= need + 64)
		return;
	rl.rlim_cur = rl.rlim_max == RLIM_INFINITY || rl.rlim_max > need + 64 ? need + 64
									       : rl.rlim_max;
	if (setrlimit(RLIMIT_NOFILE, &rl) < 0)
		pr_dbg("cannot raise the open file limit to %zu: %s", need + 64, strerror(errno));
}

struct trace_iter *trace_iter_new(struct trace *t)
{
	struct trace_iter *it = calloc(1, sizeof(*it));

	if (!it)
		return NULL;
	raise_fd_limit(trace_nr_streams(t));
	it->t = t;
	it->n = trace_nr_streams(t);
	it->s = calloc(it->n ? it->n : 1, sizeof(*it->s));
	if (!it->s)
		goto err;
	for (size_t i = 0; i < it->n; i++) {
		struct iter_stream *s = &it->s[i];

		s->info = trace_stream(t, i);
		if (s->info->per_cpu)
			it->by_time = true;
		s->r = trace_stream_open(t, i);
		if (!s->r)
			goto err;
		if (!s->info->per_cpu) {
			s->tid = s->info->id;
			s->pid = trace_pid_of(t, s->tid);
			if (!s->pid)
				s->pid = s->tid;
		}
	}
	return it;
err:
	trace_iter_free(it);
	return NULL;
}

void trace_iter_free(struct trace_iter *it)
{
	if (!it)
		return;
	for (size_t i = 0; i < it->n && it->s; i++)
		stream_reader_close(it->s[i].r);
	free(it->s);
	free(it);
}

int trace_async_decode(const uint8_t *payload, size_t len, struct trace_async *out)
{
	struct ctl_cursor c = { payload, payload + len };
	uint64_t ring = 0;

	memset(out, 0, sizeof(*out));
	if (ctl_get_uleb(&c, &out->kind) < 0 || ctl_get_uleb(&c, &out->number) < 0)
		return -1;
	/* v3 detail, all or nothing; anything after it is from a newer writer */
	if (ctl_get_uleb(&c, &ring) == 0 && ctl_get_u64(&c, &out->pc) == 0 &&
	    ctl_get_u64(&c, &out->address) == 0 && ctl_get_uleb(&c, &out->error) == 0) {
		out->detail = true;
		out->ring = ring <= PT_ASYNC_RING_UNKNOWN ? (uint8_t)ring : PT_ASYNC_RING_UNKNOWN;
	} else {
		out->pc = out->address = out->error = 0;
	}
	return 0;
}

const char *trace_async_kind_name(uint64_t kind)
{
	static const char *const names[] = {
		[PT_ASYNC_SIGNAL] = "signal",	    [PT_ASYNC_SIGRETURN] = "sigreturn",
		[PT_ASYNC_INTERRUPT] = "interrupt", [PT_ASYNC_EXCEPTION] = "exception",
		[PT_ASYNC_IRQ] = "irq",
	};

	return kind < sizeof(names) / sizeof(names[0]) && names[kind] ? names[kind] : "unknown";
}

/* Does this record end a run of the stream (so another stream may go next)? */
static bool is_boundary(const struct trace_iter *it, unsigned type)
{
	return type == PT_CTL_SWITCH || (it->by_time && type == PT_CTL_TIME);
}

static uint64_t boundary_key(const struct trace_iter *it, const struct step_item *si)
{
	struct ctl_cursor c = { si->payload, si->payload + si->payload_len };
	uint64_t v = 0, seq = 0, time = 0;

	if (si->ctl_type == PT_CTL_SWITCH) {
		ctl_get_uleb(&c, &v);
		ctl_get_uleb(&c, &v);
	}
	ctl_get_u64(&c, &time);
	ctl_get_uleb(&c, &seq);
	return it->by_time ? time : seq;
}

static void fill_event(const struct iter_stream *s, struct trace_event *ev,
		       enum trace_ev_kind kind, uint64_t index)
{
	memset(ev, 0, sizeof(*ev));
	ev->kind = kind;
	ev->pid = s->pid;
	ev->tid = s->tid;
	ev->cpu = s->info->per_cpu ? s->info->id : UINT32_MAX;
	ev->ring = s->ring;
	ev->index = index;
	ev->time_ns = s->time_ns;
}

/*
 * Apply one control record to its stream; returns 1 if it becomes an event
 * in *ev, 0 if it only changes state.
 */
static int apply_ctl(struct trace_iter *it, struct iter_stream *s, unsigned type,
		     const uint8_t *payload, size_t len, struct trace_event *ev)
{
	struct ctl_cursor c = { payload, payload + len };
	uint64_t a = 0, b = 0;
	uint8_t ring;

	switch (type) {
	case PT_CTL_SWITCH:
		ctl_get_uleb(&c, &a);
		ctl_get_uleb(&c, &b);
		s->pid = (uint32_t)a;
		s->tid = (uint32_t)b;
		if (ctl_get_u64(&c, &a) == 0)
			s->time_ns = a;
		fill_event(s, ev, TEV_SWITCH, it->index);
		return 1;
	case PT_CTL_TIME:
		if (ctl_get_u64(&c, &a) == 0)
			s->time_ns = a;
		return 0;
	case PT_CTL_RING:
		if (ctl_get_u8(&c, &ring) == 0)
			s->ring = ring;
		return 0;
	case PT_CTL_ON:
	case PT_CTL_OFF:
		if (ctl_get_u64(&c, &a) == 0)
			s->time_ns = a;
		fill_event(s, ev, type == PT_CTL_ON ? TEV_ON : TEV_OFF, it->index);
		return 1;
	case PT_CTL_ASYNC:
		fill_event(s, ev, TEV_ASYNC, it->index);
		trace_async_decode(payload, len, &ev->async);
		ev->a = ev->async.kind;
		ev->b = ev->async.number;
		return 1;
	case PT_CTL_GAP:
	case PT_CTL_LOST:
	case PT_CTL_COUNT:
		ctl_get_uleb(&c, &a);
		if (type == PT_CTL_COUNT)
			it->counted += a;
		fill_event(s, ev, type == PT_CTL_GAP ? TEV_GAP : type == PT_CTL_LOST ? TEV_LOST
										   : TEV_COUNT,
			   it->index);
		ev->a = a;
		return 1;
	default:
		/*
		 * CHECK, END, types newer than this reader, and the driver's FORK,
		 * EXEC and EXIT (v2): those mark where the collector put a TIME;
		 * the tasks file carries the same events with the mappings in
		 * order, so passing them on would only repeat them (and an EXEC
		 * after its own new mappings would make consumers drop those).
		 */
		return 0;
	}
}

/* Pick the stream that goes next: the lowest key, first in stream order on ties. */
static struct iter_stream *pick_stream(struct trace_iter *it)
{
	struct iter_stream *best = NULL;

	for (size_t i = 0; i < it->n; i++) {
		struct iter_stream *s = &it->s[i];

		if (s->done)
			continue;
		if (!best || s->key < best->key)
			best = s;
	}
	return best;
}

/* The next event from the streams: 1 event, 0 all streams ended, -1 error. */
static int next_stream_event(struct trace_iter *it, struct trace_event *ev)
{
	for (;;) {
		struct iter_stream *s = it->cur;
		struct step_item si;
		int r;

		if (!s) {
			s = it->cur = pick_stream(it);
			if (!s)
				return 0;
			if (s->has_pending) {
				s->has_pending = false;
				if (!it->by_time && s->pending_type == PT_CTL_SWITCH &&
				    s->key != it->index)
					pr_dbg("%s: resumes at seq %llu, %llu steps merged so far",
					       s->info->name, (unsigned long long)s->key,
					       (unsigned long long)it->index);
				if (apply_ctl(it, s, s->pending_type, s->pending, s->pending_len,
					      ev))
					return 1;
			}
		}
		r = stream_reader_next(s->r, &si, NULL);
		if (r < 0)
			return -1;
		if (r == 0) {
			s->done = true;
			it->cur = NULL;
			continue;
		}
		if (si.kind == STEP_ITEM_STEP) {
			fill_event(s, ev, TEV_STEP, it->index++);
			ev->pc = si.pc;
			return 1;
		}
		if (is_boundary(it, si.ctl_type) && si.payload_len <= sizeof(s->pending)) {
			/* park: another stream may hold the steps that come first */
			s->has_pending = true;
			s->pending_type = si.ctl_type;
			memcpy(s->pending, si.payload, si.payload_len);
			s->pending_len = si.payload_len;
			s->key = boundary_key(it, &si);
			it->cur = NULL;
			continue;
		}
		if (apply_ctl(it, s, si.ctl_type, si.payload, si.payload_len, ev))
			return 1;
	}
}

static bool task_due(const struct trace_task_rec *task, const struct trace_event *next)
{
	/* Before the step it precedes; a control record at the same place (an
	 * OFF after a thread's last step, before its EXIT) comes first. */
	if (task->c.seq != PT_SEQ_NONE)
		return task->c.seq < next->index ||
		       (task->c.seq == next->index && next->kind == TEV_STEP);
	return next->time_ns && task->c.time_ns <= next->time_ns;
}

/*
 * Every stream read through: in a complete trace of version 6, the
 * header's TOTALS must count what they hold.  0, or -1 after an error
 * (with --force a warning).
 */
static int check_totals(struct trace_iter *it)
{
	const struct trace_info *in = trace_info(it->t);
	bool with_counted, force = trace_force(it->t);
	uint64_t steps = in->totals.steps, counted = in->totals.counted;
	char what[160];

	if (in->version < PT_FORMAT_CHECKED || trace_cut_short(it->t) ||
	    !trace_totals(it->t, &with_counted))
		return 0;
	for (size_t i = 0; i < it->n; i++)
		if (stream_reader_damage(it->s[i].r))
			return 0;	/* --force read part of a stream */
	if (steps == it->index && (!with_counted || counted == it->counted))
		return 0;
	if (steps == it->index)
		snprintf(what, sizeof(what), "TOTALS counts %llu steps in COUNT records, the "
			 "streams hold %llu", (unsigned long long)counted,
			 (unsigned long long)it->counted);
	else
		snprintf(what, sizeof(what), "TOTALS counts %llu steps, the streams hold %llu",
			 (unsigned long long)steps, (unsigned long long)it->index);
	if (force)
		pr_warn("%s/%s: %s", trace_dir(it->t), PT_FILE_HEADER, what);
	else
		pr_err("%s/%s: %s (--force reads them as they are)", trace_dir(it->t),
		       PT_FILE_HEADER, what);
	return force ? 0 : -1;
}

int trace_next(struct trace_iter *it, struct trace_event *ev)
{
	if (it->failed)
		return -1;
	if (it->held_state == 0) {
		int r = next_stream_event(it, &it->held);

		if (r == 0 && check_totals(it) < 0)
			r = -1;
		if (r < 0) {
			it->failed = true;
			return -1;
		}
		it->held_state = r ? 1 : 2;
	}
	if (it->next_task < trace_nr_tasks(it->t)) {
		const struct trace_task_rec *task = &trace_tasks(it->t)[it->next_task];

		if (it->held_state == 2 || task_due(task, &it->held)) {
			memset(ev, 0, sizeof(*ev));
			ev->kind = TEV_TASK;
			ev->pid = task->c.pid;
			ev->tid = task->c.tid;
			ev->cpu = UINT32_MAX;
			ev->index = it->held_state == 1 ? it->held.index : it->index;
			ev->time_ns = task->c.time_ns;
			ev->task = task;
			it->next_task++;
			return 1;
		}
	}
	if (it->held_state == 2)
		return 0;
	*ev = it->held;
	it->held_state = 0;
	return 1;
}
