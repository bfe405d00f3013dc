// SPDX-License-Identifier: GPL-2.0
/* Module tables: perf mmap2/comm/fork/exit records become the trace's task records. */
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "pitrace/perf_maps.h"
#include "util/trace_reader.h"
#include "util/trace_writer.h"
#include "tests/unit/unit.h"

/*
 * Build a perf record the way the kernel lays it out for pm_attr_init's
 * attributes: header, body, a string padded to 8 bytes, then the sample_id
 * (pid, tid, time).
 */
struct rec_buf {
	uint64_t align;		  /* records are 8-byte aligned in the ring */
	uint8_t b[512];
	size_t len;
};

static void put(struct rec_buf *r, const void *p, size_t n)
{
	memcpy(r->b + r->len, p, n);
	r->len += n;
}

static void put32(struct rec_buf *r, uint32_t v) { put(r, &v, 4); }
static void put64(struct rec_buf *r, uint64_t v) { put(r, &v, 8); }

static void put_str(struct rec_buf *r, const char *s, bool nul)
{
	size_t n = strlen(s) + (nul ? 1 : 0);

	put(r, s, n);
	while (r->len % 8)
		r->b[r->len++] = nul ? 0 : 'x';	/* without NUL: no terminator anywhere */
}

static const struct perf_event_header *finish(struct rec_buf *r, uint32_t type, uint16_t misc,
					      uint32_t pid, uint32_t tid, uint64_t time)
{
	struct perf_event_header *h = (struct perf_event_header *)r->b;

	put32(r, pid);
	put32(r, tid);
	put64(r, time);
	h->type = type;
	h->misc = misc;
	h->size = (uint16_t)r->len;
	return h;
}

static void begin(struct rec_buf *r)
{
	memset(r, 0, sizeof(*r));
	r->len = sizeof(struct perf_event_header);
}

static void test_mmap2(void)
{
	static const uint8_t id[20] = { 0xde, 0xad, 0xbe, 0xef, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10,
					11, 12, 13, 14, 15, 16 };
	/* One row a case: prot, build-id flag, path; what the trace gets. */
	static const struct {
		const char *what;
		uint32_t prot;
		bool build_id;
		const char *path;
		int ret;
		const char *want_path;
	} rows[] = {
		{ "executable file with build-id", PROT_READ | PROT_EXEC, true, "/usr/lib/libc.so.6", 1,
		  "/usr/lib/libc.so.6" },
		{ "executable file without build-id", PROT_READ | PROT_EXEC, false, "/bin/true", 1,
		  "/bin/true" },
		{ "anonymous executable memory", PROT_READ | PROT_WRITE | PROT_EXEC, false, "", 1,
		  "[anon]" },
		{ "data mapping: not for the module table", PROT_READ | PROT_WRITE, false, "/data", 0,
		  NULL },
	};

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct rec_buf r;
		struct pm_event ev;
		const struct perf_event_header *h;
		uint8_t idfield[24] = { 0 };

		begin(&r);
		put32(&r, 300);				/* pid */
		put32(&r, 301);				/* tid */
		put64(&r, 0x7f0000001000ull);		/* addr */
		put64(&r, 0x5000);			/* len */
		put64(&r, 0x2000);			/* pgoff */
		if (rows[i].build_id) {
			idfield[0] = 20;
			memcpy(idfield + 4, id, 20);
		}
		put(&r, idfield, sizeof(idfield));
		put32(&r, rows[i].prot);
		put32(&r, MAP_PRIVATE);
		put_str(&r, rows[i].path, true);
		h = finish(&r, PERF_RECORD_MMAP2, rows[i].build_id ? (1 << 14) : 0, 300, 301,
			   123456789);
		CU_ASSERT_EQUAL(pm_convert(h, &ev), rows[i].ret);
		if (rows[i].ret != 1)
			continue;
		CU_ASSERT_EQUAL(ev.type, PT_TASK_MMAP);
		CU_ASSERT_EQUAL(ev.len, sizeof(struct pt_task_mmap));
		CU_ASSERT_EQUAL(ev.mmap.c.pid, 300);
		CU_ASSERT_EQUAL(ev.mmap.c.tid, 0);	/* mappings belong to the process */
		CU_ASSERT_EQUAL(ev.mmap.c.time_ns, 123456789);
		CU_ASSERT_EQUAL(ev.mmap.c.seq, PT_SEQ_NONE);
		CU_ASSERT_EQUAL(ev.mmap.start, 0x7f0000001000ull);
		CU_ASSERT_EQUAL(ev.mmap.len, 0x5000);
		CU_ASSERT_EQUAL(ev.mmap.pgoff, 0x2000);
		CU_ASSERT_EQUAL(ev.mmap.prot, rows[i].prot);
		CU_ASSERT_EQUAL(ev.mmap.build_id_len, rows[i].build_id ? 20 : 0);
		if (rows[i].build_id)
			CU_ASSERT_EQUAL(memcmp(ev.mmap.build_id, id, 20), 0);
		CU_ASSERT_STRING_EQUAL(ev.str, rows[i].want_path);
	}
}

static void test_fork_exit(void)
{
	/* One row a case: perf's pid, ppid, tid, ptid; the record it becomes. */
	static const struct {
		const char *what;
		uint32_t type, pid, ppid, tid, ptid;
		unsigned want_type;
		uint32_t want_flags;
	} rows[] = {
		{ "new process", PERF_RECORD_FORK, 500, 400, 500, 401, PT_TASK_FORK, 0 },
		{ "new thread", PERF_RECORD_FORK, 400, 400, 502, 401, PT_TASK_FORK, PT_FORK_THREAD },
		{ "thread exit", PERF_RECORD_EXIT, 400, 1, 502, 502, PT_TASK_EXIT, 0 },
	};

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct rec_buf r;
		struct pm_event ev;
		const struct perf_event_header *h;

		begin(&r);
		put32(&r, rows[i].pid);
		put32(&r, rows[i].ppid);
		put32(&r, rows[i].tid);
		put32(&r, rows[i].ptid);
		put64(&r, 777);		/* the record's own time wins over sample_id's */
		h = finish(&r, rows[i].type, 0, rows[i].pid, rows[i].tid, 778);
		CU_ASSERT_EQUAL_FATAL(pm_convert(h, &ev), 1);
		CU_ASSERT_EQUAL(ev.type, rows[i].want_type);
		CU_ASSERT_EQUAL(ev.c.pid, rows[i].pid);
		CU_ASSERT_EQUAL(ev.c.tid, rows[i].tid);
		CU_ASSERT_EQUAL(ev.c.time_ns, 777);
		if (rows[i].want_type == PT_TASK_FORK) {
			CU_ASSERT_EQUAL(ev.len, sizeof(struct pt_task_fork));
			CU_ASSERT_EQUAL(ev.fork.ppid, rows[i].ppid);
			CU_ASSERT_EQUAL(ev.fork.ptid, rows[i].ptid);
			CU_ASSERT_EQUAL(ev.fork.flags, rows[i].want_flags);
		} else {
			CU_ASSERT_EQUAL(ev.len, sizeof(struct pt_task_exit));
			CU_ASSERT_EQUAL(ev.exit.status, -1);	/* perf does not say */
		}
	}
}

static void test_comm(void)
{
	static const struct {
		const char *what;
		uint16_t misc;
		bool exec;
	} rows[] = {
		{ "renamed (prctl)", 0, false },
		{ "execve", PERF_RECORD_MISC_COMM_EXEC, true },
	};

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct rec_buf r;
		struct pm_event ev;
		const struct perf_event_header *h;

		begin(&r);
		put32(&r, 600);
		put32(&r, 601);
		put_str(&r, "worker", true);
		h = finish(&r, PERF_RECORD_COMM, rows[i].misc, 600, 601, 99);
		CU_ASSERT_EQUAL_FATAL(pm_convert(h, &ev), 1);
		CU_ASSERT_EQUAL(ev.type, PT_TASK_COMM);
		CU_ASSERT_EQUAL(ev.exec, rows[i].exec);
		CU_ASSERT_EQUAL(ev.c.pid, 600);
		CU_ASSERT_EQUAL(ev.c.tid, 601);
		CU_ASSERT_EQUAL(ev.c.time_ns, 99);
		CU_ASSERT_STRING_EQUAL(ev.str, "worker");
	}
}

static void test_malformed(void)
{
	struct rec_buf r;
	struct pm_event ev;
	const struct perf_event_header *h;

	/* A comm without its NUL must not be read past the record. */
	begin(&r);
	put32(&r, 1);
	put32(&r, 1);
	put_str(&r, "abcdefg", false);
	h = finish(&r, PERF_RECORD_COMM, 0, 1, 1, 1);
	CU_ASSERT_EQUAL(pm_convert(h, &ev), -1);

	/* Too short to hold its fields. */
	begin(&r);
	put32(&r, 1);
	h = finish(&r, PERF_RECORD_FORK, 0, 1, 1, 1);
	CU_ASSERT_EQUAL(pm_convert(h, &ev), -1);

	/* Shorter than a sample_id. */
	begin(&r);
	((struct perf_event_header *)r.b)->size = sizeof(struct perf_event_header);
	((struct perf_event_header *)r.b)->type = PERF_RECORD_EXIT;
	CU_ASSERT_EQUAL(pm_convert((const void *)r.b, &ev), -1);

	/* Types the module tables don't use are skipped, not errors. */
	begin(&r);
	put64(&r, 0);
	h = finish(&r, PERF_RECORD_SAMPLE, 0, 1, 1, 1);
	CU_ASSERT_EQUAL(pm_convert(h, &ev), 0);
}

static void test_attr(void)
{
	struct perf_event_attr a;

	pm_attr_init(&a);
	/* What pm_convert relies on: every record ends with pid, tid and time. */
	CU_ASSERT(a.sample_id_all);
	CU_ASSERT_EQUAL(a.sample_type, PERF_SAMPLE_TID | PERF_SAMPLE_TIME);
	/* The driver's clock. */
	CU_ASSERT(a.use_clockid);
	CU_ASSERT_EQUAL(a.clockid, CLOCK_MONOTONIC);
	CU_ASSERT(a.mmap2 && a.comm && a.comm_exec && a.task);
	CU_ASSERT_EQUAL(a.config, PERF_COUNT_SW_DUMMY);
}

/*
 * The real thing: a child selected as a tree, which then execs /bin/true.
 * Its EXEC (with the path), its new mappings and its exit must be in the
 * tasks file; nothing of any other process.
 */
static void test_live_exec(void)
{
	struct pitrace_select sel = { .kind = PITRACE_SEL_TREE, .nr_pids = 1 };
	struct tw_options o = { 0 };
	char dir[256], exe[PATH_MAX];
	bool exec_seen = false, true_mapped = false, exit_seen = false, other = false;
	struct trace_writer *tw;
	struct perf_maps *pm;
	struct trace *t;
	int go[2], status;
	pid_t pid;

	if (!realpath("/bin/true", exe)) {
		printf("\n  SKIP: no /bin/true\n");
		return;
	}
	snprintf(dir, sizeof(dir), "%s/live", unit_tmpdir());
	tw = tw_open(dir, &o);
	CU_ASSERT_PTR_NOT_NULL_FATAL(tw);
	CU_ASSERT_EQUAL_FATAL(pipe(go), 0);
	pid = fork();
	if (pid == 0) {
		char b;

		close(go[1]);
		if (read(go[0], &b, 1) == 1)
			execl("/bin/true", "true", (char *)NULL);
		_exit(1);
	}
	close(go[0]);
	sel.pids[0] = (uint32_t)pid;
	pm = pm_open(&sel, tw, (uint32_t)getpid());
	if (!pm) {
		/* Not root, or perf events restricted here: nothing to check. */
		printf("\n  SKIP: perf events unavailable\n");
		kill(pid, SIGKILL);
		waitpid(pid, &status, 0);
		tw_close(tw, "interrupted");
		return;
	}
	CU_ASSERT_EQUAL(write(go[1], "x", 1), 1);
	close(go[1]);
	waitpid(pid, &status, 0);
	CU_ASSERT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	pm_close(pm);
	CU_ASSERT_EQUAL_FATAL(tw_close(tw, "complete"), 0);

	t = trace_open(dir);
	CU_ASSERT_PTR_NOT_NULL_FATAL(t);
	for (size_t i = 0; i < trace_nr_tasks(t); i++) {
		const struct trace_task_rec *r = &trace_tasks(t)[i];

		if (r->c.pid != (uint32_t)pid) {
			other = true;
			continue;
		}
		if (r->type == PT_TASK_EXEC && r->str && !strcmp(r->str, exe))
			exec_seen = true;
		if (r->type == PT_TASK_MMAP && exec_seen && r->str && !strcmp(r->str, exe))
			true_mapped = true;
		if (r->type == PT_TASK_EXIT)
			exit_seen = true;
	}
	CU_ASSERT(exec_seen);
	CU_ASSERT(true_mapped);
	CU_ASSERT(exit_seen);
	CU_ASSERT(!other);
	trace_close(t);
}

static const CU_TestInfo perf_maps_tests[] = {
	{ "mmap2 records become MMAP task records", test_mmap2 },
	{ "fork and exit records", test_fork_exit },
	{ "comm records, exec marked", test_comm },
	{ "malformed records are refused", test_malformed },
	{ "perf attributes match what conversion expects", test_attr },
	{ "a selected child's exec, mappings and exit, live", test_live_exec },
	CU_TEST_INFO_NULL,
};

UNIT_SUITE(perf_maps, perf_maps_tests)
