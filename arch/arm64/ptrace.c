// SPDX-License-Identifier: GPL-2.0
/*
 * arm64 register access, breakpoint and system calls for the ptrace
 * backend.  arm64 has no PTRACE_GETREGS or PEEKUSER: registers come and go
 * as regsets (PTRACE_GETREGSET NT_PRSTATUS: x0-x30, sp, pc, pstate).
 */
#include <elf.h>
#include <errno.h>
#include <stddef.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/uio.h>

#include "arch/arch_ptrace.h"
#include "arch/arm64/arm64.h"

const char arch_ptrace_name[] = "aarch64";

const unsigned arch_syscall_insn_len = 4;

/*
 * report_syscall() sends a stepped thread's step report at the system
 * call's exit, before anything else runs (as x86's syscall_exit_work()).
 */
const bool arch_syscall_step_runs_next = false;

/* The layout of NT_PRSTATUS (struct user_pt_regs): sp is "x31". */
struct arm64_regs {
	uint64_t x[31];
	uint64_t sp;
	uint64_t pc;
	uint64_t pstate;
};

#ifndef NT_ARM_SYSTEM_CALL
#define NT_ARM_SYSTEM_CALL 0x404
#endif

static int get_regset(pid_t tid, int type, void *buf, size_t len)
{
	struct iovec iov = { buf, len };

	return ptrace(PTRACE_GETREGSET, tid, (void *)(long)type, &iov) < 0 ? -1 : 0;
}

static int get_regs(pid_t tid, struct arm64_regs *regs)
{
	return get_regset(tid, NT_PRSTATUS, regs, sizeof(*regs));
}

/*
 * A call is a branch-and-link (bl, blr, blraa) whose x30 is the address
 * after it, or a br with x30 where its caller returns (a PLT entry's jump).
 * The kernel's signal trampoline, __kernel_rt_sigreturn, is entered by the
 * handler's ret (glibc sets no SA_RESTORER on arm64): no call.  A signal
 * delivery is no step (from is 0).
 */
bool arch_vdso_call(const struct arch_stop_regs *r, uint64_t from, const uint8_t *code, size_t len)
{
	struct arch_insn in = { 0 };

	if (!from || len < 4)
		return false;
	arm64_classify_word(arm64_word(code), from, &in);
	if (in.cls == ARCH_INSN_CALL)
		return r->ra == from + 4;
	return in.cls == ARCH_INSN_JUMP && (in.flags & ARCH_INSN_INDIRECT);
}

/* svc #0: d4000001. */
bool arch_is_syscall_insn(const uint8_t *code, size_t len)
{
	return len >= 4 && arm64_word(code) == 0xd4000001;
}

/* brk #0 (GDB's): the kernel reports it with pc at the brk. */
const uint8_t arch_breakpoint_insn[] = { 0x00, 0x00, 0x20, 0xd4 };
const unsigned arch_breakpoint_len = 4;
const unsigned arch_breakpoint_pc_adjust = 0;

/*
 * The system call number lives in pt_regs->syscallno, which every kernel
 * entry other than svc sets to NO_SYSCALL (-1), as x86's orig_rax: it is
 * only in its own regset, a second call per stop.
 */
int arch_read_regs(pid_t tid, struct arch_stop_regs *r)
{
	struct arm64_regs regs;
	int32_t nr;

	if (get_regs(tid, &regs) < 0 || get_regset(tid, NT_ARM_SYSTEM_CALL, &nr, sizeof(nr)) < 0)
		return -1;
	r->pc = regs.pc;
	r->sp = regs.sp;
	r->ra = regs.x[30];
	r->syscall_nr = nr;
	return 0;
}

int arch_set_pc(pid_t tid, uint64_t pc)
{
	struct arm64_regs regs;
	struct iovec iov = { &regs, sizeof(regs) };

	if (get_regs(tid, &regs) < 0)
		return -1;
	regs.pc = pc;
	return (int)ptrace(PTRACE_SETREGSET, tid, (void *)(long)NT_PRSTATUS, &iov);
}

/*
 * The callee returns with the stack pointer it was entered with (the
 * return address is in x30, not on the stack): over when back at ra with
 * that sp (arch_stop_regs.ra).
 */
uint64_t arch_frame_end_sp(const struct arch_stop_regs *r)
{
	return r->sp;
}

/* Not tried on arm64 yet: --soft-block single-steps there. */
const bool arch_soft_block = false;

/* arm64 has no branch-step (no PTRACE_SINGLEBLOCK): --block is refused. */
int arch_block_step_request(void)
{
	return -1;
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

bool arch_may_start_atomic(const uint8_t *code, size_t len)
{
	return arm64_may_start_atomic(code, len);
}

int arch_atomic_sequence(const uint8_t *code, size_t avail, uint64_t pc,
			 struct arch_atomic_seq *seq)
{
	return arm64_atomic_sequence(code, avail, pc, seq);
}

/* ldxr's [Xn|SP]: register 31 is sp, the word after x30 in the regset. */
int arch_atomic_reserved(pid_t tid, const struct arch_atomic_seq *seq, uint64_t *addr)
{
	struct arm64_regs regs;

	if (seq->addr_regs[0] < 0 || get_regs(tid, &regs) < 0)
		return -1;
	*addr = seq->addr_regs[0] == 31 ? regs.sp : regs.x[seq->addr_regs[0]];
	return 0;
}

/* stxr writes 0 to its Ws when it stored, 1 when it did not. */
int arch_atomic_stored(pid_t tid, const struct arch_atomic_seq *seq)
{
	struct arm64_regs regs;

	if (get_regs(tid, &regs) < 0 || seq->status_reg < 0 || seq->status_reg > 30)
		return -1;
	return (uint32_t)regs.x[seq->status_reg] == 0;
}
