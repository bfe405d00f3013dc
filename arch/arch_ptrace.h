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
};

/* Required: read the stop registers of stopped thread tid (one ptrace call). */
int arch_read_regs(pid_t tid, struct arch_stop_regs *r);

/* Required: set the program counter of stopped thread tid. */
int arch_set_pc(pid_t tid, uint64_t pc);

/* Required: length of the system call instruction (syscall_nr != -1 at a step
 * stop means the instruction at pc - this length was that call). */
extern const unsigned arch_syscall_insn_len;

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
 */
uint64_t arch_frame_end_sp(const struct arch_stop_regs *r);

/* Required: the ptrace request that steps to the next taken branch, or -1
 * when the architecture has none. */
int arch_block_step_request(void);

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

#endif /* PT_ARCH_PTRACE_H */
