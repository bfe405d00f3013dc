// SPDX-License-Identifier: GPL-2.0
// build: -O2 -D_GNU_SOURCE -Iinclude -I. util/trace_writer.c util/trace_dir.c util/trace_attrs.c util/trace_reader.c util/trace_record.c util/stream_reader.c util/stepcodec.c util/log.c -lzstd -lz
/*
 * Test-only trace maker: writes a synthetic trace directory through the real
 * trace writer, with steps whose counts are known by construction, so post's
 * tests need no recorder.
 *
 *   mktrace DIR [--steps N] [--threads T] [--run R] [--loop L] [--zstd]
 *               [--pcs ADDR*N,...[@K]]... [--mmap PATH:START:LEN:PGOFF] [--pid P]
 *               [--lost N] [--min-reader V] [--mode step|block] [--private] [--shared]
 *               [--lists FILE] [--arch NAME] [--comms N]
 *
 * Threads P, P+1, ... take turns, R steps a run, until N steps in all; a
 * thread's k-th step is at 0x400000 + (k mod L) * 4 (the thread's first
 * address is 0x400000 + 0x10000 * thread number).  --pcs replaces that
 * with an explicit list of addresses and repeat counts, run by thread P;
 * a list ending in @K runs K times, and several --pcs lists run in turn
 * (a 10-million-level recursion is three lists: its descent, its deepest
 * call and its return, each a few addresses).
 *
 * --lists FILE gives such lists for several threads, one a line:
 * "THREAD ADDR*N,...[@K]" (THREAD 0 is P, 1 is P+1, ...); the threads take
 * turns, R steps a run (--run), as a recorder's threads do (the post
 * benchmark scales a real recording's threads up this way).  --mmap may
 * be given several times.  --comms N adds N COMM records of thread P
 * (each with its CHECK, as the writer writes every task record): a tasks
 * file of many records.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/log.h"
#include "util/trace_writer.h"

#define MAX_THREADS 64
#define MAX_MMAPS 16

/* Address lists: list l is pcs[first..end) repeated times, run by a thread. */
struct lists {
	uint64_t *pcs, *reps;
	size_t nr_pcs, cap_pcs;
	size_t *end, *times, *thread, nr, cap;
};

static void lists_add_pc(struct lists *L, uint64_t pc, uint64_t rep)
{
	if (L->nr_pcs == L->cap_pcs) {
		L->cap_pcs = L->cap_pcs ? 2 * L->cap_pcs : 4096;
		L->pcs = realloc(L->pcs, L->cap_pcs * sizeof(*L->pcs));
		L->reps = realloc(L->reps, L->cap_pcs * sizeof(*L->reps));
		if (!L->pcs || !L->reps)
			exit(1);
	}
	L->pcs[L->nr_pcs] = pc;
	L->reps[L->nr_pcs++] = rep;
}

static uint64_t num(const char *s);

/* One list "ADDR*N,...[@K]" for thread th. */
static void lists_parse(struct lists *L, char *list, size_t th)
{
	char *tok, *save, *at = strrchr(list, '@');
	size_t times = 1;

	if (at) {
		*at = '\0';
		times = num(at + 1);
	}
	for (tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *star = strchr(tok, '*');

		if (star)
			*star = '\0';
		lists_add_pc(L, num(tok), star ? num(star + 1) : 1);
	}
	if (L->nr == L->cap) {
		L->cap = L->cap ? 2 * L->cap : 64;
		L->end = realloc(L->end, L->cap * sizeof(*L->end));
		L->times = realloc(L->times, L->cap * sizeof(*L->times));
		L->thread = realloc(L->thread, L->cap * sizeof(*L->thread));
		if (!L->end || !L->times || !L->thread)
			exit(1);
	}
	L->end[L->nr] = L->nr_pcs;
	L->times[L->nr] = times;
	L->thread[L->nr++] = th;
}

/* Where a thread is in its lists. */
struct cursor {
	size_t l, i;		  /* list, address in it */
	uint64_t k, r;		  /* repetition of the list, of the address */
};

/* The next address of thread th, or 0 when its lists are done. */
static uint64_t lists_next(const struct lists *L, struct cursor *c, size_t th)
{
	for (; c->l < L->nr; c->l++, c->i = 0, c->k = 0, c->r = 0) {
		size_t first = c->l ? L->end[c->l - 1] : 0;

		if (L->thread[c->l] != th || first == L->end[c->l])
			continue;
		for (; c->k < L->times[c->l]; c->k++, c->i = 0) {
			if (!c->i)
				c->i = first;
			for (; c->i < L->end[c->l]; c->i++, c->r = 0)
				if (c->r < L->reps[c->i]) {
					c->r++;
					return L->pcs[c->i];
				}
		}
	}
	return 0;
}

static void usage(void)
{
	fprintf(stderr, "usage: mktrace DIR [--steps N] [--threads T] [--run R] [--loop L]\n"
			"               [--zstd] [--pcs ADDR*N,...[@K]]... [--pid P]\n"
			"               [--mmap PATH:START:LEN:PGOFF]\n"
			"               [--lost N] [--min-reader V] [--mode step|block] [--private]\n"
			"               [--shared]\n"
			"               [--lists FILE] [--arch NAME] [--comms N]\n");
	exit(2);
}

static uint64_t num(const char *s)
{
	char *end;
	unsigned long long v = strtoull(s, &end, 0);

	if (end == s || *end)
		usage();
	return v;
}

int main(int argc, char **argv)
{
	struct tw_options o = { 0 };
	uint64_t steps = 1000, run = 100, loop = 64, lost = 0, min_reader = 0, comms = 0;
	unsigned threads = 1;
	uint32_t pid = 1000;
	struct lists L = { 0 };
	char *mmap_args[MAX_MMAPS];
	size_t nr_mmaps = 0;
	const char *mode = "step", *arch = "x86_64";
	const char *dir;
	struct trace_writer *tw;
	struct tw_stream *st[MAX_THREADS];
	uint64_t done[MAX_THREADS] = { 0 }, total = 0;
	struct pt_attr_time t0;
	char cmdline[] = "synthetic\0trace";

	log_progname = "mktrace";
	if (argc < 2 || argv[1][0] == '-')
		usage();
	dir = argv[1];
	for (int i = 2; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(a, "--zstd")) {
			o.compress = true;
			continue;
		}
		if (!strcmp(a, "--private")) {	/* as the driver's collector writes */
			o.private = true;
			continue;
		}
		if (!strcmp(a, "--shared")) {	/* as record --shared writes */
			o.shared = true;
			continue;
		}
		if (!v)
			usage();
		i++;
		if (!strcmp(a, "--steps"))
			steps = num(v);
		else if (!strcmp(a, "--threads"))
			threads = (unsigned)num(v);
		else if (!strcmp(a, "--run"))
			run = num(v);
		else if (!strcmp(a, "--loop"))
			loop = num(v);
		else if (!strcmp(a, "--pid"))
			pid = (uint32_t)num(v);
		else if (!strcmp(a, "--lost"))
			lost = num(v);
		else if (!strcmp(a, "--min-reader"))
			min_reader = num(v);
		else if (!strcmp(a, "--mode"))
			mode = v;
		else if (!strcmp(a, "--arch"))
			arch = v;
		else if (!strcmp(a, "--comms"))
			comms = num(v);
		else if (!strcmp(a, "--mmap") && nr_mmaps < MAX_MMAPS)
			mmap_args[nr_mmaps++] = strdup(v);
		else if (!strcmp(a, "--pcs")) {
			char *list = strdup(v);

			lists_parse(&L, list, 0);
			free(list);
		} else if (!strcmp(a, "--lists")) {
			FILE *f = fopen(v, "r");
			char *line = NULL;
			size_t cap = 0;

			if (!f) {
				perror(v);
				return 1;
			}
			while (getline(&line, &cap, f) > 0) {
				char *sp = strchr(line, ' '), *nl = strchr(line, '\n');

				if (nl)
					*nl = '\0';
				if (!sp)
					usage();
				*sp = '\0';
				lists_parse(&L, sp + 1, num(line));
			}
			free(line);
			fclose(f);
		} else
			usage();
	}
	if (!threads || threads > MAX_THREADS || !run || !loop)
		usage();

	tw = tw_open(dir, &o);
	if (!tw)
		return 1;
	t0.realtime_ns = tw_realtime_ns();
	t0.monotonic_ns = tw_now_ns();
	tw_set_attr_str(tw, PT_ATTR_ARCH, arch);
	tw_set_attr_str(tw, PT_ATTR_BACKEND, "ptrace");
	tw_set_attr_str(tw, PT_ATTR_MODE, mode);
	tw_set_attr_str(tw, PT_ATTR_KERNEL_RELEASE, "synthetic");
	tw_set_attr(tw, PT_ATTR_CMDLINE, cmdline, sizeof(cmdline));
	tw_set_attr(tw, PT_ATTR_START_TIME, &t0, sizeof(t0));
	tw_set_attr_str(tw, PT_ATTR_NOTE, "synthetic trace written by tests/progs/mktrace");

	{
		struct pt_task_exec e = { .c = { t0.monotonic_ns, 0, pid, pid } };
		struct pt_task_comm c = { .c = { t0.monotonic_ns, 0, pid, pid } };

		tw_task(tw, PT_TASK_EXEC, &e, sizeof(e), "/synthetic/prog");
		tw_task(tw, PT_TASK_COMM, &c, sizeof(c), "prog");
		tw_count_task(tw, true);
		for (uint64_t k = 0; k < comms; k++)
			tw_task(tw, PT_TASK_COMM, &c, sizeof(c), k % 2 ? "prog" : "prog-renamed");
	}
	for (size_t a = 0; a < nr_mmaps; a++) {
		char *mmap_arg = mmap_args[a];
		struct pt_task_mmap m = { .c = { t0.monotonic_ns, 0, pid, 0 }, .prot = 5 };
		char *p[4], *save = NULL;

		p[0] = strtok_r(mmap_arg, ":", &save);
		for (int k = 1; k < 4; k++)
			p[k] = strtok_r(NULL, ":", &save);
		if (!p[3])
			usage();
		m.start = num(p[1]);
		m.len = num(p[2]);
		m.pgoff = num(p[3]);
		tw_task(tw, PT_TASK_MMAP, &m, sizeof(m), p[0]);
	}
	for (unsigned k = 1; k < threads; k++) {
		struct pt_task_fork f = { .c = { t0.monotonic_ns, 0, pid, pid + k },
					  .ppid = pid, .ptid = pid, .flags = PT_FORK_THREAD };

		tw_task(tw, PT_TASK_FORK, &f, sizeof(f), NULL);
		tw_count_task(tw, false);
	}
	for (unsigned k = 0; k < threads; k++)
		if (!(st[k] = tw_stream_open(tw, false, pid + k)))
			return 1;

	if (L.nr) {
		struct cursor cur[MAX_THREADS] = { 0 };
		bool left[MAX_THREADS];
		unsigned nr_left = threads;

		for (unsigned k = 0; k < threads; k++)
			left[k] = true;
		for (size_t l = 0; l < L.nr; l++)
			if (L.thread[l] >= threads)
				usage();
		/* the threads take turns, run steps each (all of them: one thread) */
		for (unsigned k = 0; nr_left; k = (k + 1) % threads) {
			uint64_t pc, n = 0;

			if (!left[k])
				continue;
			while ((threads == 1 || n < run) && (pc = lists_next(&L, &cur[k], k))) {
				if (!n++)
					tw_switch(st[k], pid, pid + k, t0.monotonic_ns + total,
						  tw_total_steps(tw));
				tw_step(st[k], pc);
			}
			if (threads == 1 || n < run) {
				left[k] = false;
				nr_left--;
			}
			total = tw_total_steps(tw);
		}
		total = tw_total_steps(tw);
	} else {
		for (unsigned k = 0; total < steps; k = (k + 1) % threads) {
			uint64_t n = steps - total < run ? steps - total : run;

			tw_switch(st[k], pid, pid + k, t0.monotonic_ns + total, total);
			for (uint64_t j = 0; j < n; j++, done[k]++)
				tw_step(st[k], 0x400000 + 0x10000 * k + (done[k] % loop) * 4);
			total += n;
		}
	}
	if (lost)
		tw_lost(st[0], lost);
	for (unsigned k = 0; k < threads; k++)
		if (tw_stream_close(st[k]) < 0)
			return 1;
	{
		struct pt_task_exit x = { .c = { tw_now_ns(), total, pid, pid }, .status = 0 };
		struct pt_attr_time t1 = { tw_realtime_ns(), tw_now_ns() };

		tw_task(tw, PT_TASK_EXIT, &x, sizeof(x), NULL);
		tw_set_attr(tw, PT_ATTR_STOP_TIME, &t1, sizeof(t1));
	}
	if (tw_close(tw, "complete") < 0)
		return 1;
	if (min_reader) {
		/* pretend a newer writer: patch the header's min_reader */
		char path[4096];
		FILE *f;
		uint16_t v = (uint16_t)min_reader;

		snprintf(path, sizeof(path), "%s/header", dir);
		f = fopen(path, "r+b");
		if (!f || fseek(f, 12, SEEK_SET) || fwrite(&v, 2, 1, f) != 1 || fclose(f))
			return 1;
	}
	return 0;
}
