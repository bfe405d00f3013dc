// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel-mode stepping: with PITRACE_CFG_KERNEL, each system call of a
 * traced task is single-stepped from its syscall function's first
 * instruction to its return, as kernel-ring steps in the task's stream.
 * docs/kernel-mode.md explains the choices; in short:
 *  - TF goes live at the syscall function's ftrace site (a SAVE_REGS ftrace
 *    callback sets it in the frame the trampoline's popfq restores), so the
 *    entry code and do_syscall_64 (noinstr) are never stepped;
 *  - stepping ends when the function returns (stack pointer above its entry
 *    one), when a step lands in code that must not be stepped (kprobes
 *    blacklist, entry/noinstr/irqentry text, this module: GAP unsafe), at
 *    __schedule (GAP sleep), when the task is switched out (GAP sleep) or
 *    at the per-syscall step limit (GAP limit);
 *  - a kernel-mode step trap of a task that is not being stepped is a TF
 *    that leaked (saved flags restored by popf, an interrupted frame): it
 *    is cleared and consumed;
 *  - a task that had TF in its kernel context holds a module reference
 *    until its system call returns (sys_exit) or it exits, so the module
 *    that clears stale TF can't go away under it.
 */
#define pr_fmt(fmt) "pitrace: " fmt

#include <linux/ftrace.h>
#include <linux/kallsyms.h>
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/ptrace.h>
#include <linux/sched/task_stack.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/vmalloc.h>
#include <trace/events/sched.h>
#include <trace/events/syscalls.h>

#include "arch_calls.h"
#include "conflict.h"
#include "kernel.h"
#include "ksyms.h"
#include "internal.h"

struct kstep_range {
	unsigned long start, end;	/* [start, end) */
};

/* Sorted, non-overlapping; built at session start, read by the trap. */
static struct kstep_range *unsafe;
static unsigned int nr_unsafe;
/* Functions inside those ranges that are safe to step (arch_kstep_safe_functions). */
#define KSTEP_MAX_SAFE 64
static struct kstep_range safe[KSTEP_MAX_SAFE];
static unsigned int nr_safe;
/* Entry points of the scheduler's core: a step there means the task sleeps. */
static unsigned long sleep_entry[2];

/* Set once a kernel session started: kernel-mode step traps may be ours from then on. */
static bool kstep_used;
static bool permanent_attached;
static bool ops_registered;

static inline struct pt_session *session(void)
{
	return rcu_dereference_sched(pt_cur);
}

/* The extent of the function starting at (or containing) addr. */
static bool function_range(unsigned long addr, struct kstep_range *out)
{
	unsigned long size, off;

	if (!addr || !ksyms_size_offset(addr, &size, &off) || !size)
		return false;
	out->start = addr - off;
	out->end = addr - off + size;
	return true;
}

static void add_safe(const char *name)
{
	struct kstep_range r;

	if (nr_safe < KSTEP_MAX_SAFE && function_range(ksyms_lookup_name(name), &r))
		safe[nr_safe++] = r;
}

static void build_safe_table(void)
{
	const struct arch_kstep_safe *f;
	char name[KSYM_NAME_LEN];
	unsigned int i;

	nr_safe = 0;
	for (f = arch_kstep_safe_functions; f->prefix; f++) {
		if (!f->per_register) {
			add_safe(f->prefix);
			continue;
		}
		for (i = 0; arch_kstep_registers[i]; i++) {
			snprintf(name, sizeof(name), "%s%s", f->prefix, arch_kstep_registers[i]);
			add_safe(name);
		}
	}
}

static bool is_safe(unsigned long ip)
{
	unsigned int i;

	for (i = 0; i < nr_safe; i++)
		if (ip >= safe[i].start && ip < safe[i].end)
			return true;
	return false;
}

static int range_cmp(const void *a, const void *b)
{
	const struct kstep_range *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/* Count (out == NULL) or collect the unsafe ranges; returns how many. */
static unsigned int collect_ranges(struct kstep_range *out, unsigned int max)
{
	struct list_head *blacklist = ksyms_kprobe_blacklist();
	struct mutex *kprobe_mutex = ksyms_kprobe_mutex();
	struct kprobe_blacklist_entry *ent;
	unsigned int n = 0, i;
	unsigned long a, b;

	for (i = 0; arch_kstep_unsafe_sections[i][0]; i++) {
		a = ksyms_lookup_name(arch_kstep_unsafe_sections[i][0]);
		b = ksyms_lookup_name(arch_kstep_unsafe_sections[i][1]);
		if (!a || !b || b <= a)
			continue;
		if (out && n < max)
			out[n] = (struct kstep_range){ a, b };
		n++;
	}
	if (!blacklist || !kprobe_mutex)
		return n;
	/* Module loads add entries under kprobe_mutex. */
	mutex_lock(kprobe_mutex);
	list_for_each_entry(ent, blacklist, list) {
		if (out && n < max)
			out[n] = (struct kstep_range){ ent->start_addr, ent->end_addr };
		n++;
	}
	mutex_unlock(kprobe_mutex);
	return n;
}

static int build_unsafe_table(void)
{
	struct kstep_range *t;
	unsigned int n, max, i, m;

	max = collect_ranges(NULL, 0) + 64;	/* modules may load meanwhile */
	t = kvmalloc_array(max, sizeof(*t), GFP_KERNEL);
	if (!t)
		return -ENOMEM;
	n = min(collect_ranges(t, max), max);
	sort(t, n, sizeof(*t), range_cmp, NULL);
	for (i = 0, m = 0; i < n; i++) {
		if (m && t[i].start <= t[m - 1].end)
			t[m - 1].end = max(t[m - 1].end, t[i].end);
		else
			t[m++] = t[i];
	}
	kvfree(unsafe);
	unsafe = t;
	nr_unsafe = m;
	build_safe_table();
	sleep_entry[0] = ksyms_lookup_name("__schedule");
	sleep_entry[1] = ksyms_lookup_name("schedule");
	pr_info("kernel stepping: %u unsafe text ranges, %u safe functions in them\n", m,
		nr_safe);
	return 0;
}

/* PT_GAP_UNSAFE or PT_GAP_KERNEL_SLEEP when ip must not be stepped, else 0. */
static unsigned int unsafe_reason(unsigned long ip)
{
	unsigned int lo = 0, hi = nr_unsafe;

	if (ip == sleep_entry[0] || ip == sleep_entry[1])
		return PT_GAP_KERNEL_SLEEP;
	if (within_module(ip, THIS_MODULE))
		return PT_GAP_UNSAFE;
	while (lo < hi) {
		unsigned int mid = lo + (hi - lo) / 2;

		if (ip < unsafe[mid].start)
			hi = mid;
		else if (ip >= unsafe[mid].end)
			lo = mid + 1;
		else
			return is_safe(ip) ? 0 : PT_GAP_UNSAFE;
	}
	return 0;
}

static void emit_gap(struct pt_session *s, struct pt_task *pt, unsigned int reason)
{
	struct pt_payload p = { .len = 0 };
	unsigned long irqflags;
	struct pt_ring *r;

	if (!s || s->config.mode == PITRACE_MODE_COUNT)
		return;
	r = ring_begin(s, &irqflags);
	if (!r)
		return;
	ring_switch(s, r, pt->pid, pt->tid);
	payload_uleb(&p, reason);
	ring_ctl(s, r, PT_CTL_GAP, p.buf, p.len);
	ring_end(r, irqflags);
}

/* Stop stepping this syscall; regs (if any) is the trap frame to clear TF in. */
static void kstep_end(struct pt_session *s, struct pt_task *pt, struct pt_regs *regs,
		      unsigned int reason)
{
	if (regs)
		arch_regs_set_step(current, regs, false);
	pt->k.state = KSTEP_IDLE;
	if (reason)
		emit_gap(s, pt, reason);
}

static bool kstep_recording(struct pt_session *s, struct pt_task *pt)
{
	return s && s->active && s->on && (s->config.flags & PITRACE_CFG_KERNEL) &&
	       test_bit(PT_TASK_WANT, &pt->flags) && test_bit(PT_TASK_ARMED, &pt->flags);
}

bool pitrace_kernel_step_trap(struct pt_regs *regs)
{
	struct pt_task *pt;
	struct pt_session *s;
	struct pt_ring *r;
	unsigned long ip = instruction_pointer(regs), sp = arch_kstep_sp(regs);
	unsigned int reason;

	if (!READ_ONCE(kstep_used))
		return false;
	pt = task_lookup(current->pid);
	if (!pt || pt->k.state == KSTEP_IDLE) {
		/* Another user's step (kmmio) may look like this: leave it to its owner. */
		if (arch_kernel_step_foreign())
			return false;
		/* Our TF, leaked: restored by popf, or an interrupted frame's. */
		arch_regs_set_step(current, regs, false);
		return true;
	}
	s = session();
	if (!kstep_recording(s, pt) || arch_task_stepped_by_other(current)) {
		kstep_end(s, pt, regs, 0);
		return true;
	}
	/* Another user of kernel-mode steps came up (mmiotrace): step no further. */
	if (conflict_step_users()) {
		kstep_end(s, pt, regs, PT_GAP_UNSAFE);
		return true;
	}
	if (pt->k.state == KSTEP_STARTING) {
		/* Still in the ftrace trampoline's tail (popfq; ret). */
		if (ip != pt->k.expect_ip) {
			if (++pt->k.skipped > 64)
				kstep_end(s, pt, regs, PT_GAP_UNSAFE);
			return true;
		}
		pt->k.state = KSTEP_STEPPING;
	}
	if (sp > pt->k.entry_sp) {
		/* The syscall function returned: the rest is exit work. */
		kstep_end(s, pt, regs, 0);
		return true;
	}
	/* Softirqs and interrupts run on other stacks: not this syscall's work. */
	if (!object_is_on_stack((void *)sp)) {
		kstep_end(s, pt, regs, PT_GAP_UNSAFE);
		return true;
	}
	reason = unsafe_reason(ip);
	if (reason) {
		kstep_end(s, pt, regs, reason);
		return true;
	}
	if (++pt->k.steps > s->config.kernel_step_limit) {
		kstep_end(s, pt, regs, PT_GAP_KERNEL_LIMIT);
		return true;
	}
	pt->steps++;
	if (s->config.mode == PITRACE_MODE_COUNT) {
		pt->unreported++;
		s->rings[smp_processor_id()]->steps++;
		return true;
	}
	r = ring_begin_irqs_off(s);
	if (!r)
		return true;
	ring_step_ring(s, r, pt, ip, 1);
	ring_end_irqs_off(r);
	return true;
}

/*
 * ftrace callback at every __x64_sys_* entry (any task: filter on ours
 * first).  Setting TF in the saved flags makes the trampoline's popfq arm
 * the CPU; the first trap after its ret reports the function's body.
 */
static void notrace kstep_syscall_entry(unsigned long ip, unsigned long parent_ip,
					struct ftrace_ops *op, struct ftrace_regs *fregs)
{
	struct pt_regs *regs = ftrace_get_regs(fregs);
	struct pt_session *s;
	struct pt_task *pt;

	preempt_disable_notrace();
	pt = task_lookup(current->pid);
	if (!regs || !pt || pt->k.state != KSTEP_IDLE)
		goto out;
	s = session();
	if (!kstep_recording(s, pt) || arch_task_stepped_by_other(current) ||
	    conflict_step_users())
		goto out;
	if (!pt->k.pinned) {
		__module_get(THIS_MODULE);
		pt->k.pinned = true;
	}
	pt->k.expect_ip = instruction_pointer(regs);
	pt->k.entry_sp = arch_kstep_sp(regs);
	pt->k.steps = 0;
	pt->k.skipped = 0;
	pt->k.state = KSTEP_STARTING;
	arch_regs_set_step(current, regs, true);
out:
	preempt_enable_notrace();
}

static struct ftrace_ops kstep_ops = {
	.func = kstep_syscall_entry,
	.flags = FTRACE_OPS_FL_SAVE_REGS,
};

/* The syscall is over (or the task gone): no TF of ours can remain in its kernel context. */
static void kstep_release(struct pt_task *pt)
{
	if (pt->k.state != KSTEP_IDLE) {
		pt->k.state = KSTEP_IDLE;
		arch_kstep_clear_live();
	}
	if (pt->k.pinned) {
		pt->k.pinned = false;
		/* Unload waits for this probe to finish (tracepoint_synchronize_unregister). */
		module_put(THIS_MODULE);
	}
}

static void probe_kstep_sys_exit(void *data, struct pt_regs *regs, long ret)
{
	struct pt_task *pt = task_lookup(current->pid);

	if (pt)
		kstep_release(pt);
}

static void probe_kstep_exit(void *data, struct task_struct *t)
{
	struct pt_task *pt = task_lookup(t->pid);

	if (pt && t == current)
		kstep_release(pt);
}

/* Preempted (interrupt return) or sleeping mid-syscall: this syscall's stepping ends. */
static void probe_kstep_switch(void *data, bool preempt, struct task_struct *prev,
			       struct task_struct *next, unsigned int prev_state)
{
	struct pt_task *pt = task_lookup(prev->pid);

	if (!pt || pt->k.state == KSTEP_IDLE)
		return;
	arch_kstep_clear_live();
	kstep_end(session(), pt, NULL, PT_GAP_KERNEL_SLEEP);
}

struct kstep_probe {
	struct pt_tp_probe probe;
	bool permanent;		/* from the first kernel session to module unload */
	struct tracepoint *tp;
	bool attached;
};

/* Before the driver's own probes (priority 10), which may free the task's slot. */
#define KSTEP_PROBE_PRIO 11

static struct kstep_probe kstep_probes[] = {
	{ PT_TP_PROBE(sys_exit, probe_kstep_sys_exit), true },
	{ PT_TP_PROBE(sched_process_exit, probe_kstep_exit), true },
	{ PT_TP_PROBE(sched_switch, probe_kstep_switch), false },
};

static void kstep_find_tp(struct tracepoint *tp, void *priv)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(kstep_probes); i++)
		if (!strcmp(tp->name, kstep_probes[i].probe.name))
			kstep_probes[i].tp = tp;
}

static int kstep_attach(bool permanent)
{
	struct kstep_probe *pr;
	unsigned int i;
	int err;

	for_each_kernel_tracepoint(kstep_find_tp, NULL);
	for (i = 0; i < ARRAY_SIZE(kstep_probes); i++) {
		pr = &kstep_probes[i];
		if (pr->permanent != permanent || pr->attached)
			continue;
		if (!pr->tp) {
			pr_err("tracepoint %s not found\n", pr->probe.name);
			return -ENOENT;
		}
		err = tracepoint_probe_register_prio(pr->tp, pr->probe.func, NULL,
						     KSTEP_PROBE_PRIO);
		if (err) {
			pr_err("cannot attach to tracepoint %s: %d\n", pr->probe.name, err);
			return err;
		}
		pr->attached = true;
	}
	return 0;
}

static void kstep_detach(bool permanent)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(kstep_probes); i++) {
		if (kstep_probes[i].permanent != permanent || !kstep_probes[i].attached)
			continue;
		tracepoint_probe_unregister(kstep_probes[i].tp, kstep_probes[i].probe.func, NULL);
		kstep_probes[i].attached = false;
	}
	tracepoint_synchronize_unregister();
}

int kernel_session_start(struct pt_session *s)
{
	char glob[64];
	unsigned int i;
	int err;

	if (!(s->config.flags & PITRACE_CFG_KERNEL))
		return 0;
	err = arch_kstep_supported();
	if (err)
		return err;
	err = ksyms_init();
	if (err)
		return err;
	err = build_unsafe_table();
	if (err)
		return err;
	if (!permanent_attached) {
		err = kstep_attach(true);
		if (err) {
			kstep_detach(true);
			return err;
		}
		permanent_attached = true;
	}
	err = kstep_attach(false);
	if (err)
		goto err_detach;
	WRITE_ONCE(kstep_used, true);
	if (ops_registered)
		return 0;
	for (i = 0; arch_kstep_syscall_globs[i]; i++) {
		strscpy(glob, arch_kstep_syscall_globs[i], sizeof(glob));
		err = ftrace_set_filter(&kstep_ops, glob, strlen(glob), i == 0);
		if (err) {
			pr_err("kernel stepping: cannot filter ftrace on %s: %d\n", glob, err);
			goto err_detach;
		}
	}
	err = register_ftrace_function(&kstep_ops);
	if (err) {
		pr_err("kernel stepping: cannot register the ftrace callback: %d\n", err);
		goto err_detach;
	}
	ops_registered = true;
	return 0;

err_detach:
	kstep_detach(false);
	return err;
}

void kernel_session_stop(struct pt_session *s)
{
	/*
	 * The ftrace callback stays registered until unload: unregistering
	 * patches every syscall function's entry (int3, then nop) while
	 * traced tasks may still be stepping through them, and a stepped CPU
	 * was seen (6.12, TCG) executing the int3 after the patch completed.
	 * At unload no task can be stepping the kernel (they pin the module).
	 * Tasks still stepping end at their next trap (recording is off).
	 */
	kstep_detach(false);
}

void kernel_module_exit(void)
{
	if (ops_registered) {
		unregister_ftrace_function(&kstep_ops);
		ops_registered = false;
	}
	if (permanent_attached) {
		kstep_detach(true);
		permanent_attached = false;
	}
	kvfree(unsafe);
	unsafe = NULL;
	nr_unsafe = 0;
}
