// SPDX-License-Identifier: GPL-2.0
/*
 * arm64 side of pitrace.ko (driver/arch_calls.h): the step trap through
 * debug-monitors' user step hook list, the task's step state armed as
 * user_enable_single_step() arms it, load-exclusives handed to the task's
 * context (atomic.c), the step flag lent to uprobes, and the questions the
 * driver asks about arm64 task state.
 *
 * single_step_handler() calls the step hooks (ours, registered last, is
 * first in the list) and, when none handles the trap, sends SIGTRAP
 * (ptrace).  The die chain never sees a step on arm64: the two die
 * notifiers are registered (driver/trap.c) but do nothing.  Kernels after
 * the debug exception rework (Debian's 6.12 has it backported) have no hook
 * lists: this module then does not load (docs/arm64.md).
 */
#define pr_fmt(fmt) "pitrace: " fmt

#include <linux/errno.h>
#include <linux/kdebug.h>
#include <linux/kprobes.h>
#include <linux/notifier.h>
#include <linux/ptrace.h>
#include <linux/sched.h>
#include <linux/thread_info.h>
#include <linux/uaccess.h>
#include <linux/uprobes.h>
#include <asm/debug-monitors.h>

#include <pitrace/abi.h>

#include "arch_calls.h"
#include "arm64_excl.h"
#include "ksyms.h"

/* The die chain has no step or breakpoint events on arm64 (DIE_OOPS only). */
int arch_step_notify(struct notifier_block *nb, unsigned long val, void *data)
{
	return NOTIFY_DONE;
}

int arch_uprobe_notify(struct notifier_block *nb, unsigned long val, void *data)
{
	return NOTIFY_DONE;
}

#ifdef PITRACE_NO_STEP_HOOKS
int arch_trap_register(void)
{
	pr_err("this kernel has no arm64 step hook lists (debug exception rework): "
	       "no driver, use the ptrace backend (docs/arm64.md)\n");
	return -EOPNOTSUPP;
}

void arch_trap_unregister(void)
{
}
#else
#ifdef CONFIG_UPROBES
/* uprobes' own step of a probed instruction's copy: its trap, not ours. */
static bool uprobe_stepping(void)
{
	return current->utask && current->utask->active_uprobe;
}

/*
 * At a uprobe's breakpoint, lend the step flag to uprobes as x86 and
 * POWER do (driver/arch_calls.h, conflict_uprobe_break()): with it set,
 * arch_uprobe_pre_xol()'s user_enable_single_step() leaves SPSR.SS as the
 * breakpoint left it, and arch_uprobe_post_xol() clears the flag, so the
 * task ran unstepped until its next kernel entry; an instruction uprobes
 * simulates (adrp, a branch) was followed by one that no trap reported.
 * Only one break hook runs per breakpoint, the first registered that
 * matches (uprobes'), so the driver sees the task first in
 * uprobe_notify_resume(), which TIF_UPROBE calls before uprobes handles
 * the breakpoint (and again after its step of the copy, in state
 * UTASK_SSTEP_ACK, which the step hook below has seen).
 */
static int uprobe_resume_pre(struct kprobe *p, struct pt_regs *kregs)
{
	struct uprobe_task *utask = current->utask;
	unsigned long irqflags;

	if (!user_mode(task_pt_regs(current)) || (utask && utask->state != UTASK_RUNNING))
		return 0;
	local_irq_save(irqflags);
	conflict_uprobe_break(task_pt_regs(current), instruction_pointer(task_pt_regs(current)));
	local_irq_restore(irqflags);
	return 0;
}

static struct kprobe uprobe_resume_kp = {
	.symbol_name = "uprobe_notify_resume",
	.pre_handler = uprobe_resume_pre,
};

static void uprobe_lend_register(void)
{
	if (register_kprobe(&uprobe_resume_kp)) {
		uprobe_resume_kp.addr = NULL;
		pr_warn("no kprobe on uprobe_notify_resume: steps around uprobes are lost\n");
	}
}

static void uprobe_lend_unregister(void)
{
	if (uprobe_resume_kp.addr)
		unregister_kprobe(&uprobe_resume_kp);
}
#else
static bool uprobe_stepping(void)
{
	return false;
}

static void uprobe_lend_register(void)
{
}

static void uprobe_lend_unregister(void)
{
}
#endif /* CONFIG_UPROBES */

/*
 * A user-mode step trap.  The hardware left SPSR.SS clear (the stepped
 * instruction completed); the driver decides with it set again, as
 * user_rewind_single_step() sets it for the next step, and a trap that is
 * not ours gets the frame back as it was.
 */
static int user_step(struct pt_regs *regs, unsigned long esr)
{
	u64 pstate = regs->pstate;
	u32 insn;

	if (!test_thread_flag(TIF_SINGLESTEP))
		return DBG_HOOK_ERROR;
	if (uprobe_stepping()) {
		/* The flag was lent at its breakpoint: take it back after uprobes' fix-up. */
		conflict_uprobe_step();
		return DBG_HOOK_ERROR;
	}
	regs->pstate |= DBG_SPSR_SS;
	if (!pitrace_step_trap(regs)) {
		regs->pstate = pstate;
		return DBG_HOOK_ERROR;
	}
	/*
	 * The instruction about to run is recorded.  A load-exclusive must
	 * not run stepped: the exception return after it clears the
	 * exclusive monitor, and the store-exclusive fails forever.
	 */
	if (arch_regs_step(regs) &&
	    !copy_from_user_nofault(&insn, (const void __user *)regs->pc, sizeof(insn)) &&
	    arm64_excl_is_load(le32_to_cpu(insn)))
		pitrace_step_defer(regs);
	return DBG_HOOK_HANDLED;
}

static struct step_hook user_step_hook = {
	.fn = user_step,
};

int arch_trap_register(void)
{
	int err = ksyms_register_user_step_hook(&user_step_hook);

	if (err) {
		pr_err("arm64 step hook list not found (register_user_step_hook): "
		       "no driver, use the ptrace backend (docs/arm64.md)\n");
		return err;
	}
	uprobe_lend_register();
	return 0;
}

void arch_trap_unregister(void)
{
	uprobe_lend_unregister();
	ksyms_unregister_user_step_hook(&user_step_hook);
}
#endif /* PITRACE_NO_STEP_HOOKS */

/*
 * As user_enable_single_step() (not exported): TIF_SINGLESTEP makes the
 * return to user mode set MDSCR_EL1.SS, and SPSR.SS is set only when the
 * task was not stepping already; otherwise it says where the step state
 * machine stands (clear: a step completed and its trap is still to come,
 * which the next return takes at once).  Disarming clears the flag as
 * user_disable_single_step() does.
 */
void arch_regs_set_step(struct task_struct *t, struct pt_regs *regs, bool on)
{
	if (!on) {
		clear_tsk_thread_flag(t, TIF_SINGLESTEP);
		return;
	}
	if (!test_and_set_tsk_thread_flag(t, TIF_SINGLESTEP))
		regs->pstate |= DBG_SPSR_SS;
}

/* Frames are current's (driver/arch_calls.h): its flag is the step state. */
bool arch_regs_step(const struct pt_regs *regs)
{
	return test_thread_flag(TIF_SINGLESTEP);
}

/* No branch stepping on arm64: block mode steps every instruction. */
bool arch_block_arm(void)
{
	return false;
}

void arch_block_disarm(void)
{
}

/*
 * ptrace's steps set the same flag as ours; a task ptrace steps is
 * ptraced.  (A ptraced task pitrace armed counts as stepped by ptrace:
 * it is left to its debugger.)
 */
bool arch_task_stepped_by_other(struct task_struct *t)
{
	return t->ptrace && test_tsk_thread_flag(t, TIF_SINGLESTEP);
}

void arch_step_users_init(void)
{
}

/* kgdb is asked about by the common code (driver/task.c); nothing else steps EL0. */
u32 arch_step_users(void)
{
	return 0;
}

/* Kernel mode is not stepped on arm64 (arch_kstep_supported()): no trap is ours. */
bool arch_kernel_step_foreign(void)
{
	return true;
}

/*
 * rt_sigreturn's restore_sigframe() calls forget_syscall() (no restart), so
 * by syscall exit its frame says NO_SYSCALL, which no other system call's
 * does (unless a tracer cancelled it, as x86's orig_ax of -1).
 */
bool arch_syscall_is_sigreturn(const struct pt_regs *regs)
{
	return regs->syscallno == NO_SYSCALL || regs->syscallno == __NR_rt_sigreturn;
}
