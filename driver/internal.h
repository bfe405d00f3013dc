/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Internal interfaces between the parts of pitrace.ko: the session
 * (main.c), per-CPU rings (ring.c), traced tasks and selection (task.c),
 * tracepoint probes (probes.c), the trap's die notifiers (trap.c); what
 * the arch trap code and the driver call of each other is in driver/arch_calls.h.
 */
#ifndef PITRACE_DRIVER_H
#define PITRACE_DRIVER_H

#include <linux/irq_work.h>
#include <linux/sched.h>
#include <linux/task_work.h>
#include <linux/types.h>
#include <linux/wait.h>
#include <asm/local.h>

#include <pitrace/abi.h>
#include <pitrace/format.h>
#include <pitrace/stepenc.h>

#include "kstate.h"

/* One CPU's ring buffer and its writer state. */
struct pt_ring {
	void *area;			/* vmalloc_user: control area + data */
	struct pitrace_ring_ctl *ctl;
	struct pitrace_subbuf *sb;	/* ctl's per-sub-buffer table */
	u8 *data;
	size_t map_size;
	u32 subbuf_size, nr_subbufs;
	local_t nesting;		/* writers active on this CPU */
	/* writer state: only touched with interrupts off on this CPU */
	u64 subbuf;			/* number of the sub-buffer being filled */
	u32 pos;			/* bytes used in it */
	u8 *cur;			/* its start (valid while open) */
	bool open;			/* it has its SWITCH header */
	bool stopped;			/* stop policy: full, recording over */
	u64 last_pc;			/* delta base of the stream */
	u8 ring;			/* ring of the stream's steps (last RING record) */
	pid_t cur_pid, cur_tid;		/* task of the stream (last SWITCH) */
	u64 lost, lost_marked;
	u64 steps, bytes_written;
	struct irq_work wake;
};

/* A traced (or being untraced) thread.  Table slots live as long as the module. */
struct pt_task {
	pid_t tid;			/* 0: free, -1: deleted (lookup goes on) */
	pid_t pid;
	struct task_struct *task;
	unsigned long flags;		/* PT_TASK_* bits */
	u64 pending_pc;			/* a user pc executed before the next trap reports it */
	u64 steps;			/* steps of this thread */
	u64 unreported;			/* count mode: steps not yet in a COUNT record */
	u32 sig_depth;			/* signal frames entered while traced */
	u64 sig_skip;			/* bit per depth: resume pc already recorded */
	struct callback_head work;
	struct callback_head kick;	/* teardown: wakes the task so a queued work runs */
	struct callback_head defer;	/* a step deferred to the task's context (deferred.c) */
	struct pt_kstate k;		/* kernel-mode stepping (kernel.c) */
	u64 uprobe_pc;			/* TF lent to uprobes at its breakpoint here; 0: not lent */
};

enum {
	PT_TASK_WANT,			/* selected: should be armed */
	PT_TASK_ARMED,			/* TF set by us in its user registers */
	PT_TASK_WORK,			/* task work queued */
	PT_TASK_DEAD,			/* exited; slot freed when the works have run */
	PT_TASK_KICK,			/* kick queued */
	PT_TASK_DEFER,			/* deferred step queued (deferred.c) */
	PT_TASK_NATIVE,			/* running natively until the kernel next sees it */
	PT_TASK_SIGENTRY,		/* a handler's first instruction is run by no trap */
};

/* Works that still point at the slot: the last one to run frees a dead task's slot. */
#define PT_TASK_WORKS (BIT(PT_TASK_WORK) | BIT(PT_TASK_KICK) | BIT(PT_TASK_DEFER))

struct pt_session {
	struct file *owner;		/* the claiming file */
	pid_t owner_pid;
	struct pitrace_config config;
	struct pitrace_select select;	/* guarded by pt_lock */
	bool active;			/* tracing tasks (false during teardown) */
	bool on;			/* recording on */
	bool block_degraded;
	pid_t conflict_tid;
	pid_t conflict_tracer;		/* who single-steps conflict_tid (ptrace) */
	unsigned int nr_rings;
	struct pt_ring **rings;		/* [nr_cpu_ids]; NULL for impossible CPUs */
	wait_queue_head_t wait;		/* poll: a sub-buffer completed */
};

/* The current session or NULL; readers in probes and the trap run under RCU-sched. */
extern struct pt_session __rcu *pt_cur;
extern struct mutex pt_session_mutex;
extern wait_queue_head_t pt_disarm_wait;

/* ring.c */
struct pt_ring *ring_create(unsigned int cpu, u64 buffer_size, u32 subbuf_size,
			    wait_queue_head_t *wait);
void ring_destroy(struct pt_ring *r);
/* Writer: pt_ring_begin() disables interrupts; NULL when nesting (record lost). */
struct pt_ring *ring_begin(struct pt_session *s, unsigned long *irqflags);
void ring_end(struct pt_ring *r, unsigned long irqflags);

/*
 * The same for the trap: the #DB handler calls the die chain with
 * interrupts still off (before exc_debug_user() enables them;
 * exc_debug_kernel() never does), so saving and restoring the flags -- a
 * popf, which also ends a translation block under emulation -- would be
 * pure cost on every step.
 */
static inline struct pt_ring *ring_begin_irqs_off(struct pt_session *s)
{
	struct pt_ring *r;

	lockdep_assert_irqs_disabled();
	r = s->rings[smp_processor_id()];
	if (unlikely(local_inc_return(&r->nesting) != 1)) {
		/* Nested inside another writer on this CPU: never interleave. */
		r->lost++;
		local_dec(&r->nesting);
		return NULL;
	}
	return r;
}

static inline void ring_end_irqs_off(struct pt_ring *r)
{
	local_dec(&r->nesting);
}
/* The general case of ring_step_ring(): task or ring change, long delta, sub-buffer full. */
void __ring_step_ring(struct pt_session *s, struct pt_ring *r, struct pt_task *t, u64 pc, u8 ring);

/*
 * A step in ring (0 user, 1 kernel).  Most steps are a one-byte delta into
 * the open sub-buffer of the same task and ring: that path is inline and a
 * dozen instructions, because it runs on every trap.
 */
static inline void ring_step_ring(struct pt_session *s, struct pt_ring *r, struct pt_task *t,
				  u64 pc, u8 ring)
{
	s64 delta = (s64)(pc - r->last_pc);

	if (likely(r->open && r->cur_tid == t->tid && r->ring == ring && r->pos < r->subbuf_size &&
		   pt_step_is_short(delta))) {
		r->cur[r->pos++] = pt_step_short(delta);
		r->last_pc = pc;
		r->steps++;
		return;
	}
	__ring_step_ring(s, r, t, pc, ring);
}

static inline void ring_step(struct pt_session *s, struct pt_ring *r, struct pt_task *t, u64 pc)
{
	ring_step_ring(s, r, t, pc, 0);
}
void ring_lost_step(struct pt_ring *r);
void ring_switch(struct pt_session *s, struct pt_ring *r, pid_t pid, pid_t tid);
void ring_ctl(struct pt_session *s, struct pt_ring *r, unsigned int type, const u8 *payload,
	      size_t len);
void ring_flush(struct pt_session *s, struct pt_ring *r);
/* Control payload builder. */
struct pt_payload {
	u8 buf[320];
	size_t len;
};
void payload_uleb(struct pt_payload *p, u64 v);
void payload_u64(struct pt_payload *p, u64 v);
void payload_bytes(struct pt_payload *p, const void *b, size_t len);

/* task.c */
void task_table_init(void);
struct pt_task *task_lookup(pid_t tid);
struct pt_task *task_insert(struct task_struct *t);
void task_free(struct pt_task *pt);
bool task_selected(struct pt_session *s, struct task_struct *t);
int task_apply_selection(struct pt_session *s);
void task_arm_current(struct pt_session *s, struct pt_task *pt);
void task_disarm_current(struct pt_task *pt);
void task_queue_work(struct pt_task *pt, struct task_struct *t, bool wake);
void task_rearm_all(struct pt_session *s);
int task_untrace_all(void);
unsigned long task_count_armed(void);
/* Tasks still armed or with a queued work (which pins the module). */
unsigned long task_count_busy(void);
void task_flush_count(struct pt_session *s, struct pt_ring *r, struct pt_task *pt);

/* trap.c: the architecture's die notifiers (driver/arch_calls.h), from module load to unload. */
int trap_register(void);
void trap_unregister(void);

/* probes.c */
int probes_register_permanent(void);
void probes_unregister_permanent(void);
int probes_register_session(void);
void probes_unregister_session(void);
void probes_emit_on_off(struct pt_session *s, bool on);

#endif /* PITRACE_DRIVER_H */
