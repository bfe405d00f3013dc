// SPDX-License-Identifier: GPL-2.0
/*
 * attach's guardian.  `pitrace attach` runs as two processes: the one the
 * user started (the guardian) forks the tracer, passes on every signal
 * that asks pitrace to stop, and waits for it.
 *
 * Why: a tracer that dies kills the threads it was single-stepping.  A
 * stepped thread is either stopped at a step trap (a signal-delivery-stop
 * of SIGTRAP) or running with the trap flag set; when its tracer goes
 * away, Linux (kernel/ptrace.c, __ptrace_unlink) wakes it with that
 * SIGTRAP still to deliver, or lets the flag trap once more, and the
 * SIGTRAP's default action kills the process.  Nothing another process can
 * do comes in time.  So the tracer must not be the process that gets
 * killed: it has its own process group (a terminal's signals and a kill of
 * the job reach the guardian only) and PR_SET_PDEATHSIG, so when the
 * guardian dies, even of SIGKILL, the tracer detaches everything as after
 * SIGTERM.  When the tracer itself dies, the guardian does what can still
 * be done: it takes the --on breakpoints out of the processes that
 * survive, gives them their CPU affinity back, marks the trace as cut
 * short and says what became of each process.
 */
#define PR_FMT "attach"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <pitrace/format.h>
#include "util/log.h"
#include "pitrace/ptrace_int.h"
#include "util/trace_reader.h"
#include "util/trace_writer.h"

#define GUARD_MAX_PROCS 256
#define GUARD_MAX_BPS 4096

/* What the tracer shares with the guardian (MAP_SHARED): enough to tidy up after it. */
struct guard_shared {
	char dir[PATH_MAX];	  /* the trace's files, staging or final */
	bool committed;		  /* dir is the trace's own name */
	uint32_t nr_procs, nr_bps;
	struct {
		pid_t pid;
		bool mask_saved;
		cpu_set_t mask;	  /* the affinity to give back */
	} procs[GUARD_MAX_PROCS];
	struct {
		pid_t pid;
		uint64_t addr;
		uint8_t orig[ARCH_BREAKPOINT_MAX];
	} bps[GUARD_MAX_BPS];
};

static volatile sig_atomic_t g_tracer_pid;

/* Signals that ask pitrace to stop go to the tracer, which detaches. */
static void forward(int sig)
{
	if (g_tracer_pid > 0)
		kill((pid_t)g_tracer_pid, sig);
}

void guard_sync(struct engine *e)
{
	struct guard_shared *g = e->guard;

	e->guard_dirty = false;
	if (!g)
		return;
	snprintf(g->dir, sizeof(g->dir), "%s", tw_dir(e->tw));
	g->committed = e->committed;
	g->nr_procs = g->nr_bps = 0;
	for (struct proc *p = e->procs; p && g->nr_procs < GUARD_MAX_PROCS; p = p->next) {
		g->procs[g->nr_procs].pid = p->pid;
		g->procs[g->nr_procs].mask_saved = p->mask_saved;
		g->procs[g->nr_procs].mask = p->saved_mask;
		g->nr_procs++;
		for (size_t i = 0; i < p->nr_bps && g->nr_bps < GUARD_MAX_BPS; i++) {
			g->bps[g->nr_bps].pid = p->pid;
			g->bps[g->nr_bps].addr = p->bps[i].addr;
			memcpy(g->bps[g->nr_bps].orig, p->bps[i].orig, sizeof(p->bps[i].orig));
			g->nr_bps++;
		}
	}
}

static bool alive(pid_t pid)
{
	char st = task_state(pid, pid);

	return st && st != 'Z' && st != 'X';
}

/* Take the breakpoints out of pid's memory and give its threads their affinity back. */
static void tidy_process(const struct guard_shared *g, uint32_t k)
{
	pid_t pid = g->procs[k].pid;
	char name[64];
	struct dirent *de;
	DIR *d;
	int fd;

	snprintf(name, sizeof(name), "/proc/%d/mem", pid);
	fd = open(name, O_RDWR | O_CLOEXEC);
	for (uint32_t i = 0; i < g->nr_bps && fd >= 0; i++)
		if (g->bps[i].pid == pid &&
		    pwrite(fd, g->bps[i].orig, arch_breakpoint_len, (off_t)g->bps[i].addr) < 0)
			pr_warn("cannot take the breakpoint at %#llx out of %d: %s",
				(unsigned long long)g->bps[i].addr, pid, strerror(errno));
	if (fd >= 0)
		close(fd);
	if (!g->procs[k].mask_saved)
		return;
	snprintf(name, sizeof(name), "/proc/%d/task", pid);
	d = opendir(name);
	while (d && (de = readdir(d))) {
		pid_t tid = atoi(de->d_name);

		if (tid > 0)
			sched_setaffinity(tid, sizeof(g->procs[k].mask), &g->procs[k].mask);
	}
	if (d)
		closedir(d);
}

/* The steps each stream holds: the header's totals of a trace whose recorder died. */
static void count_steps(const char *dir, struct pt_attr_totals *t)
{
	struct trace *tr = trace_open(dir);

	memset(t, 0, sizeof(*t));
	if (!tr)
		return;
	for (size_t i = 0; i < trace_nr_streams(tr); i++) {
		struct stream_reader *r = stream_reader_open(trace_stream(tr, i)->path);
		struct step_item it;

		if (!r)
			continue;
		stream_reader_set_quiet(r, true);
		stream_reader_set_force(r, true);
		stream_reader_set_cut_short(r, true);
		while (stream_reader_next(r, &it, NULL) == 1)
			t->steps += it.kind == STEP_ITEM_STEP;
		stream_reader_close(r);
		t->threads++;
	}
	for (size_t i = 0; i < trace_nr_tasks(tr); i++)
		t->processes += trace_tasks(tr)[i].type == PT_TASK_FORK &&
				!(trace_tasks(tr)[i].fork.flags & PT_FORK_THREAD);
	trace_close(tr);
}

/* The tracer died of signal sig: tidy up after it and say what became of everything. */
static void after_tracer_death(struct guard_shared *g, pid_t tracer, int sig)
{
	const char *abbrev = sigabbrev_np(sig);
	struct timespec tick = { 0, 10 * 1000 * 1000 };
	char note[256];

	for (uint32_t k = 0; k < g->nr_procs; k++)
		if (alive(g->procs[k].pid))
			tidy_process(g, k);
	pr_err("the tracer (pid %d) was killed by SIG%s", tracer, abbrev ? abbrev : "?");
	for (uint32_t k = 0; k < g->nr_procs; k++) {
		pid_t pid = g->procs[k].pid;
		bool up = alive(pid);

		/* a stepped thread dies of its trap within moments: wait for it */
		for (int i = 0; i < 20 && up; i++) {
			nanosleep(&tick, NULL);
			up = alive(pid);
		}
		if (up)
			pr_info("process %d goes on untraced%s", pid,
				g->procs[k].mask_saved || g->nr_bps ?
				" (breakpoints removed, CPU affinity given back)" : "");
		else
			pr_info("process %d died with it (a thread it was single-stepping got "
				"the pending SIGTRAP)", pid);
	}
	if (!g->dir[0])
		return;
	if (!g->committed) {
		tw_remove_staging(g->dir);	/* nothing was recorded yet */
		return;
	}
	snprintf(note, sizeof(note), "the tracer was killed by SIG%s: the recording stops there",
		 abbrev ? abbrev : "?");
	{
		struct pt_attr_totals t;

		count_steps(g->dir, &t);
		tw_mark_cut_short(g->dir, PT_STATE_INTERRUPTED, note, &t);
	}
}

/* In the guardian: pass signals on, wait for the tracer, then its exit status. */
static int guard(struct guard_shared *g, pid_t tracer)
{
	struct sigaction sa;
	int status;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = forward;
	sigemptyset(&sa.sa_mask);
	g_tracer_pid = tracer;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sigaction(SIGQUIT, &sa, NULL);
	while (waitpid(tracer, &status, 0) < 0) {
		if (errno != EINTR) {
			pr_err("waitpid: %s", strerror(errno));
			return EXIT_RUNTIME;
		}
	}
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	after_tracer_death(g, tracer, WTERMSIG(status));
	return EXIT_RUNTIME;
}

int guard_fork(struct guard_shared **shared)
{
	pid_t guardian = getpid(), pid;
	struct guard_shared *g;

	g = mmap(NULL, sizeof(*g), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (g == MAP_FAILED) {
		pr_err("cannot share memory with the tracer: %s", strerror(errno));
		return EXIT_RUNTIME;
	}
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		pr_err("fork: %s", strerror(errno));
		munmap(g, sizeof(*g));
		return EXIT_RUNTIME;
	}
	if (pid > 0) {
		int ret = guard(g, pid);

		munmap(g, sizeof(*g));
		return ret;
	}
	/* The tracer: stop (detaching everything) when the guardian dies. */
	prctl(PR_SET_PDEATHSIG, GUARDIAN_GONE);
	if (getppid() != guardian)
		_exit(EXIT_RUNTIME);	/* gone already: nothing taken yet */
	setpgid(0, 0);		   /* a terminal's or a job's signals reach the guardian */
	signal(SIGTTOU, SIG_IGN);  /* and it may still write to the terminal */
	*shared = g;
	return -1;
}
