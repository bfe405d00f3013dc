// SPDX-License-Identifier: GPL-2.0
/*
 * Traced tasks: a fixed table the trap path can search without locks, the
 * process selection, and arming/disarming single-step in a task's user
 * registers -- always from the task's own context (directly when it is
 * current, otherwise through task_work) or before it ever ran (fork).
 */
#define pr_fmt(fmt) "pitrace: " fmt

#include <linux/hash.h>
#include <linux/kgdb.h>
#include <linux/module.h>
#include <linux/ptrace.h>
#include <linux/sched/signal.h>
#include <linux/sched/task_stack.h>
#include <linux/spinlock.h>
#include <linux/uprobes.h>

#include "arch_calls.h"
#include "conflict.h"
#include "internal.h"

/*
 * Open addressing on the thread id.  Writers (any context, rarely) hold
 * pt_table_lock; the trap path reads without it: a slot's fields are set
 * before its tid is published, and a freed slot becomes a tombstone (-1) so
 * searches for other tids go on past it.
 */
#define PT_TABLE_BITS 13
#define PT_TABLE_SIZE (1u << PT_TABLE_BITS)
#define PT_TABLE_MAX (PT_TABLE_SIZE / 2)

static struct pt_task pt_table[PT_TABLE_SIZE];
static DEFINE_RAW_SPINLOCK(pt_table_lock);
static unsigned int pt_table_live;

void task_table_init(void)
{
	memset(pt_table, 0, sizeof(pt_table));
	pt_table_live = 0;
}

struct pt_task *task_lookup(pid_t tid)
{
	u32 i = hash_32(tid, PT_TABLE_BITS), n;

	for (n = 0; n < PT_TABLE_SIZE; n++, i = (i + 1) & (PT_TABLE_SIZE - 1)) {
		pid_t v = READ_ONCE(pt_table[i].tid);

		if (v == tid)
			return &pt_table[i];
		if (v == 0)
			return NULL;
	}
	return NULL;
}

struct pt_task *task_insert(struct task_struct *t)
{
	struct pt_task *pt, *slot = NULL;
	unsigned long flags;
	u32 i, n;

	raw_spin_lock_irqsave(&pt_table_lock, flags);
	pt = task_lookup(t->pid);
	if (pt)
		goto out;
	if (pt_table_live >= PT_TABLE_MAX)
		goto out;
	i = hash_32(t->pid, PT_TABLE_BITS);
	for (n = 0; n < PT_TABLE_SIZE; n++, i = (i + 1) & (PT_TABLE_SIZE - 1)) {
		if (pt_table[i].tid <= 0) {
			slot = &pt_table[i];
			break;
		}
	}
	if (!slot)
		goto out;
	slot->pid = t->tgid;
	slot->task = t;
	slot->flags = 0;
	slot->pending_pc = 0;
	slot->steps = 0;
	slot->unreported = 0;
	slot->sig_depth = 0;
	slot->sig_skip = 0;
	memset(&slot->k, 0, sizeof(slot->k));
	slot->uprobe_pc = 0;
	smp_wmb();	/* fields before the tid that makes the slot findable */
	WRITE_ONCE(slot->tid, t->pid);
	pt_table_live++;
	pt = slot;
out:
	raw_spin_unlock_irqrestore(&pt_table_lock, flags);
	return pt;
}

void task_free(struct pt_task *pt)
{
	unsigned long flags;
	u32 i;

	raw_spin_lock_irqsave(&pt_table_lock, flags);
	if (pt->tid > 0) {
		WRITE_ONCE(pt->tid, -1);
		pt->task = NULL;
		pt_table_live--;
	}
	/* With nothing traced, tombstones can go: no search is in flight for a live tid. */
	if (!pt_table_live)
		for (i = 0; i < PT_TABLE_SIZE; i++)
			WRITE_ONCE(pt_table[i].tid, 0);
	raw_spin_unlock_irqrestore(&pt_table_lock, flags);
}

/* Whether task t belongs to the session's selection (called under RCU). */
bool task_selected(struct pt_session *s, struct task_struct *t)
{
	const struct pitrace_select *sel = &s->select;
	struct task_struct *p;
	u32 i;

	if (t->flags & (PF_KTHREAD | PF_EXITING))
		return false;
	/* The collector never traces itself: that would feed on its own output. */
	if (t->tgid == s->owner_pid)
		return false;
	switch (sel->kind) {
	case PITRACE_SEL_ALL:
		return true;
	case PITRACE_SEL_PIDS:
		for (i = 0; i < sel->nr_pids; i++)
			if (sel->pids[i] == (u32)t->tgid)
				return true;
		return false;
	case PITRACE_SEL_RANGE:
		return (u32)t->tgid >= sel->pid_lo && (u32)t->tgid <= sel->pid_hi;
	case PITRACE_SEL_MIN:
		return (u32)t->tgid >= sel->pid_lo;
	case PITRACE_SEL_COMM:
		return strncmp(t->group_leader->comm, sel->comm, PITRACE_COMM_LEN) == 0;
	case PITRACE_SEL_TREE:
		for (p = t->group_leader; p->pid > 1; p = rcu_dereference(p->real_parent)->group_leader)
			if ((u32)p->tgid == sel->pids[0])
				return true;
		return false;
	default:
		return false;
	}
}

/* uprobes is single-stepping the current task's copy of a probed instruction. */
static bool uprobe_stepping(void)
{
#ifdef CONFIG_UPROBES
	return current->utask && READ_ONCE(current->utask->active_uprobe);
#else
	return false;
#endif /* CONFIG_UPROBES */
}

void task_arm_current(struct pt_session *s, struct pt_task *pt)
{
	struct pt_regs *regs = task_pt_regs(current);

	if (pt->uprobe_pc) {
		/* TF lent to uprobes: its step's trap queues this work again when it is done. */
		if (uprobe_stepping())
			return;
		/*
		 * The probed instruction was recorded before its breakpoint
		 * trapped.  uprobes emulated or stepped it (ip is past it) or
		 * restarts it (ip is at it: not recorded a second time).
		 */
		pt->pending_pc = instruction_pointer(regs) == pt->uprobe_pc ?
					 0 : instruction_pointer(regs);
		pt->uprobe_pc = 0;
	} else if (!test_bit(PT_TASK_ARMED, &pt->flags) || !arch_regs_step(regs) ||
		   test_and_clear_bit(PT_TASK_SIGENTRY, &pt->flags)) {
		/*
		 * With TF clear, the instruction at ip runs before any trap
		 * reports it; so does a signal handler's first, the frame
		 * set-up having moved ip (where that leaves the step flag set:
		 * ppc64).
		 */
		pt->pending_pc = instruction_pointer(regs);
	}
	arch_regs_set_step(current, regs, true);
	if (s->config.mode == PITRACE_MODE_BLOCK && !arch_block_arm())
		s->block_degraded = true;
	clear_bit(PT_TASK_NATIVE, &pt->flags);
	set_bit(PT_TASK_ARMED, &pt->flags);
}

void task_disarm_current(struct pt_task *pt)
{
	if (!test_and_clear_bit(PT_TASK_ARMED, &pt->flags))
		return;
	clear_bit(PT_TASK_NATIVE, &pt->flags);
	clear_bit(PT_TASK_SIGENTRY, &pt->flags);
	pt->uprobe_pc = 0;
	/* Mid-step, TF is uprobes' (lent clear: it clears TF after its step). */
	if (!uprobe_stepping())
		arch_regs_set_step(current, task_pt_regs(current), false);
	arch_block_disarm();
	pt->pending_pc = 0;
	/* No wake-up here: this runs in the trap path; session_end() polls. */
}

/* Runs in the task's own context: on its way back to user space, or at its exit. */
static void task_work_fn(struct callback_head *cb)
{
	struct pt_task *pt = container_of(cb, struct pt_task, work);
	struct pt_session *s;

	clear_bit(PT_TASK_WORK, &pt->flags);
	if (test_bit(PT_TASK_DEAD, &pt->flags)) {
		if (!(READ_ONCE(pt->flags) & PT_TASK_WORKS))
			task_free(pt);
		goto out;
	}
	if (pt->tid != current->pid || (current->flags & PF_EXITING))
		goto out;
	rcu_read_lock_sched();
	s = rcu_dereference_sched(pt_cur);
	if (s && s->active && s->on && test_bit(PT_TASK_WANT, &pt->flags))
		task_arm_current(s, pt);
	else
		task_disarm_current(pt);
	rcu_read_unlock_sched();
out:
	wake_up_all(&pt_disarm_wait);
	/* The work pinned the module so its code stays until here. */
	module_put(THIS_MODULE);
}

/* The kick only brings the task back to user space; the queued work does the rest. */
static void task_kick_fn(struct callback_head *cb)
{
	struct pt_task *pt = container_of(cb, struct pt_task, kick);

	clear_bit(PT_TASK_KICK, &pt->flags);
	if (test_bit(PT_TASK_DEAD, &pt->flags) && !(READ_ONCE(pt->flags) & PT_TASK_WORKS))
		task_free(pt);
	wake_up_all(&pt_disarm_wait);
	module_put(THIS_MODULE);
}

/*
 * A work queued with TWA_RESUME waits for a sleeping task to wake up by
 * itself, and pins the module meanwhile: at teardown, interrupt the sleep.
 */
static void task_kick(struct pt_task *pt, struct task_struct *t)
{
	if (test_and_set_bit(PT_TASK_KICK, &pt->flags))
		return;
	if (!try_module_get(THIS_MODULE)) {
		clear_bit(PT_TASK_KICK, &pt->flags);
		return;
	}
	init_task_work(&pt->kick, task_kick_fn);
	if (task_work_add(t, &pt->kick, TWA_SIGNAL)) {
		clear_bit(PT_TASK_KICK, &pt->flags);
		module_put(THIS_MODULE);
	}
}

/*
 * Ask task t to (re)consider its arming in its own context.  wake: interrupt
 * a sleep for it (teardown: a sleeping task must lose TF before the module
 * goes); otherwise it happens on its next return to user space.
 */
void task_queue_work(struct pt_task *pt, struct task_struct *t, bool wake)
{
	if (test_and_set_bit(PT_TASK_WORK, &pt->flags)) {
		if (wake)
			task_kick(pt, t);
		return;
	}
	if (!try_module_get(THIS_MODULE)) {
		clear_bit(PT_TASK_WORK, &pt->flags);
		return;
	}
	init_task_work(&pt->work, task_work_fn);
	if (task_work_add(t, &pt->work, wake ? TWA_SIGNAL : TWA_RESUME)) {
		/* Exiting: the exit probe disarms it. */
		clear_bit(PT_TASK_WORK, &pt->flags);
		module_put(THIS_MODULE);
	}
}

static void task_want(struct pt_session *s, struct pt_task *pt, struct task_struct *t)
{
	set_bit(PT_TASK_WANT, &pt->flags);
	if (!s->on || test_bit(PT_TASK_ARMED, &pt->flags))
		return;
	if (t == current)
		task_arm_current(s, pt);
	else
		task_queue_work(pt, t, false);
}

int task_apply_selection(struct pt_session *s)
{
	struct task_struct *p, *t;
	struct pt_task *pt;
	int err = 0;

	rcu_read_lock();
	/* Refuse before changing anything when a selected task is stepped by someone else. */
	for_each_process_thread(p, t) {
		if (task_selected(s, t) && arch_task_stepped_by_other(t)) {
			s->conflict_tid = t->pid;
			s->conflict_tracer = conflict_step_tracer(t);
			err = -EBUSY;
			goto out;
		}
	}
	for_each_process_thread(p, t) {
		bool sel = task_selected(s, t);

		pt = task_lookup(t->pid);
		if (sel) {
			if (!pt)
				pt = task_insert(t);
			if (!pt) {
				err = -ENOSPC;
				continue;
			}
			task_want(s, pt, t);
		} else if (pt) {
			/* A running task disarms itself at its next trap. */
			clear_bit(PT_TASK_WANT, &pt->flags);
			if (t == current)
				task_disarm_current(pt);
		}
	}
out:
	rcu_read_unlock();
	return err;
}

void task_rearm_all(struct pt_session *s)
{
	struct pt_task *pt;
	struct task_struct *t;
	u32 i;

	rcu_read_lock();
	for (i = 0; i < PT_TABLE_SIZE; i++) {
		pt = &pt_table[i];
		t = READ_ONCE(pt->task);
		if (pt->tid > 0 && t && test_bit(PT_TASK_WANT, &pt->flags) &&
		    !test_bit(PT_TASK_DEAD, &pt->flags))
			task_want(s, pt, t);
	}
	rcu_read_unlock();
}

/*
 * Session end: nothing is wanted any more; every armed task loses TF in its
 * own context (sleepers are woken for it).  Returns the number still armed.
 */
int task_untrace_all(void)
{
	struct pt_task *pt;
	struct task_struct *t;
	int armed = 0;
	u32 i;

	rcu_read_lock();
	for (i = 0; i < PT_TABLE_SIZE; i++) {
		pt = &pt_table[i];
		if (pt->tid <= 0)
			continue;
		clear_bit(PT_TASK_WANT, &pt->flags);
		t = READ_ONCE(pt->task);
		if (!t || test_bit(PT_TASK_DEAD, &pt->flags))
			continue;
		if (!test_bit(PT_TASK_ARMED, &pt->flags)) {
			/* An arming work still queued: it will find nothing to do. */
			if (test_bit(PT_TASK_WORK, &pt->flags) && t != current)
				task_kick(pt, t);
			continue;
		}
		armed++;
		if (t == current)
			task_disarm_current(pt);
		else
			task_queue_work(pt, t, true);
	}
	rcu_read_unlock();
	return armed;
}

unsigned long task_count_armed(void)
{
	unsigned long n = 0;
	u32 i;

	for (i = 0; i < PT_TABLE_SIZE; i++)
		if (READ_ONCE(pt_table[i].tid) > 0 && test_bit(PT_TASK_ARMED, &pt_table[i].flags))
			n++;
	return n;
}

unsigned long task_count_busy(void)
{
	unsigned long n = 0;
	u32 i;

	for (i = 0; i < PT_TABLE_SIZE; i++)
		if (READ_ONCE(pt_table[i].tid) > 0 &&
		    (READ_ONCE(pt_table[i].flags) &
		     (BIT(PT_TASK_ARMED) | PT_TASK_WORKS)))
			n++;
	return n;
}

void task_flush_count(struct pt_session *s, struct pt_ring *r, struct pt_task *pt)
{
	struct pt_payload p = { .len = 0 };

	if (!pt->unreported)
		return;
	ring_switch(s, r, pt->pid, pt->tid);
	payload_uleb(&p, pt->unreported);
	ring_ctl(s, r, PT_CTL_COUNT, p.buf, p.len);
	pt->unreported = 0;
}

u32 conflict_step_users(void)
{
	u32 users = arch_step_users();

#ifdef CONFIG_KGDB
	/* Untested: no kernel this driver is tested on has kgdb (docs/driver.md). */
	if (READ_ONCE(kgdb_connected))
		users |= PITRACE_STEP_USER_KGDB;
#endif /* CONFIG_KGDB */
	return users;
}

pid_t conflict_step_tracer(struct task_struct *t)
{
	struct task_struct *tracer = ptrace_parent(t);

	return tracer ? task_tgid_nr(tracer) : 0;
}

void conflict_uprobe_break(struct pt_regs *regs, unsigned long bp_pc)
{
	struct pt_task *pt = task_lookup(current->pid);
	struct pt_session *s;
	struct pt_ring *r;

	if (!pt || !test_bit(PT_TASK_ARMED, &pt->flags) || !arch_regs_step(regs))
		return;
	/*
	 * A pending pc is the breakpoint's own instruction (no trap came
	 * between arming and the breakpoint): record it now, as the trap
	 * would have, since the work taking TF back records what follows.
	 */
	s = rcu_dereference_sched(pt_cur);
	if (pt->pending_pc && s && s->active && s->on && test_bit(PT_TASK_WANT, &pt->flags)) {
		pt->steps++;
		if (s->config.mode == PITRACE_MODE_COUNT) {
			pt->unreported++;
			s->rings[smp_processor_id()]->steps++;
		} else {
			r = ring_begin_irqs_off(s);
			if (r) {
				ring_step(s, r, pt, pt->pending_pc);
				ring_end_irqs_off(r);
			}
		}
	}
	pt->pending_pc = 0;
	arch_regs_set_step(current, regs, false);
	pt->uprobe_pc = bp_pc;
	task_queue_work(pt, current, false);
}

void conflict_uprobe_step(void)
{
	struct pt_task *pt;

	if (!uprobe_stepping())
		return;
	pt = task_lookup(current->pid);
	if (pt && pt->uprobe_pc)
		task_queue_work(pt, current, false);
}
