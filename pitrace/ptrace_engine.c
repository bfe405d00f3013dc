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
#include "util/alloc.h"
#include "util/log.h"
#include "pitrace/ptrace_int.h"
#include "util/trace_writer.h"

/* Stops needed before deciding whether the CPU honours block stepping. */
#define BLOCK_PROBE_STOPS 256

/*
 * Threads of one process are stepped one at a time, each for up to this
 * many steps (or until its next instruction is a system call, which may
 * block): interleaving them step by step would cost a SWITCH record and an
 * absolute pc per step.  Those stopped meanwhile wait ("parked").
 */
#define OWNER_QUANTUM 4096

/* Architectures without flags a program can push see no step flags (ptrace_int.h). */
__attribute__((weak)) const uint64_t arch_step_flags;

__attribute__((weak)) unsigned arch_insn_pushes_flags(const uint8_t *code, size_t len)
{
	(void)code;
	(void)len;
	return 0;
}

volatile sig_atomic_t g_interrupted;
volatile sig_atomic_t g_forward_pid;
volatile sig_atomic_t g_kick_tid;
volatile sig_atomic_t g_time_up;

static void release_parked(struct engine *e);
static void resume(struct engine *e, struct thread *t);
static uint8_t insn_kind(struct proc *p, uint64_t pc);
static bool next_is_syscall(struct proc *p, uint64_t pc);

/* ---- tasks ---- */

struct thread *pte_find_thread(struct engine *e, pid_t tid)
{
	if (e->last && e->last->tid == tid)
		return e->last;
	for (struct thread *t = e->threads; t; t = t->next)
		if (t->tid == tid)
			return e->last = t;
	return NULL;
}

struct thread *pte_new_thread(struct engine *e, pid_t tid)
{
	struct thread *t = xcalloc(1, sizeof(*t));

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

void pte_forget_code(struct proc *p)
{
	memset(p->sc_cache, 0xff, sizeof(p->sc_cache));
	memset(p->len_cache, 0xff, sizeof(p->len_cache));
	p->private_map.lo = p->private_map.hi = 0;	/* ptrace_atomic.c's cache */
}

struct proc *pte_new_proc(struct engine *e, pid_t pid, bool recorded)
{
	struct proc *p = xcalloc(1, sizeof(*p));

	p->pid = pid;
	p->recorded = recorded;
	p->memfd = open_mem(pid);
	pte_forget_code(p);
	p->next = e->procs;
	e->procs = p;
	return p;
}

void pte_free_proc(struct engine *e, struct proc *p)
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

void pte_attach_thread(struct thread *t, struct proc *p)
{
	t->proc = p;
	p->nr_threads++;
}

static void set_kick(struct engine *e)
{
	g_kick_tid = e->threads ? e->threads->tid : 0;
}

void pte_remove_thread(struct engine *e, struct thread *t)
{
	struct proc *p = t->proc;
	bool atomic = t->atomic.active;
	unsigned steps;
	int kind;

	if (t->may_block)
		e->nr_may_block--;
	/* Its run's or sequence's breakpoints must not stay for the other threads. */
	sblock_abandon(e, t);
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
		pte_free_proc(e, p);
	free(t);
	e->guard_dirty = true;
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
void pte_note_comm(struct engine *e, struct thread *t)
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

void pte_write_fork(struct engine *e, struct thread *t, pid_t ppid, pid_t ptid, bool thread)
{
	struct pt_task_fork r = { .ppid = (uint32_t)ppid, .ptid = (uint32_t)ptid,
				  .flags = thread ? PT_FORK_THREAD : 0 };

	task_common(e, &r.c, t->proc->pid, t->tid);
	tw_task(e->tw, PT_TASK_FORK, &r, sizeof(r), NULL);
	tw_count_task(e->tw, !thread);
}

/* ---- step streams ---- */

struct tw_stream *pte_stream_of(struct engine *e, struct thread *t)
{
	if (!t->stream) {
		t->stream = tw_stream_open(e->tw, false, (uint32_t)t->tid);
		if (!t->stream)
			return NULL;	/* said; tw_error() makes pte_run stop */
	}
	if (e->last_tid != t->tid) {
		tw_switch(t->stream, (uint32_t)t->proc->pid, (uint32_t)t->tid, tw_now_ns(),
			  tw_total_steps(e->tw));
		e->last_tid = t->tid;
	}
	return t->stream;
}

/* The hot path: one executed instruction of thread t. */
static void record_step(struct engine *e, struct thread *t, uint64_t pc)
{
	uint64_t total = tw_total_steps(e->tw);
	struct tw_stream *s;

	/*
	 * --max-steps: exactly N.  Whatever else ran before every thread is let
	 * go (a step already under way, the rest of a soft block) stays out:
	 * the stream's DETACH gap says steps are missing after the last one.
	 */
	if (total >= e->max_steps) {
		e->limit = PT_END_MAX_STEPS;
		return;
	}
	s = pte_stream_of(e, t);
	if (!s)
		return;
	if (total >= e->next_time) {
		tw_time(s, tw_now_ns(), total);
		e->next_time = total + PT_TIME_INTERVAL;
	}
	if (!(total & 8191)) {
		uint64_t now = tw_now_ns();

		report_progress(e, now);
		pte_sync_streams(e, now);
	}
	tw_step(s, pc);
	if (total + 1 == e->max_steps)
		e->limit = PT_END_MAX_STEPS;	/* let go now, not at a step more */
}

void pte_record_step(struct engine *e, struct thread *t, uint64_t pc)
{
	record_step(e, t, pc);
}

/*
 * About once a second, put every stream's buffered steps on disk: a
 * recorder killed outright (SIGKILL, a crash) loses at most the last
 * second, not a whole buffer per thread.
 */
void pte_sync_streams(struct engine *e, uint64_t now)
{
	if (now < e->next_sync_ns)
		return;
	e->next_sync_ns = now + 1000000000ull;
	e->synced_ns = now;
	for (struct thread *t = e->threads; t; t = t->next)
		if (t->stream)
			tw_stream_flush(t->stream);
	/* a reader following the recording may now take every step before this one */
	tw_synced(e->tw);
}

/* A thread that may block was resumed, or has stopped (or is gone). */
static void set_may_block(struct engine *e, struct thread *t, bool on)
{
	if (t->may_block == on)
		return;
	t->may_block = on;
	if (on)
		e->nr_may_block++;
	else
		e->nr_may_block--;
}

void pte_close_stream(struct engine *e, struct thread *t, bool detached)
{
	if (!t->stream)
		return;
	if (detached) {
		pte_stream_of(e, t);
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
	pte_close_stream(e, t, false);
}

/* ---- module tracking ---- */

static void maps_changed(struct engine *e, struct proc *p)
{
	int added;

	if (!p->recorded)
		return;
	added = ptm_update(e->tw, p->pid, &p->maps);
	if (added < 0)
		return;	/* the process is exiting; its exit will be reported */
	bp_drop_unmapped(p);
	e->guard_dirty = true;
	pte_forget_code(p);
	if (added > 0 && e->on_mode)
		bp_plant_symbols(e, p);
}

static void after_syscall(struct engine *e, struct thread *t, int64_t nr)
{
	switch (arch_syscall_kind(nr)) {
	case ARCH_SC_MAPS:
		maps_changed(e, t->proc);
		break;
	case ARCH_SC_COMM:
		pte_note_comm(e, t);
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
			bp_remove_all(p);
		e->guard_dirty = true;
		if (p->mask_saved)
			sched_setaffinity(t->tid, sizeof(p->saved_mask), &p->saved_mask);
	}
	/* Steps reset a blocked or ignored SIGTRAP: give the program its own. */
	trap_restore(e, t, sig);
	/* PTRACE_DETACH also clears the trap flag of a stepped thread. */
	if (ptrace(PTRACE_DETACH, t->tid, NULL, (void *)(long)sig) < 0 && errno != ESRCH)
		pr_warn("cannot detach from %d: %s", t->tid, strerror(errno));
	pte_close_stream(e, t, !t->exit_written);
	pte_remove_thread(e, t);
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

/* Whether a thread of t's process other than t is running (not in a ptrace stop). */
static bool others_running(struct engine *e, struct thread *t)
{
	for (struct thread *o = e->threads; o; o = o->next)
		if (o != t && o->proc == t->proc && o->running)
			return true;
	return false;
}

/*
 * t is about to run the load-reserve at prev_pc: when it starts a sequence
 * that can run natively, get it ready (true).  Its word's page is made
 * writable first, as the driver's pinning does: the store-conditional's
 * copy-on-write fault would lose the reservation and make the program retry
 * under one backend and not the other.  Not while another thread of the
 * process runs: the word is written back with what it held, which must not
 * undo a store of that thread's.
 */
static bool atomic_begin(struct engine *e, struct thread *t)
{
	struct proc *p = t->proc;
	uint64_t addr;

	if (ptrace_atomic_find(&t->atomic, p->memfd, t->prev_pc) != 1)
		return false;
	if (!others_running(e, t) && arch_atomic_reserved(t->tid, &t->atomic.seq, &addr) == 0 &&
	    ptrace_atomic_populate(p->memfd, p->pid, addr, &p->private_map) < 0)
		pr_dbg("cannot make the word at %#llx writable before its sequence",
		       (unsigned long long)addr);
	return ptrace_atomic_plant(&t->atomic, p->memfd) == 0;
}

static void do_resume(struct engine *e, struct thread *t)
{
	int sig = t->pending_sig;
	bool syscall;
	long r;

	if (e->detaching) {
		t->pending_sig = 0;
		detach_thread(e, t, sig);
		return;
	}
	/*
	 * While a thread runs a sequence natively, its exits hold breakpoints:
	 * the process's other stepped threads wait (its end lets them go), so
	 * that none steps onto one or plants its own over them.  A software
	 * block run's breakpoints hold every other thread (ptrace_block.c).
	 */
	if ((t->stepping && atomic_held(e, t, 0)) || sblock_held(e, t)) {
		t->parked = true;
		return;
	}
	t->pending_sig = 0;
	trap_before_resume(t, sig);
	syscall = t->stepping && next_is_syscall(t->proc, t->prev_pc);
	if (syscall) {
		trap_before_syscall(e, t);
		if (e->progress_shown)
			report_before_syscall(e, t);
	}
	if (t->stepping && !sig && t->proc->recorded && vdso_begin(e, t)) {
		/* A vDSO call: natively to its return (ptrace_vdso.c). */
		r = ptrace(PTRACE_CONT, t->tid, NULL, NULL);
		t->stepped = false;
	} else if (t->stepping && !sig && t->proc->recorded &&
		   insn_kind(t->proc, t->prev_pc) == INSN_ATOMIC && atomic_begin(e, t)) {
		/* A larx/stcx. sequence: natively to its exits (ptrace_atomic.h). */
		t->proc->atomic_runs = true;
		r = ptrace(PTRACE_CONT, t->tid, NULL, NULL);
		t->stepped = false;
	} else if (t->stepping && !sig && arch_syscall_step_runs_next &&
		   (t->sc_step || next_is_syscall(t->proc, t->prev_pc))) {
		/* Its exit stop comes before the next instruction runs (arch_ptrace.h). */
		r = ptrace(PTRACE_SYSCALL, t->tid, NULL, NULL);
		t->sc_step = true;
		t->stepped = true;
	} else if (t->stepping) {
		struct bp *b = t->proc->nr_bps ? bp_find(t->proc, t->prev_pc) : NULL;

		/* Step the original instruction, put the breakpoint back after. */
		if (b && bp_poke(t->proc, b->addr, b->orig, arch_breakpoint_len) == 0) {
			t->lifted = true;
			t->lifted_bp = b->addr;
		}
		if (!b && !sig && sblock_begin(e, t)) {
			/* Straight-line code: natively to its end (ptrace_block.c). */
			r = ptrace(PTRACE_CONT, t->tid, NULL, NULL);
			t->stepped = false;
		} else {
			r = ptrace(e->block ? arch_block_step_request() : PTRACE_SINGLESTEP,
				   t->tid, NULL, (void *)(long)sig);
			t->stepped = true;
		}
	} else {
		r = ptrace(e->on_mode ? PTRACE_SYSCALL : PTRACE_CONT, t->tid, NULL,
			   (void *)(long)sig);
		t->stepped = false;
	}
	/* Only a step is reported at execve's exit: a native run (a software
	 * block run from the entry point) leaves no trap for exec_trap to take. */
	if (!t->stepped)
		t->exec_trap = false;
	/* ESRCH: killed meanwhile (SIGKILL); its exit is reported next. */
	if (r < 0 && errno != ESRCH)
		pr_warn("cannot resume %d: %s", t->tid, strerror(errno));
	t->step_from = 0;	/* vdso_begin's, for this resume only */
	t->injected_sig = sig;
	t->running = true;
	/* a system call may block, and so may a thread not stepped at all */
	set_may_block(e, t, syscall || !t->stepping);
}

/* What the instruction at pc is to the tracer (INSN_*), cached per process. */
static uint8_t insn_kind(struct proc *p, uint64_t pc)
{
	unsigned slot = (unsigned)(pc ^ (pc >> 10)) % SC_CACHE_SIZE;
	uint8_t code[ARCH_INSN_MAX_LEN];
	ssize_t n;

	if (p->sc_cache[slot].kind != INSN_UNKNOWN && p->sc_cache[slot].pc == pc)
		return p->sc_cache[slot].kind;
	n = pread(p->memfd, code, sizeof(code), (off_t)pc);
	p->sc_cache[slot].pc = pc;
	p->sc_cache[slot].kind = INSN_OTHER;
	if (n > 0 && arch_is_syscall_insn(code, (size_t)n)) {
		p->sc_cache[slot].kind = INSN_SYSCALL;
		p->sc_insn = pc;	/* where the tracer can run calls of its own */
	} else if (n > 0 && arch_insn_pushes_flags(code, (size_t)n))
		p->sc_cache[slot].kind = INSN_PUSHES_FLAGS;
	else if (n > 0 && arch_may_start_atomic(code, (size_t)n))
		p->sc_cache[slot].kind = INSN_ATOMIC;
	else if (n >= (ssize_t)arch_breakpoint_len &&
		 !memcmp(code, arch_breakpoint_insn, arch_breakpoint_len))
		p->sc_cache[slot].kind = INSN_BREAKPOINT;
	return p->sc_cache[slot].kind;
}

static bool next_is_syscall(struct proc *p, uint64_t pc)
{
	return insn_kind(p, pc) == INSN_SYSCALL;
}

/*
 * The stepped instruction pushed the flags register (x86 pushf): the copy
 * shows the trap flag single-stepping set, which the program's own run
 * would not.  Clear it there, so the program reads the flags it has.
 */
static void hide_step_flags(struct thread *t, const struct arch_stop_regs *r)
{
	uint64_t v = 0;
	unsigned size;

	if (!arch_step_flags || t->prev_sp <= r->sp || t->prev_sp - r->sp > 8 ||
	    insn_kind(t->proc, t->prev_pc) != INSN_PUSHES_FLAGS)
		return;
	size = (unsigned)(t->prev_sp - r->sp);
	if (pread(t->proc->memfd, &v, size, (off_t)r->sp) != (ssize_t)size || !(v & arch_step_flags))
		return;
	v &= ~arch_step_flags;
	if (pwrite(t->proc->memfd, &v, size, (off_t)r->sp) != (ssize_t)size)
		pr_dbg("cannot clear the trap flag pushed at %#llx in %d",
		       (unsigned long long)r->sp, t->tid);
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
	/* (an owner parked itself, waiting for another's native run, owns nothing) */
	if (e->owner && e->owner != t && !e->owner->parked) {
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

/* ---- late step traps ---- */

/*
 * The code at pc as the program has it: our --on breakpoints' bytes are
 * replaced by what they hide.  Bytes read, 0 when none.
 */
static size_t read_code(struct proc *p, uint64_t pc, uint8_t *code, size_t size)
{
	ssize_t n = pread(p->memfd, code, size, (off_t)pc);

	if (n <= 0)
		return 0;
	for (size_t i = 0; i < p->nr_bps; i++) {
		for (unsigned k = 0; k < arch_breakpoint_len; k++) {
			uint64_t a = p->bps[i].addr + k;

			if (a >= pc && a < pc + (uint64_t)n)
				code[a - pc] = p->bps[i].orig[k];
		}
	}
	return (size_t)n;
}

static unsigned len_slot(uint64_t pc)
{
	return (unsigned)(pc ^ (pc >> 10)) % SC_CACHE_SIZE;
}

static void forget_len(struct proc *p, uint64_t pc)
{
	p->len_cache[len_slot(pc)].len = 0xff;
}

/*
 * The length of the instruction at pc when all it can do is fall through
 * to the next (no branch, system call, trap or repetition), else 0; cached
 * per process like insn_kind.
 */
uint8_t pte_plain_len(struct engine *e, struct proc *p, uint64_t pc)
{
	unsigned slot = len_slot(pc);
	uint8_t code[ARCH_INSN_MAX_LEN];
	struct arch_insn in;
	size_t n;

	if (p->len_cache[slot].len != 0xff && p->len_cache[slot].pc == pc)
		return p->len_cache[slot].len;
	n = read_code(p, pc, code, sizeof(code));
	p->len_cache[slot].pc = pc;
	p->len_cache[slot].len = 0;
	if (n && arch_decode(e->dec, code, n, pc, &in) == 0 && arch_insn_only_falls_through(&in))
		p->len_cache[slot].len = in.len;
	return p->len_cache[slot].len;
}

bool pte_decode(struct engine *e, struct proc *p, uint64_t pc, struct arch_insn *in)
{
	uint8_t code[ARCH_INSN_MAX_LEN];
	size_t n = read_code(p, pc, code, sizeof(code));

	return n && arch_decode(e->dec, code, n, pc, in) == 0;
}

/*
 * The step trap after the instruction at prev_pc came late: hypervisors
 * that emulate an instruction (cpuid under KVM) may deliver it only after
 * the next one has run too.  That shows as a pc no successor of prev_pc
 * explains, where the next instruction leads.  Record that instruction,
 * marked RESTORED; a skip that cannot be proved so is a GAP, never a step
 * guessed.  Block steps end anywhere: only single steps are checked.
 */
static void restore_skipped(struct engine *e, struct thread *t, uint64_t pc)
{
	uint8_t code[ARCH_INSN_MAX_LEN];
	uint64_t next;
	struct arch_insn in;
	struct tw_stream *s;
	uint8_t len;
	size_t n;

	if (e->block || e->no_restore || !e->dec)
		return;
	len = pte_plain_len(e, t->proc, t->prev_pc);
	if (!len || pc == t->prev_pc + len)
		return;
	/* the cache may be of code since rewritten (a JIT): decide on the code as it is */
	forget_len(t->proc, t->prev_pc);
	len = pte_plain_len(e, t->proc, t->prev_pc);
	if (!len || pc == t->prev_pc + len)
		return;
	next = t->prev_pc + len;
	n = read_code(t->proc, next, code, sizeof(code));
	s = pte_stream_of(e, t);
	if (!s)
		return;
	if (n && arch_decode(e->dec, code, n, next, &in) == 0 &&
	    arch_insn_may_follow(&in, next, pc)) {
		tw_restored(s, PT_RESTORED_LATE_TRAP);
		record_step(e, t, next);
		e->restored++;
		return;
	}
	tw_gap(s, PT_GAP_LATE_TRAP);
	e->late_gaps++;
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
	/*
	 * A step trap where the thread was resumed, on an instruction that
	 * can only fall through: nothing ran.  arm64 reports the step over
	 * a system call twice: the pseudo-step of its exit (report_syscall),
	 * then the hardware step, taken on return before the next
	 * instruction runs (the svc left SPSR.SS clear).  Counting it would
	 * count that next instruction twice.
	 */
	if (!restarted && !e->block && r->syscall_nr < 0 && r->pc == t->prev_pc &&
	    pte_plain_len(e, t->proc, t->prev_pc)) {
		e->idle_steps++;
		t->step_from = 0;
		resume(e, t);
		return;
	}
	if (e->block)
		probe_block(e, t, r->pc);
	if (!restarted) {
		record_step(e, t, t->prev_pc);
		if (r->syscall_nr < 0 && !t->sc_step)
			restore_skipped(e, t, r->pc);
	}
	hide_step_flags(t, r);
	/* A syscall that doesn't go on at the next instruction is a handler's
	 * rt_sigreturn (execve stops elsewhere): say so before the step it
	 * returns to.  Its orig_rax is already -1 here, so look at the code. */
	if (t->sig_depth && r->syscall_nr < 0 && r->pc != t->prev_pc + arch_syscall_insn_len &&
	    next_is_syscall(t->proc, t->prev_pc)) {
		struct tw_stream *s = pte_stream_of(e, t);

		if (s)
			tw_async(s, PT_ASYNC_SIGRETURN, 0);
		t->sig_depth--;
	}
	if (!restarted && (t->trap.armed || r->syscall_nr >= 0))
		trap_after_syscall(e, t, r->syscall_nr);
	t->step_from = restarted || e->block ? 0 : t->prev_pc;
	t->prev_pc = r->pc;
	t->prev_sp = r->sp;
	if (r->syscall_nr >= 0)
		after_syscall(e, t, r->syscall_nr);
	if (region_left(t, r))
		region_end(e, t);
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

/*
 * t stopped with a SIGTRAP at addr: did it run the breakpoint at a sequence
 * exit another thread planted there (still in, or taken out since its
 * stop)?  Yes when the SIGTRAP is a breakpoint's, not a step's, and the
 * code at addr is not a breakpoint of the program's own.  Only once some
 * thread of the process has run a sequence natively.
 */
static bool ran_atomic_exit(struct engine *e, struct thread *t, uint64_t addr)
{
	uint8_t code[ARCH_BREAKPOINT_MAX];
	siginfo_t si;

	if (!t->proc->atomic_runs || ptrace(PTRACE_GETSIGINFO, t->tid, NULL, &si) < 0 ||
	    si.si_code == TRAP_TRACE || si.si_code == TRAP_BRANCH)
		return false;
	if (atomic_held(e, t, addr))
		return true;
	return !bp_find(t->proc, addr) &&
	       pread(t->proc->memfd, code, arch_breakpoint_len, (off_t)addr) ==
		       (ssize_t)arch_breakpoint_len &&
	       memcmp(code, arch_breakpoint_insn, arch_breakpoint_len) != 0;
}

/*
 * A SIGTRAP of the program's own (sent to it, or its int3), not a step's:
 * delivered by the SIGTRAP state the program set (ptrace_sigtrap.c).  A
 * stepped thread's step may have run too, its trap merged into this one
 * (a raise()'s tgkill): recorded then.  False when the stop is a step's.
 */
static bool program_trap(struct engine *e, struct thread *t, struct arch_stop_regs *r,
			 bool stepping)
{
	siginfo_t si;
	bool ran;

	/* Only these stops can be the program's: a system call's (raise), a
	 * breakpoint instruction's, one where nothing ran (sent from outside),
	 * one re-sent by us.  The hot path of ordinary steps asks nothing. */
	if (stepping && t->stepped && !t->trap.redeliver && r->syscall_nr < 0 &&
	    r->pc != t->prev_pc && insn_kind(t->proc, t->prev_pc) != INSN_BREAKPOINT)
		return false;
	if (ptrace(PTRACE_GETSIGINFO, t->tid, NULL, &si) < 0) {
		if (stepping)
			return false;
		memset(&si, 0, sizeof(si));
		si.si_signo = SIGTRAP;
		si.si_code = SI_KERNEL;
	}
	if (t->trap.redeliver && si.si_code == SI_KERNEL) {
		/* Sent again after its handler was put back: nothing ran. */
		t->pending_sig = SIGTRAP;
		resume(e, t);
		return true;
	}
	if (stepping && !trap_is_programs(t, &si))
		return false;
	if (!stepping) {
		t->pending_sig = trap_program_signal(e, t, &si);
		resume(e, t);
		return true;
	}
	/* Before the instruction ran, pc has not moved (nor a syscall ended). */
	ran = t->stepped && (r->pc != t->prev_pc || r->syscall_nr >= 0);
	t->pending_sig = trap_program_signal(e, t, &si);
	if (ran)
		step_completed(e, t, r);
	else
		resume(e, t);
	return true;
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
	bp_replant(t);
	if (!t->stepping) {
		struct proc *p = t->proc;
		uint64_t bp = r.pc - arch_breakpoint_pc_adjust;

		if (ran_atomic_exit(e, t, bp)) {
			/* Another thread's sequence breakpoint: run on once it is gone. */
			arch_set_pc(t->tid, bp);
			t->prev_pc = bp;
			if (atomic_held(e, t, bp))
				t->parked = true;
			else
				resume(e, t);
			return;
		}
		if (!bp_find(p, bp)) {
			/* Not ours: the program's own SIGTRAP. */
			program_trap(e, t, &r, false);
			return;
		}
		arch_set_pc(t->tid, bp);
		r.pc = bp;
		if (p->recorded && !e->detaching) {
			region_start(e, t, &r);
		} else {
			t->stepping = true;	/* one step over it, then native */
			t->prev_pc = bp;
		}
		resume(e, t);
		return;
	}
	if (t->exec_trap) {
		t->exec_trap = false;
		/* arm64's start_thread() forgets the system call: nothing ran
		 * since the exec stop is as good a sign. */
		if (arch_syscall_kind(r.syscall_nr) == ARCH_SC_EXEC || r.pc == t->prev_pc) {
			resume(e, t);
			return;
		}
	}
	if (program_trap(e, t, &r, true))
		return;
	if (injected && is_handler_entry(t->tid)) {
		struct tw_stream *s = t->proc->recorded ? pte_stream_of(e, t) : NULL;

		trap_handler_entry(e, t, &r, injected);
		if (s)
			tw_async(s, PT_ASYNC_SIGNAL, (uint64_t)injected);
		t->sig_depth++;
		t->prev_pc = r.pc;
		t->prev_sp = r.sp;
		resume(e, t);
		return;
	}
	if (!t->stepped) {
		t->prev_pc = r.pc;
		t->prev_sp = r.sp;
		resume(e, t);
		return;
	}
	if (r.pc - arch_breakpoint_pc_adjust == t->prev_pc && ran_atomic_exit(e, t, t->prev_pc)) {
		/* Its step was under way when another thread planted its sequence's
		 * exit there: it ran that breakpoint, not its instruction, which it
		 * steps now or, while the breakpoint is still in, once it is gone. */
		arch_set_pc(t->tid, t->prev_pc);
		if (atomic_held(e, t, t->prev_pc))
			t->parked = true;
		else
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
			trap_syscall_stop(e, t, true, (const uint64_t *)info.entry.args,
					  t->sys_nr, 0);
		} else if (info.op == PTRACE_SYSCALL_INFO_EXIT && t->sys_nr >= 0) {
			trap_syscall_stop(e, t, false, NULL, t->sys_nr, info.exit.rval);
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
		struct thread *f = pte_find_thread(e, (pid_t)former);

		pte_close_stream(e, t, false);
		if (f) {
			/* Its stream goes on (steps.tFORMER), a SWITCH naming
			 * the new tid; reopening the leader's would truncate it. */
			t->stepped = f->stepped;
			t->prev_pc = f->prev_pc;
			t->stepping = f->stepping;
			t->stream = f->stream;
			f->stream = NULL;
			f->exit_written = true;
			pte_remove_thread(e, f);
		}
		t->exit_written = false;
		e->last_tid = 0;
	}
	if (arch_read_regs(t->tid, &r) < 0) {
		resume(e, t);
		return;
	}
	trap_exec(e, t);	/* before a detach: the new image's rules */
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
	e->guard_dirty = true;
	if (p->memfd >= 0)
		close(p->memfd);
	p->memfd = open_mem(p->pid);
	pte_forget_code(p);
	ptm_free(&p->maps);
	exec_path(p->pid, path, sizeof(path));
	task_common(e, &rec.c, p->pid, t->tid);
	tw_task(e->tw, PT_TASK_EXEC, &rec, sizeof(rec), path);
	t->comm[0] = '\0';
	pte_note_comm(e, t);
	if (ptm_update(e->tw, p->pid, &p->maps) >= 0 && e->on_mode)
		bp_plant_symbols(e, p);
	if (t->region_end_sp)
		region_end(e, t);
	t->sig_depth = 0;
	t->vdso.depth = 0;	/* calls cut short by a longjmp were the old image's */
	t->stepping = !e->on_mode;
	/* We are inside execve: a step resumed from here is reported at its
	 * syscall exit, before any instruction of the new image ran. */
	t->exec_trap = t->stepping;
	t->prev_pc = r.pc;
	t->prev_sp = r.sp;
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
	trap_start(e, t);
	if (arch_read_regs(t->tid, &r) == 0) {
		t->prev_pc = r.pc;
		t->prev_sp = r.sp;
	}
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
	c = pte_find_thread(e, tid);
	if (!c)
		c = pte_new_thread(e, tid);
	c->known = true;
	/*
	 * Its first stop is still to come, and it runs once that is seen: it
	 * counts as running from now on, so that no software block run (which
	 * writes breakpoints into memory it may share) starts meanwhile.
	 */
	if (!c->started)
		c->running = true;
	if (is_thread) {
		pte_attach_thread(c, p);
		c->stepping = !e->on_mode && p->recorded;
		if (p->recorded) {
			pte_write_fork(e, c, p->pid, t->tid, true);
			pte_note_comm(e, c);
		}
	} else {
		np = pte_new_proc(e, tid, p->recorded && e->o.follow_fork);
		pte_attach_thread(c, np);
		/* The child's memory is a copy of ours, breakpoints included (a
		 * vfork child even shares it). */
		if (p->nr_bps) {
			np->bps = malloc(p->nr_bps * sizeof(*np->bps));
			if (np->bps) {
				memcpy(np->bps, p->bps, p->nr_bps * sizeof(*np->bps));
				np->nr_bps = p->nr_bps;
				e->guard_dirty = true;
			}
		}
		if (np->recorded) {
			c->stepping = !e->on_mode;
			pte_write_fork(e, c, p->pid, t->tid, false);
			pte_note_comm(e, c);
			ptm_update(e->tw, np->pid, &np->maps);
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
	trap_inherit(t, c, is_thread);
	if (c->started)
		start_thread(e, c);
	resume(e, t);
}

/*
 * A signal about to be delivered.  A fault (SIGSEGV, SIGBUS, SIGFPE, SIGILL
 * from the kernel) stops at the instruction that raised it: if the signal
 * kills the thread, that instruction was its last.  (A handled fault
 * restarts it, and it is recorded when it completes.)
 */
static void note_signal(struct thread *t, int sig)
{
	struct arch_stop_regs r;
	siginfo_t si;

	t->last_sig = sig;
	t->fault_sig = 0;
	if ((sig != SIGSEGV && sig != SIGBUS && sig != SIGFPE && sig != SIGILL) ||
	    !t->stepping || ptrace(PTRACE_GETSIGINFO, t->tid, NULL, &si) < 0 || si.si_code <= 0 ||
	    si.si_code == SI_KERNEL || arch_read_regs(t->tid, &r) < 0 || r.pc != t->prev_pc)
		return;
	t->fault_sig = sig;
	t->fault_addr = (uint64_t)(uintptr_t)si.si_addr;
}

static void on_exit_event(struct engine *e, struct thread *t)
{
	struct arch_stop_regs r;
	unsigned long msg = 0;
	bool have_regs = arch_read_regs(t->tid, &r) == 0;
	int status;

	ptrace(PTRACE_GETEVENTMSG, t->tid, NULL, &msg);
	status = (int)msg;
	/* The exit or exit_group instruction is the thread's last one. */
	if (t->stepping && t->stepped && t->proc->recorded && have_regs &&
	    arch_syscall_kind(r.syscall_nr) == ARCH_SC_EXIT &&
	    (e->block || r.pc - t->prev_pc == arch_syscall_insn_len))
		record_step(e, t, t->prev_pc);
	/* So is the instruction whose fault killed it (step mode: block mode
	 * knows only where the block started). */
	if (t->fault_sig && WIFSIGNALED(status) && WTERMSIG(status) == t->fault_sig &&
	    t->stepping && t->proc->recorded && !e->block)
		record_step(e, t, t->prev_pc);
	report_note_exit(e, t, status, t->fault_sig ? t->prev_pc : have_regs ? r.pc : 0);
	write_exit(e, t, status);
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
		r.pc = r.sp = 0;
	at_exit = ptrace_atomic_end(&t->atomic, t->proc->memfd, t->tid, r.pc, &steps, &kind);
	for (unsigned i = 0; i < steps; i++)
		record_step(e, t, start + i * len);
	s = kind >= 0 ? pte_stream_of(e, t) : NULL;
	if (s)
		tw_atomic(s, (unsigned)kind, start, steps);
	/* Threads that waited for the breakpoints to go. */
	release_parked(e);
	t->prev_pc = r.pc;
	t->prev_sp = r.sp;
	if (!at_exit || sig != SIGTRAP || event)
		return false;
	resume(e, t);
	return true;
}

/* A vDSO call ran natively (ptrace_vdso.c): threads parked meanwhile go on. */
static bool vdso_stopped_resume(struct engine *e, struct thread *t, int sig, int event)
{
	bool returned = vdso_stopped(e, t, sig, event);

	release_parked(e);
	if (returned)
		resume(e, t);
	return returned;
}

static void on_stop(struct engine *e, struct thread *t, int status)
{
	int sig = WSTOPSIG(status), event = status >> 16;

	t->running = false;
	t->stop_kind = event ? STOP_EVENT : sig == (SIGTRAP | 0x80) ? STOP_SYSCALL : STOP_SIGNAL;
	if (!t->known) {
		t->started = true;
		return;		/* held until its creator's event names it */
	}
	if (!t->started) {
		start_thread(e, t);
		return;
	}
	if (t->vdso.native && vdso_stopped_resume(e, t, sig, event))
		return;
	if (t->atomic.active && atomic_stopped(e, t, sig, event))
		return;
	if (t->sblock.active && sblock_stopped(e, t, sig, event)) {
		resume(e, t);
		return;
	}
	if (t->lifted && sig != SIGTRAP)
		bp_replant(t);
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
		note_signal(t, sig);
		t->pending_sig = sig;
		resume(e, t);
	}
}

static void on_gone(struct engine *e, pid_t tid, int status)
{
	struct thread *t = pte_find_thread(e, tid);

	if (tid == e->root_pid) {
		e->root_status = status;
		e->root_done = true;
	}
	if (!t)
		return;
	write_exit(e, t, status);
	if (t->proc && t->proc->pid == tid)
		t->proc->gone = true;
	pte_remove_thread(e, t);
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

/*
 * Buffered steps reach disk within PTE_LIVE_SYNC_NS while a thread that may
 * block (in a system call, or running natively) keeps the recorder waiting,
 * so that a reader following the recording (post script --follow) sees
 * them.  Only waits for such a thread pay for it: a single step never blocks.
 */
#define PTE_LIVE_SYNC_NS 100000000ull

static void sync_now(struct engine *e, uint64_t now)
{
	e->next_sync_ns = 0;
	pte_sync_streams(e, now);
}

/*
 * waitpid, but if no stop comes within PTE_LIVE_SYNC_NS, put the buffered
 * steps on disk first (nothing is recorded while we wait, so once is
 * enough).  SIGCHLD is blocked only here, so that sigtimedwait takes it;
 * SIGINT and --duration's SIGALRM still interrupt the wait (EINTR).
 */
static pid_t wait_syncing(struct engine *e, int *status)
{
	struct timespec ts = { 0, PTE_LIVE_SYNC_NS };
	uint64_t now = tw_now_ns();
	sigset_t chld, old;
	pid_t tid;
	int err;

	if (now - e->synced_ns >= PTE_LIVE_SYNC_NS)
		sync_now(e, now);	/* short blocking calls in a row: bounded too */
	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	sigprocmask(SIG_BLOCK, &chld, &old);
	tid = waitpid(-1, status, __WALL | WNOHANG);
	while (tid == 0) {
		if (sigtimedwait(&chld, NULL, &ts) >= 0) {
			tid = waitpid(-1, status, __WALL | WNOHANG);
			continue;
		}
		err = errno;
		sigprocmask(SIG_SETMASK, &old, NULL);
		if (err != EAGAIN) {
			errno = err;
			return -1;
		}
		sync_now(e, tw_now_ns());
		return waitpid(-1, status, __WALL);
	}
	err = errno;
	sigprocmask(SIG_SETMASK, &old, NULL);
	errno = err;
	return tid;
}

void pte_run(struct engine *e)
{
	int status;
	pid_t tid;

	set_kick(e);
	while (e->threads) {
		struct thread *t;

		if (g_time_up && !e->limit)
			e->limit = PT_END_DURATION;
		/* a signal, a limit, or a trace that can no longer be written: stop */
		if ((g_interrupted || e->limit || tw_error(e->tw)) && !e->detaching)
			begin_detach(e);
		if (e->guard_dirty)
			guard_sync(e);
		if (e->nr_may_block)
			tid = wait_syncing(e, &status);
		else
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
		t = pte_find_thread(e, tid);
		if (!t)
			t = pte_new_thread(e, tid);	/* its creator's event comes next */
		set_may_block(e, t, false);
		on_stop(e, t, status);
	}
}
