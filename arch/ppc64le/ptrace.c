// SPDX-License-Identifier: GPL-2.0
/* ppc64le register access, breakpoint and system calls for the ptrace backend. */
#include <errno.h>
#include <stddef.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/user.h>

#include "arch/arch_ptrace.h"
#include "arch/ppc64le/ppc64le.h"

const char arch_ptrace_name[] = "ppc64le";

const unsigned arch_syscall_insn_len = 4;

/*
 * syscall_exit_prepare() reports TIF_SINGLESTEP only with syscall tracing
 * on: the rfid back sets MSR_SE, and the trap comes after the instruction
 * following sc.
 */
const bool arch_syscall_step_runs_next = true;

/*
 * A call is a branch-and-link (bl, bctrl, blrl) whose LR is the address
 * after it, or a bctr with LR where its caller returns (a PLT stub's tail
 * call).  The kernel's signal trampoline, __kernel_start_sigtramp_rt64,
 * is entered by signal delivery (no step: from is 0, LR is the
 * interrupted code's, maybe right after a bl) and by the handler's blr (a
 * return).  A block step says not where its branch was: that entry is
 * stepped.
 */
bool arch_vdso_call(const struct arch_stop_regs *r, uint64_t from, const uint8_t *code, size_t len)
{
	struct arch_insn in = { 0 };

	if (!from || len < 4)
		return false;
	ppc64le_classify_word((uint32_t)code[0] | (uint32_t)code[1] << 8 |
				      (uint32_t)code[2] << 16 | (uint32_t)code[3] << 24,
			      from, &in);
	if (in.cls == ARCH_INSN_CALL)
		return r->ra == from + 4;
	return in.cls == ARCH_INSN_JUMP && (in.flags & ARCH_INSN_INDIRECT);
}

/* Little-endian words: sc is 0x44000002, scv 0 is 0x44000001. */
bool arch_is_syscall_insn(const uint8_t *code, size_t len)
{
	return len >= 4 && (code[0] == 0x02 || code[0] == 0x01) && code[1] == 0 && code[2] == 0 &&
	       code[3] == 0x44;
}

/* trap (tw 31,0,0): the program check leaves pc at the trap. */
const uint8_t arch_breakpoint_insn[] = { 0x08, 0x00, 0xe0, 0x7f };
const unsigned arch_breakpoint_len = 4;
const unsigned arch_breakpoint_pc_adjust = 0;

/* regs->trap of a system call (sc; scv is 0x3000): r0 holds its number. */
#define PPC_TRAP_SYSCALL 0xc00
#define PPC_TRAP_SYSCALL_VECTORED 0x3000

int arch_read_regs(pid_t tid, struct arch_stop_regs *r)
{
	struct pt_regs regs;
	unsigned long trap;

	if (ptrace(PTRACE_GETREGS, tid, NULL, &regs) < 0)
		return -1;
	r->pc = regs.nip;
	r->sp = regs.gpr[1];
	r->ra = regs.link;
	/*
	 * Bit 0 is "no restart": set by rt_sigreturn (whose r0 is the
	 * interrupted context's by now), reported like x86's orig_rax of -1.
	 */
	trap = regs.trap & ~0xful;
	r->syscall_nr = (trap == PPC_TRAP_SYSCALL || trap == PPC_TRAP_SYSCALL_VECTORED) &&
				!(regs.trap & 1) ? (int64_t)regs.gpr[0] : -1;
	return 0;
}

int arch_set_pc(pid_t tid, uint64_t pc)
{
	return (int)ptrace(PTRACE_POKEUSER, tid, (void *)(PT_NIP * sizeof(unsigned long)),
			   (void *)pc);
}

/*
 * The callee returns with the stack pointer it was entered with (the
 * return address is in LR, not on the stack): over when back at ra with
 * that sp (arch_stop_regs.ra).
 */
uint64_t arch_frame_end_sp(const struct arch_stop_regs *r)
{
	return r->sp;
}

/* MSR_BE: a trap after each branch. */
/* Not tried on POWER yet: --soft-block single-steps there. */
const bool arch_soft_block = false;

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
	case SYS_ipc:		/* shmat and shmdt through the old multiplexer */
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

bool arch_may_start_atomic(const uint8_t *code, size_t len)
{
	return ppc64le_may_start_atomic(code, len);
}

int arch_atomic_sequence(const uint8_t *code, size_t avail, uint64_t pc,
			 struct arch_atomic_seq *seq)
{
	return ppc64le_atomic_sequence(code, avail, pc, seq);
}

int arch_atomic_reserved(pid_t tid, const struct arch_atomic_seq *seq, uint64_t *addr)
{
	*addr = 0;
	for (unsigned i = 0; i < 2; i++) {
		unsigned long off;
		long v;

		if (seq->addr_regs[i] < 0)
			continue;
		off = (PT_R0 + (unsigned long)seq->addr_regs[i]) * sizeof(unsigned long);
		errno = 0;
		v = ptrace(PTRACE_PEEKUSER, tid, (void *)off, NULL);
		if (v == -1 && errno)
			return -1;
		*addr += (uint64_t)v;
	}
	return 0;
}

/* CR0's EQ bit: the store-conditional stored. */
int arch_atomic_stored(pid_t tid, const struct arch_atomic_seq *seq)
{
	long cr;

	(void)seq;
	errno = 0;
	cr = ptrace(PTRACE_PEEKUSER, tid, (void *)(PT_CCR * sizeof(unsigned long)), NULL);
	if (cr == -1 && errno)
		return -1;
	return (cr >> 29) & 1;
}
