// SPDX-License-Identifier: GPL-2.0
/*
 * Merging a trace's step streams into one ordered sequence (trace_reader.h:
 * trace_iter): per-thread streams by sequence number, per-CPU streams by
 * time, task records at their places.  The streams are decoded ahead by
 * trace_decode.c, on every core; the merge takes their records in order,
 * so the sequence is the same whatever the number of threads.
 */
#define PR_FMT "trace"
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "util/log.h"
#include "util/restore.h"
#include "util/stepcodec.h"
#include "util/trace_decode.h"
#include "util/trace_reader.h"

struct iter_stream {
	const struct trace_stream_info *info;
	uint32_t pid, tid;
	uint8_t ring;
	uint64_t time_ns;
	uint64_t key;		  /* seq (per-thread) or time (per-CPU) it resumes at */
	bool done;
	bool started;		  /* a record of it was read */
	bool waiting;		  /* followed: nothing more on disk, its next record
				   * (a SWITCH, or END) is placed at key or later */
	bool polling;		  /* followed: picked to see if it has more */
	bool has_pending;	  /* the record it stopped at, applied when resumed */
	unsigned pending_type;
	uint8_t pending[64];
	size_t pending_len;
	const struct dec_chunk *c; /* its records, decoded: the current chunk */
	struct stream_reader *r;  /* its reader (the decoder's): damage, once it ended */
	size_t item, step;	  /* the next record in it, the next step of a run */
	bool damage_reached;	  /* --force: the merge came to its damage, its end */
};

/*
 * A run of one thread's steps: decoded (pcs) or as encoded (bytes mode:
 * with the interrupts, irqs and exceptions between its steps, in evs).
 */
struct iter_run {
	const uint64_t *pcs;
	struct step_bytes sb;
	size_t n;
	struct run_event *evs;	  /* in trace_iter.ievs */
	size_t nr_evs;
};

struct trace_iter {
	struct trace *t;
	struct trace_decoder *dec;
	struct iter_stream *s;
	size_t n;
	struct iter_stream *cur;
	bool by_time;		  /* per-CPU streams: merge by time */
	bool follow;		  /* a recording followed (trace_follow_limit) */
	uint64_t limit;		  /* ... every record placed before this step is on disk
				   * (by_time: every run starting before this time) */
	size_t next_task;
	uint64_t index;		  /* steps merged so far */
	uint64_t counted;	  /* the sum of the COUNT records merged so far */
	uint64_t total_bytes;
	bool bytes;		  /* bytes mode (trace_next_bytes) */
	struct run_event *ievs;	  /* bytes mode: the held run's events between its steps */
	size_t ievs_cap;
	struct trace_event held;  /* the next stream event, once looked at */
	struct iter_run held_run; /* its steps (a run) */
	int held_state;		  /* 0 none, 1 held, 2 streams exhausted */
	bool failed;
	bool damage_said;	  /* the streams' damage was reported (once for all) */
	struct trace_event run;	  /* trace_next: the run it gives a step at a time */
	const uint64_t *run_pcs;
	size_t run_n, run_k;
	/* late step traps (trace_iter_restore) */
	struct restorer *rs;
	struct last_step *last;	  /* per thread: its last user step handed out */
	size_t nr_last, cap_last;
	bool kept;		  /* kept_ev/kept_run come next, checked again */
	struct trace_event kept_ev;
	struct iter_run kept_run;
	uint64_t shift;		  /* restored steps handed out: added to every index after */
	uint64_t restored, late_gaps;
	uint64_t restored_pc;	  /* the restored step handed out, as a run */
	uint8_t restored_enc[PT_STEP_MAX_BYTES + STEP_BYTES_SLACK];
};

/* A thread's last user step, the one its next is checked against (0: none). */
struct last_step {
	uint32_t tid;
	uint64_t pc;
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

/* Stream i of the trace as it->s[i]: its reader, or NULL (said). */
static struct stream_reader *stream_init(struct trace_iter *it, size_t i)
{
	struct iter_stream *s = &it->s[i];

	s->info = trace_stream(it->t, i);
	it->total_bytes += s->info->file_size;
	if (s->info->per_cpu)
		it->by_time = true;
	s->r = trace_stream_open(it->t, i);
	if (!s->info->per_cpu) {
		s->tid = s->info->id;
		s->pid = trace_pid_of(it->t, s->tid);
		if (!s->pid)
			s->pid = s->tid;
	}
	return s->r;
}

/* The streams the recorder made since (trace_follow_refresh), after the others. */
static int add_streams(struct trace_iter *it)
{
	size_t n = trace_nr_streams(it->t), cur = it->cur ? (size_t)(it->cur - it->s) : 0;
	struct iter_stream *s;

	if (n == it->n)
		return 0;
	raise_fd_limit(n);
	s = realloc(it->s, n * sizeof(*s));
	if (!s) {
		pr_err("out of memory following the recording's new threads");
		return -1;
	}
	memset(s + it->n, 0, (n - it->n) * sizeof(*s));
	if (it->cur)
		it->cur = &s[cur];
	it->s = s;
	for (; it->n < n; it->n++) {
		struct stream_reader *r = stream_init(it, it->n);

		if (!r || decoder_add(it->dec, r) < 0)
			return -1;
		pr_dbg("following %s too", it->s[it->n].info->name);
	}
	return 0;
}

/*
 * Following a recording, the merge cannot tell yet what comes next: wait
 * for the recorder, take what it added.  0, or -1 after an error (said).
 */
static int follow_wait(struct trace_iter *it)
{
	if (trace_follow_refresh(it->t) < 0 || add_streams(it) < 0)
		return -1;
	it->limit = trace_follow_limit(it->t);
	if (it->limit == UINT64_MAX) {
		/* over: the streams are read to their end, as a finished trace's */
		it->follow = false;
		decoder_set_poll(it->dec, false);
	}
	return 0;
}

struct trace_iter *trace_iter_new(struct trace *t)
{
	return trace_iter_new_threads(t, 0);
}

struct trace_iter *trace_iter_new_threads(struct trace *t, unsigned threads)
{
	return trace_iter_new_mode(t, threads, false);
}

struct trace_iter *trace_iter_new_mode(struct trace *t, unsigned threads, bool bytes)
{
	struct trace_iter *it = calloc(1, sizeof(*it));
	struct stream_reader **r = NULL;

	if (!it)
		return NULL;
	raise_fd_limit(trace_nr_streams(t));
	it->t = t;
	it->bytes = bytes;
	it->n = trace_nr_streams(t);
	it->s = calloc(it->n ? it->n : 1, sizeof(*it->s));
	r = calloc(it->n ? it->n : 1, sizeof(*r));
	if (!it->s || !r)
		goto err;
	for (size_t i = 0; i < it->n; i++) {
		r[i] = stream_init(it, i);
		if (!r[i])
			goto err;
	}
	it->limit = trace_follow_limit(t);
	it->follow = it->limit != UINT64_MAX;
	if (it->follow && trace_follow_by_time(t))
		it->by_time = true;	/* (its per-CPU streams may not be there yet) */
	if (it->follow)
		threads = 1;	/* streams come and go on the merge's thread */
	it->dec = decoder_new(r, it->n, threads ? threads : decoder_default_threads(), bytes);
	if (!it->dec)
		goto err;
	decoder_set_poll(it->dec, it->follow);
	free(r);
	return it;
err:
	for (size_t i = 0; r && !it->dec && i < it->n; i++)
		stream_reader_close(r[i]);
	free(r);
	trace_iter_free(it);
	return NULL;
}

/*
 * Damaged streams, said in one line however many there are (a trace with
 * 49 of them gave 49 lines): the first, and how many more; -v lists each.
 * With --force, the streams whose damage the merge came to (each ended
 * there); without, the one it failed at, and every stream found damaged
 * once the decoders have gone as far ahead as they go (whatever their
 * number and timing).
 */
static void report_damage(struct trace_iter *it, const struct iter_stream *failed)
{
	bool force = trace_forced(it->t);
	const struct iter_stream *first = failed;
	size_t n = 0;

	if (it->damage_said || (failed && !stream_reader_damage(failed->r)))
		return;	/* said (an I/O error, out of memory: by whoever met it) */
	it->damage_said = true;
	if (failed)
		decoder_settle(it->dec);
	for (size_t i = 0; i < it->n; i++) {
		const struct iter_stream *s = &it->s[i];

		if (!stream_reader_damage(s->r) || (!failed && !s->damage_reached))
			continue;
		if (!first)
			first = s;
		n++;
	}
	if (!n)
		return;
	for (size_t i = 0; n > 1 && i < it->n; i++)
		if (stream_reader_damage(it->s[i].r) && (failed || it->s[i].damage_reached))
			pr_dbg("%s: %s", it->s[i].info->path, stream_reader_damage(it->s[i].r));
	trace_say_stream_damage(first->info->path, stream_reader_damage(first->r), n - 1, force);
}

void trace_iter_free(struct trace_iter *it)
{
	if (!it)
		return;
	if (it->dec && !it->failed)
		report_damage(it, NULL);	/* a reader that stopped before the end */
	decoder_free(it->dec);
	free(it->s);
	free(it->ievs);
	free(it->last);
	restorer_free(it->rs);
	free(it);
}

uint64_t trace_iter_bytes(const struct trace_iter *it)
{
	uint64_t b = 0;

	for (size_t i = 0; i < it->n; i++)
		if (it->s[i].c)
			b += it->s[i].c->offset;
	return b < it->total_bytes ? b : it->total_bytes;
}

uint64_t trace_iter_total_bytes(const struct trace_iter *it)
{
	return it->total_bytes;
}

/* Does this record end a run of the stream (so another stream may go next)? */
static bool is_boundary(const struct trace_iter *it, unsigned type)
{
	return type == PT_CTL_SWITCH || (it->by_time && type == PT_CTL_TIME);
}

static uint64_t boundary_key(const struct trace_iter *it, unsigned type, const uint8_t *payload,
			     size_t len)
{
	struct ctl_cursor c = { payload, payload + len };
	uint64_t v = 0, seq = 0, time = 0;

	if (type == PT_CTL_SWITCH) {
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
	case PT_CTL_NATIVE: {
		uint64_t kind = 0, pc = 0, end = 0, flags = 0, count = 0;

		if (ctl_get_uleb(&c, &kind) < 0 || ctl_get_u64(&c, &pc) < 0 ||
		    ctl_get_u64(&c, &end) < 0)
			return 0;
		ctl_get_uleb(&c, &flags);
		ctl_get_uleb(&c, &count);
		fill_event(s, ev, TEV_NATIVE, it->index);
		ev->pc = pc;
		ev->end = end;
		ev->a = flags;
		ev->b = count;
		return 1;
	}
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

/* The first step's pc of a run as encoded. */
static uint64_t first_pc(const struct step_bytes *sb)
{
	uint64_t pc = sb->base_pc;

	step_next_pc(sb->b, sb->b + sb->len, &pc);
	return pc;
}

/* A run's events between its steps (dec_event), as events at their indexes, into run->evs. */
static int inner_events(struct trace_iter *it, const struct iter_stream *s,
			const struct dec_item *item, struct iter_run *run)
{
	if (item->nr_evs > it->ievs_cap) {
		size_t cap = it->ievs_cap ? 2 * it->ievs_cap : 64;
		struct run_event *e;

		while (cap < item->nr_evs)
			cap *= 2;
		e = realloc(it->ievs, cap * sizeof(*e));
		if (!e) {
			pr_err("out of memory merging the streams");
			return -1;
		}
		it->ievs = e;
		it->ievs_cap = cap;
	}
	for (uint32_t k = 0; k < item->nr_evs; k++) {
		const struct dec_event *d = &s->c->evs[item->ev0 + k];
		struct run_event *r = &it->ievs[k];
		struct trace_event *e = &r->ev;

		fill_event(s, e, TEV_ASYNC, it->index + d->at);
		trace_async_decode(s->c->payload + d->off, d->len, &e->async);
		e->a = e->async.kind;
		e->b = e->async.number;
		r->at = d->at;
		r->off = d->boff;
		r->pc = d->pc;
	}
	run->evs = it->ievs;
	run->nr_evs = item->nr_evs;
	return 0;
}

/* On a tie: a stream waiting for more (it may hold the key), else the first in stream order. */
static bool goes_before(const struct iter_stream *a, const struct iter_stream *b)
{
	if (a->waiting != b->waiting)
		return a->waiting;
	if (a->info->per_cpu != b->info->per_cpu)
		return b->info->per_cpu;
	return a->info->id < b->info->id;
}

/* Pick the stream that goes next: the lowest key, first in stream order on ties. */
static struct iter_stream *pick_stream(struct trace_iter *it)
{
	struct iter_stream *best = NULL;

	for (size_t i = 0; i < it->n; i++) {
		struct iter_stream *s = &it->s[i];

		if (s->done)
			continue;
		if (!best || s->key < best->key || (s->key == best->key && goes_before(s, best)))
			best = s;
	}
	return best;
}

/*
 * The stream's next record: 1 with *item, 0 the stream ended, -1 it failed,
 * DEC_PAUSED (followed) nothing more on disk yet.
 */
static int stream_item(struct trace_iter *it, struct iter_stream *s, const struct dec_item **item)
{
	while (!s->c || s->item == s->c->nr_items) {
		if (s->c && s->c->status <= 0)
			return s->c->status;
		s->c = decoder_next(it->dec, (size_t)(s - it->s));
		s->item = s->step = 0;
		if (s->c->status == DEC_PAUSED)
			return DEC_PAUSED;
	}
	s->started = true;
	s->polling = false;
	*item = &s->c->items[s->item];
	return 1;
}

/*
 * Followed, stream s (it->cur) has nothing more on disk: 1 when it waits
 * aside (another stream goes on), 0 when the merge must wait for the
 * recorder.  Every record placed before it->limit is on disk, so s's next
 * one is placed at the limit or later; one placed where the merge is would
 * come next, so while the merge is at the limit, s goes on.  A stream
 * picked to see (polling) has its next record a SWITCH or END, placed no
 * sooner than the merge is: it waits aside if that tells more than before.
 * By time (per-CPU streams): s's run goes on unless it began before the
 * limit; then its next record starts a run at the limit or later.
 */
static int stream_paused(struct trace_iter *it, struct iter_stream *s)
{
	uint64_t bound = it->limit > it->index ? it->limit : it->index;

	if (it->by_time) {
		if (!s->polling && s->key >= it->limit)
			return 0;
		bound = it->limit;
	} else if (!s->polling && it->index >= it->limit) {
		return 0;
	}
	if (s->polling && s->waiting && bound <= s->key)
		return 0;
	s->waiting = true;
	s->polling = false;
	s->key = bound;
	it->cur = NULL;
	return 1;
}

/* The next event from the streams (a run of steps in *run): 1, 0 at the end, -1 error. */
static int next_stream_event(struct trace_iter *it, struct trace_event *ev, struct iter_run *run)
{
	run->n = 0;
	for (;;) {
		struct iter_stream *s = it->cur;
		const struct dec_item *item;
		const uint8_t *payload;
		int r;

		if (!s) {
			s = pick_stream(it);
			if (it->follow && (!s || (s->has_pending && s->key >= it->limit))) {
				/* a stream not on disk yet may hold records placed before */
				if (follow_wait(it) < 0)
					return -1;
				continue;
			}
			if (!s)
				return 0;
			it->cur = s;
			if (!s->started || s->waiting) {
				s->polling = true;	/* what comes next, if it is there */
			} else if (s->has_pending) {
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
		r = stream_item(it, s, &item);
		if (r == DEC_PAUSED) {
			if (it->follow && !stream_paused(it, s) && follow_wait(it) < 0)
				return -1;
			continue;
		}
		s->waiting = false;
		if (r < 0) {
			report_damage(it, s);
			return -1;
		}
		if (r == 0) {
			s->damage_reached = stream_reader_damage(s->r) != NULL;
			s->done = true;
			it->cur = NULL;
			continue;
		}
		if (item->ctl_type == DEC_STEPS) {
			fill_event(s, ev, TEV_STEP, it->index);
			run->pcs = s->c->pcs + item->off + s->step;
			run->n = item->n - s->step;
			ev->pc = run->pcs[0];
			it->index += run->n;
			s->item++;
			s->step = 0;
			return 1;
		}
		if (item->ctl_type == DEC_BYTES) {
			fill_event(s, ev, TEV_STEP, it->index);
			run->sb = (struct step_bytes){ s->c->bytes + item->off, item->len, item->n,
						       item->base_pc, item->end_pc };
			run->n = item->n;
			run->evs = NULL;
			run->nr_evs = 0;
			if (item->nr_evs && inner_events(it, s, item, run) < 0)
				return -1;
			ev->pc = first_pc(&run->sb);
			it->index += run->n;
			s->item++;
			return 1;
		}
		s->item++;
		payload = s->c->payload + item->off;
		if (is_boundary(it, item->ctl_type) && item->n <= sizeof(s->pending)) {
			/* park: another stream may hold the steps that come first */
			s->has_pending = true;
			s->pending_type = item->ctl_type;
			memcpy(s->pending, payload, item->n);
			s->pending_len = item->n;
			s->key = boundary_key(it, item->ctl_type, payload, item->n);
			it->cur = NULL;
			continue;
		}
		if (apply_ctl(it, s, item->ctl_type, payload, item->n, ev))
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
	bool with_counted, force = trace_forced(it->t);
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

/*
 * The first k steps (0 < k < its length) of the run hev, h go to ev, run;
 * hev, h keep the rest.  Bytes mode: an event between the run's steps
 * before step k goes with the first part, at its end.
 */
static void split_run(const struct trace_iter *it, struct trace_event *hev, struct iter_run *h,
		      size_t k, struct trace_event *ev, struct iter_run *run)
{
	uint64_t at = hev->index + k;

	*ev = *hev;
	run->n = k;
	if (it->bytes) {
		size_t e = 0;

		while (e < h->nr_evs && h->evs[e].ev.index <= at)
			e++;
		if (e && h->evs[e - 1].ev.index == at)
			step_bytes_cut(&h->sb, k, h->evs[e - 1].off, h->evs[e - 1].pc, &run->sb,
				       &h->sb);
		else
			step_bytes_split(&h->sb, k, &run->sb, &h->sb);
		hev->pc = first_pc(&h->sb);
		run->evs = h->evs;
		run->nr_evs = e;
		for (size_t j = e; j < h->nr_evs; j++) {
			h->evs[j].off -= run->sb.len;	/* the rest's own */
			h->evs[j].at -= k;
		}
		if (e) {	/* (evs may be NULL: no events) */
			h->evs += e;
			h->nr_evs -= e;
		}
	} else {
		run->pcs = h->pcs;
		h->pcs += k;
		hev->pc = h->pcs[0];
	}
	hev->index += k;
	h->n -= k;
}

/*
 * Followed: are the task records that may go before the held event (or
 * inside its run of steps, up to the limit) all on disk?  Those of a seq
 * below the limit are; by time, those of a time below it (a task goes
 * before an event of its time or later).
 */
static bool held_ready(const struct trace_iter *it)
{
	if (it->by_time)
		return it->held.time_ns < it->limit;
	if (it->held.kind == TEV_STEP)
		return it->held.index < it->limit;
	return it->held.index <= it->limit;
}

/* The next event as the streams and tasks have it, a run of steps in *run. */
static int next_event_raw(struct trace_iter *it, struct trace_event *ev, struct iter_run *run)
{
	run->n = 0;
	if (it->failed)
		return -1;
again:
	if (it->held_state == 0) {
		int r = next_stream_event(it, &it->held, &it->held_run);

		if (r == 0)
			report_damage(it, NULL);
		if (r == 0 && check_totals(it) < 0)
			r = -1;
		if (r < 0) {
			it->failed = true;
			return -1;
		}
		it->held_state = r ? 1 : 2;
	}
	if (it->follow && it->held_state == 1 && !held_ready(it)) {
		if (follow_wait(it) < 0) {
			it->failed = true;
			return -1;
		}
		goto again;
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
		if (it->held.kind == TEV_STEP && task->c.seq != PT_SEQ_NONE &&
		    task->c.seq < it->held.index + it->held_run.n) {
			/* the task comes before step seq: the run up to there first */
			split_run(it, &it->held, &it->held_run,
				  (size_t)(task->c.seq - it->held.index), ev, run);
			return 1;
		}
	}
	if (it->held_state == 2)
		return 0;
	if (it->follow && !it->by_time && it->held.kind == TEV_STEP &&
	    it->held.index + it->held_run.n > it->limit) {
		/* a task placed inside the rest may not be on disk yet */
		split_run(it, &it->held, &it->held_run, (size_t)(it->limit - it->held.index), ev,
			  run);
		return 1;
	}
	*ev = it->held;
	*run = it->held_run;
	it->held_state = 0;
	return 1;
}

/* ---- late step traps (restore.h) ---- */

void trace_iter_restore(struct trace_iter *it, struct restorer *rs)
{
	restorer_free(it->rs);
	it->rs = rs;
}

void trace_iter_restored(const struct trace_iter *it, uint64_t *restored, uint64_t *gaps)
{
	*restored = it->restored;
	*gaps = it->late_gaps;
}

static struct last_step *last_of(struct trace_iter *it, uint32_t tid, bool make)
{
	for (size_t i = 0; i < it->nr_last; i++)
		if (it->last[i].tid == tid)
			return &it->last[i];
	if (!make)
		return NULL;
	if (it->nr_last == it->cap_last) {
		size_t cap = it->cap_last ? 2 * it->cap_last : 16;
		struct last_step *l = realloc(it->last, cap * sizeof(*l));

		if (!l)
			return NULL;	/* that thread goes unchecked */
		it->last = l;
		it->cap_last = cap;
	}
	it->last[it->nr_last] = (struct last_step){ tid, 0 };
	return &it->last[it->nr_last++];
}

/* The thread's next step is checked against nothing: the flow broke here. */
static void forget_last(struct trace_iter *it, uint32_t tid)
{
	struct last_step *l = last_of(it, tid, false);

	if (l)
		l->pc = 0;
}

/* Whatever came between a thread's steps: is its next step still checked against its last? */
static void restore_note_event(struct trace_iter *it, const struct trace_event *ev)
{
	if (ev->kind == TEV_TASK) {
		restorer_task(it->rs, ev->task);
		if (ev->task->type != PT_TASK_EXEC)
			return;
	} else if (ev->kind == TEV_SWITCH ||
		   (ev->kind == TEV_ASYNC && pt_async_is_info(ev->async.kind))) {
		return;		/* the flow goes on */
	}
	/* a signal, a gap, lost steps, recording off, a new program; kernel steps */
	forget_last(it, ev->tid);
}

/* The run's step k's pc; bytes mode decodes as it goes (*b, *pc: where it is). */
static uint64_t run_pc(const struct trace_iter *it, const struct iter_run *run, size_t k,
		       const uint8_t **b, uint64_t *pc)
{
	if (!it->bytes)
		return run->pcs[k];
	*b += step_next_pc(*b, run->sb.b + run->sb.len, pc);
	return *pc;
}

/* The step a late trap skipped, before the kept run: ev, run (a run of one). */
static void restored_step(struct trace_iter *it, uint64_t prev, uint64_t pc,
			  struct trace_event *ev, struct iter_run *run)
{
	*ev = it->kept_ev;
	ev->pc = pc;
	memset(run, 0, sizeof(*run));
	run->n = 1;
	it->restored_pc = pc;
	run->pcs = &it->restored_pc;
	if (it->bytes) {
		memset(it->restored_enc, 0, sizeof(it->restored_enc));
		run->sb = (struct step_bytes){ it->restored_enc, 0, 1, prev, pc };
		run->sb.len = step_bytes_encode(&it->restored_pc, 1, prev, it->restored_enc);
	}
	it->restored++;
}

/*
 * The kept run, checked from its thread's last step on: up to a skip (the
 * rest stays kept), or the restored step or GAP before it, or all of it.
 */
static void restore_run(struct trace_iter *it, struct trace_event *ev, struct iter_run *run)
{
	struct last_step *l = last_of(it, it->kept_ev.tid, true);
	uint64_t prev = l ? l->pc : 0, pc = it->kept_run.sb.base_pc, missing = 0;
	const uint8_t *b = it->kept_run.sb.b;
	size_t n = it->kept_run.n;

	for (size_t k = 0; k < n; k++) {
		uint64_t cur = run_pc(it, &it->kept_run, k, &b, &pc);
		enum restore_verdict v = prev ? restorer_check(it->rs, it->kept_ev.pid, prev, cur,
							       &missing)
					      : RESTORE_NONE;

		if (v != RESTORE_NONE && k) {
			split_run(it, &it->kept_ev, &it->kept_run, k, ev, run);
			l->pc = prev;
			return;
		}
		if (v == RESTORE_ONE) {
			restored_step(it, prev, missing, ev, run);
			l->pc = missing;
			return;
		}
		if (v == RESTORE_GAP) {
			*ev = it->kept_ev;
			ev->kind = TEV_GAP;
			ev->a = PT_GAP_LATE_TRAP;
			memset(run, 0, sizeof(*run));
			it->late_gaps++;
			l->pc = 0;
			return;
		}
		prev = cur;
	}
	*ev = it->kept_ev;
	*run = it->kept_run;
	it->kept = false;
	if (l)
		l->pc = prev;
}

/* The next event with late step traps restored, indexes as they then are. */
static int next_event_restored(struct trace_iter *it, struct trace_event *ev,
			       struct iter_run *run)
{
	uint64_t shift = it->shift;

	if (!it->kept) {
		int r = next_event_raw(it, ev, run);

		if (r != 1)
			return r;
		if (ev->kind != TEV_STEP || !run->n || ev->ring) {
			restore_note_event(it, ev);	/* (user steps only are checked) */
			goto out;
		}
		it->kept_ev = *ev;
		it->kept_run = *run;
		it->kept = true;
	}
	restore_run(it, ev, run);
	if (ev->kind == TEV_STEP && run->pcs == &it->restored_pc)
		it->shift++;	/* the kept run comes one step later */
out:
	ev->index += shift;
	for (size_t k = 0; it->bytes && ev->kind == TEV_STEP && k < run->nr_evs; k++)
		run->evs[k].ev.index += shift;
	return 1;
}

/* The next event, a run of steps in *run: trace_next_run and trace_next_bytes. */
static int next_event(struct trace_iter *it, struct trace_event *ev, struct iter_run *run)
{
	return it->rs ? next_event_restored(it, ev, run) : next_event_raw(it, ev, run);
}

int trace_next_run(struct trace_iter *it, struct trace_event *ev, const uint64_t **pcs,
		   size_t *n)
{
	struct iter_run run;
	int r;

	if (it->bytes) {
		pr_err("internal error: trace_next_run on an iterator of encoded steps");
		return -1;
	}
	r = next_event(it, ev, &run);
	*pcs = run.pcs;
	*n = run.n;
	return r;
}

int trace_next_bytes(struct trace_iter *it, struct trace_event *ev, struct step_bytes *sb,
		     const struct run_event **evs, size_t *nr_evs)
{
	struct iter_run run;
	int r;

	*evs = NULL;
	*nr_evs = 0;
	if (!it->bytes) {
		pr_err("internal error: trace_next_bytes on an iterator of decoded steps");
		return -1;
	}
	r = next_event(it, ev, &run);
	if (r == 1 && ev->kind == TEV_STEP) {
		*sb = run.sb;
		*evs = run.evs;
		*nr_evs = run.nr_evs;
	} else {
		memset(sb, 0, sizeof(*sb));
	}
	return r;
}

void trace_run_parts(const struct step_bytes *sb, const struct run_event *evs, size_t nr_evs,
		     void (*part)(void *ctx, size_t at, uint64_t pc, const struct step_bytes *p),
		     void (*event)(void *ctx, const struct trace_event *ev), void *ctx)
{
	size_t at = 0, off = 0;
	uint64_t base = sb->base_pc;

	for (size_t k = 0; k <= nr_evs; k++) {
		size_t end_at = k < nr_evs ? evs[k].at : sb->steps;
		size_t end_off = k < nr_evs ? evs[k].off : sb->len;
		uint64_t end_pc = k < nr_evs ? evs[k].pc : sb->end_pc;
		struct step_bytes p = { sb->b + off, end_off - off, end_at - at, base, end_pc };

		if (p.steps)
			part(ctx, at, first_pc(&p), &p);
		if (k < nr_evs)
			event(ctx, &evs[k].ev);
		at = end_at;
		off = end_off;
		base = end_pc;
	}
}

int trace_next(struct trace_iter *it, struct trace_event *ev)
{
	if (it->run_k < it->run_n) {
		*ev = it->run;
		ev->pc = it->run_pcs[it->run_k];
		ev->index += it->run_k++;
		return 1;
	}
	for (;;) {
		int r = trace_next_run(it, ev, &it->run_pcs, &it->run_n);

		if (r <= 0 || ev->kind != TEV_STEP) {
			it->run_n = it->run_k = 0;
			return r;
		}
		if (!it->run_n)
			continue;
		it->run = *ev;
		it->run_k = 1;
		return 1;
	}
}
