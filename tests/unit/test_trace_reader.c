// SPDX-License-Identifier: GPL-2.0
/* The trace reader: writer-to-reader round trips, merge order, damage and version checks. */
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/log.h"
#include "util/stepcodec.h"
#include "util/trace_reader.h"
#include "util/trace_writer.h"
#include "tests/unit/unit.h"

#define MAX_THREADS 4

/* A run of one thread in a schedule: n steps of tid, then maybe a task record. */
struct run {
	uint32_t tid;
	unsigned steps;
	bool mmap_after;	  /* an MMAP task record at the seq after the run */
};

static const struct {
	const char *what;
	struct run runs[8];
	size_t nr_runs;
} schedules[] = {
	{ "one thread", { { 100, 50, true } }, 1 },
	{ "two threads alternating",
	  { { 100, 10, false }, { 101, 5, true }, { 100, 3, false }, { 101, 7, false } }, 4 },
	{ "three threads, one run long enough for several CHECK blocks",
	  { { 100, 3, true }, { 102, 200000, false }, { 101, 1, true }, { 100, 2, false },
	    { 102, 4, false } }, 5 },
	{ "a thread whose stream has a lower id runs last",
	  { { 200, 20, false }, { 150, 20, true } }, 2 },
};

static char *scratch(const char *name)
{
	static char path[4][256];
	static int k;
	char *p = path[k++ % 4];

	snprintf(p, sizeof(path[0]), "%s/%s", unit_tmpdir(), name);
	return p;
}

/* The pc of step k of thread tid: distinct per thread, with short and long deltas. */
static uint64_t pc_of(uint32_t tid, uint64_t k)
{
	return 0x400000ull + (uint64_t)tid * 0x100000ull + (k % 97) * 3 +
	       (k % 1000 == 999 ? 0x80000 : 0);
}

/* A COMM record naming thread tid, as recorders write for every thread they trace. */
static void name_thread(struct trace_writer *tw, uint32_t pid, uint32_t tid, uint64_t seq)
{
	struct pt_task_comm c = { .c = { .time_ns = 0, .seq = seq, .pid = pid, .tid = tid } };

	tw_task(tw, PT_TASK_COMM, &c, sizeof(c), "test");
}

static struct tw_stream *stream_for(struct trace_writer *tw, struct tw_stream **streams,
				    uint32_t *tids, uint32_t tid)
{
	for (int i = 0; i < MAX_THREADS; i++) {
		if (tids[i] == tid)
			return streams[i];
		if (!tids[i]) {
			tids[i] = tid;
			name_thread(tw, 1, tid, tw_total_steps(tw));
			streams[i] = tw_stream_open(tw, false, tid);
			return streams[i];
		}
	}
	return NULL;
}

static void mmap_task(struct trace_writer *tw, uint32_t pid, uint64_t seq, uint64_t start)
{
	struct pt_task_mmap m = { .c = { .time_ns = 0, .seq = seq, .pid = pid },
				  .start = start, .len = 0x1000, .prot = 5 };

	tw_task(tw, PT_TASK_MMAP, &m, sizeof(m), "/lib/test.so");
}

static void write_schedule(const char *dir, size_t s, bool compress)
{
	struct tw_options o = { .compress = compress };
	struct trace_writer *tw = tw_open(dir, &o);
	struct tw_stream *streams[MAX_THREADS] = { 0 };
	uint32_t tids[MAX_THREADS] = { 0 };
	uint64_t done[1024] = { 0 };	  /* steps so far per tid - 100 .. */

	CU_ASSERT_PTR_NOT_NULL_FATAL(tw);
	for (size_t r = 0; r < schedules[s].nr_runs; r++) {
		const struct run *run = &schedules[s].runs[r];
		struct tw_stream *st = stream_for(tw, streams, tids, run->tid);

		CU_ASSERT_PTR_NOT_NULL_FATAL(st);
		tw_switch(st, 1, run->tid, 1000 + r, tw_total_steps(tw));
		for (unsigned k = 0; k < run->steps; k++)
			tw_step(st, pc_of(run->tid, done[run->tid - 100]++));
		if (run->mmap_after)
			mmap_task(tw, 1, tw_total_steps(tw), 0x10000 * (r + 1));
	}
	for (int i = 0; i < MAX_THREADS; i++)
		if (streams[i])
			CU_ASSERT_EQUAL(tw_stream_close(streams[i]), 0);
	CU_ASSERT_EQUAL(tw_close(tw, "complete"), 0);
}

static void check_schedule(const char *dir, size_t s)
{
	struct trace *t = trace_open(dir);
	struct trace_iter *it;
	struct trace_event ev;
	uint64_t done[1024] = { 0 }, index = 0, tasks = 0;
	size_t r = 0;
	unsigned in_run = 0;
	int ret;

	CU_ASSERT_PTR_NOT_NULL_FATAL(t);
	it = trace_iter_new(t);
	CU_ASSERT_PTR_NOT_NULL_FATAL(it);
	while ((ret = trace_next(it, &ev)) == 1) {
		if (ev.kind == TEV_TASK && ev.task->type == PT_TASK_COMM)
			continue;	/* a thread's name, before its first run */
		if (ev.kind == TEV_TASK) {
			/* placed right after the run that the writer put it after */
			CU_ASSERT(r > 0 && schedules[s].runs[r - 1].mmap_after && in_run == 0);
			CU_ASSERT_EQUAL(ev.task->c.seq, index);
			tasks++;
			continue;
		}
		if (ev.kind != TEV_STEP)
			continue;
		while (r < schedules[s].nr_runs && in_run == schedules[s].runs[r].steps) {
			r++;
			in_run = 0;
		}
		if (r == schedules[s].nr_runs) {
			CU_FAIL("more steps than written");
			break;
		}
		CU_ASSERT_EQUAL(ev.tid, schedules[s].runs[r].tid);
		CU_ASSERT_EQUAL(ev.pid, 1);
		CU_ASSERT_EQUAL(ev.index, index);
		CU_ASSERT_EQUAL(ev.pc, pc_of(ev.tid, done[ev.tid - 100]++));
		if (ev.pc != pc_of(ev.tid, done[ev.tid - 100] - 1) ||
		    ev.tid != schedules[s].runs[r].tid)
			break;	/* one message is enough */
		index++;
		if (++in_run == schedules[s].runs[r].steps) {
			r++;
			in_run = 0;
		}
	}
	CU_ASSERT_EQUAL(ret, 0);
	{
		uint64_t want = 0, want_tasks = 0;

		for (size_t k = 0; k < schedules[s].nr_runs; k++) {
			want += schedules[s].runs[k].steps;
			want_tasks += schedules[s].runs[k].mmap_after;
		}
		CU_ASSERT_EQUAL(index, want);
		CU_ASSERT_EQUAL(tasks, want_tasks);
		CU_ASSERT_EQUAL(trace_info(t)->totals.steps, want);
	}
	trace_iter_free(it);
	trace_close(t);
}

static void test_roundtrip_order(void)
{
	for (int z = 0; z < 2; z++) {
		for (size_t s = 0; s < sizeof(schedules) / sizeof(schedules[0]); s++) {
			char name[64];

			snprintf(name, sizeof(name), "order-%zu-%d", s, z);
			write_schedule(scratch(name), s, z);
			check_schedule(scratch(name), s);
		}
	}
}

/* Control records come out as events, in place, with their fields. */
static void test_control_events(void)
{
	static const struct {
		enum trace_ev_kind kind;
		uint64_t a, b;
	} want[] = {
		{ TEV_SWITCH, 0, 0 }, { TEV_STEP, 0, 0 }, { TEV_ASYNC, PT_ASYNC_SIGNAL, 11 },
		{ TEV_STEP, 0, 0 }, { TEV_GAP, PT_GAP_DETACH, 0 },
		{ TEV_NATIVE, PT_NATIVE_RETURNED | PT_NATIVE_COUNTED, 17 },
		{ TEV_GAP, PT_GAP_NATIVE, 0 }, { TEV_LOST, 42, 0 },
		{ TEV_OFF, 0, 0 }, { TEV_ON, 0, 0 }, { TEV_STEP, 0, 0 }, { TEV_STEP, 0, 0 },
	};
	const char *dir = scratch("ctl");
	struct trace_writer *tw = tw_open(dir, NULL);
	struct tw_stream *st;
	struct trace *t;
	struct trace_iter *it;
	struct trace_event ev;
	size_t n = 0;

	CU_ASSERT_PTR_NOT_NULL_FATAL(tw);
	name_thread(tw, 7, 7, 0);
	st = tw_stream_open(tw, false, 7);
	tw_switch(st, 7, 7, 5000, 0);
	tw_step(st, 0x1000);
	tw_async(st, PT_ASYNC_SIGNAL, 11);
	tw_step(st, 0x2000);
	tw_gap(st, PT_GAP_DETACH);
	tw_native(st, PT_NATIVE_VDSO, 0x7000, 0x2005, PT_NATIVE_RETURNED | PT_NATIVE_COUNTED, 17);
	tw_lost(st, 42);
	tw_onoff(st, false, 6000);
	tw_onoff(st, true, 7000);
	tw_time(st, 8000, 2);
	tw_ring(st, 1);
	tw_step(st, 0xffffffff81000000ull);
	tw_ring(st, 0);
	tw_step(st, 0x2002);
	tw_stream_close(st);
	tw_close(tw, "complete");

	t = trace_open(dir);
	CU_ASSERT_PTR_NOT_NULL_FATAL(t);
	CU_ASSERT_EQUAL(trace_info(t)->totals.lost, 42);
	/* a header without END_REASON (older writers): an empty string, never NULL */
	CU_ASSERT_STRING_EQUAL(trace_info(t)->end_reason, "");
	it = trace_iter_new(t);
	while (trace_next(it, &ev) == 1 && n < sizeof(want) / sizeof(want[0])) {
		if (ev.kind == TEV_TASK)
			continue;	/* the thread's name */
		CU_ASSERT_EQUAL(ev.kind, want[n].kind);
		if (want[n].kind == TEV_ASYNC || want[n].kind == TEV_GAP ||
		    want[n].kind == TEV_LOST || want[n].kind == TEV_NATIVE) {
			CU_ASSERT_EQUAL(ev.a, want[n].a);
			CU_ASSERT_EQUAL(ev.b, want[n].b);
		}
		if (ev.kind == TEV_OFF)
			CU_ASSERT_EQUAL(ev.time_ns, 6000);
		if (ev.kind == TEV_NATIVE)
			CU_ASSERT_EQUAL(ev.pc, 0x7000);
		if (n == 10) {	  /* the kernel step: after TIME and RING 1 */
			CU_ASSERT_EQUAL(ev.pc, 0xffffffff81000000ull);
			CU_ASSERT_EQUAL(ev.ring, 1);
			CU_ASSERT_EQUAL(ev.time_ns, 8000);
		}
		if (n == 11) {
			CU_ASSERT_EQUAL(ev.pc, 0x2002);
			CU_ASSERT_EQUAL(ev.ring, 0);
			CU_ASSERT_EQUAL(ev.index, 3);
		}
		n++;
	}
	CU_ASSERT_EQUAL(n, sizeof(want) / sizeof(want[0]));
	CU_ASSERT_EQUAL(trace_next(it, &ev), 0);
	trace_iter_free(it);
	trace_close(t);
}

/* Header attributes and task-derived thread names survive the round trip. */
static void test_header_and_tasks(void)
{
	const char *dir = scratch("attrs");
	struct trace_writer *tw = tw_open(dir, NULL);
	struct pt_task_fork f = { .c = { .seq = 0, .pid = 10, .tid = 10 }, .ppid = 1, .ptid = 1 };
	struct pt_task_exec e = { .c = { .seq = 0, .pid = 10, .tid = 10 } };
	struct pt_task_fork th = { .c = { .seq = 0, .pid = 10, .tid = 11 }, .ppid = 10, .ptid = 10,
				   .flags = PT_FORK_THREAD };
	struct pt_task_comm c = { .c = { .seq = 0, .pid = 10, .tid = 11 } };
	struct pt_attr_time start = { 1700000000000000000ull, 5 };
	const struct trace_info *in;
	struct trace *t;
	static const char argv[] = "/bin/echo\0hello world";

	CU_ASSERT_PTR_NOT_NULL_FATAL(tw);
	tw_set_attr_str(tw, PT_ATTR_ARCH, "x86_64");
	tw_set_attr_str(tw, PT_ATTR_BACKEND, "ptrace");
	tw_set_attr(tw, PT_ATTR_CMDLINE, argv, sizeof(argv));
	tw_set_attr(tw, PT_ATTR_START_TIME, &start, sizeof(start));
	tw_set_attr_str(tw, PT_ATTR_NOTE, "first note");
	tw_set_attr_str(tw, PT_ATTR_NOTE, "second note");
	tw_set_attr_str(tw, PT_ATTR_END_REASON, PT_END_MAX_STEPS);
	tw_task(tw, PT_TASK_FORK, &f, sizeof(f), NULL);
	tw_task(tw, PT_TASK_EXEC, &e, sizeof(e), "/usr/bin/echo");
	tw_task(tw, PT_TASK_FORK, &th, sizeof(th), NULL);
	tw_task(tw, PT_TASK_COMM, &c, sizeof(c), "worker");
	tw_close(tw, "interrupted");

	t = trace_open(dir);
	CU_ASSERT_PTR_NOT_NULL_FATAL(t);
	in = trace_info(t);
	CU_ASSERT_STRING_EQUAL(in->arch, "x86_64");
	CU_ASSERT_STRING_EQUAL(in->backend, "ptrace");
	CU_ASSERT_STRING_EQUAL(in->mode, "");
	CU_ASSERT_STRING_EQUAL(in->state, "interrupted");
	CU_ASSERT_STRING_EQUAL(in->end_reason, "max-steps");
	CU_ASSERT_STRING_EQUAL(in->argv[0], "/bin/echo");
	CU_ASSERT_STRING_EQUAL(in->argv[1], "hello world");
	CU_ASSERT_PTR_NULL(in->argv[2]);
	CU_ASSERT_STRING_EQUAL(in->notes[1], "second note");
	CU_ASSERT_PTR_NULL(in->on_symbols[0]);
	CU_ASSERT_EQUAL(in->start.realtime_ns, start.realtime_ns);
	CU_ASSERT_EQUAL(trace_nr_tasks(t), 4);
	CU_ASSERT_STRING_EQUAL(trace_tasks(t)[1].str, "/usr/bin/echo");
	CU_ASSERT_STRING_EQUAL(trace_comm(t, 10), "echo");
	CU_ASSERT_STRING_EQUAL(trace_comm(t, 11), "worker");
	CU_ASSERT_EQUAL(trace_pid_of(t, 11), 10);
	CU_ASSERT_PTR_NULL(trace_comm(t, 12));
	trace_close(t);
}

static void *read_whole(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	void *buf;

	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	*len = (size_t)ftell(f);
	rewind(f);
	buf = malloc(*len + 1);
	if (fread(buf, 1, *len, f) != *len) {
		free(buf);
		buf = NULL;
	}
	fclose(f);
	return buf;
}

static void write_whole(const char *path, const void *buf, size_t len)
{
	FILE *f = fopen(path, "wb");

	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	CU_ASSERT_EQUAL(fwrite(buf, 1, len, f), len);
	fclose(f);
}

/* Read a whole stream file: 1 read to the clean end, 0 stopped at damage (force), -1 error.
 * *steps counts the steps read, *sum (when not NULL) hashes their addresses. */
static int drain_stream_sum(const char *path, bool force, uint64_t *steps, uint64_t *sum)
{
	struct stream_reader *r;
	struct step_item si;
	int ret;
	int saved = dup(2), devnull = open("/dev/null", O_WRONLY);

	/* the expected error messages would drown the test output */
	dup2(devnull, 2);
	*steps = 0;
	r = stream_reader_open(path);
	if (!r) {
		ret = -1;
		goto out;
	}
	stream_reader_set_force(r, force);
	if (sum)
		*sum = 0;
	while ((ret = stream_reader_next(r, &si, NULL)) == 1) {
		*steps += si.kind == STEP_ITEM_STEP;
		if (sum && si.kind == STEP_ITEM_STEP)
			*sum = *sum * 1000003 + si.pc;
	}
	stream_reader_close(r);
out:
	dup2(saved, 2);
	close(saved);
	close(devnull);
	return ret;
}

static int drain_stream(const char *path, bool force, uint64_t *steps)
{
	return drain_stream_sum(path, force, steps, NULL);
}

static const struct {
	const char *what;
	unsigned steps;
	bool compress;
	size_t cut_step;	  /* test every n-th cut position */
} damage_cases[] = {
	{ "small stream, plain", 300, false, 1 },
	{ "small stream, zstd", 300, true, 1 },
	{ "three CHECK blocks, plain", 150000, false, 211 },
	{ "three CHECK blocks, zstd", 150000, true, 7 },
};

static void write_one_stream(const char *dir, unsigned steps, bool compress)
{
	struct tw_options o = { .compress = compress };
	struct trace_writer *tw = tw_open(dir, &o);
	struct tw_stream *st;

	CU_ASSERT_PTR_NOT_NULL_FATAL(tw);
	name_thread(tw, 1, 1, 0);
	st = tw_stream_open(tw, false, 1);
	tw_switch(st, 1, 1, 0, 0);
	for (unsigned k = 0; k < steps; k++)
		tw_step(st, pc_of(1, k));
	tw_stream_close(st);
	tw_close(tw, "complete");
}

static void test_truncation_detected(void)
{
	for (size_t c = 0; c < sizeof(damage_cases) / sizeof(damage_cases[0]); c++) {
		char name[64], path[300], cut_path[320];
		uint8_t *buf;
		size_t len;
		uint64_t steps;

		snprintf(name, sizeof(name), "trunc-%zu", c);
		write_one_stream(scratch(name), damage_cases[c].steps, damage_cases[c].compress);
		snprintf(path, sizeof(path), "%s/steps.t1", scratch(name));
		snprintf(cut_path, sizeof(cut_path), "%s/cut", scratch(name));
		buf = read_whole(path, &len);
		CU_ASSERT_PTR_NOT_NULL_FATAL(buf);
		CU_ASSERT_EQUAL(drain_stream(path, false, &steps), 0);
		CU_ASSERT_EQUAL(steps, damage_cases[c].steps);
		for (size_t cut = 0; cut < len; cut += damage_cases[c].cut_step) {
			uint64_t force_steps;

			write_whole(cut_path, buf, cut);
			if (drain_stream(cut_path, false, &steps) != -1) {
				fprintf(stderr, "%s: cut at %zu of %zu not detected\n",
					damage_cases[c].what, cut, len);
				CU_FAIL("truncation not detected");
				break;
			}
			/* --force: no error, and never more steps than were written
			 * (all of them when only the END block's tail is cut) */
			if (cut >= sizeof(struct pt_file_header)) {
				CU_ASSERT_EQUAL(drain_stream(cut_path, true, &force_steps), 0);
				CU_ASSERT(force_steps <= damage_cases[c].steps);
			}
		}
		free(buf);
	}
}

static void test_corruption_detected(void)
{
	for (size_t c = 0; c < sizeof(damage_cases) / sizeof(damage_cases[0]); c++) {
		char name[64], path[300], bad_path[320];
		uint8_t *buf;
		size_t len, missed = 0, tried = 0;
		uint64_t steps, want_sum, sum;

		snprintf(name, sizeof(name), "flip-%zu", c);
		write_one_stream(scratch(name), damage_cases[c].steps, damage_cases[c].compress);
		snprintf(path, sizeof(path), "%s/steps.t1", scratch(name));
		snprintf(bad_path, sizeof(bad_path), "%s/bad", scratch(name));
		buf = read_whole(path, &len);
		CU_ASSERT_PTR_NOT_NULL_FATAL(buf);
		CU_ASSERT_EQUAL(drain_stream_sum(path, false, &steps, &want_sum), 0);
		for (size_t pos = sizeof(struct pt_file_header); pos < len;
		     pos += damage_cases[c].cut_step * 3) {
			buf[pos] ^= 0x10;
			write_whole(bad_path, buf, len);
			buf[pos] ^= 0x10;
			tried++;
			/* A zstd bit the decoder never reads changes nothing; any
			 * flip that changes a step must be an error. */
			if (drain_stream_sum(bad_path, false, &steps, &sum) != -1 &&
			    (steps != damage_cases[c].steps || sum != want_sum)) {
				missed++;
				fprintf(stderr, "%s: flip at %zu of %zu not detected\n",
					damage_cases[c].what, pos, len);
			}
		}
		CU_ASSERT(tried > 0);
		CU_ASSERT_EQUAL(missed, 0);
		free(buf);
	}
}

/* One row a way a header file can be unreadable. */
static const struct {
	const char *what;
	size_t offset;		  /* byte to overwrite (or length to cut to, if cut) */
	uint8_t value;
	bool cut;
} bad_headers[] = {
	{ "bad magic", 0, 'X', false },
	{ "big-endian writer", 8, PT_ENDIAN_BIG, false },
	{ "not a header file", 9, PT_KIND_STEPS, false },
	{ "min_reader newer than this reader", 12, PT_FORMAT_VERSION + 1, false },
	{ "file header cut short", 20, 0, true },
	{ "empty header file", 0, 0, true },
	{ "attribute record cut short", sizeof(struct pt_file_header) + 5, 0, true },
};

static void test_bad_header_refused(void)
{
	const char *dir = scratch("badhdr");
	struct trace *ok;
	char path[300];
	uint8_t *buf;
	size_t len;
	int saved = dup(2), devnull = open("/dev/null", O_WRONLY);

	write_one_stream(dir, 10, false);
	snprintf(path, sizeof(path), "%s/header", dir);
	buf = read_whole(path, &len);
	CU_ASSERT_PTR_NOT_NULL_FATAL(buf);
	for (size_t b = 0; b < sizeof(bad_headers) / sizeof(bad_headers[0]); b++) {
		struct trace *t;

		if (bad_headers[b].cut) {
			write_whole(path, buf, bad_headers[b].offset);
		} else {
			uint8_t old = buf[bad_headers[b].offset];

			buf[bad_headers[b].offset] = bad_headers[b].value;
			write_whole(path, buf, len);
			buf[bad_headers[b].offset] = old;
		}
		dup2(devnull, 2);
		t = trace_open(dir);
		dup2(saved, 2);
		if (t)
			fprintf(stderr, "%s: accepted\n", bad_headers[b].what);
		CU_ASSERT_PTR_NULL(t);
		trace_close(t);
	}
	write_whole(path, buf, len);
	ok = trace_open(dir);	  /* restored: readable again */
	CU_ASSERT_PTR_NOT_NULL(ok);
	trace_close(ok);
	dup2(devnull, 2);
	CU_ASSERT_PTR_NULL(trace_open(scratch("no-such-dir")));
	dup2(saved, 2);
	close(saved);
	close(devnull);
	free(buf);
}

/* A newer stream file (min_reader) is refused even when the header is fine. */
static void test_newer_stream_refused(void)
{
	const char *dir = scratch("newstream");
	char path[300];
	uint8_t *buf;
	size_t len;
	uint64_t steps;

	write_one_stream(dir, 10, false);
	snprintf(path, sizeof(path), "%s/steps.t1", dir);
	buf = read_whole(path, &len);
	CU_ASSERT_PTR_NOT_NULL_FATAL(buf);
	buf[offsetof(struct pt_file_header, min_reader)] = PT_FORMAT_VERSION + 1;
	write_whole(path, buf, len);
	CU_ASSERT_EQUAL(drain_stream(path, false, &steps), -1);
	free(buf);
}

/* A tasks file whose last record is cut short: an error, or read up to it with force. */
static void test_truncated_tasks(void)
{
	const char *dir = scratch("trunctasks");
	struct trace_writer *tw = tw_open(dir, NULL);
	struct pt_task_exec e = { .c = { .seq = 0, .pid = 10, .tid = 10 } };
	char path[300];
	uint8_t *buf;
	size_t len;
	struct trace *t;
	int saved = dup(2), devnull = open("/dev/null", O_WRONLY);

	CU_ASSERT_PTR_NOT_NULL_FATAL(tw);
	tw_task(tw, PT_TASK_EXEC, &e, sizeof(e), "/bin/a");
	tw_task(tw, PT_TASK_EXEC, &e, sizeof(e), "/bin/b");
	tw_close(tw, "complete");
	snprintf(path, sizeof(path), "%s/tasks", dir);
	buf = read_whole(path, &len);
	CU_ASSERT_PTR_NOT_NULL_FATAL(buf);
	write_whole(path, buf, len - 3);
	dup2(devnull, 2);
	t = trace_open(dir);
	CU_ASSERT_PTR_NULL(t);
	t = trace_open_flags(dir, TRACE_OPEN_FORCE);
	dup2(saved, 2);
	CU_ASSERT_PTR_NOT_NULL_FATAL(t);
	CU_ASSERT_EQUAL(trace_nr_tasks(t), 1);
	trace_close(t);
	close(saved);
	close(devnull);
	free(buf);
}

/*
 * Per-CPU streams merge by time: each CPU's runs start with a SWITCH or TIME
 * record, and a task record without seq goes before the first step at or
 * after its time.
 */
static void test_per_cpu_time_order(void)
{
	static const struct {
		uint32_t cpu, tid;
		uint64_t time;
		unsigned steps;
		bool time_only;	  /* TIME instead of SWITCH */
	} runs[] = {
		{ 1, 20, 100, 3, false }, { 0, 21, 150, 2, false }, { 1, 20, 200, 4, true },
		{ 0, 22, 250, 1, false }, { 0, 22, 300, 2, true }, { 1, 23, 400, 5, false },
	};
	const char *dir = scratch("percpu");
	struct trace_writer *tw = tw_open(dir, NULL);
	struct tw_stream *st[2];
	struct pt_task_comm c = {
		.c = { .time_ns = 260, .seq = PT_SEQ_NONE, .pid = 22, .tid = 22 }
	};
	struct trace *t;
	struct trace_iter *it;
	struct trace_event ev;
	size_t r = 0;
	unsigned in_run = 0, steps = 0;
	bool task_seen = false;

	CU_ASSERT_PTR_NOT_NULL_FATAL(tw);
	st[0] = tw_stream_open(tw, true, 0);
	st[1] = tw_stream_open(tw, true, 1);
	for (uint32_t tid = 20; tid <= 23; tid++)
		name_thread(tw, tid, tid, PT_SEQ_NONE);
	tw_task(tw, PT_TASK_COMM, &c, sizeof(c), "late");
	for (size_t k = 0; k < sizeof(runs) / sizeof(runs[0]); k++) {
		struct tw_stream *s = st[runs[k].cpu];

		if (runs[k].time_only)
			tw_time(s, runs[k].time, PT_SEQ_NONE);
		else
			tw_switch(s, runs[k].tid, runs[k].tid, runs[k].time, PT_SEQ_NONE);
		for (unsigned n = 0; n < runs[k].steps; n++)
			tw_step(s, 0x1000 * runs[k].tid + n);
	}
	tw_stream_close(st[0]);
	tw_stream_close(st[1]);
	tw_close(tw, "complete");

	t = trace_open(dir);
	CU_ASSERT_PTR_NOT_NULL_FATAL(t);
	CU_ASSERT_PTR_NOT_NULL_FATAL(it = trace_iter_new(t));
	while (trace_next(it, &ev) == 1) {
		if (ev.kind == TEV_TASK && strcmp(ev.task->str, "late"))
			continue;	/* the threads' names, at time 0 */
		if (ev.kind == TEV_TASK) {
			/* time 260: after the run at 250, before the one at 300 */
			CU_ASSERT_EQUAL(r, 4);
			CU_ASSERT_EQUAL(in_run, 0);
			task_seen = true;
			continue;
		}
		if (ev.kind != TEV_STEP)
			continue;
		CU_ASSERT_FATAL(r < sizeof(runs) / sizeof(runs[0]));
		CU_ASSERT_EQUAL(ev.cpu, runs[r].cpu);
		CU_ASSERT_EQUAL(ev.tid, runs[r].tid);
		CU_ASSERT_EQUAL(ev.time_ns, runs[r].time);
		CU_ASSERT_EQUAL(ev.pc, 0x1000 * runs[r].tid + in_run);
		CU_ASSERT_EQUAL(ev.index, steps);
		steps++;
		if (++in_run == runs[r].steps) {
			r++;
			in_run = 0;
		}
	}
	CU_ASSERT_EQUAL(r, sizeof(runs) / sizeof(runs[0]));
	CU_ASSERT(task_seen);
	trace_iter_free(it);
	trace_close(t);
}

/*
 * Format v2: the driver's FORK, EXEC and EXIT records inside a per-CPU
 * stream are not task events (the tasks file has those, mappings in order);
 * the steps around them come out unchanged.
 */
static void test_stream_task_records(void)
{
	const char *dir = scratch("streamtasks");
	struct trace_writer *tw = tw_open(dir, NULL);
	struct tw_stream *st;
	struct ctl_payload fork = { .len = 0 }, exec = { .len = 0 }, exit = { .len = 0 };
	static const char path[] = "/usr/bin/new";
	struct trace *t;
	struct trace_iter *it;
	struct trace_event ev;
	unsigned seen = 0;

	CU_ASSERT_PTR_NOT_NULL_FATAL(tw);
	name_thread(tw, 30, 30, PT_SEQ_NONE);
	name_thread(tw, 31, 31, PT_SEQ_NONE);	/* perf's FORK record, in a real trace */
	st = tw_stream_open(tw, true, 0);
	ctl_put_uleb(&fork, 31); ctl_put_uleb(&fork, 31); ctl_put_uleb(&fork, 30);
	ctl_put_uleb(&fork, 30); ctl_put_uleb(&fork, 0); ctl_put_u64(&fork, 100);
	ctl_put_uleb(&exec, 31); ctl_put_uleb(&exec, 31); ctl_put_uleb(&exec, 31);
	ctl_put_u64(&exec, 200);
	memcpy(exec.buf + exec.len, path, strlen(path));
	exec.len += strlen(path);
	ctl_put_uleb(&exit, 31); ctl_put_uleb(&exit, 31); ctl_put_uleb(&exit, 256);
	ctl_put_uleb(&exit, 1); ctl_put_u64(&exit, 300);
	tw_switch(st, 30, 30, 50, PT_SEQ_NONE);
	tw_ctl(st, PT_CTL_FORK, &fork);
	tw_switch(st, 31, 31, 150, PT_SEQ_NONE);
	tw_ctl(st, PT_CTL_EXEC, &exec);
	tw_step(st, 0x401000);
	tw_ctl(st, PT_CTL_EXIT, &exit);
	tw_stream_close(st);
	tw_close(tw, "complete");

	t = trace_open(dir);
	CU_ASSERT_PTR_NOT_NULL_FATAL(t);
	CU_ASSERT_PTR_NOT_NULL_FATAL(it = trace_iter_new(t));
	while (trace_next(it, &ev) == 1) {
		/* the threads' names only, nothing from the stream's records */
		CU_ASSERT(ev.kind != TEV_TASK || ev.task->type == PT_TASK_COMM);
		if (ev.kind == TEV_STEP) {
			CU_ASSERT_EQUAL(ev.pc, 0x401000);
			CU_ASSERT_EQUAL(ev.tid, 31);
			seen++;
		}
	}
	CU_ASSERT_EQUAL(seen, 1);
	trace_iter_free(it);
	trace_close(t);
}


/*
 * One event of a trace flattened (a run's steps one by one), for comparing
 * the decoded and the encoded ways of reading it.
 */
struct flat_ev {
	enum trace_ev_kind kind;
	uint32_t pid, tid, cpu;
	uint8_t ring;
	uint64_t pc, index, time_ns, a, b;
};

/* Every event of dir, runs of steps one by one: read decoded or as encoded. */
static size_t flatten(const char *dir, bool bytes, struct flat_ev **out)
{
	struct trace *t = trace_open(dir);
	struct trace_iter *it;
	struct trace_event ev;
	size_t n = 0, cap = 1024;
	struct flat_ev *f = malloc(cap * sizeof(*f));
	int r;

	CU_ASSERT_PTR_NOT_NULL_FATAL(t);
	it = trace_iter_new_mode(t, 2, bytes);
	CU_ASSERT_PTR_NOT_NULL_FATAL(it);
	for (;;) {
		const uint64_t *pcs = NULL;
		const struct run_event *evs = NULL;
		struct step_bytes sb;
		const uint8_t *sb_start;
		size_t steps = 0, nr_evs = 0, e = 0;
		uint64_t pc, run_first_pc = 0;

		r = bytes ? trace_next_bytes(it, &ev, &sb, &evs, &nr_evs) :
			    trace_next_run(it, &ev, &pcs, &steps);
		if (r != 1)
			break;
		if (bytes && ev.kind == TEV_STEP)
			steps = sb.steps;
		sb_start = bytes ? sb.b : NULL;
		pc = bytes ? sb.base_pc : 0;
		for (size_t k = 0; k < (ev.kind == TEV_STEP ? steps : 1); k++) {
			/* the events between a run's steps, each before the step it says */
			for (; e < nr_evs && evs[e].at == k; e++) {
				const struct trace_event *x = &evs[e].ev;

				if (n == cap)
					f = realloc(f, (cap *= 2) * sizeof(*f));
				CU_ASSERT_EQUAL(evs[e].pc, pc);
				CU_ASSERT_EQUAL(evs[e].off, (size_t)(sb.b - sb_start));
				f[n++] = (struct flat_ev){ x->kind, x->pid, x->tid, x->cpu,
							   x->ring, 0, x->index, x->time_ns,
							   x->a, x->b };
			}
			if (n == cap)
				f = realloc(f, (cap *= 2) * sizeof(*f));
			f[n] = (struct flat_ev){ ev.kind, ev.pid, ev.tid, ev.cpu, ev.ring, 0,
						 ev.index + k, ev.time_ns, ev.a, ev.b };
			if (ev.kind == TEV_STEP && bytes) {
				size_t used = step_next_pc(sb.b, sb.b + sb.len, &pc);

				CU_ASSERT_FATAL(used > 0);
				sb.b += used;
				sb.len -= used;
				f[n].pc = pc;
			} else if (ev.kind == TEV_STEP) {
				f[n].pc = pcs[k];
			}
			if (!k)
				run_first_pc = f[n].pc;
			n++;
		}
		for (; e < nr_evs; e++) {	/* after its last step */
			const struct trace_event *x = &evs[e].ev;

			if (n == cap)
				f = realloc(f, (cap *= 2) * sizeof(*f));
			CU_ASSERT_EQUAL(evs[e].at, steps);
			f[n++] = (struct flat_ev){ x->kind, x->pid, x->tid, x->cpu, x->ring, 0,
						   x->index, x->time_ns, x->a, x->b };
		}
		if (bytes && ev.kind == TEV_STEP) {
			CU_ASSERT_EQUAL(sb.len, 0);	/* every byte a step */
			CU_ASSERT_EQUAL(pc, sb.end_pc);
			CU_ASSERT_EQUAL(ev.pc, run_first_pc);
		}
	}
	CU_ASSERT_EQUAL(r, 0);
	trace_iter_free(it);
	trace_close(t);
	*out = f;
	return n;
}

static void check_both_ways(const char *dir)
{
	struct flat_ev *a, *b;
	size_t na = flatten(dir, false, &a), nb = flatten(dir, true, &b);

	CU_ASSERT(na > 0);
	CU_ASSERT_EQUAL(na, nb);
	for (size_t k = 0; k < na && k < nb; k++)
		if (a[k].kind != b[k].kind || a[k].pid != b[k].pid || a[k].tid != b[k].tid ||
		    a[k].cpu != b[k].cpu || a[k].ring != b[k].ring || a[k].pc != b[k].pc ||
		    a[k].index != b[k].index || a[k].time_ns != b[k].time_ns || a[k].a != b[k].a ||
		    a[k].b != b[k].b) {
			fprintf(stderr, "\n  %s: event %zu differs (kind %d/%d, pc %#llx/%#llx, "
				"index %llu/%llu, tid %u/%u)", dir, k, a[k].kind, b[k].kind,
				(unsigned long long)a[k].pc, (unsigned long long)b[k].pc,
				(unsigned long long)a[k].index, (unsigned long long)b[k].index,
				a[k].tid, b[k].tid);
			CU_FAIL("the two ways differ");
			break;
		}
	free(a);
	free(b);
}

/*
 * Steps as encoded (bytes mode) are the steps decoded: every schedule,
 * plain and zstd; a per-CPU trace of TIME, SWITCH, RING and ASYNC records,
 * long steps and steps spanning CHECK blocks; short steps of every delta,
 * thousands of backward ones in a row (the scan's sums); a task record
 * inside a run, with interrupts before, at and after it.
 */
static void test_bytes_mode_same(void)
{
	const char *dir;
	struct trace_writer *tw;
	struct tw_stream *st[2];
	struct pt_task_mmap m = { .c = { .time_ns = 0, .seq = 437, .pid = 5, .tid = 5 },
				  .start = 0x7000000, .len = 0x1000, .prot = 5 };

	for (int z = 0; z < 2; z++) {
		for (size_t s = 0; s < sizeof(schedules) / sizeof(schedules[0]); s++) {
			char name[64];

			snprintf(name, sizeof(name), "bytes-%zu-%d", s, z);
			write_schedule(scratch(name), s, z);
			check_both_ways(scratch(name));
		}
	}
	dir = scratch("bytes-percpu");
	tw = tw_open(dir, &(struct tw_options){ .compress = true });
	CU_ASSERT_PTR_NOT_NULL_FATAL(tw);
	st[0] = tw_stream_open(tw, true, 0);
	st[1] = tw_stream_open(tw, true, 1);
	for (uint32_t tid = 20; tid <= 23; tid++)
		name_thread(tw, tid, tid, PT_SEQ_NONE);
	for (unsigned r = 0; r < 40; r++) {
		struct tw_stream *s = st[r % 2];
		uint32_t tid = 20 + r % 4;

		if (r < 2 || r % 3)
			tw_switch(s, tid, tid, 100 * r, PT_SEQ_NONE);
		else
			tw_time(s, 100 * r, PT_SEQ_NONE);
		for (unsigned k = 0; k < 5000 + 331 * r; k++) {
			if (k == 2000)
				tw_ring(s, 1);
			if (k == 2100)
				tw_ring(s, 0);
			if (k % 777 == 5)
				tw_async(s, PT_ASYNC_INTERRUPT, 236);
			tw_step(s, k == 2050 ? 0xffffffff81000000ull + k :
				   0x400000 + 0x1000 * tid + (k % 61) * 4 +
					   (k % 10 == 9 ? 0x5000 : 0));
		}
	}
	tw_stream_close(st[0]);
	tw_stream_close(st[1]);
	CU_ASSERT_EQUAL(tw_close(tw, "complete"), 0);
	check_both_ways(dir);
	/* short steps of every delta, backwards runs of thousands among them */
	dir = scratch("bytes-deltas");
	tw = tw_open(dir, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(tw);
	name_thread(tw, 6, 6, 0);
	st[0] = tw_stream_open(tw, false, 6);
	tw_switch(st[0], 6, 6, 0, 0);
	{
		uint64_t pc = 0x40000000, x = 0x2545f4914f6cdd1dull;

		for (unsigned k = 0; k < 300000; k++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			pc += k < 100000 ? (uint64_t)-1 : k < 200000 ? (uint64_t)-64 :
			      (uint64_t)((int64_t)(x % 128) - 64);
			tw_step(st[0], pc);
		}
	}
	tw_stream_close(st[0]);
	CU_ASSERT_EQUAL(tw_close(tw, "complete"), 0);
	check_both_ways(dir);
	dir = scratch("bytes-task");
	tw = tw_open(dir, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(tw);
	name_thread(tw, 5, 5, 0);
	st[0] = tw_stream_open(tw, false, 5);
	tw_switch(st[0], 5, 5, 0, 0);
	tw_task(tw, PT_TASK_MMAP, &m, sizeof(m), "/lib/x.so");
	for (unsigned k = 0; k < 1000; k++) {
		/* interrupts inside the run: before the task's step, at it, after it */
		if (k == 300 || k == 437 || k == 438 || k == 600)
			tw_async(st[0], PT_ASYNC_IRQ, 11);
		tw_step(st[0], 0x500000 + (k % 13) * 3 + (k % 100 == 50 ? 0x100000 : 0));
	}
	tw_stream_close(st[0]);
	CU_ASSERT_EQUAL(tw_close(tw, "complete"), 0);
	check_both_ways(dir);
}

/*
 * Progress: the streams' files read so far, out of their sizes, grows with
 * the steps read, a compressed stream's too (its compressed bytes), and is
 * their whole size at the end.
 */
static void test_progress_bytes(void)
{
	const char *dir = scratch("progress-zstd");
	struct trace_writer *tw = tw_open(dir, &(struct tw_options){ .compress = true });
	struct tw_stream *st;
	struct trace *t;
	struct trace_iter *it;
	struct trace_event ev;
	uint64_t x = 0x9e3779b97f4a7c15ull, steps = 0, at_tenth = 0, pc = 0x400000;
	const uint64_t n = 4000000;

	CU_ASSERT_PTR_NOT_NULL_FATAL(tw);
	name_thread(tw, 8, 8, 0);
	st = tw_stream_open(tw, false, 8);
	tw_switch(st, 8, 8, 0, 0);
	for (uint64_t k = 0; k < n; k++) {
		/* a loop, a far jump at random every 16th step: compressed, not to nothing */
		if (k % 16 == 15) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			pc = 0x400000 + (x & 0xfffff);
		} else {
			pc += 3;
		}
		tw_step(st, pc);
	}
	tw_stream_close(st);
	CU_ASSERT_EQUAL_FATAL(tw_close(tw, "complete"), 0);
	t = trace_open(dir);
	CU_ASSERT_PTR_NOT_NULL_FATAL(t);
	it = trace_iter_new_threads(t, 1);
	CU_ASSERT_PTR_NOT_NULL_FATAL(it);
	while (trace_next(it, &ev) == 1)
		if (ev.kind == TEV_STEP && ++steps == n / 10)
			at_tenth = trace_iter_bytes(it);
	CU_ASSERT(trace_iter_total_bytes(it) > 500000);
	CU_ASSERT(at_tenth > 0 && at_tenth < trace_iter_total_bytes(it) / 4);
	CU_ASSERT_EQUAL(trace_iter_bytes(it), trace_iter_total_bytes(it));
	if (!(at_tenth < trace_iter_total_bytes(it) / 4))
		fprintf(stderr, "\n  %llu of %llu bytes read after a tenth of the steps",
			(unsigned long long)at_tenth,
			(unsigned long long)trace_iter_total_bytes(it));
	trace_iter_free(it);
	trace_close(t);
}

static CU_TestInfo tests[] = {
	{ "threads merge in seq order, tasks at their seq (plain and zstd)", test_roundtrip_order },
	{ "steps as encoded are the steps decoded, in the same order", test_bytes_mode_same },
	{ "progress: the files' bytes read grow with the steps, compressed or not",
	  test_progress_bytes },
	{ "per-CPU streams merge by time, tasks without seq by time", test_per_cpu_time_order },
	{ "control records become events in place", test_control_events },
	{ "FORK, EXEC, EXIT stream records are not repeated as tasks", test_stream_task_records },
	{ "header attributes and thread names round-trip", test_header_and_tasks },
	{ "a stream cut at any byte is an error, --force reads up to it",
	  test_truncation_detected },
	{ "a flipped byte fails the CHECK", test_corruption_detected },
	{ "unreadable header files are refused", test_bad_header_refused },
	{ "a stream needing a newer reader is refused", test_newer_stream_refused },
	{ "a cut tasks file is an error", test_truncated_tasks },
	CU_TEST_INFO_NULL,
};

UNIT_SUITE(trace_reader, tests)
