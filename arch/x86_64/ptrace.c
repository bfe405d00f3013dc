// SPDX-License-Identifier: GPL-2.0
/* x86-64 register access, breakpoint and system calls for the ptrace backend. */
#include <stddef.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/user.h>

#include "arch/arch_ptrace.h"

const char arch_ptrace_name[] = "x86_64";

const unsigned arch_syscall_insn_len = 2;	/* syscall: 0f 05 */

/* The kernel reports a stepped syscall at its exit (syscall_exit_work()). */
const bool arch_syscall_step_runs_next = false;

/*
 * Every entry into the vDSO is a call (or a jump through a PLT, which
 * returns to its caller's caller alike): signal handlers return through
 * libc's restorer, never the vDSO's code.
 */
bool arch_vdso_call(const struct arch_stop_regs *r, uint64_t from, const uint8_t *code, size_t len)
{
	(void)r;
	(void)from;
	(void)code;
	(void)len;
	return true;
}

bool arch_is_syscall_insn(const uint8_t *code, size_t len)
{
	return len >= 2 && code[0] == 0x0f && code[1] == 0x05;
}

/* The trap flag, set in EFLAGS while a thread is single-stepped. */
const uint64_t arch_step_flags = 0x100;

/* pushf (9c) pushes 8 bytes, with an operand-size prefix (66 9c) 2; REX.W keeps 8. */
unsigned arch_insn_pushes_flags(const uint8_t *code, size_t len)
{
	bool word = false;
	size_t i = 0;

	for (; i < len && (code[i] == 0x66 || (code[i] & 0xf0) == 0x40); i++) {
		if (code[i] == 0x66)
			word = true;
		else if (code[i] & 0x08)
			word = false;	/* REX.W: 64-bit operand */
	}
	return i < len && code[i] == 0x9c ? (word ? 2 : 8) : 0;
}

/* int3: the trap leaves pc after it. */
const uint8_t arch_breakpoint_insn[] = { 0xcc };
const unsigned arch_breakpoint_len = 1;
const unsigned arch_breakpoint_pc_adjust = 1;

int arch_read_regs(pid_t tid, struct arch_stop_regs *r)
{
	struct user_regs_struct regs;

	/* One GETREGS costs about what one PEEKUSER does and gives all three. */
	if (ptrace(PTRACE_GETREGS, tid, NULL, &regs) < 0)
		return -1;
	r->pc = regs.rip;
	r->sp = regs.rsp;
	r->syscall_nr = (int64_t)regs.orig_rax;
	r->ra = 0;	/* on the stack */
	return 0;
}

int arch_set_pc(pid_t tid, uint64_t pc)
{
	return (int)ptrace(PTRACE_POKEUSER, tid, (void *)offsetof(struct user_regs_struct, rip),
			   (void *)pc);
}

uint64_t arch_frame_end_sp(const struct arch_stop_regs *r)
{
	/* call pushed 8 bytes of return address; ret pops them. */
	return r->sp + 8;
}

const bool arch_soft_block = true;

int arch_block_step_request(void)
{
	return PTRACE_SINGLEBLOCK;
}

enum arch_syscall_kind arch_syscall_kind(int64_t nr)
{
	switch (nr) {
	case SYS_mmap:
	case SYS_munmap:
	case SYS_mprotect:
	case SYS_mremap:
	case SYS_pkey_mprotect:
	case SYS_shmat:
	case SYS_shmdt:
	case SYS_remap_file_pages:
		return ARCH_SC_MAPS;
	case SYS_execve:
	case SYS_execveat:
		return ARCH_SC_EXEC;
	case SYS_exit:
	case SYS_exit_group:
		return ARCH_SC_EXIT;
	case SYS_prctl:
		return ARCH_SC_COMM;
	default:
		return ARCH_SC_OTHER;
	}
}

/* x86 atomics are single instructions (lock-prefixed, cmpxchg): they step. */
bool arch_may_start_atomic(const uint8_t *code, size_t len)
{
	(void)code, (void)len;
	return false;
}

int arch_atomic_sequence(const uint8_t *code, size_t avail, uint64_t pc,
			 struct arch_atomic_seq *seq)
{
	(void)code, (void)avail, (void)pc, (void)seq;
	return 0;
}

int arch_atomic_stored(pid_t tid, const struct arch_atomic_seq *seq)
{
	(void)tid;
	(void)seq;
	return -1;
}

int arch_atomic_reserved(pid_t tid, const struct arch_atomic_seq *seq, uint64_t *addr)
{
	(void)tid;
	(void)seq;
	(void)addr;
	return -1;
}

int arch_syscall_regs(pid_t tid, bool done, struct arch_syscall *sc)
{
	struct user_regs_struct regs;

	if (ptrace(PTRACE_GETREGS, tid, NULL, &regs) < 0)
		return -1;
	/* rax holds the number until the call, its result after (orig_rax the number). */
	sc->nr = done ? (int64_t)regs.orig_rax : (int64_t)regs.rax;
	sc->ret = done ? (int64_t)regs.rax : 0;
	sc->args[0] = regs.rdi;
	sc->args[1] = regs.rsi;
	sc->args[2] = regs.rdx;
	sc->args[3] = regs.r10;
	sc->args[4] = regs.r8;
	sc->args[5] = regs.r9;
	sc->sp = regs.rsp;
	return 0;
}

/*
 * The kernel's struct rt_sigframe: the return address (popped by the
 * handler's ret before rt_sigreturn), then struct ucontext, whose
 * uc_sigmask follows uc_flags, uc_link, uc_stack (40 bytes) and
 * uc_mcontext (256).
 */
uint64_t arch_sigframe_mask(uint64_t sp, bool entry)
{
	return sp + (entry ? 8 : 0) + 40 + 256;
}

int arch_regs_get(pid_t tid, struct arch_regs *r)
{
	_Static_assert(sizeof(struct user_regs_struct) <= sizeof(r->w), "arch_regs too small");
	return (int)ptrace(PTRACE_GETREGS, tid, NULL, r->w);
}

int arch_regs_set(pid_t tid, const struct arch_regs *r)
{
	return (int)ptrace(PTRACE_SETREGS, tid, NULL, r->w);
}

void arch_regs_syscall(struct arch_regs *r, uint64_t pc, int64_t nr, const uint64_t args[6])
{
	struct user_regs_struct regs;

	memcpy(&regs, r->w, sizeof(regs));
	regs.rip = pc;
	regs.rax = (uint64_t)nr;
	/* Not inside a system call: nothing for the kernel to restart. */
	regs.orig_rax = (uint64_t)-1;
	regs.rdi = args[0];
	regs.rsi = args[1];
	regs.rdx = args[2];
	regs.r10 = args[3];
	regs.r8 = args[4];
	regs.r9 = args[5];
	memcpy(r->w, &regs, sizeof(regs));
}

int64_t arch_regs_ret(const struct arch_regs *r)
{
	const struct user_regs_struct *regs = (const void *)r->w;

	return (int64_t)regs->rax;
}

/* The kernel's own restart codes (include/linux/errno.h). */
#define ERESTARTSYS 512
#define ERESTARTNOINTR 513
#define ERESTARTNOHAND 514
#define ERESTART_RESTARTBLOCK 516

/* As arch/x86/kernel/signal.c does when no handler runs. */
void arch_regs_restart(struct arch_regs *r)
{
	struct user_regs_struct regs;

	memcpy(&regs, r->w, sizeof(regs));
	if ((int64_t)regs.orig_rax < 0)
		return;
	switch ((int64_t)regs.rax) {
	case -ERESTARTSYS:
	case -ERESTARTNOINTR:
	case -ERESTARTNOHAND:
		regs.rax = regs.orig_rax;
		regs.rip -= 2;
		break;
	case -ERESTART_RESTARTBLOCK:
		regs.rax = SYS_restart_syscall;
		regs.rip -= 2;
		break;
	default:
		return;
	}
	regs.orig_rax = (uint64_t)-1;
	memcpy(r->w, &regs, sizeof(regs));
}
