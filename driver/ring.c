// SPDX-License-Identifier: GPL-2.0
/*
 * Per-CPU ring buffers: sub-buffers of step-stream records (format.h) that
 * the collector maps and drains.  Writers run on their own CPU with
 * interrupts off and never take locks, allocate or print, so the trap path
 * can use them; a writer that finds another one active on its CPU (a trap
 * nested inside a probe) drops its record and counts it lost instead of
 * corrupting the stream.
 */
#define pr_fmt(fmt) "pitrace: " fmt

#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/timekeeping.h>
#include <linux/vmalloc.h>

#include "internal.h"

/* Longest record the writer emits in one piece (a control record of a full payload). */
#define RING_MAX_RECORD (PT_CTL_HEADER_MAX + sizeof(((struct pt_payload *)0)->buf))

void payload_uleb(struct pt_payload *p, u64 v)
{
	p->len += pt_uleb_put(p->buf + p->len, v);
}

void payload_u64(struct pt_payload *p, u64 v)
{
	int i;

	for (i = 0; i < 8; i++)
		p->buf[p->len++] = (u8)(v >> (8 * i));
}

void payload_bytes(struct pt_payload *p, const void *b, size_t len)
{
	len = min(len, sizeof(p->buf) - p->len);
	memcpy(p->buf + p->len, b, len);
	p->len += len;
}

static void ring_wake(struct irq_work *w)
{
	struct pt_ring *r = container_of(w, struct pt_ring, wake);
	struct pt_session *s;

	rcu_read_lock_sched();
	s = rcu_dereference_sched(pt_cur);
	if (s)
		wake_up_interruptible(&s->wait);
	rcu_read_unlock_sched();
	(void)r;
}

struct pt_ring *ring_create(unsigned int cpu, u64 buffer_size, u32 subbuf_size,
			    wait_queue_head_t *wait)
{
	struct pt_ring *r;
	size_t ctl_size;
	u32 n = buffer_size / subbuf_size;

	r = kzalloc_node(sizeof(*r), GFP_KERNEL, cpu_to_node(cpu));
	if (!r)
		return NULL;
	ctl_size = PAGE_ALIGN(sizeof(struct pitrace_ring_ctl) + n * sizeof(struct pitrace_subbuf));
	r->map_size = ctl_size + (size_t)n * subbuf_size;
	r->area = vmalloc_user(r->map_size);
	if (!r->area) {
		kfree(r);
		return NULL;
	}
	r->ctl = r->area;
	r->sb = (struct pitrace_subbuf *)(r->ctl + 1);
	r->data = (u8 *)r->area + ctl_size;
	r->subbuf_size = subbuf_size;
	r->nr_subbufs = n;
	r->ctl->subbuf_size = subbuf_size;
	r->ctl->nr_subbufs = n;
	r->ctl->data_offset = ctl_size;
	local_set(&r->nesting, 0);
	init_irq_work(&r->wake, ring_wake);
	(void)wait;
	return r;
}

void ring_destroy(struct pt_ring *r)
{
	if (!r)
		return;
	irq_work_sync(&r->wake);
	vfree(r->area);
	kfree(r);
}

struct pt_ring *ring_begin(struct pt_session *s, unsigned long *irqflags)
{
	struct pt_ring *r;

	local_irq_save(*irqflags);
	r = s->rings[smp_processor_id()];
	if (local_inc_return(&r->nesting) != 1) {
		/* Nested inside another writer on this CPU: never interleave. */
		r->lost++;
		local_dec(&r->nesting);
		local_irq_restore(*irqflags);
		return NULL;
	}
	return r;
}

void ring_end(struct pt_ring *r, unsigned long irqflags)
{
	local_dec(&r->nesting);
	local_irq_restore(irqflags);
}

static u8 *subbuf_base(struct pt_ring *r, u64 n)
{
	return r->data + (size_t)(n % r->nr_subbufs) * r->subbuf_size;
}

/* Complete the current sub-buffer: the collector may read it from now on. */
static void ring_close(struct pt_ring *r)
{
	struct pitrace_subbuf *sb = &r->sb[r->subbuf % r->nr_subbufs];

	sb->used = r->pos;
	smp_wmb();	/* records before the sequence number that publishes them */
	WRITE_ONCE(sb->seq, r->subbuf + 1);
	WRITE_ONCE(r->ctl->produced, r->subbuf + 1);
	r->bytes_written += r->pos;
	r->subbuf++;
	r->open = false;
	r->pos = 0;
	irq_work_queue(&r->wake);
}

static void put_ctl(struct pt_ring *r, unsigned int type, const u8 *payload, size_t len)
{
	r->pos += pt_ctl_put(r->cur + r->pos, type, payload, len);
}

static void put_switch(struct pt_ring *r, pid_t pid, pid_t tid)
{
	struct pt_payload p = { .len = 0 };

	payload_uleb(&p, pid);
	payload_uleb(&p, tid);
	payload_u64(&p, ktime_get_mono_fast_ns());
	payload_uleb(&p, PT_SEQ_NONE);
	put_ctl(r, PT_CTL_SWITCH, p.buf, p.len);
	r->cur_pid = pid;
	r->cur_tid = tid;
	r->last_pc = 0;
	/* Restate a kernel ring: a reader may start at this sub-buffer (wrap, loss). */
	if (r->ring)
		put_ctl(r, PT_CTL_RING, &r->ring, 1);
}

static void put_lost(struct pt_ring *r)
{
	struct pt_payload p = { .len = 0 };
	u64 n = r->lost - r->lost_marked;

	payload_uleb(&p, n);
	put_ctl(r, PT_CTL_LOST, p.buf, p.len);
	r->lost_marked = r->lost;
	WRITE_ONCE(r->ctl->lost_marked, r->lost_marked);
}

/*
 * Make room for len bytes in the current sub-buffer, starting a new one
 * (with its SWITCH header and any pending LOST marker) when needed.
 * Returns false when the ring is full: the caller counts the loss.
 */
static bool ring_reserve(struct pt_session *s, struct pt_ring *r, size_t len)
{
	u64 consumed;

	if (r->stopped)
		return false;
	if (r->open && r->pos + len <= r->subbuf_size)
		return true;
	if (r->open)
		ring_close(r);
	if (s->config.policy != PITRACE_POLICY_WRAP) {
		/* The collector's counter is untrusted: clamp it. */
		consumed = min_t(u64, READ_ONCE(r->ctl->consumed), r->subbuf);
		if (r->subbuf - consumed >= r->nr_subbufs) {
			if (s->config.policy == PITRACE_POLICY_STOP)
				r->stopped = true;
			return false;
		}
	}
	r->open = true;
	r->pos = 0;
	r->cur = subbuf_base(r, r->subbuf);
	put_switch(r, r->cur_pid, r->cur_tid);
	if (r->lost != r->lost_marked)
		put_lost(r);
	return r->pos + len <= r->subbuf_size;
}

void ring_lost_step(struct pt_ring *r)
{
	r->lost++;
	WRITE_ONCE(r->ctl->lost, r->lost);
}

void ring_switch(struct pt_session *s, struct pt_ring *r, pid_t pid, pid_t tid)
{
	if (r->cur_pid == pid && r->cur_tid == tid && r->open)
		return;
	r->cur_pid = pid;
	r->cur_tid = tid;
	/* A fresh sub-buffer starts with this task's SWITCH anyway. */
	if (!r->open || r->pos + 40 > r->subbuf_size) {
		ring_reserve(s, r, 40);
		return;
	}
	put_switch(r, pid, tid);
}

void __ring_step_ring(struct pt_session *s, struct pt_ring *r, struct pt_task *t, u64 pc, u8 ring)
{
	r->steps++;
	if (r->cur_tid != t->tid || !r->open)
		ring_switch(s, r, t->pid, t->tid);
	/* room for the longest step, after a RING record (3 bytes) if the ring changes */
	if (!ring_reserve(s, r, PT_STEP_MAX_BYTES + (r->ring != ring ? 3 : 0))) {
		ring_lost_step(r);
		return;
	}
	if (r->ring != ring) {
		r->ring = ring;
		put_ctl(r, PT_CTL_RING, &ring, 1);
	}
	r->pos += pt_step_put(r->cur + r->pos, (s64)(pc - r->last_pc));
	r->last_pc = pc;
}

void ring_ctl(struct pt_session *s, struct pt_ring *r, unsigned int type, const u8 *payload,
	      size_t len)
{
	if (len + PT_CTL_HEADER_MAX > RING_MAX_RECORD)
		return;
	if (ring_reserve(s, r, len + PT_CTL_HEADER_MAX))
		put_ctl(r, type, payload, len);
}

void ring_flush(struct pt_session *s, struct pt_ring *r)
{
	if (r->open && r->pos)
		ring_close(r);
	/* Publish losses nobody marked yet (the collector appends their marker). */
	WRITE_ONCE(r->ctl->lost, r->lost);
	(void)s;
}
