/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the ptrace backend needs to know about an architecture: the few
 * registers it reads at every stop, the breakpoint instruction, the
 * block-step request, and which system calls change the address space.
 * Each arch/<arch>/ptrace.c implements every function here.
 */
#ifndef PT_ARCH_PTRACE_H
#define PT_ARCH_PTRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Architecture name for the trace header ("x86_64"). */
extern const char arch_ptrace_name[];

/* The registers the tracer looks at when a thread stops. */
struct arch_stop_regs {
	uint64_t pc;		  /* the next instruction to execute */
	uint64_t sp;		  /* stack pointer */
	/*
	 * The system call this stop reports the end of, or -1.  Valid at the
	 * step stop right after a syscall instruction (the kernel reports the
	 * step at syscall exit) and at PTRACE_EVENT_EXIT / syscall-exit stops;
	 * every other trap resets it to -1 on kernel entry.
	 */
	int64_t syscall_nr;
	/*
	 * Where a function returns, read at its first instruction, when a
	 * register holds it (ppc64: LR); 0 where the stack does (x86_64).
	 */
	uint64_t ra;
};

/* Required: read the stop registers of stopped thread tid (one ptrace call). */
int arch_read_regs(pid_t tid, struct arch_stop_regs *r);

/* Required: set the program counter of stopped thread tid. */
int arch_set_pc(pid_t tid, uint64_t pc);

/* Required: length of the system call instruction (syscall_nr != -1 at a step
 * stop means the instruction at pc - this length was that call). */
extern const unsigned arch_syscall_insn_len;

/*
 * Required: true when a single step over a system call instruction also
 * runs the instruction after it before the trap (ppc64: no step report at
 * syscall exit, MSR_SE traps after the next instruction).  The tracer then
 * takes the step with PTRACE_SYSCALL, whose exit stop comes first.
 */
extern const bool arch_syscall_step_runs_next;

/*
 * Required: a stepped thread has come into the vDSO (regs r) from outside
 * it: whether by a call, which returns to its caller and so may run
 * natively (ptrace_vdso.c).  from is the instruction that step ran (code:
 * len bytes of it), 0 when the stop was no single step's (a signal
 * delivered, a block step).  POWER's kernel enters signal handlers through
 * a trampoline in the vDSO, and handlers return into it: a native run from
 * there would take the handler with it, untraced.
 */
bool arch_vdso_call(const struct arch_stop_regs *r, uint64_t from, const uint8_t *code, size_t len);

/* Required: true when code (len bytes available) starts with a system call
 * instruction. */
bool arch_is_syscall_insn(const uint8_t *code, size_t len);

/*
 * Required: the software breakpoint (arch_breakpoint_len bytes, at most
 * ARCH_BREAKPOINT_MAX) and where a thread stops after hitting it: the
 * breakpoint's address is pc - arch_breakpoint_pc_adjust.
 */
#define ARCH_BREAKPOINT_MAX 8
extern const uint8_t arch_breakpoint_insn[];
extern const unsigned arch_breakpoint_len;
extern const unsigned arch_breakpoint_pc_adjust;

/*
 * Required: at the first instruction of a function (regs of that stop), the
 * stack pointer once the activation has returned: the function's activation
 * is over as soon as the thread's sp is at or above it (stacks grow down).
 * With a return address in regs (ra), it is over when the thread is back at
 * ra with sp at or above this, or above it (a longjmp out).
 */
uint64_t arch_frame_end_sp(const struct arch_stop_regs *r);

/* Required: the ptrace request that steps to the next taken branch, or -1
 * when the architecture has none. */
int arch_block_step_request(void);

/*
 * Required: straight-line runs may go natively to a written breakpoint
 * (pitrace/ptrace_block.c): its trap leaves pc at the breakpoint's address
 * plus arch_breakpoint_pc_adjust and nowhere else.  False makes
 * --soft-block single steps.
 */
extern const bool arch_soft_block;

/*
 * A load-reserve/store-conditional sequence (ppc64 lwarx..stwcx., arm64
 * ldxr..stxr): stepped, each trap clears the reservation and the store
 * never succeeds, so the tracer runs it natively to breakpoints at its
 * exits (as GDB's ppc_deal_with_atomic_sequence() and
 * aarch64_software_single_step() do) and records the instructions the exit
 * it stops at implies.
 */
#define ARCH_ATOMIC_MAX_EXITS 8
struct arch_atomic_seq {
	uint64_t start;		  /* the load-reserve */
	unsigned insn_len;	  /* bytes per instruction */
	int addr_regs[2];	  /* registers whose sum it reserves (-1: none) */
	int status_reg;		  /* the register the store-conditional writes its result to
				   * (arm64 stxr's Ws); unused where a flag says it (ppc64 CR0) */
	unsigned nr_exits;
	struct {
		uint64_t addr;	  /* a breakpoint where the native run stops */
		unsigned path;	  /* instructions run from start when it stops there */
		bool store;	  /* reached through the store-conditional (else a branch out) */
		bool ambiguous;	  /* two paths reach it: path is the longer one's */
	} exits[ARCH_ATOMIC_MAX_EXITS];
};

/*
 * Required: whether the instruction at code (len bytes) may start one
 * (ppc64: a load-reserve; x86_64: never): cheap, for every step.
 */
bool arch_may_start_atomic(const uint8_t *code, size_t len);

/* Longest code arch_atomic_sequence() reads, in bytes. */
#define ARCH_ATOMIC_MAX_CODE 72

/*
 * Required: 1 when code (avail bytes at pc) starts a sequence that must not
 * be single-stepped, with *seq filled; 0 when it starts none (x86_64: never);
 * -1 when it starts one that cannot be run this way (an indirect branch or
 * a branch into itself, no store-conditional within reach): the caller
 * steps it and may never see it end.
 */
int arch_atomic_sequence(const uint8_t *code, size_t avail, uint64_t pc,
			 struct arch_atomic_seq *seq);

/*
 * Required: stopped right after seq's store-conditional, whether it
 * stored: 1, 0, or -1 when unknown.
 */
int arch_atomic_stored(pid_t tid, const struct arch_atomic_seq *seq);

/*
 * Required: the address stopped thread tid's load-reserve (at seq->start,
 * about to run) reserves, from its registers: 0 and *addr, or -1.
 */
int arch_atomic_reserved(pid_t tid, const struct arch_atomic_seq *seq, uint64_t *addr);

/*
 * Optional (a weak default says no): when code (len bytes) is an
 * instruction that copies the flags register to the stack (x86 pushf), the
 * size of that copy; 0 for any other instruction.  While a thread is
 * single-stepped the copy shows arch_step_flags set, which the program's
 * own run would not: the tracer clears them in the copy after the step.
 */
unsigned arch_insn_pushes_flags(const uint8_t *code, size_t len);
extern const uint64_t arch_step_flags;

/* What a system call means to the tracer. */
enum arch_syscall_kind {
	ARCH_SC_OTHER = 0,
	ARCH_SC_MAPS,		  /* may change executable mappings (mmap, mprotect, ...) */
	ARCH_SC_EXEC,		  /* execve, execveat */
	ARCH_SC_EXIT,		  /* exit, exit_group: the thread ends inside it */
	ARCH_SC_COMM,		  /* may rename the thread (prctl PR_SET_NAME) */
};

/* Required: classify system call nr (native ABI). */
enum arch_syscall_kind arch_syscall_kind(int64_t nr);


/*
 * The program's own SIGTRAP state (pitrace/ptrace_sigtrap.c).  A step trap
 * is forced on the thread, and forcing unblocks a blocked SIGTRAP and
 * resets an ignored (or blocked) one to SIG_DFL; the tracer keeps the
 * state the program set, shows it to the program and puts it back by
 * running system calls in the thread.  Every function below is optional:
 * a weak default says "cannot", and the trace then says the state was not
 * kept.
 */

/* A system call's number, arguments and stack pointer at a stop. */
struct arch_syscall {
	int64_t nr;
	uint64_t args[6];
	int64_t ret;		  /* done: its result, -errno on failure */
	uint64_t sp;
};

/*
 * Optional: stopped at a system call instruction about to run (done false),
 * or right after one ran (done true: the step stop reporting it), read it.
 * 0, or -1 when unknown.
 */
int arch_syscall_regs(pid_t tid, bool done, struct arch_syscall *sc);

/*
 * Optional: where a signal frame keeps the mask its rt_sigreturn restores,
 * from the stack pointer at the handler's first instruction (entry true)
 * or at that rt_sigreturn's system call instruction; 0 when unknown.
 */
uint64_t arch_sigframe_mask(uint64_t sp, bool entry);

/* All of a stopped thread's registers, opaque. */
struct arch_regs {
	uint64_t w[64];
};

/* Optional: read or write all of tid's registers; 0 or -1. */
int arch_regs_get(pid_t tid, struct arch_regs *r);
int arch_regs_set(pid_t tid, const struct arch_regs *r);

/* Optional: make r run system call nr(args) at the syscall instruction at pc. */
void arch_regs_syscall(struct arch_regs *r, uint64_t pc, int64_t nr, const uint64_t args[6]);

/* Optional: the result of the system call r has returned from (-errno). */
int64_t arch_regs_ret(const struct arch_regs *r);

/*
 * Optional: r was stopped inside a system call a signal interrupted (the
 * kernel restarts it when no handler runs): apply that restart to r, as
 * the kernel would when the thread goes on without a signal.
 */
void arch_regs_restart(struct arch_regs *r);

#endif /* PT_ARCH_PTRACE_H */
