// SPDX-License-Identifier: GPL-2.0
/*
 * ppc64 (Book3S) side of pitrace.ko (driver/arch_calls.h): the die notifiers
 * (registered by driver/trap.c) that claim our single steps and lend MSR_SE
 * to uprobes, MSR_SE in user register frames, load-reserve instructions
 * handed to the task's context (atomic.c), and the questions the driver
 * asks about POWER task state.
 *
 * single_step_exception() clears MSR_SE and MSR_BE in the frame, lets
 * kprobes look at it (kernel mode only), then calls the die chain with
 * DIE_SSTEP, then the kernel debugger's __debugger_sstep (xmon, kgdb), and
 * otherwise sends SIGTRAP (ptrace).  hw_breakpoint (priority INT_MAX,
 * registered at boot, so ahead of our INT_MAX one) and uprobes
 * (INT_MAX - 1) see the chain before our step notifier.
 */
#define pr_fmt(fmt) "pitrace: " fmt

#include <linux/kdebug.h>
#include <linux/notifier.h>
#include <linux/ptrace.h>
#include <linux/sched.h>
#include <linux/sched/coredump.h>
#include <linux/thread_info.h>
#include <linux/uaccess.h>
#include <linux/uprobes.h>
#include <asm/debug.h>
#include <asm/reg.h>

#include <pitrace/abi.h>

#include "arch_calls.h"
#include "ppc_atomic.h"

/*
 * A user-mode step trap of a task we armed: our MSR_SE.  The kernel
 * cleared it before the chain; the driver decides with it set again (the
 * task's state before the trap) and clears it itself when it disarms.  A
 * trap that is not ours gets the cleared frame back.
 */
int arch_step_notify(struct notifier_block *nb, unsigned long val, void *data)
{
	struct die_args *args = data;
	struct pt_regs *regs = args->regs;
	unsigned long msr;
	u32 insn;

	if (val != DIE_SSTEP || !regs)
		return NOTIFY_DONE;
	if (!user_mode(regs))
		return pitrace_kernel_step_trap(regs) ? NOTIFY_STOP : NOTIFY_DONE;
	msr = regs->msr;
	regs_set_return_msr(regs, msr | MSR_SE);
	if (!pitrace_step_trap(regs)) {
		regs_set_return_msr(regs, msr);
		return NOTIFY_DONE;
	}
	/*
	 * The instruction about to run is recorded.  A load-reserve must not
	 * run stepped: the next trap would clear its reservation and the
	 * sequence's store-conditional would fail forever.
	 */
	if (arch_regs_step(regs) &&
	    !copy_from_user_nofault(&insn, (const void __user *)regs->nip, sizeof(insn)) &&
	    ppc_is_larx(insn))
		pitrace_step_defer(regs);
	return NOTIFY_STOP;
}

/*
 * Ahead of uprobes: at a uprobe breakpoint of a traced task, lend MSR_SE to
 * uprobes (it steps its copy of the probed instruction with MSR_SE and
 * TIF_SINGLESTEP, or emulates it, and clears MSR_SE when done), and see the
 * end of uprobes' own step.  Consumes nothing.
 */
int arch_uprobe_notify(struct notifier_block *nb, unsigned long val, void *data)
{
	struct die_args *args = data;

	if (!args->regs || !user_mode(args->regs))
		return NOTIFY_DONE;
#ifdef CONFIG_UPROBES
	/* The trap leaves the pc at the breakpoint (uprobe_get_swbp_addr()). */
	if (val == DIE_BPT && current->mm && test_bit(MMF_HAS_UPROBES, &current->mm->flags))
		conflict_uprobe_break(args->regs, instruction_pointer(args->regs));
	else if (val == DIE_SSTEP)
		conflict_uprobe_step();
#endif /* CONFIG_UPROBES */
	return NOTIFY_DONE;
}

/* The die chain carries every step trap on ppc64: no other hooks. */
int arch_trap_register(void)
{
	return 0;
}

void arch_trap_unregister(void)
{
}

/*
 * regs_set_return_msr(): on Book3S the interrupt return may reuse the SRRs
 * it saved unless told the frame changed.
 */
void arch_regs_set_step(struct task_struct *t, struct pt_regs *regs, bool on)
{
	if (on)
		regs_set_return_msr(regs, regs->msr | MSR_SE);
	else
		regs_set_return_msr(regs, regs->msr & ~(MSR_SE | MSR_BE));
}

bool arch_regs_step(const struct pt_regs *regs)
{
	return regs->msr & (MSR_SE | MSR_BE);
}

/*
 * Branch tracing (MSR_BE) is not used: with MSR_SE clear, a CPU or
 * emulator that does not honour MSR_BE would let the task run untraced,
 * and nothing would tell.  Block mode keeps stepping every instruction
 * (the session's status says degraded).
 */
bool arch_block_arm(void)
{
	return false;
}

void arch_block_disarm(void)
{
}

/* ptrace's steps and uprobes' (user_enable_single_step() sets it for both). */
bool arch_task_stepped_by_other(struct task_struct *t)
{
	return test_tsk_thread_flag(t, TIF_SINGLESTEP);
}

void arch_step_users_init(void)
{
}

/*
 * xmon and kgdb install their step hook in __debugger_sstep (exported),
 * xmon also when entered by sysrq: one kernel debugger at a time, and its
 * traps come after the die chain.  No session while one is there.
 */
u32 arch_step_users(void)
{
#ifdef CONFIG_DEBUGGER
	if (READ_ONCE(__debugger_sstep))
		return PITRACE_STEP_USER_DEBUGGER;
#endif /* CONFIG_DEBUGGER */
	return 0;
}

/* Kernel mode is not stepped on ppc64 (arch_kstep_supported()): no trap is ours. */
bool arch_kernel_step_foreign(void)
{
	return true;
}

/*
 * At sys_exit the trap word still says system call (0xc00, or 0x3000 for
 * scv); restore_sigcontext() (rt_sigreturn, swapcontext) also sets its
 * no-restart bit, which no other system call sets before sys_exit.
 */
bool arch_syscall_is_sigreturn(const struct pt_regs *regs)
{
	return trap_is_syscall((struct pt_regs *)regs) &&
	       trap_norestart((struct pt_regs *)regs);
}
