// SPDX-License-Identifier: GPL-2.0
/*
 * Event handlers: the single-step trap (called by the arch code) and the
 * tracepoint probes that keep TF right across a task's life -- syscall
 * exit, signal delivery, fork, exec, exit -- and record context switches,
 * interrupts and exceptions.
 * Tracepoints are not exported symbols: they are found by name with
 * for_each_kernel_tracepoint().  Probes and the trap run with preemption
 * (the trap: interrupts) off, which is the RCU-sched read side pt_cur needs.
 */
#define pr_fmt(fmt) "pitrace: " fmt

#include <linux/binfmts.h>
#include <linux/interrupt.h>
#include <linux/irq.h>
#include <linux/ptrace.h>
#include <linux/sched/task_stack.h>
#include <linux/signal.h>
#include <linux/smp.h>
#include <linux/timekeeping.h>
#include <linux/tracepoint.h>
#include <trace/events/irq.h>
#include <trace/events/sched.h>
#include <trace/events/signal.h>
#include <trace/events/syscalls.h>

#include "arch_calls.h"
#include "internal.h"

static inline struct pt_session *session(void)
{
	return rcu_dereference_sched(pt_cur);
}

static inline bool recording(struct pt_session *s, struct pt_task *pt)
{
	return s && s->active && s->on && test_bit(PT_TASK_WANT, &pt->flags);
}

/* A task running natively (pitrace_step_native()) is armed again on its way back. */
static void untraced_run_end(struct task_struct *t)
{
	struct pt_task *pt = t->pid ? task_lookup(t->pid) : NULL;

	if (pt && test_bit(PT_TASK_NATIVE, &pt->flags))
		task_queue_work(pt, t, false);
}

bool pitrace_step_trap(struct pt_regs *regs)
{
	struct pt_task *pt = task_lookup(current->pid);
	struct pt_session *s;
	struct pt_ring *r;

	if (!pt || !test_bit(PT_TASK_ARMED, &pt->flags))
		return false;
	/* A debugger single-stepping this task owns its traps. */
	if (arch_task_stepped_by_other(current))
		return false;
	s = session();
	if (!recording(s, pt)) {
		task_disarm_current(pt);
		return true;
	}
	if (s->config.mode == PITRACE_MODE_BLOCK && !arch_block_arm())
		s->block_degraded = true;
	if (s->config.mode == PITRACE_MODE_COUNT) {
		unsigned int n = pt->pending_pc ? 2 : 1;

		pt->pending_pc = 0;
		pt->steps += n;
		pt->unreported += n;
		s->rings[smp_processor_id()]->steps += n;
		return true;
	}
	r = ring_begin_irqs_off(s);
	if (!r)
		return true;
	if (pt->pending_pc) {
		pt->steps++;
		ring_step(s, r, pt, pt->pending_pc);
		pt->pending_pc = 0;
	}
	pt->steps++;
	ring_step(s, r, pt, instruction_pointer(regs));
	ring_end_irqs_off(r);
	return true;
}

static void emit(struct pt_session *s, struct pt_task *pt, unsigned int type,
		 struct pt_payload *p)
{
	unsigned long irqflags;
	struct pt_ring *r = ring_begin(s, &irqflags);

	if (!r)
		return;
	if (pt)
		ring_switch(s, r, pt->pid, pt->tid);
	ring_ctl(s, r, type, p->buf, p->len);
	ring_end(r, irqflags);
}

static void probe_sched_switch(void *data, bool preempt, struct task_struct *prev,
			       struct task_struct *next, unsigned int prev_state)
{
	struct pt_session *s = session();
	struct pt_task *pp, *pn;
	struct pt_ring *r;
	unsigned long irqflags;

	if (!s || !s->active)
		return;
	untraced_run_end(prev);
	pp = task_lookup(prev->pid);
	pn = task_lookup(next->pid);
	if (pp && !test_bit(PT_TASK_ARMED, &pp->flags))
		pp = NULL;
	if (pn && !test_bit(PT_TASK_ARMED, &pn->flags))
		pn = NULL;
	if (!pp && !pn)
		return;
	r = ring_begin(s, &irqflags);
	if (!r)
		return;
	if (pp && s->config.mode == PITRACE_MODE_COUNT)
		task_flush_count(s, r, pp);
	/* A timestamped SWITCH even when the stream already names the task. */
	r->cur_tid = -1;
	if (pn)
		ring_switch(s, r, pn->pid, pn->tid);
	else
		ring_switch(s, r, 0, 0);
	ring_end(r, irqflags);
}

static void probe_sys_exit(void *data, struct pt_regs *regs, long ret)
{
	struct pt_task *pt = task_lookup(current->pid);
	struct pt_session *s;
	struct pt_payload p = { .len = 0 };

	if (!pt || !test_bit(PT_TASK_ARMED, &pt->flags))
		return;
	s = session();
	if (!recording(s, pt)) {
		task_disarm_current(pt);
		return;
	}
	/* sigreturn may restore flags saved before we armed the task. */
	arch_regs_set_step(current, regs, true);
	clear_bit(PT_TASK_NATIVE, &pt->flags);
	if (arch_syscall_is_sigreturn(regs) && pt->sig_depth) {
		bool recorded;

		pt->sig_depth--;
		recorded = pt->sig_depth < 64 && (pt->sig_skip & (1ull << pt->sig_depth));
		payload_uleb(&p, PT_ASYNC_SIGRETURN);
		payload_uleb(&p, 0);
		emit(s, pt, PT_CTL_ASYNC, &p);
		/* The interrupted instruction was reported before the handler ran. */
		if (recorded)
			return;
	}
	/* The instruction after the syscall runs before the next trap reports anything. */
	pt->pending_pc = instruction_pointer(regs);
}

static void probe_signal_deliver(void *data, int sig, struct kernel_siginfo *info,
				 struct k_sigaction *ka)
{
	struct pt_task *pt = task_lookup(current->pid);
	struct pt_regs *regs = task_pt_regs(current);
	struct pt_session *s;
	struct pt_payload p = { .len = 0 };
	bool recorded;

	if (!pt || !test_bit(PT_TASK_ARMED, &pt->flags))
		return;
	if (ka->sa.sa_handler == SIG_DFL || ka->sa.sa_handler == SIG_IGN)
		return;
	s = session();
	if (!recording(s, pt))
		return;
	/*
	 * The resume point was already recorded unless it is a pending pc
	 * (a syscall's return address): remember which, for sigreturn.
	 */
	recorded = pt->pending_pc != instruction_pointer(regs);
	if (pt->sig_depth < 64) {
		if (recorded)
			pt->sig_skip |= 1ull << pt->sig_depth;
		else
			pt->sig_skip &= ~(1ull << pt->sig_depth);
	}
	pt->sig_depth++;
	pt->pending_pc = 0;
	payload_uleb(&p, PT_ASYNC_SIGNAL);
	payload_uleb(&p, sig);
	emit(s, pt, PT_CTL_ASYNC, &p);
	/* Frame setup clears TF (x86) after this probe: re-arm on the way out. */
	set_bit(PT_TASK_SIGENTRY, &pt->flags);
	task_queue_work(pt, current, false);
}

/*
 * Interrupts and exceptions (ASYNC kinds INTERRUPT, EXCEPTION, IRQ): the
 * gates clear TF, so the handlers are never stepped and the task's step
 * sequence is the same as without them: these records only say where the
 * time went.  Hard-irq context or the page-fault handler (interrupts off
 * there too, but the ring saves and restores them anyway).  Count mode
 * writes nothing.
 */
static struct pt_task *async_task(struct pt_session **sp)
{
	struct pt_task *pt;
	struct pt_session *s;

	if (!current->pid)
		return NULL;	/* idle: never ours (and tid 0 marks free slots) */
	pt = task_lookup(current->pid);
	if (!pt || !test_bit(PT_TASK_ARMED, &pt->flags))
		return NULL;
	s = session();
	if (!recording(s, pt) || s->config.mode == PITRACE_MODE_COUNT)
		return NULL;
	*sp = s;
	return pt;
}

static void async_emit(struct pt_session *s, struct pt_task *pt, unsigned int kind, u64 number,
		       struct pt_regs *regs, u64 address, u64 error)
{
	struct pt_payload p = { .len = 0 };

	if (!regs)
		regs = arch_interrupt_regs();
	payload_uleb(&p, kind);
	payload_uleb(&p, number);
	payload_uleb(&p, regs ? !user_mode(regs) : PT_ASYNC_RING_UNKNOWN);
	payload_u64(&p, regs ? instruction_pointer(regs) : 0);
	payload_u64(&p, address);
	payload_uleb(&p, error);
	emit(s, pt, PT_CTL_ASYNC, &p);
}

void pitrace_async_entry(unsigned int kind, u64 number, struct pt_regs *regs, u64 address,
			 u64 error)
{
	struct pt_session *s;
	struct pt_task *pt;

	untraced_run_end(current);
	pt = async_task(&s);

	if (pt)
		async_emit(s, pt, kind, number, regs, address, error);
}

/* Device interrupts: the Linux irq number (the vector is not known here). */
static void probe_irq_handler_entry(void *data, int irq, struct irqaction *action)
{
	struct pt_session *s;
	struct pt_task *pt;
	struct irq_data *d;

	untraced_run_end(current);
	pt = async_task(&s);
	if (!pt)
		return;
	/*
	 * Handlers sharing the line run one after the other: one record, at
	 * the first (irq_to_desc() is not exported; irq_get_irq_data() is).
	 */
	d = irq_get_irq_data(irq);
	if (d && READ_ONCE(irq_data_to_desc(d)->action) != action)
		return;
	async_emit(s, pt, PT_ASYNC_IRQ, (u32)irq, NULL, 0, 0);
}

static void probe_sched_process_fork(void *data, struct task_struct *parent,
				     struct task_struct *child)
{
	struct pt_task *pp = task_lookup(parent->pid), *pc = NULL;
	struct pt_regs *regs = task_pt_regs(child);
	struct pt_session *s = session();
	struct pt_payload p = { .len = 0 };
	bool thread = child->tgid == parent->tgid;

	if (child->flags & PF_KTHREAD)
		return;
	if (s && s->active && task_selected(s, child)) {
		pc = task_insert(child);
		if (pc) {
			set_bit(PT_TASK_WANT, &pc->flags);
			if (s->on) {
				/* The child has not run yet: its registers are ours to set. */
				arch_regs_set_step(child, regs, true);
				pc->pending_pc = instruction_pointer(regs);
				set_bit(PT_TASK_ARMED, &pc->flags);
			}
		}
	}
	if ((!pc || !test_bit(PT_TASK_ARMED, &pc->flags)) && pp &&
	    test_bit(PT_TASK_ARMED, &pp->flags))
		arch_regs_set_step(child, regs, false);	/* TF copied from the parent */
	if (!s || !s->active || (!pc && !pp))
		return;
	payload_uleb(&p, child->tgid);
	payload_uleb(&p, child->pid);
	payload_uleb(&p, parent->tgid);
	payload_uleb(&p, parent->pid);
	payload_uleb(&p, thread ? PT_FORK_THREAD : 0);
	payload_u64(&p, ktime_get_mono_fast_ns());
	emit(s, NULL, PT_CTL_FORK, &p);
}

static void probe_sched_process_exec(void *data, struct task_struct *t, pid_t old_pid,
				     struct linux_binprm *bprm)
{
	struct pt_task *pt = task_lookup(old_pid);
	struct pt_regs *regs = task_pt_regs(current);
	struct pt_session *s = session();
	struct pt_payload p = { .len = 0 };

	if (pt && old_pid != t->pid) {
		/* A non-leader thread exec'd and took the leader's id. */
		task_free(pt);
		pt = task_lookup(t->pid);
	}
	if (!s || !s->active) {
		if (pt)
			task_disarm_current(pt);
		return;
	}
	if (task_selected(s, t)) {
		if (!pt)
			pt = task_insert(t);
		if (!pt)
			return;
		set_bit(PT_TASK_WANT, &pt->flags);
		pt->sig_depth = 0;
		if (s->on) {
			arch_regs_set_step(current, regs, true);
			set_bit(PT_TASK_ARMED, &pt->flags);
			pt->pending_pc = instruction_pointer(regs);
		}
	} else if (pt) {
		clear_bit(PT_TASK_WANT, &pt->flags);
		task_disarm_current(pt);
		return;
	} else {
		return;
	}
	payload_uleb(&p, t->tgid);
	payload_uleb(&p, t->pid);
	payload_uleb(&p, old_pid);
	payload_u64(&p, ktime_get_mono_fast_ns());
	payload_bytes(&p, bprm->filename, strlen(bprm->filename));
	emit(s, pt, PT_CTL_EXEC, &p);
}

static void probe_sched_process_exit(void *data, struct task_struct *t)
{
	struct pt_task *pt = task_lookup(t->pid);
	struct pt_session *s = session();
	struct pt_payload p = { .len = 0 };
	struct pt_ring *r;
	unsigned long irqflags;

	if (!pt)
		return;
	if (s && s->active) {
		r = ring_begin(s, &irqflags);
		if (r) {
			if (s->config.mode == PITRACE_MODE_COUNT)
				task_flush_count(s, r, pt);
			ring_switch(s, r, pt->pid, pt->tid);
			payload_uleb(&p, pt->pid);
			payload_uleb(&p, pt->tid);
			payload_uleb(&p, (u32)t->exit_code);
			payload_uleb(&p, pt->steps);
			payload_u64(&p, ktime_get_mono_fast_ns());
			ring_ctl(s, r, PT_CTL_EXIT, p.buf, p.len);
			ring_end(r, irqflags);
		}
	}
	task_disarm_current(pt);
	clear_bit(PT_TASK_WANT, &pt->flags);
	/* A queued work still points at the slot: it frees it when it runs. */
	set_bit(PT_TASK_DEAD, &pt->flags);
	if (!(READ_ONCE(pt->flags) & PT_TASK_WORKS))
		task_free(pt);
	wake_up_all(&pt_disarm_wait);
}

struct pt_probe {
	struct pt_tp_probe probe;
	bool permanent;		/* attached while the module is loaded, not per session */
	bool optional;		/* a kernel without it records less, nothing breaks */
	bool said_missing;
	struct tracepoint *tp;
	bool attached;
};

/*
 * fork and exit stay attached for the module's life: a task still losing
 * TF after a session ends must not pass it to a child, and slots must be
 * freed at exit whatever happens to sessions.
 */
static struct pt_probe pt_probes[] = {
	{ PT_TP_PROBE(sched_process_fork, probe_sched_process_fork), true },
	{ PT_TP_PROBE(sched_process_exit, probe_sched_process_exit), true },
	{ PT_TP_PROBE(sched_process_exec, probe_sched_process_exec), false },
	{ PT_TP_PROBE(sched_switch, probe_sched_switch), false },
	{ PT_TP_PROBE(sys_exit, probe_sys_exit), false },
	{ PT_TP_PROBE(signal_deliver, probe_signal_deliver), false },
	{ PT_TP_PROBE(irq_handler_entry, probe_irq_handler_entry), false, true },
};

/* The architecture's interrupt and exception probes (driver/arch_calls.h), per session. */
#define PT_MAX_ARCH_PROBES 32
static struct pt_probe pt_arch_probes[PT_MAX_ARCH_PROBES];
static unsigned int nr_arch_probes;

/* Probe i of both tables; NULL past the end. */
static struct pt_probe *probe_at(unsigned int i)
{
	if (i < ARRAY_SIZE(pt_probes))
		return &pt_probes[i];
	i -= ARRAY_SIZE(pt_probes);
	return i < nr_arch_probes ? &pt_arch_probes[i] : NULL;
}

static void probes_find(struct tracepoint *tp, void *priv)
{
	struct pt_probe *pr;
	unsigned int i;

	for (i = 0; (pr = probe_at(i)); i++)
		if (!strcmp(tp->name, pr->probe.name))
			pr->tp = tp;
}

static int probes_attach(bool permanent)
{
	struct pt_probe *pr;
	unsigned int i;
	int err;

	if (!nr_arch_probes) {
		for (i = 0; arch_async_probes[i].name && i < PT_MAX_ARCH_PROBES; i++)
			pt_arch_probes[i] = (struct pt_probe){
				.probe = arch_async_probes[i],
				.optional = true,
			};
		nr_arch_probes = i;
	}
	for_each_kernel_tracepoint(probes_find, NULL);
	for (i = 0; (pr = probe_at(i)); i++) {
		if (pr->permanent != permanent)
			continue;
		if (!pr->tp && pr->optional) {
			if (!pr->said_missing)
				pr_info("tracepoint %s not in this kernel: not recorded\n",
					pr->probe.name);
			pr->said_missing = true;
			continue;
		}
		if (!pr->tp) {
			pr_err("tracepoint %s not found\n", pr->probe.name);
			return -ENOENT;
		}
		err = tracepoint_probe_register(pr->tp, pr->probe.func, NULL);
		if (err) {
			pr_err("cannot attach to tracepoint %s: %d\n", pr->probe.name, err);
			return err;
		}
		pr->attached = true;
	}
	return 0;
}

static void probes_detach(bool permanent)
{
	struct pt_probe *pr;
	unsigned int i;

	for (i = 0; (pr = probe_at(i)); i++) {
		if (pr->permanent != permanent || !pr->attached)
			continue;
		tracepoint_probe_unregister(pr->tp, pr->probe.func, NULL);
		pr->attached = false;
	}
	tracepoint_synchronize_unregister();
}

int probes_register_permanent(void)
{
	int err = probes_attach(true);

	if (err)
		probes_detach(true);
	return err;
}

void probes_unregister_permanent(void)
{
	probes_detach(true);
}

int probes_register_session(void)
{
	int err = probes_attach(false);

	if (err)
		probes_detach(false);
	return err;
}

void probes_unregister_session(void)
{
	probes_detach(false);
}

static void emit_on_off_cpu(void *info)
{
	bool on = (unsigned long)info;
	struct pt_session *s;
	struct pt_payload p = { .len = 0 };

	rcu_read_lock_sched();
	s = session();
	if (s) {
		payload_u64(&p, ktime_get_mono_fast_ns());
		emit(s, NULL, on ? PT_CTL_ON : PT_CTL_OFF, &p);
	}
	rcu_read_unlock_sched();
}

void probes_emit_on_off(struct pt_session *s, bool on)
{
	on_each_cpu(emit_on_off_cpu, (void *)(unsigned long)on, 1);
}
