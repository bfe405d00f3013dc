// SPDX-License-Identifier: GPL-2.0
// build: -O2 -D_GNU_SOURCE -Iinclude -I. util/trace_writer.c util/trace_dir.c util/trace_attrs.c util/trace_reader.c util/trace_record.c util/stream_reader.c util/stepcodec.c util/log.c -lzstd -lz
/*
 * Test-only recorder of per-CPU streams, as the driver's collector writes
 * them, with the SYNCED_TIME promise (docs/trace-format.md, "Following a
 * recording") kept as tightly as it allows: mkfollow_cpu DIR GO [PHASES]
 * writes PHASES (default 6) windows of 1 ms, each then on disk with a cut
 * in its middle.  CPU 0 runs its thread through the whole window; CPU 1's
 * runs lag half a window behind (its second half comes with the next
 * window, after the cut); an MMAP task record of a time in that held-back
 * half is written with the next window too; CPU 2's stream appears at the
 * third window.  A reader that went past the cut would put the MMAP, or
 * CPU 1's runs, after later runs of CPU 0.  After the first window it
 * waits (up to 120 s) for the file GO (a follower is reading), and 0.1 s
 * after each later one, so that a follower catches up in between.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "util/trace_writer.h"

#define PID 4000
#define WINDOW 1000000ull
#define RUN_STEPS 20

static void nap(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000 };

	nanosleep(&ts, NULL);
}

/* A run of thread PID + cpu on cpu at time t. */
static void run(struct tw_stream *st, uint32_t cpu, uint64_t t)
{
	tw_switch(st, PID, PID + cpu, t, PT_SEQ_NONE);
	for (unsigned j = 0; j < RUN_STEPS; j++)
		tw_step(st, 0x400000 + 0x10000 * cpu + (j % 5) * 4);
}

static void task(struct trace_writer *tw, unsigned type, uint64_t t, uint64_t start)
{
	struct pt_task_mmap m = { .c = { t, PT_SEQ_NONE, PID, 0 }, .start = start,
				  .len = 0x1000, .prot = 5 };
	struct pt_task_comm c = { .c = { t, PT_SEQ_NONE, PID, PID } };

	if (type == PT_TASK_MMAP)
		tw_task(tw, type, &m, sizeof(m), "/synthetic/lib.so");
	else
		tw_task(tw, type, &c, sizeof(c), "prog");
}

int main(int argc, char **argv)
{
	struct tw_options o = { 0 };
	struct tw_stream *st[3] = { NULL };
	struct trace_writer *tw;
	struct pt_attr_time t0;
	unsigned phases = argc > 3 ? (unsigned)atoi(argv[3]) : 6;
	uint64_t b;

	if (argc < 3) {
		fprintf(stderr, "usage: mkfollow_cpu DIR GO [PHASES]\n");
		return 2;
	}
	tw = tw_open(argv[1], &o);
	if (!tw)
		return 1;
	t0.realtime_ns = tw_realtime_ns();
	t0.monotonic_ns = tw_now_ns();
	tw_set_attr_str(tw, PT_ATTR_ARCH, "x86_64");
	tw_set_attr_str(tw, PT_ATTR_BACKEND, "driver");
	tw_set_attr_str(tw, PT_ATTR_MODE, "step");
	tw_set_attr(tw, PT_ATTR_START_TIME, &t0, sizeof(t0));
	task(tw, PT_TASK_COMM, t0.monotonic_ns, 0);
	tw_count_task(tw, true);
	for (uint32_t c = 1; c < 3; c++) {
		struct pt_task_fork f = { .c = { t0.monotonic_ns, PT_SEQ_NONE, PID, PID + c },
					  .ppid = PID, .ptid = PID, .flags = PT_FORK_THREAD };

		tw_task(tw, PT_TASK_FORK, &f, sizeof(f), NULL);
		tw_count_task(tw, false);
	}
	for (uint32_t c = 0; c < 2; c++)
		if (!(st[c] = tw_stream_open(tw, true, c)))
			return 1;
	if (tw_synced_time(tw, 0) < 0 || tw_commit(tw) < 0)
		return 1;
	b = t0.monotonic_ns + WINDOW;
	for (unsigned k = 0; k < phases; k++, b += WINDOW) {
		if (k == 2 && !(st[2] = tw_stream_open(tw, true, 2)))
			return 1;
		if (k)	/* of a time the last cut did not cover */
			task(tw, PT_TASK_MMAP, b - WINDOW / 4, 0x500000 + 0x1000 * k);
		for (unsigned i = 0; i < 10; i++) {
			run(st[0], 0, b + i * WINDOW / 10);
			run(st[1], 1, b - (k ? WINDOW / 2 : 0) + i * WINDOW / 10);
			if (st[2] && i < 5)
				run(st[2], 2, b + WINDOW / 20 + i * WINDOW / 5);
		}
		for (uint32_t c = 0; c < 3; c++)
			if (st[c] && tw_stream_flush(st[c]) < 0)
				return 1;
		if (tw_synced_time(tw, b + WINDOW / 2) < 0)
			return 1;
		if (k == 0) {
			for (int i = 0; i < 1200 && access(argv[2], F_OK) != 0; i++)
				nap(100);
		} else {
			nap(100);
		}
	}
	for (uint32_t c = 0; c < 3; c++)
		if (tw_stream_close(st[c]) < 0)
			return 1;
	return tw_close(tw, "complete") < 0;
}
