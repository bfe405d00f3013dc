// SPDX-License-Identifier: GPL-2.0
/*
 * The ptrace backend: every thread of the traced processes is single-stepped
 * and each instruction it executes is written once, at the stop that proves
 * it executed (a step trap), never at the stop where it is about to run: a
 * signal, a group-stop or an exit may come in between and the instruction
 * then never ran.
 */
#define PR_FMT "ptrace"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include <pitrace/format.h>
#include "arch_decode.h"
#include "arch_ptrace.h"
#include "log.h"
#include "pitrace.h"
#include "ptrace_atomic.h"
#include "ptrace_engine.h"
#include "ptrace_maps.h"
#include "symbols.h"
#include "trace_writer.h"

/* Stops needed before deciding whether the CPU honours block stepping. */
#define BLOCK_PROBE_STOPS 256

/*
 * Threads of one process are stepped one at a time, each for up to this
 * many steps (or until its next instruction is a system call, which may
 * block): interleaving them step by step would cost a SWITCH record and an
 * absolute pc per step.  Those stopped meanwhile wait ("parked").
 */
#define OWNER_QUANTUM 4096

/* Addresses known to hold / not hold a syscall instruction, per process. */
#define SC_CACHE_SIZE 1024

/* A planted breakpoint (--on) in one process's memory. */
struct bp {
	uint64_t addr;
	uint8_t orig[ARCH_BREAKPOINT_MAX];
};

struct proc {
	pid_t pid;
	bool recorded;		  /* its steps are recorded; else only held (see ghost) */
	bool detach_on_start;	  /* a child we don't follow: let go at its first stop */
	bool gone;		  /* the leader has been reaped */
	int memfd;		  /* /proc/PID/mem, reopened after execve */
	struct ptm_maps maps;
	struct bp *bps;
	size_t nr_bps;
	int nr_threads;
	cpu_set_t saved_mask;	  /* attach: the affinity to give back */
	bool mask_saved;
	struct {
		uint64_t pc;
		int8_t is_syscall;	  /* -1: slot empty */
		int8_t is_atomic;	  /* may start an atomic sequence (arch_ptrace.h) */
	} sc_cache[SC_CACHE_SIZE];
	struct proc *next;
};

struct thread {
	pid_t tid;
	struct proc *proc;	  /* NULL until its creator's event names it */
	struct tw_stream *stream; /* opened at its first record */
	bool known;		  /* its creation event (or attach) has been seen */
	bool started;		  /* its first stop has been seen */
	bool running;		  /* resumed: a stop will come */
	bool stepping;		  /* resumed with step requests (else natively) */
	bool stepped;		  /* the last resume stepped the instruction at prev_pc */
	bool exec_trap;		  /* a step trap without an instruction follows execve */
	bool exit_written;
	bool parked;		  /* stopped, waiting for the owner to yield */
	bool draining;		  /* detaching: a queued step trap is to be swallowed */
	bool lifted;		  /* lifted_bp is out of memory for this one step */
	uint64_t lifted_bp;
	uint64_t prev_pc;	  /* the instruction the next step trap completes */
	int pending_sig;	  /* signal to deliver at the next resume */
	int injected_sig;	  /* signal delivered at the last resume */
	int64_t sys_nr;		  /* native: the syscall being made (entry stop) */
	bool sc_step;		  /* stepping a syscall insn by PTRACE_SYSCALL's stops
				   * (arch_syscall_step_runs_next) */
	unsigned sig_depth;	  /* signal handlers entered and not yet returned */
	uint64_t region_end_sp;	  /* --on: in a region until sp reaches this; 0 none */
	uint64_t region_ret;	  /* --on: ... or it returns here at that sp (arch_stop_regs.ra) */
	struct ptrace_atomic atomic; /* a larx/stcx. sequence running natively */
	char comm[17];
	struct thread *next;
};

struct engine {
	struct ptrace_opts o;
	struct trace_writer *tw;
	struct thread *threads;
	struct thread *last;	  /* lookup cache: the thread of the previous stop */
	struct proc *procs;
	bool attach;
	bool on_mode;
	bool block;		  /* block stepping requested and not found missing */
	unsigned block_probes;
	struct arch_decoder *dec;
	pid_t root_pid;
	int root_status;
	bool root_done;
	pid_t last_tid;		  /* thread of the last record written */
	uint64_t next_time;	  /* step count of the next TIME record */
	uint64_t next_progress_ns;
	struct thread *owner;	  /* the one thread being stepped while others park */
	unsigned owner_steps;
	bool detaching;
	bool failed;		  /* the trace could not be written */
	bool any_bp;		  /* some --on symbol was found */
	unsigned long ptrace_options;
	int cpu;		  /* pinned CPU, -1 none */
	/* (path, symbol) -> ELF address, so libraries are not re-read at every mmap */
	struct sym_cache {
		char *path;
		unsigned sym;
		int found;
		uint64_t vaddr;
		unsigned local;	  /* offset of its local entry (ppc64 ELFv2), 0 none */
	} *syms;
	size_t nr_syms;
};

static volatile sig_atomic_t g_interrupted;
static volatile sig_atomic_t g_forward_pid;	/* record: where kill()ed signals go */
static volatile sig_atomic_t g_kick_tid;	/* a tracee to interrupt so waitpid returns */

static void on_signal(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	g_interrupted = sig;
	/* A terminal's ^C reaches the whole foreground group, the command too; a
	 * kill() reaches only us, so pass it on like a shell would. */
	if (g_forward_pid > 0 && si && si->si_code <= 0)
		kill((pid_t)g_forward_pid, sig);
	if (g_kick_tid > 0)
		ptrace(PTRACE_INTERRUPT, (pid_t)g_kick_tid, NULL, NULL);
}

static void install_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_signal;
	sa.sa_flags = SA_SIGINFO;	/* no SA_RESTART: waitpid must return */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

static void release_parked(struct engine *e);
static bool next_is_syscall(struct proc *p, uint64_t pc);
static bool next_is_atomic(struct proc *p, uint64_t pc);

/* ---- tasks ---- */

static struct thread *find_thread(struct engine *e, pid_t tid)
{
	if (e->last && e->last->tid == tid)
		return e->last;
	for (struct thread *t = e->threads; t; t = t->next)
		if (t->tid == tid)
			return e->last = t;
	return NULL;
}

static struct thread *new_thread(struct engine *e, pid_t tid)
{
	struct thread *t = calloc(1, sizeof(*t));

	if (!t) {
		pr_err("out of memory");
		exit(EXIT_RUNTIME);
	}
	t->tid = tid;
	t->sys_nr = -1;
	t->next = e->threads;
	e->threads = t;
	return t;
}

static int open_mem(pid_t pid)
{
	char name[64];

	snprintf(name, sizeof(name), "/proc/%d/mem", pid);
	return open(name, O_RDWR | O_CLOEXEC);
}

static struct proc *new_proc(struct engine *e, pid_t pid, bool recorded)
{
	struct proc *p = calloc(1, sizeof(*p));

	if (!p) {
		pr_err("out of memory");
		exit(EXIT_RUNTIME);
	}
	p->pid = pid;
	p->recorded = recorded;
	p->memfd = open_mem(pid);
	memset(p->sc_cache, 0xff, sizeof(p->sc_cache));
	p->next = e->procs;
	e->procs = p;
	return p;
}

static void free_proc(struct engine *e, struct proc *p)
{
	for (struct proc **pp = &e->procs; *pp; pp = &(*pp)->next) {
		if (*pp == p) {
			*pp = p->next;
			break;
		}
	}
	if (p->memfd >= 0)
		close(p->memfd);
	ptm_free(&p->maps);
	free(p->bps);
	free(p);
}

static void attach_thread_to(struct thread *t, struct proc *p)
{
	t->proc = p;
	p->nr_threads++;
}

static void set_kick(struct engine *e)
{
	g_kick_tid = e->threads ? e->threads->tid : 0;
}

static void remove_thread(struct engine *e, struct thread *t)
{
	struct proc *p = t->proc;
	bool atomic = t->atomic.active;
	unsigned steps;
	int kind;

	/* Its sequence's breakpoints must not stay for the other threads. */
	if (atomic && p && p->memfd >= 0)
		ptrace_atomic_end(&t->atomic, p->memfd, t->tid, 0, &steps, &kind);

	for (struct thread **pp = &e->threads; *pp; pp = &(*pp)->next) {
		if (*pp == t) {
			*pp = t->next;
			break;
		}
	}
	if (e->last == t)
		e->last = NULL;
	if (e->owner == t)
		e->owner = NULL;	/* the parked ones are let go below */
	if (e->last_tid == t->tid)
		e->last_tid = 0;
	if (p && --p->nr_threads <= 0 && (p->gone || e->detaching || !p->recorded))
		free_proc(e, p);
	free(t);
	set_kick(e);
	if (!e->owner || atomic)
		release_parked(e);
}

static void task_common(struct engine *e, struct pt_task_common *c, pid_t pid, pid_t tid)
{
	c->time_ns = tw_now_ns();
	c->seq = tw_total_steps(e->tw);
	c->pid = (uint32_t)pid;
	c->tid = (uint32_t)tid;
}

static void read_comm(pid_t tid, char *buf, size_t size)
{
	char name[64];
	ssize_t n;
	int fd;

	snprintf(name, sizeof(name), "/proc/%d/comm", tid);
	fd = open(name, O_RDONLY | O_CLOEXEC);
	n = fd >= 0 ? read(fd, buf, size - 1) : -1;
	if (fd >= 0)
		close(fd);
	if (n < 0)
		n = 0;
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
}

/* Write a COMM record when the thread's name changed (exec, prctl). */
static void note_comm(struct engine *e, struct thread *t)
{
	struct pt_task_comm r;
	char comm[17];

	read_comm(t->tid, comm, sizeof(comm));
	if (!comm[0] || !strcmp(comm, t->comm))
		return;
	strcpy(t->comm, comm);
	task_common(e, &r.c, t->proc->pid, t->tid);
	tw_task(e->tw, PT_TASK_COMM, &r, sizeof(r), comm);
}

static void write_fork(struct engine *e, struct thread *t, pid_t ppid, pid_t ptid, bool thread)
{
	struct pt_task_fork r = { .ppid = (uint32_t)ppid, .ptid = (uint32_t)ptid,
				  .flags = thread ? PT_FORK_THREAD : 0 };

	task_common(e, &r.c, t->proc->pid, t->tid);
	tw_task(e->tw, PT_TASK_FORK, &r, sizeof(r), NULL);
	tw_count_task(e->tw, !thread);
}

/* ---- step streams ---- */

static struct tw_stream *stream_of(struct engine *e, struct thread *t)
{
	if (!t->stream) {
		t->stream = tw_stream_open(e->tw, false, (uint32_t)t->tid);
		if (!t->stream) {
			/* Message printed; stop cleanly rather than lose steps silently. */
			e->failed = true;
			g_interrupted = SIGTERM;
			return NULL;
		}
	}
	if (e->last_tid != t->tid) {
		tw_switch(t->stream, (uint32_t)t->proc->pid, (uint32_t)t->tid, tw_now_ns(),
			  tw_total_steps(e->tw));
		e->last_tid = t->tid;
	}
	return t->stream;
}

static void progress(struct engine *e, uint64_t now)
{
	if (!log_is_tty() || now < e->next_progress_ns)
		return;
	e->next_progress_ns = now + 1000000000ull;
	fprintf(stderr, "\rpitrace: %llu steps ", (unsigned long long)tw_total_steps(e->tw));
}

/* The hot path: one executed instruction of thread t. */
static void record_step(struct engine *e, struct thread *t, uint64_t pc)
{
	struct tw_stream *s = stream_of(e, t);
	uint64_t total = tw_total_steps(e->tw);

	if (!s)
		return;
	if (total >= e->next_time) {
		uint64_t now = tw_now_ns();

		tw_time(s, now, total);
		e->next_time = total + PT_TIME_INTERVAL;
		progress(e, now);
	}
	tw_step(s, pc);
}

static void close_stream(struct engine *e, struct thread *t, bool detached)
{
	if (!t->stream)
		return;
	if (detached) {
		stream_of(e, t);
		tw_gap(t->stream, PT_GAP_DETACH);
	}
	if (tw_stream_close(t->stream) < 0)
		e->failed = true;
	t->stream = NULL;
	if (e->last_tid == t->tid)
		e->last_tid = 0;
}

static void write_exit(struct engine *e, struct thread *t, int status)
{
	struct pt_task_exit r = { .status = status };

	if (t->exit_written)
		return;
	t->exit_written = true;
	if (t->proc && t->proc->recorded) {
		task_common(e, &r.c, t->proc->pid, t->tid);
		tw_task(e->tw, PT_TASK_EXIT, &r, sizeof(r), NULL);
	}
	close_stream(e, t, false);
}

/* ---- breakpoints (--on) ---- */

static struct bp *find_bp(struct proc *p, uint64_t addr)
{
	for (size_t i = 0; i < p->nr_bps; i++)
		if (p->bps[i].addr == addr)
			return &p->bps[i];
	return NULL;
}

static int poke(struct proc *p, uint64_t addr, const uint8_t *bytes, size_t len)
{
	/* /proc/PID/mem writes through read-only text like PTRACE_POKETEXT. */
	return pwrite(p->memfd, bytes, len, (off_t)addr) == (ssize_t)len ? 0 : -1;
}

static void plant_bp(struct engine *e, struct proc *p, uint64_t addr, const char *sym)
{
	struct bp *n, b = { .addr = addr };

	if (find_bp(p, addr))
		return;
	if (pread(p->memfd, b.orig, arch_breakpoint_len, (off_t)addr) !=
		    (ssize_t)arch_breakpoint_len ||
	    poke(p, addr, arch_breakpoint_insn, arch_breakpoint_len) < 0) {
		pr_warn("--on %s: cannot plant a breakpoint at %#llx in %d: %s", sym,
			(unsigned long long)addr, p->pid, strerror(errno));
		return;
	}
	n = realloc(p->bps, (p->nr_bps + 1) * sizeof(*n));
	if (!n) {
		poke(p, addr, b.orig, arch_breakpoint_len);
		return;
	}
	p->bps = n;
	p->bps[p->nr_bps++] = b;
	e->any_bp = true;
	pr_dbg("--on %s: breakpoint at %#llx in %d", sym, (unsigned long long)addr, p->pid);
}

/* Put the original bytes back everywhere (before letting the process go). */
static void remove_bps(struct proc *p)
{
	for (size_t i = 0; i < p->nr_bps; i++)
		poke(p, p->bps[i].addr, p->bps[i].orig, arch_breakpoint_len);
	p->nr_bps = 0;
}

/* Forget breakpoints whose code is no longer mapped (nothing to restore). */
static void drop_unmapped_bps(struct proc *p)
{
	size_t j = 0;

	for (size_t i = 0; i < p->nr_bps; i++)
		if (ptm_contains(&p->maps, p->bps[i].addr))
			p->bps[j++] = p->bps[i];
	p->nr_bps = j;
}

static int lookup_sym(struct engine *e, const char *path, unsigned sym, uint64_t *vaddr,
		      unsigned *local)
{
	struct sym_cache *c;

	for (size_t i = 0; i < e->nr_syms; i++) {
		c = &e->syms[i];
		if (c->sym == sym && !strcmp(c->path, path)) {
			*vaddr = c->vaddr;
			*local = c->local;
			return c->found;
		}
	}
	c = realloc(e->syms, (e->nr_syms + 1) * sizeof(*c));
	if (!c)
		return 0;
	e->syms = c;
	c = &e->syms[e->nr_syms];
	c->path = strdup(path);
	if (!c->path)
		return 0;
	c->sym = sym;
	c->vaddr = 0;
	c->local = 0;
	c->found = sym_lookup_entries_in_file(path, e->o.on_syms[sym], &c->vaddr, NULL,
					      &c->local) == 1;
	e->nr_syms++;
	*vaddr = c->vaddr;
	*local = c->local;
	return c->found;
}

/* Plant a breakpoint at every --on symbol in every file p has mapped. */
static void plant_on_symbols(struct engine *e, struct proc *p)
{
	for (size_t i = 0; i < p->maps.n; i++) {
		const char *path = p->maps.v[i].path;
		bool seen = false;

		if (path[0] != '/')
			continue;
		for (size_t j = 0; j < i && !seen; j++)
			seen = !strcmp(p->maps.v[j].path, path);
		for (unsigned s = 0; s < e->o.nr_on_syms && !seen; s++) {
			uint64_t vaddr, addr;
			unsigned local;

			if (!lookup_sym(e, path, s, &vaddr, &local))
				continue;
			addr = ptm_runtime_addr(&p->maps, path, vaddr);
			if (!addr)
				continue;
			plant_bp(e, p, addr, e->o.on_syms[s]);
			/* Calls from its own module land past the global entry (ppc64 ELFv2). */
			if (local)
				plant_bp(e, p, addr + local, e->o.on_syms[s]);
		}
	}
}

/* ---- module tracking ---- */

static void maps_changed(struct engine *e, struct proc *p)
{
	int added;

	if (!p->recorded)
		return;
	added = ptm_update(e->tw, e->o.out_dir, p->pid, &p->maps);
	if (added < 0)
		return;	/* the process is exiting; its exit will be reported */
	drop_unmapped_bps(p);
	memset(p->sc_cache, 0xff, sizeof(p->sc_cache));
	if (added > 0 && e->on_mode)
		plant_on_symbols(e, p);
}

static void after_syscall(struct engine *e, struct thread *t, int64_t nr)
{
	switch (arch_syscall_kind(nr)) {
	case ARCH_SC_MAPS:
		maps_changed(e, t->proc);
		break;
	case ARCH_SC_COMM:
		note_comm(e, t);
		break;
	default:
		break;
	}
}

/* ---- resuming ---- */

/*
 * A step trap that raced with our PTRACE_INTERRUPT stays queued behind the
 * interrupt stop; detached, the thread would die of it.
 */
static bool step_trap_queued(pid_t tid)
{
	struct __ptrace_peeksiginfo_args args = { .off = 0, .flags = 0, .nr = 8 };
	siginfo_t si[8];
	int n = (int)ptrace(PTRACE_PEEKSIGINFO, tid, &args, si);

	for (int i = 0; i < n; i++)
		if (si[i].si_signo == SIGTRAP && si[i].si_code > 0 && si[i].si_code != SI_KERNEL)
			return true;
	return false;
}

static void detach_thread(struct engine *e, struct thread *t, int sig)
{
	struct proc *p = t->proc;

	if (t->started && !t->exit_written && !sig && step_trap_queued(t->tid)) {
		/* Let it take the trap as a signal-delivery-stop (on_stop
		 * swallows it and detaches then; another interrupt stop may
		 * come first and lands here again); PTRACE_CONT clears TF. */
		t->draining = true;
		t->stepped = false;
		if (ptrace(PTRACE_CONT, t->tid, NULL, NULL) == 0) {
			t->running = true;
			return;
		}
	}
	if (p) {
		/* Any stopped thread of p can restore the code for all of them. */
		if (p->nr_bps)
			remove_bps(p);
		if (p->mask_saved)
			sched_setaffinity(t->tid, sizeof(p->saved_mask), &p->saved_mask);
	}
	/* PTRACE_DETACH also clears the trap flag of a stepped thread. */
	if (ptrace(PTRACE_DETACH, t->tid, NULL, (void *)(long)sig) < 0 && errno != ESRCH)
		pr_warn("cannot detach from %d: %s", t->tid, strerror(errno));
	close_stream(e, t, !t->exit_written);
	remove_thread(e, t);
}

/*
 * Another thread of t's process runs a sequence natively: with a
 * breakpoint at pc, or (pc 0) at all.
 */
static bool atomic_held(struct engine *e, struct thread *t, uint64_t pc)
{
	for (struct thread *o = e->threads; o; o = o->next)
		if (o != t && o->proc == t->proc && o->atomic.active &&
		    (!pc || ptrace_atomic_holds(&o->atomic, pc)))
			return true;
	return false;
}

static void do_resume(struct engine *e, struct thread *t)
{
	int sig = t->pending_sig;
	long r;

	if (e->detaching) {
		t->pending_sig = 0;
		detach_thread(e, t, sig);
		return;
	}
	/*
	 * While a thread runs a sequence natively, its exits hold breakpoints:
	 * the process's other stepped threads wait (its end lets them go), so
	 * that none steps onto one or plants its own over them.
	 */
	if (t->stepping && atomic_held(e, t, 0)) {
		t->parked = true;
		return;
	}
	t->pending_sig = 0;
	if (t->stepping && !sig && t->proc->recorded && next_is_atomic(t->proc, t->prev_pc) &&
	    ptrace_atomic_begin(&t->atomic, t->proc->memfd, t->prev_pc) == 1) {
		/* A larx/stcx. sequence: natively to its exits (ptrace_atomic.h). */
		r = ptrace(PTRACE_CONT, t->tid, NULL, NULL);
		t->stepped = false;
	} else if (t->stepping && !sig && arch_syscall_step_runs_next &&
		   (t->sc_step || next_is_syscall(t->proc, t->prev_pc))) {
		/* Its exit stop comes before the next instruction runs (arch_ptrace.h). */
		r = ptrace(PTRACE_SYSCALL, t->tid, NULL, NULL);
		t->sc_step = true;
		t->stepped = true;
	} else if (t->stepping) {
		struct bp *b = t->proc->nr_bps ? find_bp(t->proc, t->prev_pc) : NULL;

		/* Step the original instruction, put the breakpoint back after. */
		if (b && poke(t->proc, b->addr, b->orig, arch_breakpoint_len) == 0) {
			t->lifted = true;
			t->lifted_bp = b->addr;
		}
		r = ptrace(e->block ? arch_block_step_request() : PTRACE_SINGLESTEP, t->tid, NULL,
			   (void *)(long)sig);
		t->stepped = true;
	} else {
		r = ptrace(e->on_mode ? PTRACE_SYSCALL : PTRACE_CONT, t->tid, NULL,
			   (void *)(long)sig);
		t->stepped = false;
	}
	/* ESRCH: killed meanwhile (SIGKILL); its exit is reported next. */
	if (r < 0 && errno != ESRCH)
		pr_warn("cannot resume %d: %s", t->tid, strerror(errno));
	t->injected_sig = sig;
	t->running = true;
}

/* The cache slot of the instruction at pc, filled from one read of it. */
static unsigned code_slot(struct proc *p, uint64_t pc)
{
	unsigned slot = (unsigned)(pc ^ (pc >> 10)) % SC_CACHE_SIZE;
	uint8_t code[4];	/* the longest syscall instruction (ppc64: 4 bytes) */
	ssize_t n;

	if (p->sc_cache[slot].is_syscall >= 0 && p->sc_cache[slot].pc == pc)
		return slot;
	n = pread(p->memfd, code, sizeof(code), (off_t)pc);
	p->sc_cache[slot].pc = pc;
	p->sc_cache[slot].is_syscall = n > 0 && arch_is_syscall_insn(code, (size_t)n);
	p->sc_cache[slot].is_atomic = n > 0 && arch_may_start_atomic(code, (size_t)n);
	return slot;
}

static bool next_is_syscall(struct proc *p, uint64_t pc)
{
	return p->sc_cache[code_slot(p, pc)].is_syscall;
}

static bool next_is_atomic(struct proc *p, uint64_t pc)
{
	return p->sc_cache[code_slot(p, pc)].is_atomic;
}

static void release_parked(struct engine *e)
{
	e->owner = NULL;
	for (struct thread *t = e->threads; t; t = t->next) {
		if (t->parked) {
			t->parked = false;
			do_resume(e, t);
		}
	}
}

/*
 * Resume t now, or park it while another thread owns the CPU.  The owner
 * keeps it while it single-steps ordinary instructions; anything that may
 * block (a syscall, a signal, running natively) lets every parked thread go.
 */
static void resume(struct engine *e, struct thread *t)
{
	bool keep;


	if (e->detaching || (!e->owner && !e->threads->next)) {
		do_resume(e, t);	/* single thread: nothing to schedule */
		return;
	}
	if (e->owner && e->owner != t) {
		t->parked = true;
		return;
	}
	if (e->owner != t) {
		e->owner = t;
		e->owner_steps = 0;
	}
	keep = t->stepping && !t->pending_sig && ++e->owner_steps < OWNER_QUANTUM &&
	       !next_is_syscall(t->proc, t->prev_pc);
	if (!keep)
		release_parked(e);
	do_resume(e, t);
}

static void replant(struct thread *t)
{
	struct proc *p = t->proc;

	if (!t->lifted)
		return;
	t->lifted = false;
	if (find_bp(p, t->lifted_bp))
		poke(p, t->lifted_bp, arch_breakpoint_insn, arch_breakpoint_len);
}

/* ---- --on regions ---- */

static void start_region(struct engine *e, struct thread *t, const struct arch_stop_regs *r)
{
	struct tw_stream *s = stream_of(e, t);

	if (s)
		tw_onoff(s, true, tw_now_ns());
	t->region_end_sp = arch_frame_end_sp(r);
	t->region_ret = r->ra;
	t->stepping = true;
	t->prev_pc = r->pc;
}

static void end_region(struct engine *e, struct thread *t)
{
	struct tw_stream *s = stream_of(e, t);

	if (s)
		tw_onoff(s, false, tw_now_ns());
	t->region_end_sp = 0;
	t->stepping = false;
}

/* ---- block stepping ---- */

/*
 * Hypervisors may drop the branch-trap flag: a "block" step then stops after
 * one instruction.  A stop right after an instruction that cannot branch
 * proves it; the steps recorded so far were single steps too, so the trace
 * stays consistent when we switch to (and say) single steps.
 */
static void probe_block(struct engine *e, struct thread *t, uint64_t pc_after)
{
	uint8_t code[ARCH_INSN_MAX_LEN];
	struct arch_insn insn;
	ssize_t n;

	if (++e->block_probes > BLOCK_PROBE_STOPS)
		return;
	n = pread(t->proc->memfd, code, sizeof(code), (off_t)t->prev_pc);
	if (n <= 0 || !e->dec || arch_decode(e->dec, code, (size_t)n, t->prev_pc, &insn) < 0)
		return;
	if (insn.cls != ARCH_INSN_OTHER || pc_after != t->prev_pc + insn.len)
		return;
	e->block = false;
	e->block_probes = BLOCK_PROBE_STOPS;
	fprintf(stderr, "pitrace: block stepping is not available here; recording single steps\n");
	tw_set_attr_str(e->tw, PT_ATTR_MODE, "step");
	tw_set_attr_str(e->tw, PT_ATTR_NOTE,
			"block stepping was requested but the CPU stopped after single "
			"instructions; single steps were recorded");
}

/* ---- stops ---- */

/* A step trap: the instruction at prev_pc has executed. */
static void step_completed(struct engine *e, struct thread *t, const struct arch_stop_regs *r)
{
	bool restarted;

	if (!t->proc->recorded) {
		/* A child we don't follow stepped over a breakpoint: run on. */
		t->stepping = false;
		resume(e, t);
		return;
	}
	/*
	 * A syscall interrupted by a signal without handler (SIGSTOP, our
	 * interrupt) is restarted by the kernel rewinding pc onto it after
	 * our stop: it shows as a syscall ending where the previous stop
	 * was.  The program executed it once, recorded when it was
	 * interrupted; like an instruction re-run after a page fault, the
	 * restart is not counted again.
	 */
	restarted = r->syscall_nr >= 0 && r->pc == t->prev_pc;
	if (e->block)
		probe_block(e, t, r->pc);
	if (!restarted)
		record_step(e, t, t->prev_pc);
	/* A syscall that doesn't go on at the next instruction is a handler's
	 * rt_sigreturn (execve stops elsewhere): say so before the step it
	 * returns to.  Its orig_rax is already -1 here, so look at the code. */
	if (t->sig_depth && r->syscall_nr < 0 && r->pc != t->prev_pc + arch_syscall_insn_len &&
	    next_is_syscall(t->proc, t->prev_pc)) {
		struct tw_stream *s = stream_of(e, t);

		if (s)
			tw_async(s, PT_ASYNC_SIGRETURN, 0);
		t->sig_depth--;
	}
	t->prev_pc = r->pc;
	if (r->syscall_nr >= 0)
		after_syscall(e, t, r->syscall_nr);
	if (t->region_end_sp && (t->region_ret ? (r->pc == t->region_ret && r->sp >= t->region_end_sp) ||
						 r->sp > t->region_end_sp :
						 r->sp >= t->region_end_sp))
		end_region(e, t);
	resume(e, t);
}

static bool is_handler_entry(pid_t tid)
{
	siginfo_t si;

	/* The kernel reports a stepped thread's entry into a signal handler
	 * with a SIGTRAP whose si_code is SIGTRAP itself (ptrace_notify). */
	if (ptrace(PTRACE_GETSIGINFO, tid, NULL, &si) < 0)
		return false;
	return si.si_code == SIGTRAP;
}

static void on_trap(struct engine *e, struct thread *t)
{
	struct arch_stop_regs r;
	int injected = t->injected_sig;

	t->injected_sig = 0;
	if (arch_read_regs(t->tid, &r) < 0) {
		resume(e, t);
		return;
	}
	replant(t);
	if (!t->stepping) {
		struct proc *p = t->proc;
		uint64_t bp = r.pc - arch_breakpoint_pc_adjust;

		if (atomic_held(e, t, r.pc)) {
			/* Another thread's sequence breakpoint: run on once it is gone. */
			t->prev_pc = r.pc;
			t->parked = true;
			return;
		}
		if (!find_bp(p, bp)) {
			/* Not ours: the program's own SIGTRAP. */
			t->pending_sig = SIGTRAP;
			resume(e, t);
			return;
		}
		arch_set_pc(t->tid, bp);
		r.pc = bp;
		if (p->recorded && !e->detaching) {
			start_region(e, t, &r);
		} else {
			t->stepping = true;	/* one step over it, then native */
			t->prev_pc = bp;
		}
		resume(e, t);
		return;
	}
	if (t->exec_trap) {
		t->exec_trap = false;
		if (arch_syscall_kind(r.syscall_nr) == ARCH_SC_EXEC) {
			resume(e, t);
			return;
		}
	}
	if (injected && is_handler_entry(t->tid)) {
		struct tw_stream *s = t->proc->recorded ? stream_of(e, t) : NULL;

		if (s)
			tw_async(s, PT_ASYNC_SIGNAL, (uint64_t)injected);
		t->sig_depth++;
		t->prev_pc = r.pc;
		resume(e, t);
		return;
	}
	if (!t->stepped) {
		t->prev_pc = r.pc;
		resume(e, t);
		return;
	}
	step_completed(e, t, &r);
}

static void on_syscall_stop(struct engine *e, struct thread *t)
{
	struct __ptrace_syscall_info info;
	struct arch_stop_regs r;

	if (t->sc_step) {
		/* A stepped syscall instruction: its exit stop completes the step. */
		if (ptrace(PTRACE_GET_SYSCALL_INFO, t->tid, (void *)sizeof(info), &info) > 0 &&
		    info.op == PTRACE_SYSCALL_INFO_EXIT && arch_read_regs(t->tid, &r) == 0) {
			t->sc_step = false;
			step_completed(e, t, &r);
			return;
		}
		resume(e, t);
		return;
	}
	if (ptrace(PTRACE_GET_SYSCALL_INFO, t->tid, (void *)sizeof(info), &info) > 0) {
		if (info.op == PTRACE_SYSCALL_INFO_ENTRY) {
			t->sys_nr = (int64_t)info.entry.nr;
		} else if (info.op == PTRACE_SYSCALL_INFO_EXIT && t->sys_nr >= 0) {
			after_syscall(e, t, t->sys_nr);
			t->sys_nr = -1;
		}
	}
	resume(e, t);
}

static void exec_path(pid_t pid, char *buf, size_t size)
{
	char name[64];
	ssize_t n;

	snprintf(name, sizeof(name), "/proc/%d/exe", pid);
	n = readlink(name, buf, size - 1);
	buf[n > 0 ? n : 0] = '\0';
}

static void on_exec(struct engine *e, struct thread *t)
{
	struct proc *p = t->proc;
	struct arch_stop_regs r;
	struct pt_task_exec rec;
	unsigned long former = 0;
	char path[PATH_MAX];

	ptrace(PTRACE_GETEVENTMSG, t->tid, NULL, &former);
	if ((pid_t)former != t->tid) {
		/* A non-leader thread exec'd and took over the leader's tid: the
		 * old leader is gone and the former thread won't report again. */
		struct thread *f = find_thread(e, (pid_t)former);

		close_stream(e, t, false);
		if (f) {
			/* Its stream goes on (steps.tFORMER), a SWITCH naming
			 * the new tid; reopening the leader's would truncate it. */
			t->stepped = f->stepped;
			t->prev_pc = f->prev_pc;
			t->stepping = f->stepping;
			t->stream = f->stream;
			f->stream = NULL;
			f->exit_written = true;
			remove_thread(e, f);
		}
		t->exit_written = false;
		e->last_tid = 0;
	}
	if (arch_read_regs(t->tid, &r) < 0) {
		resume(e, t);
		return;
	}
	if (!p->recorded) {
		/* A vfork child we don't follow has left the shared memory:
		 * the breakpoints are not in its new image. */
		p->nr_bps = 0;
		detach_thread(e, t, 0);
		return;
	}
	if (t->stepping && t->stepped)
		record_step(e, t, t->prev_pc);	/* the execve instruction */
	t->sc_step = false;		/* its exit stop is the new image's (exec_trap) */
	/* New address space: old breakpoints and mappings are gone. */
	p->nr_bps = 0;
	if (p->memfd >= 0)
		close(p->memfd);
	p->memfd = open_mem(p->pid);
	memset(p->sc_cache, 0xff, sizeof(p->sc_cache));
	ptm_free(&p->maps);
	exec_path(p->pid, path, sizeof(path));
	task_common(e, &rec.c, p->pid, t->tid);
	tw_task(e->tw, PT_TASK_EXEC, &rec, sizeof(rec), path);
	t->comm[0] = '\0';
	note_comm(e, t);
	if (ptm_update(e->tw, e->o.out_dir, p->pid, &p->maps) >= 0 && e->on_mode)
		plant_on_symbols(e, p);
	if (t->region_end_sp)
		end_region(e, t);
	t->sig_depth = 0;
	t->stepping = !e->on_mode;
	/* We are inside execve: a step resumed from here is reported at its
	 * syscall exit, before any instruction of the new image ran. */
	t->exec_trap = t->stepping;
	t->prev_pc = r.pc;
	resume(e, t);
}

static pid_t tgid_of(pid_t tid)
{
	char name[64], line[256];
	pid_t tgid = -1;
	FILE *f;

	snprintf(name, sizeof(name), "/proc/%d/status", tid);
	f = fopen(name, "re");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Tgid: %d", &tgid) == 1)
			break;
	fclose(f);
	return tgid;
}

/* A new task's first stop: start stepping it, or let it go. */
static void start_thread(struct engine *e, struct thread *t)
{
	struct arch_stop_regs r;

	t->started = true;
	if (t->proc->detach_on_start) {
		detach_thread(e, t, 0);
		return;
	}
	if (arch_read_regs(t->tid, &r) == 0)
		t->prev_pc = r.pc;
	t->stepped = false;
	resume(e, t);
}

static void on_new_task(struct engine *e, struct thread *t, int event)
{
	struct proc *p = t->proc, *np;
	unsigned long msg = 0;
	struct thread *c;
	pid_t tid;
	bool is_thread;

	ptrace(PTRACE_GETEVENTMSG, t->tid, NULL, &msg);
	tid = (pid_t)msg;
	is_thread = event == PTRACE_EVENT_CLONE && tgid_of(tid) == p->pid;
	c = find_thread(e, tid);
	if (!c)
		c = new_thread(e, tid);
	c->known = true;
	if (is_thread) {
		attach_thread_to(c, p);
		c->stepping = !e->on_mode && p->recorded;
		if (p->recorded) {
			write_fork(e, c, p->pid, t->tid, true);
			note_comm(e, c);
		}
	} else {
		np = new_proc(e, tid, p->recorded && e->o.follow_fork);
		attach_thread_to(c, np);
		/* The child's memory is a copy of ours, breakpoints included (a
		 * vfork child even shares it). */
		if (p->nr_bps) {
			np->bps = malloc(p->nr_bps * sizeof(*np->bps));
			if (np->bps) {
				memcpy(np->bps, p->bps, p->nr_bps * sizeof(*np->bps));
				np->nr_bps = p->nr_bps;
			}
		}
		if (np->recorded) {
			c->stepping = !e->on_mode;
			write_fork(e, c, p->pid, t->tid, false);
			note_comm(e, c);
			ptm_update(e->tw, e->o.out_dir, np->pid, &np->maps);
		} else {
			/*
			 * Not followed.  A forked child's copy of the
			 * breakpoints is removed at its first stop and it goes;
			 * a vfork child shares our memory, breakpoints and all,
			 * so it is held (unrecorded) until it execs or exits.
			 */
			np->detach_on_start = !(event == PTRACE_EVENT_VFORK && np->nr_bps);
		}
	}
	if (c->started)
		start_thread(e, c);
	resume(e, t);
}

static void on_exit_event(struct engine *e, struct thread *t)
{
	struct arch_stop_regs r;
	unsigned long status = 0;

	/* The exit or exit_group instruction is the thread's last one. */
	if (t->stepping && t->stepped && t->proc->recorded && arch_read_regs(t->tid, &r) == 0 &&
	    arch_syscall_kind(r.syscall_nr) == ARCH_SC_EXIT &&
	    (e->block || r.pc - t->prev_pc == arch_syscall_insn_len))
		record_step(e, t, t->prev_pc);
	ptrace(PTRACE_GETEVENTMSG, t->tid, NULL, &status);
	write_exit(e, t, (int)status);
	t->stepping = false;
	t->pending_sig = 0;
	resume(e, t);
}

static bool is_stop_signal(int sig)
{
	return sig == SIGSTOP || sig == SIGTSTP || sig == SIGTTIN || sig == SIGTTOU;
}

/*
 * A thread running a sequence natively stopped: record what it ran.  At
 * one of its exits (our breakpoint's SIGTRAP) it goes on stepping from
 * there: true.  Any other stop (a signal inside it) is handled as usual,
 * from where it stands: false.
 */
static bool atomic_stopped(struct engine *e, struct thread *t, int sig, int event)
{
	struct arch_stop_regs r;
	struct tw_stream *s;
	unsigned steps;
	uint64_t start = t->atomic.seq.start, len = t->atomic.seq.insn_len;
	bool at_exit;
	int kind;

	if (arch_read_regs(t->tid, &r) < 0)
		r.pc = 0;
	at_exit = ptrace_atomic_end(&t->atomic, t->proc->memfd, t->tid, r.pc, &steps, &kind);
	for (unsigned i = 0; i < steps; i++)
		record_step(e, t, start + i * len);
	s = kind >= 0 ? stream_of(e, t) : NULL;
	if (s)
		tw_atomic(s, (unsigned)kind, start, steps);
	/* Threads that waited for the breakpoints to go. */
	release_parked(e);
	t->prev_pc = r.pc;
	if (!at_exit || sig != SIGTRAP || event)
		return false;
	resume(e, t);
	return true;
}

static void on_stop(struct engine *e, struct thread *t, int status)
{
	int sig = WSTOPSIG(status), event = status >> 16;

	t->running = false;
	if (!t->known) {
		t->started = true;
		return;		/* held until its creator's event names it */
	}
	if (!t->started) {
		start_thread(e, t);
		return;
	}
	if (t->atomic.active && atomic_stopped(e, t, sig, event))
		return;
	if (t->lifted && sig != SIGTRAP)
		replant(t);
	if (t->draining && !event && sig == SIGTRAP) {
		detach_thread(e, t, 0);
		return;
	}
	switch (event) {
	case 0:
		break;
	case PTRACE_EVENT_EXEC:
		on_exec(e, t);
		return;
	case PTRACE_EVENT_CLONE:
	case PTRACE_EVENT_FORK:
	case PTRACE_EVENT_VFORK:
		on_new_task(e, t, event);
		return;
	case PTRACE_EVENT_EXIT:
		on_exit_event(e, t);
		return;
	case PTRACE_EVENT_STOP:
		if (is_stop_signal(sig) && !e->detaching) {
			/* Group-stop: stay stopped until SIGCONT, as untraced. */
			ptrace(PTRACE_LISTEN, t->tid, NULL, NULL);
			t->running = true;
			return;
		}
		resume(e, t);
		return;
	default:
		resume(e, t);
		return;
	}
	if (sig == (SIGTRAP | 0x80)) {
		on_syscall_stop(e, t);
	} else if (sig == SIGTRAP) {
		on_trap(e, t);
	} else {
		/* Signal-delivery-stop: nothing executed; deliver it unchanged. */
		t->pending_sig = sig;
		resume(e, t);
	}
}

static void on_gone(struct engine *e, pid_t tid, int status)
{
	struct thread *t = find_thread(e, tid);

	if (tid == e->root_pid) {
		e->root_status = status;
		e->root_done = true;
	}
	if (!t)
		return;
	write_exit(e, t, status);
	if (t->proc && t->proc->pid == tid)
		t->proc->gone = true;
	remove_thread(e, t);
}

static void begin_detach(struct engine *e)
{
	struct thread *t, *next;

	e->detaching = true;
	for (t = e->threads; t; t = next) {
		next = t->next;
		if (t->running)
			ptrace(PTRACE_INTERRUPT, t->tid, NULL, NULL);
		else if (!t->known || t->parked)
			detach_thread(e, t, t->pending_sig);
	}
}

static void run(struct engine *e)
{
	int status;
	pid_t tid;

	set_kick(e);
	while (e->threads) {
		struct thread *t;

		if (g_interrupted && !e->detaching)
			begin_detach(e);
		tid = waitpid(-1, &status, __WALL);
		if (tid < 0) {
			if (errno == EINTR)
				continue;
			if (errno != ECHILD)
				pr_err("waitpid: %s", strerror(errno));
			break;
		}
		if (WIFEXITED(status) || WIFSIGNALED(status)) {
			on_gone(e, tid, status);
			continue;
		}
		if (!WIFSTOPPED(status))
			continue;
		t = find_thread(e, tid);
		if (!t)
			t = new_thread(e, tid);	/* its creator's event comes next */
		on_stop(e, t, status);
	}
}

/* ---- setup and teardown ---- */

static void set_header(struct engine *e, char *const *argv, size_t argc)
{
	struct pt_attr_time start = { tw_realtime_ns(), tw_now_ns() };
	struct utsname u;
	size_t len = 0;
	char *buf, host[256];
	uint32_t cpus = (uint32_t)sysconf(_SC_NPROCESSORS_ONLN);

	tw_set_attr_str(e->tw, PT_ATTR_ARCH, arch_ptrace_name);
	tw_set_attr_str(e->tw, PT_ATTR_BACKEND, "ptrace");
	tw_set_attr_str(e->tw, PT_ATTR_MODE, e->block ? "block" : "step");
	if (uname(&u) == 0)
		tw_set_attr_str(e->tw, PT_ATTR_KERNEL_RELEASE, u.release);
	if (gethostname(host, sizeof(host)) == 0) {
		host[sizeof(host) - 1] = '\0';
		tw_set_attr_str(e->tw, PT_ATTR_HOSTNAME, host);
	}
	for (size_t i = 0; i < argc; i++)
		len += strlen(argv[i]) + 1;
	buf = malloc(len ? len : 1);
	if (buf) {
		len = 0;
		for (size_t i = 0; i < argc; i++) {
			strcpy(buf + len, argv[i]);
			len += strlen(argv[i]) + 1;
		}
		tw_set_attr(e->tw, PT_ATTR_CMDLINE, buf, len);
		free(buf);
	}
	tw_set_attr(e->tw, PT_ATTR_START_TIME, &start, sizeof(start));
	tw_set_attr(e->tw, PT_ATTR_NR_CPUS, &cpus, sizeof(cpus));
	for (size_t i = 0; i < e->o.nr_on_syms; i++)
		tw_set_attr_str(e->tw, PT_ATTR_ON_SYMBOL, e->o.on_syms[i]);
	if (e->on_mode)
		tw_add_features(e->tw, PT_FEAT_ON_SYMBOL);
	if (e->cpu >= 0) {
		char note[96];

		snprintf(note, sizeof(note), "tracer and tracees pinned to CPU %d", e->cpu);
		tw_set_attr_str(e->tw, PT_ATTR_NOTE, note);
	}
}

static int engine_init(struct engine *e, const struct ptrace_opts *o, bool attach)
{
	struct tw_options two = { .compress = o->compress };

	memset(e, 0, sizeof(*e));
	e->o = *o;
	e->attach = attach;
	e->on_mode = o->nr_on_syms > 0;
	e->block = o->block;
	e->cpu = -1;
	e->ptrace_options = PTRACE_O_TRACECLONE | PTRACE_O_TRACEEXEC | PTRACE_O_TRACEEXIT;
	/* Children are caught even when not followed under --on: their copy of
	 * the breakpoints must be removed before they run into one. */
	if (o->follow_fork || e->on_mode)
		e->ptrace_options |= PTRACE_O_TRACEFORK | PTRACE_O_TRACEVFORK;
	if (e->on_mode || arch_syscall_step_runs_next)
		e->ptrace_options |= PTRACE_O_TRACESYSGOOD;
	if (e->block) {
		e->dec = arch_decoder_new();
		if (arch_block_step_request() < 0) {
			pr_err("block stepping is not supported on %s", arch_ptrace_name);
			return -1;
		}
	}
	e->tw = tw_open(o->out_dir, &two);
	return e->tw ? 0 : -1;
}

/* Close what is left, write the header; returns 0 or -1 (printed). */
static int engine_finish(struct engine *e, const char *state)
{
	struct pt_attr_time stop = { tw_realtime_ns(), tw_now_ns() };
	int ret;

	while (e->threads) {
		close_stream(e, e->threads, false);
		remove_thread(e, e->threads);
	}
	while (e->procs)
		free_proc(e, e->procs);
	if (log_is_tty() && e->next_progress_ns)
		fputc('\n', stderr);
	if (e->on_mode && !e->any_bp)
		pr_warn("--on: no function of that name was found in the program or its libraries");
	tw_set_attr(e->tw, PT_ATTR_STOP_TIME, &stop, sizeof(stop));
	ret = tw_close(e->tw, state);
	e->tw = NULL;
	for (size_t i = 0; i < e->nr_syms; i++)
		free(e->syms[i].path);
	free(e->syms);
	if (e->dec)
		arch_decoder_free(e->dec);
	return ret < 0 || e->failed ? -1 : 0;
}

/* Pin ourselves to the CPU we run on; tracer and tracee then share it. */
static int pin_self(void)
{
	int cpu = sched_getcpu();
	cpu_set_t set;

	if (cpu < 0)
		return -1;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set) < 0) {
		pr_warn("cannot pin to CPU %d: %s", cpu, strerror(errno));
		return -1;
	}
	return cpu;
}

/* PATH lookup like a shell's, so "no such command" is known before tracing. */
static int find_program(const char *name, char *out, size_t size)
{
	const char *path = getenv("PATH");
	int err = ENOENT;

	if (strchr(name, '/')) {
		snprintf(out, size, "%s", name);
		return access(name, X_OK) == 0 ? 0 : errno;
	}
	if (!path)
		path = "/usr/local/bin:/usr/bin:/bin";
	while (*path) {
		size_t n = strcspn(path, ":");
		struct stat st;

		snprintf(out, size, "%.*s%s%s", (int)n, path, n ? "/" : "", name);
		if (stat(out, &st) == 0 && S_ISREG(st.st_mode)) {
			if (access(out, X_OK) == 0)
				return 0;
			err = EACCES;
		}
		path += n + (path[n] == ':');
	}
	return err;
}

static int exit_status_of(int status)
{
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return EXIT_RUNTIME;
}

int ptrace_record(const struct ptrace_opts *o, char **argv)
{
	struct engine e;
	char prog[PATH_MAX];
	int go[2], err[2], child_errno = 0, ret, status;
	struct thread *t;
	size_t argc = 0;
	pid_t pid;

	ret = find_program(argv[0], prog, sizeof(prog));
	if (ret) {
		pr_err("cannot run '%s': %s", argv[0], strerror(ret));
		return ret == ENOENT ? 127 : 126;
	}
	if (engine_init(&e, o, false) < 0)
		return EXIT_RUNTIME;
	while (argv[argc])
		argc++;
	if (o->pin)
		e.cpu = pin_self();
	set_header(&e, argv, argc);
	if (tw_write_header(e.tw, "recording") < 0 || pipe2(go, O_CLOEXEC) < 0 ||
	    pipe2(err, O_CLOEXEC) < 0) {
		pr_err("cannot start: %s", strerror(errno));
		engine_finish(&e, "interrupted");
		return EXIT_RUNTIME;
	}
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		pr_err("fork: %s", strerror(errno));
		engine_finish(&e, "interrupted");
		return EXIT_RUNTIME;
	}
	if (pid == 0) {
		char c;

		/* Wait until the tracer holds us, then become the command. */
		close(go[1]);
		close(err[0]);
		if (read(go[0], &c, 1) != 1)
			_exit(127);
		aslr_child_setup(o->aslr);
		execv(prog, argv);
		child_errno = errno;
		if (write(err[1], &child_errno, sizeof(child_errno)) < 0)
			_exit(127);
		_exit(child_errno == ENOENT ? 127 : 126);
	}
	close(go[0]);
	close(err[1]);
	e.root_pid = pid;
	if (ptrace(PTRACE_SEIZE, pid, NULL, (void *)e.ptrace_options) < 0) {
		pr_err("cannot trace the command: %s", strerror(errno));
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		engine_finish(&e, "interrupted");
		return EXIT_RUNTIME;
	}
	t = new_thread(&e, pid);
	attach_thread_to(t, new_proc(&e, pid, true));
	t->known = t->started = t->running = true;
	t->stepping = false;	/* runs freely up to its execve */
	write_fork(&e, t, getpid(), getpid(), false);
	g_forward_pid = pid;
	install_signals();
	if (write(go[1], "g", 1) != 1)
		pr_warn("cannot start the command: %s", strerror(errno));
	close(go[1]);
	/* Closed by a successful execve (O_CLOEXEC), else the child's errno. */
	if (read(err[0], &child_errno, sizeof(child_errno)) != sizeof(child_errno))
		child_errno = 0;
	close(err[0]);
	if (child_errno)
		pr_err("cannot run '%s': %s", argv[0], strerror(child_errno));
	run(&e);
	ret = engine_finish(&e, g_interrupted || child_errno ? "interrupted" : "complete");
	g_kick_tid = 0;
	/* Interrupted: the command goes on (or got our signal) untraced; its
	 * status is still ours to report, as a shell would. */
	while (!e.root_done) {
		if (waitpid(pid, &status, 0) == pid) {
			e.root_status = status;
			e.root_done = true;
		} else if (errno != EINTR) {
			break;
		}
	}
	if (ret < 0)
		return EXIT_RUNTIME;
	return e.root_done ? exit_status_of(e.root_status) : EXIT_RUNTIME;
}

/* The CPU a thread last ran on (/proc/PID/stat field 39). */
static int cpu_of(pid_t pid)
{
	char name[64], buf[1024], *p;
	int cpu = -1, field = 2;
	ssize_t n;
	int fd;

	snprintf(name, sizeof(name), "/proc/%d/stat", pid);
	fd = open(name, O_RDONLY | O_CLOEXEC);
	n = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : -1;
	if (fd >= 0)
		close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	p = strrchr(buf, ')');	/* comm may contain spaces */
	for (; p && *p; p++)
		if (*p == ' ' && ++field == 39)
			return atoi(p + 1);
	return cpu;
}

static pid_t ppid_of(pid_t pid)
{
	char name[64], line[256];
	pid_t ppid = 0;
	FILE *f;

	snprintf(name, sizeof(name), "/proc/%d/status", pid);
	f = fopen(name, "re");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "PPid: %d", &ppid) == 1)
			break;
	fclose(f);
	return ppid;
}

/* Seize every thread of pid (re-listing until no new one appeared). */
static int seize_process(struct engine *e, pid_t pid)
{
	char name[64];
	struct proc *p;
	bool added = true;

	if (kill(pid, 0) < 0 && errno == ESRCH) {
		pr_err("no process %d", pid);
		return -1;
	}
	if (pid == getpid()) {
		pr_err("cannot trace %d: that is pitrace itself", pid);
		return -1;
	}
	p = new_proc(e, pid, true);
	snprintf(name, sizeof(name), "/proc/%d/task", pid);
	while (added) {
		DIR *d = opendir(name);
		struct dirent *de;

		added = false;
		if (!d) {
			pr_err("no process %d", pid);
			return -1;
		}
		while ((de = readdir(d))) {
			pid_t tid = atoi(de->d_name);
			struct thread *t;

			if (tid <= 0 || find_thread(e, tid))
				continue;
			if (ptrace(PTRACE_SEIZE, tid, NULL, (void *)e->ptrace_options) < 0) {
				if (errno == ESRCH)
					continue;	/* exited meanwhile */
				pr_err("cannot trace %d: %s%s", pid, strerror(errno),
				       errno == EPERM ? " (another tracer, or ptrace not "
							"permitted: see /proc/sys/kernel/yama/"
							"ptrace_scope)" : "");
				closedir(d);
				return -1;
			}
			ptrace(PTRACE_INTERRUPT, tid, NULL, NULL);
			t = new_thread(e, tid);
			attach_thread_to(t, p);
			t->known = t->running = true;
			t->stepping = !e->on_mode;
			added = true;
		}
		closedir(d);
	}
	return 0;
}

int ptrace_attach(const struct ptrace_opts *o, const pid_t *pids, size_t nr_pids)
{
	struct engine e;
	char cmdline[4096], name[64];
	char *argv[64];
	size_t argc = 0;
	ssize_t n = 0;
	int fd, ret;

	/* Before the trace directory exists: a typo leaves nothing behind. */
	for (size_t i = 0; i < nr_pids; i++) {
		if (kill(pids[i], 0) < 0 && errno == ESRCH) {
			pr_err("no process %d", pids[i]);
			return EXIT_RUNTIME;
		}
	}
	if (engine_init(&e, o, true) < 0)
		return EXIT_RUNTIME;
	snprintf(name, sizeof(name), "/proc/%d/cmdline", pids[0]);
	fd = open(name, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		n = read(fd, cmdline, sizeof(cmdline) - 1);
		close(fd);
	}
	cmdline[n > 0 ? n : 0] = '\0';
	for (ssize_t i = 0; i < n && argc < 63; i += (ssize_t)strlen(cmdline + i) + 1)
		argv[argc++] = cmdline + i;
	argv[argc] = NULL;
	if (o->pin) {
		cpu_set_t set;

		e.cpu = cpu_of(pids[0]);
		CPU_ZERO(&set);
		if (e.cpu >= 0)
			CPU_SET(e.cpu, &set);
		if (e.cpu < 0 || sched_setaffinity(0, sizeof(set), &set) < 0)
			e.cpu = -1;
	}
	set_header(&e, argv, argc);
	tw_write_header(e.tw, "recording");
	install_signals();
	for (size_t i = 0; i < nr_pids; i++) {
		if (seize_process(&e, pids[i]) < 0) {
			/* Let go of what we took; nothing was recorded yet. */
			g_interrupted = SIGTERM;
			run(&e);
			engine_finish(&e, "interrupted");
			return EXIT_RUNTIME;
		}
	}
	for (struct proc *p = e.procs; p; p = p->next) {
		struct thread *leader = find_thread(&e, p->pid);

		if (e.cpu >= 0 && sched_getaffinity(p->pid, sizeof(p->saved_mask),
						    &p->saved_mask) == 0) {
			cpu_set_t set;

			CPU_ZERO(&set);
			CPU_SET(e.cpu, &set);
			p->mask_saved = true;
			for (struct thread *t = e.threads; t; t = t->next)
				if (t->proc == p)
					sched_setaffinity(t->tid, sizeof(set), &set);
		}
		for (struct thread *t = e.threads; t; t = t->next) {
			if (t->proc != p)
				continue;
			write_fork(&e, t, t == leader ? ppid_of(p->pid) : p->pid,
				   t == leader ? ppid_of(p->pid) : p->pid, t != leader);
			note_comm(&e, t);
		}
		if (ptm_update(e.tw, o->out_dir, p->pid, &p->maps) >= 0 && e.on_mode)
			plant_on_symbols(&e, p);
	}
	run(&e);
	/* Ctrl-C is how an attach session normally ends: the trace is complete. */
	ret = engine_finish(&e, "complete");
	return ret < 0 ? EXIT_RUNTIME : 0;
}
