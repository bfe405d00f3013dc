// SPDX-License-Identifier: GPL-2.0
/*
 * pitrace.ko: /dev/pitrace, the exclusive tracing session (claim, config,
 * selection, on/off, status, release), ring mapping and poll, and module
 * load/unload.  See docs/driver.md for the design, docs/driver-abi.md for
 * the interface.
 */
#define pr_fmt(fmt) "pitrace: " fmt

#include <linux/capability.h>
#include <linux/cpu.h>
#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/poll.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>

#include "arch_calls.h"
#include "conflict.h"
#include "internal.h"
#include "kernel.h"

#define PT_DEFAULT_SUBBUF (64u << 10)
#define PT_DEFAULT_BUFFER (4ull << 20)
#define PT_DEFAULT_COUNT_BUFFER (256ull << 10)
#define PT_MAX_BUFFER (1ull << 30)
#define PT_DISARM_TIMEOUT (2 * HZ)

struct pt_session __rcu *pt_cur;
DEFINE_MUTEX(pt_session_mutex);
DECLARE_WAIT_QUEUE_HEAD(pt_disarm_wait);

static struct pt_session *session_locked(void)
{
	return rcu_dereference_protected(pt_cur, lockdep_is_held(&pt_session_mutex));
}

static int config_check(struct pitrace_config *c)
{
	if (c->mode > PITRACE_MODE_COUNT || c->policy > PITRACE_POLICY_STOP)
		return -EINVAL;
	if (c->flags & ~(PITRACE_CFG_START_ON | PITRACE_CFG_KERNEL))
		return -EOPNOTSUPP;
	if (!c->kernel_step_limit)
		c->kernel_step_limit = PT_KERNEL_STEP_LIMIT_DEFAULT;
	if (!c->subbuf_size)
		c->subbuf_size = PT_DEFAULT_SUBBUF;
	if (!c->buffer_size)
		c->buffer_size = c->mode == PITRACE_MODE_COUNT ? PT_DEFAULT_COUNT_BUFFER :
								 PT_DEFAULT_BUFFER;
	if (c->buffer_size < c->subbuf_size)
		c->buffer_size = c->subbuf_size;
	if (!is_power_of_2(c->subbuf_size) || c->subbuf_size < PAGE_SIZE ||
	    c->buffer_size % c->subbuf_size || c->buffer_size > PT_MAX_BUFFER ||
	    c->buffer_size / c->subbuf_size < 2)
		return -EINVAL;
	/* reserved for later minor versions: zero, so that they can mean something (1.4) */
	if (memchr_inv(c->reserved, 0, sizeof(c->reserved)))
		return -EINVAL;
	/*
	 * The buffers of every possible CPU may take at most half the memory
	 * available now: more fails with ENOMEM here, not by the OOM killer
	 * while vmalloc takes page after page.
	 */
	if (c->buffer_size * num_possible_cpus() > (u64)si_mem_available() * PAGE_SIZE / 2)
		return -ENOMEM;
	return 0;
}

static void session_free(struct pt_session *s)
{
	unsigned int cpu;

	if (s->rings)
		for (cpu = 0; cpu < s->nr_rings; cpu++)
			ring_destroy(s->rings[cpu]);
	kfree(s->rings);
	kfree(s);
}

static int session_claim(struct file *f, void __user *arg)
{
	struct pitrace_config c;
	struct pt_session *s;
	unsigned int cpu;
	int err;

	if (copy_from_user(&c, arg, sizeof(c)))
		return -EFAULT;
	err = config_check(&c);
	if (err)
		return err;
	if (session_locked())
		return -EBUSY;
	/*
	 * Another single-step user of the whole system (mmiotrace, kgdb)
	 * could find our traps in its path and we its: STATUS step_users
	 * says which.  Per-task users (ptrace) are refused at SELECT.
	 */
	if (conflict_step_users())
		return -EBUSY;
	s = kzalloc(sizeof(*s), GFP_KERNEL);
	if (!s)
		return -ENOMEM;
	s->owner = f;
	s->owner_pid = task_tgid_nr(current);
	s->config = c;
	s->on = c.flags & PITRACE_CFG_START_ON;
	s->active = true;
	init_waitqueue_head(&s->wait);
	s->nr_rings = nr_cpu_ids;
	s->rings = kcalloc(s->nr_rings, sizeof(*s->rings), GFP_KERNEL);
	if (!s->rings) {
		err = -ENOMEM;
		goto err_free_session;
	}
	for_each_possible_cpu(cpu) {
		s->rings[cpu] = ring_create(cpu, c.buffer_size, c.subbuf_size, &s->wait);
		if (!s->rings[cpu]) {
			err = -ENOMEM;
			goto err_free_session;
		}
	}
	rcu_assign_pointer(pt_cur, s);
	err = probes_register_session();
	if (err)
		goto err_unpublish;
	err = kernel_session_start(s);
	if (err)
		goto err_probes;
	return 0;

err_probes:
	probes_unregister_session();
err_unpublish:
	RCU_INIT_POINTER(pt_cur, NULL);
	synchronize_rcu();
err_free_session:
	session_free(s);
	return err;
}

/* End the session: every task loses TF, probes go, buffers go. */
static void session_end(struct pt_session *s)
{
	unsigned long deadline = jiffies + PT_DISARM_TIMEOUT;

	s->on = false;
	s->active = false;
	task_untrace_all();
	/*
	 * Task works wake us; tasks that drop TF in their trap can't (no
	 * wake-ups in the trap path), so look again every 10 ms.  Tasks stopped
	 * (SIGSTOP, ptrace) disarm when they run again.
	 */
	while (task_count_busy() && time_before(jiffies, deadline))
		wait_event_timeout(pt_disarm_wait, task_count_busy() == 0, msecs_to_jiffies(10));
	kernel_session_stop(s);
	probes_unregister_session();
	RCU_INIT_POINTER(pt_cur, NULL);
	synchronize_rcu();
	session_free(s);
}

static int session_select(struct pt_session *s, void __user *arg)
{
	struct pitrace_select sel;
	struct pitrace_select old = s->select;
	int err;

	if (copy_from_user(&sel, arg, sizeof(sel)))
		return -EFAULT;
	if (sel.kind > PITRACE_SEL_TREE || sel.nr_pids > PITRACE_MAX_PIDS)
		return -EINVAL;
	if (sel.kind == PITRACE_SEL_TREE && sel.nr_pids != 1)
		return -EINVAL;
	if (sel.kind == PITRACE_SEL_RANGE && sel.pid_lo > sel.pid_hi)
		return -EINVAL;
	if (memchr_inv(sel.reserved, 0, sizeof(sel.reserved)))
		return -EINVAL;	/* 1.4 */
	sel.comm[PITRACE_COMM_LEN - 1] = '\0';
	s->select = sel;
	s->conflict_tid = 0;
	s->conflict_tracer = 0;
	err = task_apply_selection(s);
	if (err == -EBUSY)
		s->select = old;
	return err;
}

static void flush_cpu(void *info)
{
	struct pt_session *s = info;
	unsigned long irqflags;
	struct pt_ring *r = ring_begin(s, &irqflags);

	if (r) {
		ring_flush(s, r);
		ring_end(r, irqflags);
	}
}

/*
 * Every CPU's partial sub-buffer, also of CPUs taken offline since they
 * recorded (mmiotrace does that): with hotplug held off, an offline CPU
 * runs no writer, so its ring is closed from here.
 */
static void flush_all(struct pt_session *s)
{
	unsigned long irqflags;
	unsigned int cpu;

	cpus_read_lock();
	on_each_cpu(flush_cpu, s, 1);
	for_each_possible_cpu(cpu) {
		if (cpu_online(cpu))
			continue;
		local_irq_save(irqflags);
		ring_flush(s, s->rings[cpu]);
		local_irq_restore(irqflags);
	}
	cpus_read_unlock();
}

static void fill_status(struct pt_session *s, struct pitrace_status *st)
{
	unsigned int cpu;

	memset(st, 0, sizeof(*st));
	st->nr_cpus = nr_cpu_ids;
	st->traced_tasks = task_count_armed();
	st->step_users = conflict_step_users();
	if (!s)
		return;
	st->claimed = 1;
	st->owner_pid = s->owner_pid;
	st->on = s->on;
	st->config = s->config;
	st->select = s->select;
	st->conflict_tid = s->conflict_tid;
	st->conflict_tracer = s->conflict_tracer;
	if (s->block_degraded)
		st->flags |= PITRACE_STATUS_BLOCK_DEGRADED;
	for_each_possible_cpu(cpu) {
		st->steps += READ_ONCE(s->rings[cpu]->steps);
		st->lost += READ_ONCE(s->rings[cpu]->lost);
		if (READ_ONCE(s->rings[cpu]->stopped))
			st->flags |= PITRACE_STATUS_STOPPED_FULL;
	}
}

static int cpu_status(struct pt_session *s, void __user *arg)
{
	struct pitrace_cpu_status cs;
	struct pt_ring *r;
	u32 cpu;

	if (copy_from_user(&cs, arg, sizeof(cs)))
		return -EFAULT;
	cpu = cs.cpu;
	if (cpu >= s->nr_rings || !s->rings[cpu])
		return -EINVAL;
	r = s->rings[cpu];
	memset(&cs, 0, sizeof(cs));
	cs.cpu = cpu;
	cs.online = cpu_online(cpu);
	cs.steps = READ_ONCE(r->steps);
	cs.lost = READ_ONCE(r->lost);
	cs.bytes_written = READ_ONCE(r->bytes_written);
	cs.bytes_read = min_t(u64, READ_ONCE(r->ctl->consumed), READ_ONCE(r->subbuf)) *
			r->subbuf_size;
	cs.buffer_size = s->config.buffer_size;
	cs.map_size = r->map_size;
	cs.map_offset = (u64)cpu * r->map_size;
	return copy_to_user(arg, &cs, sizeof(cs)) ? -EFAULT : 0;
}

static long pt_ioctl(struct file *f, unsigned int cmd, unsigned long arg)
{
	void __user *uarg = (void __user *)arg;
	struct pitrace_version v = { .major = PITRACE_ABI_MAJOR, .minor = PITRACE_ABI_MINOR };
	struct pitrace_status st;
	struct pt_session *s;
	long err = 0;

	if (cmd == PITRACE_IOC_VERSION)
		return copy_to_user(uarg, &v, sizeof(v)) ? -EFAULT : 0;

	mutex_lock(&pt_session_mutex);
	s = session_locked();
	switch (cmd) {
	case PITRACE_IOC_CLAIM:
		err = session_claim(f, uarg);
		break;
	case PITRACE_IOC_STATUS:
		fill_status(s, &st);
		err = copy_to_user(uarg, &st, sizeof(st)) ? -EFAULT : 0;
		break;
	default:
		if (!s) {
			err = -ENODEV;
			break;
		}
		switch (cmd) {
		case PITRACE_IOC_RELEASE:
			if (s->owner != f)
				err = -EPERM;
			else
				session_end(s);
			break;
		case PITRACE_IOC_SELECT:
			err = session_select(s, uarg);
			break;
		case PITRACE_IOC_ON:
			if (!s->on) {
				s->on = true;
				probes_emit_on_off(s, true);
				task_rearm_all(s);
			}
			break;
		case PITRACE_IOC_OFF:
			if (s->on) {
				struct pt_task *pt = task_lookup(current->pid);

				s->on = false;
				probes_emit_on_off(s, false);
				/* Others disarm at their next trap; the caller at once. */
				if (pt)
					task_disarm_current(pt);
			}
			break;
		case PITRACE_IOC_CPU_STATUS:
			err = cpu_status(s, uarg);
			break;
		case PITRACE_IOC_FLUSH:
			flush_all(s);
			break;
		default:
			err = -ENOTTY;
		}
	}
	mutex_unlock(&pt_session_mutex);
	return err;
}

static int pt_mmap(struct file *f, struct vm_area_struct *vma)
{
	struct pt_session *s;
	unsigned long pages, cpu;
	struct pt_ring *r;
	int err = -EINVAL;

	mutex_lock(&pt_session_mutex);
	s = session_locked();
	if (!s || s->owner != f) {
		err = -EPERM;
		goto out;
	}
	r = s->rings[cpumask_first(cpu_possible_mask)];
	pages = r->map_size >> PAGE_SHIFT;
	cpu = vma->vm_pgoff / pages;
	if (cpu >= s->nr_rings || !s->rings[cpu] || vma->vm_pgoff % pages ||
	    vma->vm_end - vma->vm_start != r->map_size)
		goto out;
	err = remap_vmalloc_range(vma, s->rings[cpu]->area, 0);
out:
	mutex_unlock(&pt_session_mutex);
	return err;
}

static __poll_t pt_poll(struct file *f, poll_table *wait)
{
	struct pt_session *s;
	__poll_t mask = 0;
	unsigned int cpu;

	mutex_lock(&pt_session_mutex);
	s = session_locked();
	if (!s || s->owner != f) {
		mutex_unlock(&pt_session_mutex);
		return EPOLLERR;
	}
	poll_wait(f, &s->wait, wait);
	for_each_possible_cpu(cpu) {
		struct pitrace_ring_ctl *ctl = s->rings[cpu]->ctl;

		if (READ_ONCE(ctl->produced) > READ_ONCE(ctl->consumed))
			mask |= EPOLLIN | EPOLLRDNORM;
	}
	mutex_unlock(&pt_session_mutex);
	return mask;
}

/*
 * Sessions trace any process and the kernel: only root's.  The device node
 * is 0600, and an open without CAP_SYS_ADMIN is refused as well, so that a
 * node made group- or world-accessible (a udev rule, a chmod) gives no one
 * else a way in.  Checked at open, as /dev/mem checks CAP_SYS_RAWIO: an fd
 * root hands on keeps working.
 */
static int pt_open(struct inode *inode, struct file *f)
{
	return capable(CAP_SYS_ADMIN) ? 0 : -EPERM;
}

/* A collector that dies (or closes) without RELEASE ends its session. */
static int pt_release(struct inode *inode, struct file *f)
{
	struct pt_session *s;

	mutex_lock(&pt_session_mutex);
	s = session_locked();
	if (s && s->owner == f)
		session_end(s);
	mutex_unlock(&pt_session_mutex);
	return 0;
}

static const struct file_operations pt_fops = {
	.owner = THIS_MODULE,
	.open = pt_open,
	.unlocked_ioctl = pt_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	.mmap = pt_mmap,
	.poll = pt_poll,
	.release = pt_release,
	.llseek = noop_llseek,
};

static struct miscdevice pt_misc = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = "pitrace",
	.fops = &pt_fops,
	.mode = 0600,
};

static int __init pitrace_init(void)
{
	int err;

	task_table_init();
	arch_step_users_init();
	err = probes_register_permanent();
	if (err)
		return err;
	err = trap_register();
	if (err)
		goto err_probes;
	err = misc_register(&pt_misc);
	if (err)
		goto err_trap;
	pr_info("ready: /dev/pitrace, ABI %u.%u\n", PITRACE_ABI_MAJOR, PITRACE_ABI_MINOR);
	return 0;

err_trap:
	trap_unregister();
err_probes:
	probes_unregister_permanent();
	return err;
}

static void __exit pitrace_exit(void)
{
	misc_deregister(&pt_misc);
	/* No session (the device is closed) and no pending task work (they pin us). */
	WARN_ON_ONCE(task_count_armed());
	trap_unregister();
	kernel_module_exit();
	probes_unregister_permanent();
}

module_init(pitrace_init);
module_exit(pitrace_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("pitrace: system-wide instruction tracing by single-step trap");
MODULE_VERSION(PITRACE_VERSION);	/* scripts/version.sh, through driver/Makefile */
