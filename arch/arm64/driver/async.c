// SPDX-License-Identifier: GPL-2.0
/*
 * arm64 per-session probes for pitrace.ko (driver/arch_calls.h).  arm64 has
 * no interrupt-vector or page-fault tracepoints: interrupts are recorded by
 * the common irq_handler_entry probe only.  Two probes keep the step flag
 * out of the way of syscall exit: with TIF_SINGLESTEP set there,
 * syscall_trace_exit() reports a pseudo-step, user_single_step_report(),
 * which is a forced SIGTRAP for a task that is not ptraced.  So a traced
 * task enters every system call with the flag cleared, and the common
 * sys_exit probe sets it again (syscall_trace_exit() read the flags before
 * that tracepoint, so the report does not happen).
 */
#include <linux/kernel.h>
#include <linux/ptrace.h>
#include <linux/sched.h>
#include <linux/thread_info.h>
#include <asm/irq_regs.h>
#include <trace/events/sched.h>
#include <trace/events/syscalls.h>

#include <pitrace/format.h>

#include "arch_calls.h"
#include "internal.h"

struct pt_regs *arch_interrupt_regs(void)
{
	/* handle_arch_irq's callers publish their frame (set_irq_regs()). */
	return get_irq_regs();
}

/* A task this session steps: its step flag is ours (not ptrace's). */
static void clear_own_step(void)
{
	struct pt_task *pt = task_lookup(current->pid);

	if (pt && test_bit(PT_TASK_ARMED, &pt->flags) && !current->ptrace)
		clear_thread_flag(TIF_SINGLESTEP);
}

static void probe_sys_enter(void *data, struct pt_regs *regs, long id)
{
	clear_own_step();
}

/*
 * After the common exec probe armed the new image, inside execve: the flag
 * waits for execve's sys_exit too (SPSR.SS, already set, stays).
 */
static void probe_exec(void *data, struct task_struct *t, pid_t old_pid,
		       struct linux_binprm *bprm)
{
	clear_own_step();
}

const struct pt_tp_probe arch_async_probes[] = {
	PT_TP_PROBE(sys_enter, probe_sys_enter),
	PT_TP_PROBE(sched_process_exec, probe_exec),
	{ NULL, NULL },
};
