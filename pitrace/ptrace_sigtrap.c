// SPDX-License-Identifier: GPL-2.0
/*
 * The traced program's own SIGTRAP state.  Each step trap is forced on the
 * thread (force_sig_fault), and forcing unblocks a blocked SIGTRAP and
 * resets a blocked or ignored one to SIG_DFL: left alone, a program that
 * blocks or ignores SIGTRAP would read back another state, and keep it
 * after a detach.  So the tracer keeps the state the program set, from its
 * system calls (rt_sigaction, rt_sigprocmask, rt_sigreturn), its handlers'
 * entries, exec and clone; it writes that state into what the program
 * reads back, decides the fate of the program's own SIGTRAPs by it, and
 * puts it back into the kernel by running system calls in the thread
 * before a handler must run and before letting go of it.
 */
#define PR_FMT "ptrace"
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util/log.h"
#include <pitrace/format.h>
#include "pitrace/ptrace_int.h"
#include "util/trace_writer.h"

#define TRAP_BIT (1ull << (SIGTRAP - 1))
#define KSIGSET_SIZE 8		  /* the kernel's sigset_t, as rt_* calls take it */
#define KSIG_DFL 0ull
#define KSIG_IGN 1ull
#define KSA_RESETHAND 0x80000000ull
#define SCAN_MAX (16u << 20)	  /* bytes of code searched for a syscall instruction */

/* Architectures without these keep no state: the weak defaults say cannot. */
__attribute__((weak)) int arch_syscall_regs(pid_t tid, bool done, struct arch_syscall *sc)
{
	(void)tid, (void)done, (void)sc;
	return -1;
}

__attribute__((weak)) uint64_t arch_sigframe_mask(uint64_t sp, bool entry)
{
	(void)sp, (void)entry;
	return 0;
}

__attribute__((weak)) int arch_regs_get(pid_t tid, struct arch_regs *r)
{
	(void)tid, (void)r;
	return -1;
}

__attribute__((weak)) int arch_regs_set(pid_t tid, const struct arch_regs *r)
{
	(void)tid, (void)r;
	return -1;
}

__attribute__((weak)) void arch_regs_syscall(struct arch_regs *r, uint64_t pc, int64_t nr,
					     const uint64_t args[6])
{
	(void)r, (void)pc, (void)nr, (void)args;
}

__attribute__((weak)) int64_t arch_regs_ret(const struct arch_regs *r)
{
	(void)r;
	return -ENOSYS;
}

__attribute__((weak)) void arch_regs_restart(struct arch_regs *r)
{
	(void)r;
}

/* What the header says, once each. */
enum {
	TRAP_NOTE_KEPT = 1,	  /* the program set a SIGTRAP state steps reset */
	TRAP_NOTE_UNKEPT = 2,	  /* ... and it could not be kept */
	TRAP_NOTE_LOST = 4,	  /* a process kept the kernel's state at a detach */
};

static void note(struct engine *e, unsigned what)
{
	static const char *const text[] = {
		[TRAP_NOTE_KEPT] = "the program blocked, ignored or handled SIGTRAP: its own "
				   "calls saw the state it set; /proc/PID/status, sigwaitinfo and "
				   "signalfd saw the kernel's, which the steps' SIGTRAPs reset",
		[TRAP_NOTE_UNKEPT] = "the program blocked, ignored or handled SIGTRAP, which "
				     "pitrace cannot keep on this architecture: the steps' "
				     "SIGTRAPs unblocked it or reset it to SIG_DFL",
		[TRAP_NOTE_LOST] = "a process could not be given its SIGTRAP state back at "
				   "the detach: it may have SIGTRAP unblocked or at SIG_DFL",
	};

	if (e->trap_notes & what)
		return;
	e->trap_notes |= what;
	tw_set_attr_str(e->tw, PT_ATTR_NOTE, text[what]);
}

/* t's process's or t's SIGTRAP state is not the default one: say so. */
static void note_state(struct engine *e, struct thread *t)
{
	struct arch_syscall sc;

	if (t->proc->trap.act[0] == KSIG_DFL && !t->trap.blocked)
		return;
	note(e, arch_syscall_regs(t->tid, false, &sc) == 0 ? TRAP_NOTE_KEPT : TRAP_NOTE_UNKEPT);
}

static int mem_read(struct proc *p, uint64_t addr, void *buf, size_t n)
{
	return pread(p->memfd, buf, n, (off_t)addr) == (ssize_t)n ? 0 : -1;
}

static int mem_write(struct proc *p, uint64_t addr, const void *buf, size_t n)
{
	return pwrite(p->memfd, buf, n, (off_t)addr) == (ssize_t)n ? 0 : -1;
}

/* Set or clear SIGTRAP in the sigset at addr of p's memory. */
static void mem_set_trap_bit(struct proc *p, uint64_t addr, bool on)
{
	uint64_t set;

	if (!addr || mem_read(p, addr, &set, sizeof(set)) < 0)
		return;
	if (!!(set & TRAP_BIT) == on)
		return;
	set = on ? set | TRAP_BIT : set & ~TRAP_BIT;
	if (mem_write(p, addr, &set, sizeof(set)) < 0)
		pr_dbg("cannot write the sigset at %#" PRIx64 " of %d", addr, p->pid);
}

/* ---- running a system call in a stopped thread ---- */

/* Search len bytes of p's memory at start for a system call instruction. */
static uint64_t scan_code(struct proc *p, uint64_t start, uint64_t len)
{
	static uint8_t buf[65536 + ARCH_INSN_MAX_LEN];

	for (uint64_t off = 0; off < len; off += 65536) {
		size_t n = len - off < sizeof(buf) ? (size_t)(len - off) : sizeof(buf);
		ssize_t got = pread(p->memfd, buf, n, (off_t)(start + off));

		for (ssize_t i = 0; got > 0 && i + (ssize_t)arch_syscall_insn_len <= got; i++)
			if (arch_is_syscall_insn(buf + i, (size_t)(got - i)))
				return start + off + (uint64_t)i;
	}
	return 0;
}

/*
 * A system call instruction in p's code: one it ran, else the vDSO's or
 * another executable mapping's (any two bytes that decode as one will do:
 * the thread runs only that instruction there).
 */
static uint64_t syscall_insn(struct proc *p)
{
	char name[64], line[512];
	uint64_t found = 0, scanned = 0;
	FILE *f;

	if (p->sc_insn)
		return p->sc_insn;
	snprintf(name, sizeof(name), "/proc/%d/maps", p->pid);
	f = fopen(name, "re");
	for (int pass = 0; f && pass < 2 && !found; pass++) {
		rewind(f);
		while (!found && scanned < SCAN_MAX && fgets(line, sizeof(line), f)) {
			uint64_t lo, hi;
			char perms[8];
			bool vdso = strstr(line, "[vdso]") != NULL;

			if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %7s", &lo, &hi, perms) != 3 ||
			    perms[2] != 'x' || vdso != (pass == 0))
				continue;
			if (hi - lo > SCAN_MAX - scanned)
				hi = lo + (SCAN_MAX - scanned);
			found = scan_code(p, lo, hi - lo);
			scanned += hi - lo;
		}
	}
	if (f)
		fclose(f);
	p->sc_insn = found;
	return found;
}

/* Is t at a system call stop (entry or exit)? */
static bool at_syscall_stop(pid_t tid, bool exit)
{
	struct __ptrace_syscall_info info;

	if (ptrace(PTRACE_GET_SYSCALL_INFO, tid, (void *)sizeof(info), &info) <= 0)
		return false;
	return info.op == (exit ? PTRACE_SYSCALL_INFO_EXIT : PTRACE_SYSCALL_INFO_ENTRY);
}

/*
 * Run nr(args) in stopped thread t, as debuggers call functions: its
 * registers saved, pc on a system call instruction, the call's entry and
 * exit stops waited for (a signal arriving meanwhile is kept for t's next
 * resume), the registers put back.  restart: t stopped inside a system
 * call a signal interrupted, to be restarted as the kernel would.  t is
 * left at the call's exit stop.  0 and *ret, or -1 (t may have died: the
 * main loop sees that).
 */
static int inject(struct thread *t, int64_t nr, const uint64_t args[6], int64_t *ret,
		  bool restart)
{
	struct __ptrace_syscall_info info;
	struct arch_regs saved, work;
	uint64_t pc = syscall_insn(t->proc);
	int status, stops = 0, others = 0, r;

	if (!pc || arch_regs_get(t->tid, &saved) < 0)
		return -1;
	if (restart)
		arch_regs_restart(&saved);
	/*
	 * At a system call's entry stop (--on's native threads; a detach can
	 * come there) the registers set below skip the call t was entering:
	 * put back, they make it enter that call again, from its instruction.
	 */
	if (ptrace(PTRACE_GET_SYSCALL_INFO, t->tid, (void *)sizeof(info), &info) > 0 &&
	    info.op == PTRACE_SYSCALL_INFO_ENTRY)
		arch_regs_syscall(&saved, info.instruction_pointer - arch_syscall_insn_len,
				  (int64_t)info.entry.nr, (const uint64_t *)info.entry.args);
	work = saved;
	arch_regs_syscall(&work, pc, nr, args);
	if (arch_regs_set(t->tid, &work) < 0)
		return -1;
	while (stops < 2) {
		siginfo_t si;
		int sig;

		if (ptrace(PTRACE_SYSCALL, t->tid, NULL, NULL) < 0)
			return -1;
		/* Look first: a thread that died is the main loop's to reap. */
		memset(&si, 0, sizeof(si));
		/* a signal to pitrace (Ctrl-C, --duration's timer) is seen by the main
		 * loop: returning here would leave t with the call's registers */
		while ((r = waitid(P_PID, (id_t)t->tid, &si,
				   WEXITED | WSTOPPED | __WALL | WNOWAIT)) < 0 && errno == EINTR)
			;
		if (r < 0 || si.si_code == CLD_EXITED || si.si_code == CLD_KILLED ||
		    si.si_code == CLD_DUMPED)
			return -1;
		while ((r = waitpid(t->tid, &status, __WALL)) < 0 && errno == EINTR)
			;
		if (r != t->tid || !WIFSTOPPED(status))
			return -1;
		sig = WSTOPSIG(status) & 0x7f;
		if (status >> 16 == PTRACE_EVENT_EXIT)
			return -1;	/* killed: it goes on to its end */
		if (sig == SIGTRAP && !(status >> 16) &&
		    at_syscall_stop(t->tid, stops == 1)) {
			stops++;
			continue;
		}
		if (!(status >> 16) && sig != SIGTRAP && !t->pending_sig)
			t->pending_sig = sig;	/* delivered at its next resume */
		/* A fault of the call's own (no instruction there after all):
		 * give up, as it was. */
		if (++others > 8 || sig == SIGSEGV || sig == SIGBUS || sig == SIGILL) {
			if (t->pending_sig == sig)
				t->pending_sig = 0;
			pr_dbg("cannot run a system call in %d at %#" PRIx64 ": SIG%s", t->tid,
			       pc, sigabbrev_np(sig));
			arch_regs_set(t->tid, &saved);
			return -1;
		}
	}
	if (arch_regs_get(t->tid, &work) == 0)
		*ret = arch_regs_ret(&work);
	t->stop_kind = STOP_SYSCALL;
	return arch_regs_set(t->tid, &saved);
}

/*
 * SIGTRAP's action in the kernel, by t's own rt_sigaction: set from act
 * when set, else read into act.  The action is staged below the red zone
 * of t's stack.
 */
static int trap_action(struct thread *t, uint64_t act[4], bool set, bool restart)
{
	uint64_t sp, args[6] = { SIGTRAP, 0, 0, KSIGSET_SIZE, 0, 0 };
	struct arch_stop_regs r;
	int64_t ret = -1;

	if (arch_read_regs(t->tid, &r) < 0)
		return -1;
	sp = (r.sp - 512) & ~15ull;
	if (set && mem_write(t->proc, sp, act, 4 * sizeof(uint64_t)) < 0)
		return -1;
	args[set ? 1 : 2] = sp;
	if (inject(t, SYS_rt_sigaction, args, &ret, restart) < 0 || ret != 0)
		return -1;
	return set ? 0 : mem_read(t->proc, sp, act, 4 * sizeof(uint64_t));
}

/* Block SIGTRAP in t (it is unblocked: steps unblock it). */
static int block_trap(struct thread *t, bool restart)
{
	uint64_t sp, set = TRAP_BIT, args[6] = { SIG_BLOCK, 0, 0, KSIGSET_SIZE, 0, 0 };
	struct arch_stop_regs r;
	int64_t ret = -1;

	if (arch_read_regs(t->tid, &r) < 0)
		return -1;
	sp = (r.sp - 512) & ~15ull;
	if (mem_write(t->proc, sp, &set, sizeof(set)) < 0)
		return -1;
	args[1] = sp;
	return inject(t, SYS_rt_sigprocmask, args, &ret, restart) < 0 || ret != 0 ? -1 : 0;
}

/* ---- what the program set ---- */

static uint64_t status_mask(pid_t pid, pid_t tid, const char *field)
{
	char name[96], line[256];
	size_t n = strlen(field);
	uint64_t v = 0;
	FILE *f;

	snprintf(name, sizeof(name), "/proc/%d/task/%d/status", pid, tid);
	f = fopen(name, "re");
	while (f && fgets(line, sizeof(line), f)) {
		if (!strncmp(line, field, n)) {
			v = strtoull(line + n, NULL, 16);
			break;
		}
	}
	if (f)
		fclose(f);
	return v;
}

/* Nothing has stepped t yet: the kernel's state is the program's. */
static void read_state(struct engine *e, struct thread *t)
{
	struct proc *p = t->proc;
	struct arch_regs regs;

	if (arch_regs_get(t->tid, &regs) < 0) {
		/* Not kept here: its SIGTRAPs go as before, the header says so. */
		if ((status_mask(p->pid, t->tid, "SigBlk:") | status_mask(p->pid, t->tid, "SigIgn:") |
		     status_mask(p->pid, t->tid, "SigCgt:")) & TRAP_BIT)
			note(e, TRAP_NOTE_UNKEPT);
		return;
	}

	t->trap.known = true;
	t->trap.blocked = status_mask(p->pid, t->tid, "SigBlk:") & TRAP_BIT;
	if (p->trap.known)
		return;
	memset(p->trap.act, 0, sizeof(p->trap.act));
	if (status_mask(p->pid, t->tid, "SigIgn:") & TRAP_BIT)
		p->trap.act[0] = KSIG_IGN;
	/* A handler of its own: its address, flags and mask, to put back. */
	p->trap.known = !(status_mask(p->pid, t->tid, "SigCgt:") & TRAP_BIT) ||
			trap_action(t, p->trap.act, false, true) == 0;
	if (!p->trap.known)
		pr_dbg("cannot read the SIGTRAP handler of %d", p->pid);
	note_state(e, t);
}

void trap_start(struct engine *e, struct thread *t)
{
	if (!t->trap.known && t->proc)
		read_state(e, t);
}

void trap_exec(struct engine *e, struct thread *t)
{
	struct proc *p = t->proc;

	t->trap.armed = false;
	if (!t->trap.known || !p->trap.known) {
		read_state(e, t);	/* record's command, not stepped before */
		return;
	}
	/* execve keeps the mask and an ignored SIGTRAP, a handler becomes SIG_DFL. */
	if (p->trap.act[0] != KSIG_IGN)
		p->trap.act[0] = KSIG_DFL;
	p->trap.act[1] = p->trap.act[2] = p->trap.act[3] = 0;
}

void trap_inherit(struct thread *t, struct thread *c, bool thread)
{
	c->trap.known = t->trap.known;
	c->trap.blocked = t->trap.blocked;
	if (thread || !c->proc || !t->proc)
		return;
	c->proc->trap = t->proc->trap;
	/* A forked copy's kernel state is the parent's, reset or not. */
}

/* The program reads SIGTRAP's action at oldact: show it its own. */
static void fix_old_action(struct thread *t, uint64_t oldact)
{
	uint64_t handler;

	if (!oldact || mem_read(t->proc, oldact, &handler, sizeof(handler)) < 0 ||
	    handler == t->proc->trap.act[0])
		return;
	handler = t->proc->trap.act[0];
	if (mem_write(t->proc, oldact, &handler, sizeof(handler)) < 0)
		pr_dbg("cannot write the old action at %#" PRIx64, oldact);
}

/*
 * Deliver the program's SIGTRAP (si) by its action: put a handler a step
 * reset back into the kernel first.  What to deliver: SIGTRAP or 0.
 */
static int deliver(struct thread *t, const siginfo_t *si)
{
	struct proc *p = t->proc;

	if (p->trap.act[0] == KSIG_IGN)
		return 0;	/* discarded, as the kernel does */
	if (p->trap.act[0] != KSIG_DFL) {
		/* A step or an --on breakpoint may have reset it in the
		 * kernel (with SIGTRAP blocked, as in its own handler). */
		if (trap_action(t, p->trap.act, true, false) == 0) {
			/* t is at a system call stop now: the signal
			 * comes back as a new stop, then gets si. */
			t->trap.redeliver = true;
			t->trap.held_si = *si;
		} else {
			pr_warn("cannot restore the SIGTRAP handler of %d", p->pid);
		}
	}
	if (p->trap.act[0] > KSIG_IGN && (p->trap.act[1] & KSA_RESETHAND))
		p->trap.act[0] = KSIG_DFL;	/* the kernel does so as it delivers */
	return SIGTRAP;
}

/* The program no longer blocks SIGTRAP: one held for it is delivered now. */
static void unblocked(struct thread *t)
{
	siginfo_t si;

	if (!t->trap.held)
		return;
	t->trap.held = false;
	si = t->trap.held_si;
	t->pending_sig = deliver(t, &si);
	if (t->pending_sig) {
		t->trap.redeliver = true;
		t->trap.held_si = si;
	}
}

/* t's signal system call sc (new values read before it ran) returned ret. */
static void apply_syscall(struct engine *e, struct thread *t, const struct arch_syscall *sc,
			  int64_t ret)
{
	struct proc *p = t->proc;
	uint64_t set;

	if (sc->nr == SYS_rt_sigreturn) {
		/* The mask comes back from the frame, ours where the kernel's was reset. */
		if (!t->trap.have_new)
			return;
		t->trap.blocked = t->trap.newval[0] & TRAP_BIT;
		if (!t->trap.blocked)
			unblocked(t);
		note_state(e, t);
		return;
	}
	if (ret != 0 || sc->args[sc->nr == SYS_rt_sigpending ? 1 : 3] != KSIGSET_SIZE)
		return;
	if (sc->nr == SYS_rt_sigaction && sc->args[0] == SIGTRAP) {
		fix_old_action(t, sc->args[2]);
		if (sc->args[1] && t->trap.have_new) {
			memcpy(p->trap.act, t->trap.newval, sizeof(p->trap.act));
			p->trap.known = true;
			note_state(e, t);
		}
	} else if (sc->nr == SYS_rt_sigprocmask) {
		mem_set_trap_bit(p, sc->args[2], t->trap.blocked);
		if (!sc->args[1] || !t->trap.have_new)
			return;
		set = t->trap.newval[0] & TRAP_BIT;
		if (sc->args[0] == SIG_BLOCK)
			t->trap.blocked |= !!set;
		else if (sc->args[0] == SIG_UNBLOCK)
			t->trap.blocked &= !set;
		else if (sc->args[0] == SIG_SETMASK)
			t->trap.blocked = !!set;
		if (!t->trap.blocked)
			unblocked(t);
		note_state(e, t);
	} else if (sc->nr == SYS_rt_sigpending) {
		/* One the kernel holds (not stepped meanwhile) shows already. */
		if (t->trap.held)
			mem_set_trap_bit(p, sc->args[0], true);
	}
}

static bool watched(int64_t nr)
{
	return nr == SYS_rt_sigaction || nr == SYS_rt_sigprocmask || nr == SYS_rt_sigpending ||
	       nr == SYS_rt_sigreturn;
}

/* sc is about to run: keep it, and the values it sets (they may share a buffer). */
static void arm(struct thread *t, const struct arch_syscall *sc)
{
	struct proc *p = t->proc;
	uint64_t addr = 0, frame;
	size_t n = sizeof(uint64_t);

	t->trap.armed = t->trap.known && p->trap.known && watched(sc->nr);
	if (!t->trap.armed)
		return;
	t->trap.sc = *sc;
	if (sc->nr == SYS_rt_sigaction && sc->args[0] == SIGTRAP) {
		addr = sc->args[1];
		n = sizeof(t->trap.newval);
	} else if (sc->nr == SYS_rt_sigprocmask) {
		addr = sc->args[1];
	} else if (sc->nr == SYS_rt_sigreturn) {
		frame = arch_sigframe_mask(sc->sp, false);
		addr = frame;
	}
	t->trap.have_new = addr && mem_read(p, addr, t->trap.newval, n) == 0;
}

void trap_before_syscall(struct engine *e, struct thread *t)
{
	struct arch_syscall sc;

	(void)e;
	t->trap.armed = false;
	if (t->trap.known && arch_syscall_regs(t->tid, false, &sc) == 0)
		arm(t, &sc);
}

void trap_after_syscall(struct engine *e, struct thread *t, int64_t nr)
{
	struct arch_syscall sc;

	if (!t->trap.known)
		return;
	if (!t->trap.armed) {
		/* Block mode steps over system calls inside a block: read it
		 * now (its arguments are still in their registers). */
		if (!watched(nr) || nr == SYS_rt_sigreturn ||
		    arch_syscall_regs(t->tid, true, &sc) < 0)
			return;
		arm(t, &sc);
		if (!t->trap.armed)
			return;
	}
	t->trap.armed = false;
	sc.ret = 0;
	if (t->trap.sc.nr != SYS_rt_sigreturn && arch_syscall_regs(t->tid, true, &sc) < 0)
		return;
	apply_syscall(e, t, &t->trap.sc, sc.ret);
}

void trap_syscall_stop(struct engine *e, struct thread *t, bool entry, const uint64_t args[6],
		       int64_t nr, int64_t ret)
{
	struct arch_syscall sc;

	if (!t->trap.known)
		return;
	if (entry) {
		struct arch_stop_regs r;

		memset(&sc, 0, sizeof(sc));
		sc.nr = nr;
		memcpy(sc.args, args, sizeof(sc.args));
		if (arch_read_regs(t->tid, &r) == 0)
			sc.sp = r.sp;
		arm(t, &sc);
		return;
	}
	if (t->trap.armed) {
		t->trap.armed = false;
		apply_syscall(e, t, &t->trap.sc, ret);
	}
}

void trap_handler_entry(struct engine *e, struct thread *t, const struct arch_stop_regs *r,
			int sig)
{
	struct proc *p = t->proc;
	uint64_t mask = 0;
	bool before = t->trap.blocked;

	(void)e;
	(void)sig;
	t->trap.armed = false;	/* a system call about to run waits for the handler */
	if (!t->trap.known)
		return;
	/* The handler's mask adds its sa_mask and its signal to the kernel's. */
	if (ptrace(PTRACE_GETSIGMASK, t->tid, (void *)sizeof(mask), &mask) == 0 &&
	    (mask & TRAP_BIT))
		t->trap.blocked = true;
	/* The frame keeps the mask rt_sigreturn restores: the program's. */
	mem_set_trap_bit(p, arch_sigframe_mask(r->sp, true), before);
}

bool trap_is_programs(const struct thread *t, const siginfo_t *si)
{
	/* Sent (kill, tgkill, sigqueue: <= 0), or an int3's (SI_KERNEL); a
	 * step's has a TRAP_* code, a handler's entry SIGTRAP.  Except a step
	 * reported at a system call's exit by the kernel's generic
	 * user_single_step_report() (arm64's; x86 has its own, TRAP_BRKPT):
	 * SI_USER from pid 0, which no kill() in the program's view sends. */
	if (si->si_code == SI_USER && si->si_pid == 0 && t->stepped)
		return false;
	return si->si_signo == SIGTRAP && (si->si_code <= 0 || si->si_code == SI_KERNEL);
}

int trap_program_signal(struct engine *e, struct thread *t, const siginfo_t *si)
{
	struct proc *p = t->proc;

	(void)e;
	if (!t->trap.known || !p->trap.known)
		return SIGTRAP;
	if (si->si_code == SI_KERNEL) {
		/* Forced, untraced too: a blocked or ignored SIGTRAP kills. */
		if (t->trap.blocked || p->trap.act[0] == KSIG_IGN) {
			p->trap.act[0] = KSIG_DFL;
			t->trap.blocked = false;
		}
	} else if (t->trap.blocked) {
		/* Pending until unblocked; a second one merges with it. */
		if (!t->trap.held)
			t->trap.held_si = *si;
		t->trap.held = true;
		return 0;
	}
	return deliver(t, si);
}

void trap_before_resume(struct thread *t, int sig)
{
	if (sig != SIGTRAP || !t->trap.redeliver || t->stop_kind != STOP_SIGNAL)
		return;
	/* Delivered from this stop: with the siginfo it was sent with. */
	t->trap.redeliver = false;
	ptrace(PTRACE_SETSIGINFO, t->tid, NULL, &t->trap.held_si);
}

void trap_restore(struct engine *e, struct thread *t, int sig)
{
	struct proc *p = t->proc;
	/* Stopped inside an interrupted system call with nothing to deliver:
	 * the kernel would restart it; the calls below must not hide that. */
	bool restart = !sig && t->stop_kind != STOP_SYSCALL;

	if (!p || !t->trap.known || !p->trap.known || t->exit_written)
		return;
	if (p->trap.act[0] != KSIG_DFL) {
		if (trap_action(t, p->trap.act, true, restart) < 0) {
			pr_warn("cannot give %d its SIGTRAP action back", p->pid);
			note(e, TRAP_NOTE_LOST);
		}
		restart = false;
	}
	if (t->trap.blocked) {
		if (block_trap(t, restart) < 0) {
			pr_warn("cannot give %d its blocked SIGTRAP back", t->tid);
			note(e, TRAP_NOTE_LOST);
		} else if (t->trap.held)
			syscall(SYS_tgkill, p->pid, t->tid, SIGTRAP);	/* pending again */
	}
}
