// SPDX-License-Identifier: GPL-2.0
/*
 * Steps the trap cannot take (driver/arch_calls.h, pitrace_step_defer()): an
 * instruction the architecture must not single-step -- ppc64's
 * load-reserve, whose reservation every trap clears -- is handed to the
 * task's own context, where the arch code takes it some other way
 * (arch_step_deferred(): emulate the whole larx..stcx. sequence) and
 * records every instruction as a step, exactly as traps would have.  What
 * cannot be taken that way either runs natively, untraced, and says so in
 * the trace (ATOMIC NATIVE, GAP ATOMIC_NATIVE) until the task is armed
 * again at its next system call or interrupt.
 */
#define pr_fmt(fmt) "pitrace: " fmt

#include <linux/module.h>
#include <linux/ptrace.h>
#include <linux/sched/task_stack.h>
#include <linux/task_work.h>

#include "arch_calls.h"
#include "internal.h"

static bool still_traced(struct pt_task *pt)
{
	return pt->tid == current->pid && !(current->flags & PF_EXITING) &&
	       !test_bit(PT_TASK_DEAD, &pt->flags) && test_bit(PT_TASK_ARMED, &pt->flags);
}

static void deferred_fn(struct callback_head *cb)
{
	struct pt_task *pt = container_of(cb, struct pt_task, defer);

	if (still_traced(pt))
		arch_step_deferred(task_pt_regs(current));
	clear_bit(PT_TASK_DEFER, &pt->flags);
	if (test_bit(PT_TASK_DEAD, &pt->flags) && !(READ_ONCE(pt->flags) & PT_TASK_WORKS))
		task_free(pt);
	wake_up_all(&pt_disarm_wait);
	/* The work pinned the module so its code stays until here. */
	module_put(THIS_MODULE);
}

bool pitrace_step_defer(struct pt_regs *regs)
{
	struct pt_task *pt = task_lookup(current->pid);

	if (!pt || !test_bit(PT_TASK_ARMED, &pt->flags) ||
	    test_and_set_bit(PT_TASK_DEFER, &pt->flags))
		return false;
	if (!try_module_get(THIS_MODULE))
		goto err_clear;
	init_task_work(&pt->defer, deferred_fn);
	/* The trap returns through the exit work loop, which runs it before user mode. */
	if (task_work_add(current, &pt->defer, TWA_RESUME))
		goto err_put;
	arch_regs_set_step(current, regs, false);
	return true;

err_put:
	module_put(THIS_MODULE);
err_clear:
	clear_bit(PT_TASK_DEFER, &pt->flags);
	return false;
}

bool pitrace_step_emulated(struct pt_regs *regs)
{
	unsigned long irqflags;
	bool on;

	/* The trap's context: interrupts off, which is also pt_cur's RCU-sched read side. */
	local_irq_save(irqflags);
	arch_regs_set_step(current, regs, true);
	on = pitrace_step_trap(regs) && arch_regs_step(regs);
	local_irq_restore(irqflags);
	return on;
}

static void emit_ctl(unsigned int type, struct pt_payload *p)
{
	struct pt_task *pt = task_lookup(current->pid);
	unsigned long irqflags;
	struct pt_session *s;
	struct pt_ring *r;

	if (!pt)
		return;
	rcu_read_lock_sched();
	s = rcu_dereference_sched(pt_cur);
	if (s && s->active && s->on) {
		r = ring_begin(s, &irqflags);
		if (r) {
			ring_switch(s, r, pt->pid, pt->tid);
			ring_ctl(s, r, type, p->buf, p->len);
			ring_end(r, irqflags);
		}
	}
	rcu_read_unlock_sched();
}

void pitrace_step_atomic(unsigned int kind, u64 pc, u64 steps)
{
	struct pt_payload p = { .len = 0 };

	payload_uleb(&p, kind);
	payload_u64(&p, pc);
	payload_uleb(&p, steps);
	emit_ctl(PT_CTL_ATOMIC, &p);
}

void pitrace_step_native(struct pt_regs *regs, u64 pc)
{
	struct pt_task *pt = task_lookup(current->pid);
	struct pt_payload p = { .len = 0 };

	pitrace_step_atomic(PT_ATOMIC_NATIVE, pc, 0);
	payload_uleb(&p, PT_GAP_ATOMIC_NATIVE);
	emit_ctl(PT_CTL_GAP, &p);
	arch_regs_set_step(current, regs, false);
	/* Still ARMED: the next system call exit or interrupt sets the flag again. */
	if (pt)
		set_bit(PT_TASK_NATIVE, &pt->flags);
}
