// SPDX-License-Identifier: GPL-2.0
/*
 * x86_64 side of pitrace.ko (driver/arch_calls.h): the #DB die notifiers
 * (registered by driver/trap.c) that claim our single steps and lend TF to
 * uprobes, TF in user register frames, DEBUGCTL.BTF block stepping, and the
 * questions the driver asks about x86 task state.
 */
#define pr_fmt(fmt) "pitrace: " fmt

#include <linux/atomic.h>
#include <linux/kdebug.h>
#include <linux/notifier.h>
#include <linux/ptrace.h>
#include <linux/sched.h>
#include <linux/sched/coredump.h>
#include <linux/thread_info.h>
#include <linux/uprobes.h>
#include <asm/debugreg.h>
#include <asm/msr.h>
#include <asm/unistd.h>

#include <pitrace/abi.h>

#include "arch_calls.h"
#include "ksyms.h"

/*
 * exc_debug_user() calls the die chain with args->err pointing at the
 * trap's DR6.  We take only user-mode single steps of tasks we armed; a
 * consumed step must vanish from both DR6 and the task's virtual DR6, or
 * the kernel sends the task a SIGTRAP after the chain returns.
 */
int arch_step_notify(struct notifier_block *nb, unsigned long val, void *data)
{
	struct die_args *args = data;
	unsigned long *dr6;

	if (val != DIE_DEBUG)
		return NOTIFY_DONE;
	dr6 = (unsigned long *)args->err;
	if (!(*dr6 & DR_STEP))
		return NOTIFY_DONE;
	if (!user_mode(args->regs)) {
		/* Kernel-mode stepping (driver/kernel.c); no virtual DR6 there. */
		if (!pitrace_kernel_step_trap(args->regs))
			return NOTIFY_DONE;
		*dr6 &= ~DR_STEP;
		return (*dr6 & DR_TRAP_BITS) ? NOTIFY_DONE : NOTIFY_STOP;
	}
	if (!pitrace_step_trap(args->regs))
		return NOTIFY_DONE;
	*dr6 &= ~DR_STEP;
	current->thread.virtual_dr6 &= ~DR_STEP;
	/* A hardware breakpoint hit at the same time still belongs to its owner. */
	return (*dr6 & DR_TRAP_BITS) ? NOTIFY_DONE : NOTIFY_STOP;
}

/*
 * Ahead of uprobes: at a uprobe breakpoint of a traced task, lend
 * TF to uprobes (x86 uprobes sends SIGTRAP after stepping or emulating the
 * probed instruction when TF was already set: it takes it for ptrace's),
 * and see the end of uprobes' own step.  Consumes nothing.
 */
int arch_uprobe_notify(struct notifier_block *nb, unsigned long val, void *data)
{
	struct die_args *args = data;

	if (!args->regs || !user_mode(args->regs))
		return NOTIFY_DONE;
#ifdef CONFIG_UPROBES
	/* uprobes takes every int3 of a process that has uprobes as possibly its own. */
	if (val == DIE_INT3 && current->mm && test_bit(MMF_HAS_UPROBES, &current->mm->flags))
		conflict_uprobe_break(args->regs,
				      instruction_pointer(args->regs) - UPROBE_SWBP_INSN_SIZE);
	else if (val == DIE_DEBUG && (*(unsigned long *)args->err & DR_STEP))
		conflict_uprobe_step();
#endif /* CONFIG_UPROBES */
	return NOTIFY_DONE;
}

/* The die chain carries every step trap on x86_64: no other hooks. */
int arch_trap_register(void)
{
	return 0;
}

void arch_trap_unregister(void)
{
}

void arch_regs_set_step(struct task_struct *t, struct pt_regs *regs, bool on)
{
	if (on)
		regs->flags |= X86_EFLAGS_TF;
	else
		regs->flags &= ~X86_EFLAGS_TF;
}

bool arch_regs_step(const struct pt_regs *regs)
{
	return regs->flags & X86_EFLAGS_TF;
}

/*
 * The CPU clears DEBUGCTL.BTF at every #DB, and the context switch code
 * rewrites it from TIF_BLOCKSTEP (which exc_debug_user() clears), so both
 * are set again in each trap.  Reading the MSR back tells whether the CPU
 * (or hypervisor: QEMU's TCG ignores DEBUGCTL) keeps the bit at all.
 */
bool arch_block_arm(void)
{
	u64 debugctl;

	set_thread_flag(TIF_BLOCKSTEP);
	if (rdmsrl_safe(MSR_IA32_DEBUGCTLMSR, &debugctl))
		return false;
	if (!(debugctl & DEBUGCTLMSR_BTF) &&
	    wrmsrl_safe(MSR_IA32_DEBUGCTLMSR, debugctl | DEBUGCTLMSR_BTF))
		return false;
	if (rdmsrl_safe(MSR_IA32_DEBUGCTLMSR, &debugctl))
		return false;
	return debugctl & DEBUGCTLMSR_BTF;
}

void arch_block_disarm(void)
{
	u64 debugctl;

	if (!test_and_clear_thread_flag(TIF_BLOCKSTEP))
		return;
	if (!rdmsrl_safe(MSR_IA32_DEBUGCTLMSR, &debugctl) && (debugctl & DEBUGCTLMSR_BTF))
		wrmsrl_safe(MSR_IA32_DEBUGCTLMSR, debugctl & ~DEBUGCTLMSR_BTF);
}

/* Every x86 instruction single-steps: nothing is ever deferred. */
void arch_step_deferred(struct pt_regs *regs)
{
}

bool arch_task_stepped_by_other(struct task_struct *t)
{
	return test_tsk_thread_flag(t, TIF_SINGLESTEP);
}

#ifdef CONFIG_MMIOTRACE
/*
 * mmiotrace's state is not exported (driver/ksyms.h finds it).
 * mmiotrace_enabled is set while the tracer is on (after it took all CPUs
 * but one offline); kmmio_count is
 * the number of kmmio probes registered (ioremaps traced since): while it
 * is not zero, a kernel access to a traced page faults, kmmio single-steps
 * the access with TF and takes the trap in its die notifier (priority 0,
 * after ours).
 */
static atomic_t *mmiotrace_enabled;
static unsigned int *kmmio_count;
#endif /* CONFIG_MMIOTRACE */

void arch_step_users_init(void)
{
#ifdef CONFIG_MMIOTRACE
	mmiotrace_enabled = ksyms_mmiotrace_enabled();
	kmmio_count = ksyms_kmmio_count();
	if (!mmiotrace_enabled || !kmmio_count)
		pr_warn("mmiotrace's state not found: sessions will not see mmiotrace\n");
#endif /* CONFIG_MMIOTRACE */
}

u32 arch_step_users(void)
{
#ifdef CONFIG_MMIOTRACE
	if ((mmiotrace_enabled && atomic_read(mmiotrace_enabled)) ||
	    (kmmio_count && READ_ONCE(*kmmio_count)))
		return PITRACE_STEP_USER_MMIOTRACE;
#endif /* CONFIG_MMIOTRACE */
	return 0;
}

bool arch_kernel_step_foreign(void)
{
#ifdef CONFIG_MMIOTRACE
	return kmmio_count && READ_ONCE(*kmmio_count);
#else
	return false;
#endif /* CONFIG_MMIOTRACE */
}

bool arch_syscall_is_sigreturn(const struct pt_regs *regs)
{
	/*
	 * restore_sigcontext() sets orig_ax to -1 (no syscall restart), so by
	 * syscall exit that is what a sigreturn looks like.  64-bit ABI only:
	 * 32-bit and x32 tasks are not handled specially (docs/driver.md).
	 */
	return regs->orig_ax == __NR_rt_sigreturn || (long)regs->orig_ax == -1;
}
