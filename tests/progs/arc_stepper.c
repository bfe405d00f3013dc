// SPDX-License-Identifier: GPL-2.0
// build: -O2 -D_GNU_SOURCE -Iinclude -I. util/trace_writer.c util/trace_dir.c util/trace_attrs.c util/trace_reader.c util/trace_record.c util/stream_reader.c util/stepcodec.c util/log.c -lzstd -lz
/*
 * Test-only single-step recorder for the call-flow tests: runs a command
 * under ptrace, steps every instruction of every thread from the exec on,
 * and writes a trace directory through the real trace writer (exec, comm,
 * mmap/munmap, clone and exit records; async records at signal delivery).
 * Kept small on purpose; `pitrace record` is the real recorder.
 *
 *   arc_stepper DIR COMMAND [ARGS...]
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util/log.h"
#include "util/trace_writer.h"

#define MAX_THREADS 64
#define MAX_MAPS 512

struct thread {
	pid_t tid;
	struct tw_stream *st;
	bool async_next;	  /* the next step is a handler entry */
	uint64_t pending;	  /* pc of the instruction being stepped, if has_pending */
	bool has_pending;
	bool pending_sys;	  /* it is a system call: mappings may change */
	bool live;
};

struct mapping {
	uint64_t start, len;
	bool seen;
};

static struct trace_writer *tw;
static struct thread threads[MAX_THREADS];
static struct mapping maps[MAX_MAPS];
static size_t nr_maps;
static pid_t pid;
static struct thread *last;

static struct thread *thread_of(pid_t tid)
{
	for (int i = 0; i < MAX_THREADS; i++)
		if (threads[i].live && threads[i].tid == tid)
			return &threads[i];
	return NULL;
}

static struct thread *thread_new(pid_t tid)
{
	for (int i = 0; i < MAX_THREADS; i++)
		if (!threads[i].live) {
			threads[i] = (struct thread){ .tid = tid, .live = true };
			threads[i].st = tw_stream_open(tw, false, (uint32_t)tid);
			if (!threads[i].st)
				exit(1);
			return &threads[i];
		}
	fprintf(stderr, "arc_stepper: too many threads\n");
	exit(1);
}

static struct pt_task_common now_common(uint32_t tid)
{
	struct pt_task_common c = { tw_now_ns(), tw_total_steps(tw), (uint32_t)pid, tid };

	return c;
}

/*
 * Diff /proc/PID/maps against what was recorded: MUNMAP the mappings that
 * are gone (mprotect splits count as gone), then MMAP the new file ones.
 */
static void scan_maps(void)
{
	static struct {
		unsigned long long start, end, off;
		char perms[8], file[256];
	} cur[MAX_MAPS];
	size_t n = 0;
	char path[64], line[4096];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	f = fopen(path, "r");
	if (!f)
		return;
	while (n < MAX_MAPS && fgets(line, sizeof(line), f)) {
		cur[n].file[0] = '\0';
		if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %255s", &cur[n].start, &cur[n].end,
			   cur[n].perms, &cur[n].off, cur[n].file) < 4)
			continue;
		if (cur[n].file[0] == '/' || !strcmp(cur[n].file, "[vdso]"))
			n++;
	}
	fclose(f);
	for (size_t i = 0; i < nr_maps; i++) {
		bool kept = false;

		for (size_t k = 0; k < n && !kept; k++)
			kept = cur[k].start == maps[i].start &&
			       cur[k].end - cur[k].start == maps[i].len;
		if (kept)
			continue;
		struct pt_task_munmap u = { .c = now_common(0), .start = maps[i].start,
					    .len = maps[i].len };

		tw_task(tw, PT_TASK_MUNMAP, &u, sizeof(u), NULL);
		maps[i--] = maps[--nr_maps];
	}
	for (size_t k = 0; k < n; k++) {
		struct pt_task_mmap m = { 0 };
		bool known = false;

		for (size_t i = 0; i < nr_maps && !known; i++)
			known = maps[i].start == cur[k].start &&
				maps[i].len == cur[k].end - cur[k].start;
		if (known || nr_maps == MAX_MAPS)
			continue;
		maps[nr_maps++] = (struct mapping){ cur[k].start, cur[k].end - cur[k].start, true };
		m.c = now_common(0);
		m.start = cur[k].start;
		m.len = cur[k].end - cur[k].start;
		m.pgoff = cur[k].off;
		m.prot = (cur[k].perms[0] == 'r' ? 1 : 0) | (cur[k].perms[1] == 'w' ? 2 : 0) |
			 (cur[k].perms[2] == 'x' ? 4 : 0);
		tw_task(tw, PT_TASK_MMAP, &m, sizeof(m), cur[k].file);
	}
}

static void record_step(struct thread *t, uint64_t pc)
{
	if (last != t) {
		tw_switch(t->st, (uint32_t)pid, (uint32_t)t->tid, tw_now_ns(), tw_total_steps(tw));
		last = t;
	}
	if (t->async_next) {
		tw_async(t->st, PT_ASYNC_SIGNAL, 0);
		t->async_next = false;
	}
	tw_step(t->st, pc);
}

static bool is_syscall_at(pid_t tid, uint64_t pc)
{
	long w;

	errno = 0;
	w = ptrace(PTRACE_PEEKTEXT, tid, (void *)pc, NULL);
	return !errno && (w & 0xffff) == 0x050f;
}

static void thread_exit(struct thread *t, int status)
{
	struct pt_task_exit x = { .c = now_common((uint32_t)t->tid), .status = status };

	tw_task(tw, PT_TASK_EXIT, &x, sizeof(x), NULL);
	tw_stream_close(t->st);
	t->live = false;
	if (last == t)
		last = NULL;
}

/* Does the traced process have a handler for sig (SigCgt in /proc/PID/status)? */
static bool signal_caught(int sig)
{
	char path[64], line[256];
	unsigned long long mask = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	f = fopen(path, "r");
	if (!f)
		return false;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "SigCgt: %llx", &mask) == 1)
			break;
	fclose(f);
	return sig >= 1 && sig <= 64 && (mask >> (sig - 1) & 1);
}

/*
 * Step t once more.  Its pc is recorded only when the next stop shows the
 * step completed (a SIGTRAP step stop): the kernel also stops at a pc it has
 * not run yet, e.g. after a system call returns with a signal pending.
 */
static void step(struct thread *t)
{
	struct user_regs_struct regs;

	t->has_pending = ptrace(PTRACE_GETREGS, t->tid, NULL, &regs) == 0;
	if (t->has_pending) {
		t->pending = regs.rip;
		t->pending_sys = is_syscall_at(t->tid, regs.rip);
	}
	ptrace(PTRACE_SINGLESTEP, t->tid, NULL, NULL);
}

/* The pending instruction did run. */
static void complete(struct thread *t)
{
	if (!t->has_pending)
		return;
	record_step(t, t->pending);
	t->has_pending = false;
	if (t->pending_sys)
		scan_maps();
}

int main(int argc, char **argv)
{
	struct tw_options o = { 0 };
	struct pt_attr_time t0;
	char cmdline[4096];
	size_t clen = 0;
	int status;
	pid_t child;

	log_progname = "arc_stepper";
	if (argc < 3) {
		fprintf(stderr, "usage: arc_stepper DIR COMMAND [ARGS...]\n");
		return 2;
	}
	child = fork();
	if (child == 0) {
		ptrace(PTRACE_TRACEME, 0, NULL, NULL);
		raise(SIGSTOP);
		execvp(argv[2], argv + 2);
		_exit(127);
	}
	pid = child;
	waitpid(child, &status, 0);
	ptrace(PTRACE_SETOPTIONS, child, NULL,
	       (void *)(long)(PTRACE_O_TRACEEXEC | PTRACE_O_TRACECLONE | PTRACE_O_EXITKILL));
	ptrace(PTRACE_CONT, child, NULL, NULL);
	waitpid(child, &status, 0);
	if (!WIFSTOPPED(status) || status >> 8 != (SIGTRAP | (PTRACE_EVENT_EXEC << 8))) {
		fprintf(stderr, "arc_stepper: %s did not exec\n", argv[2]);
		return 1;
	}
	tw = tw_open(argv[1], &o);
	if (!tw)
		return 1;
	for (int i = 2; i < argc && clen + strlen(argv[i]) + 1 < sizeof(cmdline); i++) {
		memcpy(cmdline + clen, argv[i], strlen(argv[i]) + 1);
		clen += strlen(argv[i]) + 1;
	}
	t0.realtime_ns = tw_realtime_ns();
	t0.monotonic_ns = tw_now_ns();
	tw_set_attr_str(tw, PT_ATTR_ARCH, "x86_64");
	tw_set_attr_str(tw, PT_ATTR_BACKEND, "ptrace");
	tw_set_attr_str(tw, PT_ATTR_MODE, "step");
	tw_set_attr(tw, PT_ATTR_CMDLINE, cmdline, clen);
	tw_set_attr(tw, PT_ATTR_START_TIME, &t0, sizeof(t0));
	tw_set_attr_str(tw, PT_ATTR_NOTE, "recorded by tests/progs/arc_stepper (test-only)");
	{
		struct pt_task_exec e = { .c = now_common((uint32_t)pid) };
		struct pt_task_comm c = { .c = now_common((uint32_t)pid) };
		char exe[4096], *base;
		char link[64];
		ssize_t n;

		snprintf(link, sizeof(link), "/proc/%d/exe", pid);
		n = readlink(link, exe, sizeof(exe) - 1);
		exe[n > 0 ? n : 0] = '\0';
		base = strrchr(exe, '/');
		tw_task(tw, PT_TASK_EXEC, &e, sizeof(e), exe);
		tw_task(tw, PT_TASK_COMM, &c, sizeof(c), base ? base + 1 : exe);
		tw_count_task(tw, true);
	}
	scan_maps();
	thread_new(pid);
	/* Leaving the exec stop, the kernel reports a step at the entry point before
	 * running it: nothing is pending, so that stop records nothing. */
	ptrace(PTRACE_SINGLESTEP, pid, NULL, NULL);
	for (;;) {
		struct thread *t;
		pid_t tid = waitpid(-1, &status, __WALL);

		if (tid < 0)
			break;
		t = thread_of(tid);
		if (!t) {
			/* a new thread's first stop can come before its parent's clone event */
			t = thread_new(tid);
		}
		if (WIFEXITED(status) || WIFSIGNALED(status)) {
			/* an exit system call ran; another pending instruction did not */
			if (t->has_pending && t->pending_sys)
				complete(t);
			thread_exit(t, status);
			if (tid == pid)
				break;
			continue;
		}
		if (!WIFSTOPPED(status))
			continue;
		if (status >> 8 == (SIGTRAP | (PTRACE_EVENT_CLONE << 8))) {
			unsigned long newtid;
			struct pt_task_fork fk;

			ptrace(PTRACE_GETEVENTMSG, tid, NULL, &newtid);
			fk = (struct pt_task_fork){ .c = now_common((uint32_t)newtid),
						    .ppid = (uint32_t)pid, .ptid = (uint32_t)tid,
						    .flags = PT_FORK_THREAD };
			tw_task(tw, PT_TASK_FORK, &fk, sizeof(fk), NULL);
			tw_count_task(tw, false);
			complete(t);	/* the clone system call */
			if (!thread_of((pid_t)newtid))
				thread_new((pid_t)newtid);
			/* its step stop will come at the next instruction, not yet run */
			ptrace(PTRACE_SINGLESTEP, tid, NULL, NULL);
			continue;
		}
		if (WSTOPSIG(status) == SIGSTOP && !(status >> 16)) {
			/* a new thread starting (or a stray stop): just step on */
			step(t);
			continue;
		}
		if (WSTOPSIG(status) != SIGTRAP) {
			/* signal-delivery stop: the pending instruction has not run; deliver
			 * the signal; a handler entry comes next if it is caught */
			t->has_pending = false;
			t->async_next = signal_caught(WSTOPSIG(status));
			ptrace(PTRACE_SINGLESTEP, tid, NULL, (void *)(long)WSTOPSIG(status));
			continue;
		}
		complete(t);
		step(t);
	}
	{
		struct pt_attr_time t1 = { tw_realtime_ns(), tw_now_ns() };

		tw_set_attr(tw, PT_ATTR_STOP_TIME, &t1, sizeof(t1));
	}
	for (int i = 0; i < MAX_THREADS; i++)
		if (threads[i].live)
			tw_stream_close(threads[i].st);
	return tw_close(tw, "complete") < 0;
}
