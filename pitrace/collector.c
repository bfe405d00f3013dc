// SPDX-License-Identifier: GPL-2.0
/*
 * The collector: copies completed sub-buffers of the driver's per-CPU rings
 * into steps.cN streams (the driver writes step-stream records, so they go in
 * as they are, decoded only to count), keeps the module tables, and writes
 * the header.  See docs/sessions.md.
 */
#define PR_FMT "collector"
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <linux/membarrier.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/mman.h>
#include <unistd.h>

#include "pitrace/collector.h"
#include "pitrace/driver_session.h"
#include "util/log.h"
#include "pitrace/perf_maps.h"
#include "util/symbols.h"
#include "util/trace_attrs.h"
#include "util/trace_dir.h"
#include "util/trace_writer.h"

#define COLLECTOR_POLL_MS 100	/* drain at least this often even without a wake-up */
#define COLLECTOR_SYNC_NS 1000000000ull	/* write buffered data and the header this often */
/*
 * The records' times (the driver's and perf's) are CLOCK_MONOTONIC read by
 * the kernel's NMI-safe accessor, which may trail clock_gettime() by a few
 * nanoseconds while the timekeeper updates: the cut stays this far behind.
 */
#define COLLECTOR_CUT_SLACK_NS 1000000ull

struct cpu_ring {
	uint32_t cpu;
	struct pitrace_ring_ctl *ctl;	/* control area, shared with the driver */
	const struct pitrace_subbuf *sb;	/* per sub-buffer: completion and bytes used */
	const uint8_t *data;
	void *map;
	size_t map_size;
	struct tw_stream *stream;
	uint64_t markers_lost;		/* LOST records seen in its data */
	uint64_t bad;			/* sub-buffers rejected as malformed */
};

struct collector {
	struct driver_session *ds;
	struct collector_opts opts;
	struct pitrace_status st;	/* the effective configuration */
	struct trace_writer *tw;
	struct perf_maps *pm;
	struct cpu_ring *rings;
	uint32_t nr_rings;
	uint8_t *copy;			/* one sub-buffer, for wrap mode */
	bool wrapped;
	bool synced;			/* the header says how far the files are whole */
	uint64_t cut_ns;		/* ... up to this time (SYNCED_TIME) */
	int error;
	const char *end_reason;	  /* PT_END_*, or NULL: PT_END_STOPPED */
};

/* Map every CPU's ring where the driver says it is (include/pitrace/abi.h). */
static int map_rings(struct collector *c)
{
	c->rings = calloc(c->st.nr_cpus, sizeof(*c->rings));
	if (!c->rings)
		return -1;
	for (uint32_t cpu = 0; cpu < c->st.nr_cpus; cpu++) {
		struct cpu_ring *r = &c->rings[c->nr_rings];
		struct pitrace_cpu_status cs;
		const struct pitrace_ring_ctl *ctl;
		void *m;

		if (ds_cpu_status(c->ds, cpu, &cs) < 0)
			return -1;
		if (!cs.map_size)
			continue;	/* no buffer: CPU not possible */
		m = mmap(NULL, cs.map_size, PROT_READ | PROT_WRITE, MAP_SHARED, c->ds->fd,
			 (off_t)cs.map_offset);
		if (m == MAP_FAILED) {
			pr_err("cannot map the ring buffer of CPU %u: %s", cpu, strerror(errno));
			return -1;
		}
		r->map = m;
		r->map_size = cs.map_size;
		ctl = m;
		if (ctl->subbuf_size == 0 || ctl->nr_subbufs == 0 ||
		    sizeof(*ctl) + ctl->nr_subbufs * sizeof(struct pitrace_subbuf) > ctl->data_offset ||
		    ctl->data_offset + (uint64_t)ctl->subbuf_size * ctl->nr_subbufs > cs.map_size) {
			pr_err("CPU %u's ring has an impossible layout (%u sub-buffers of %u bytes "
			       "at %u in %llu)", cpu, ctl->nr_subbufs, ctl->subbuf_size,
			       ctl->data_offset, (unsigned long long)cs.map_size);
			munmap(m, cs.map_size);
			return -1;
		}
		r->cpu = cpu;
		r->ctl = m;
		r->sb = (const struct pitrace_subbuf *)(r->ctl + 1);
		r->data = (const uint8_t *)m + ctl->data_offset;
		c->nr_rings++;
	}
	return 0;
}

/*
 * The running kernel's build-id, so post can find its vmlinux with debug
 * info by build-id (docs/symbols.md).  /sys/kernel/notes is the kernel's
 * own .notes section; without it (no sysfs) the trace only has the release.
 */
static void write_kernel_build_id(struct collector *c)
{
	uint8_t notes[4096], id[PT_BUILD_ID_MAX];
	char hex[2 * PT_BUILD_ID_MAX + 1];
	size_t len, n;
	ssize_t got;
	int fd = open("/sys/kernel/notes", O_RDONLY | O_CLOEXEC);

	if (fd < 0) {
		pr_dbg("no /sys/kernel/notes (%s): no kernel build-id in the trace",
		       strerror(errno));
		return;
	}
	for (len = 0; len < sizeof(notes); len += (size_t)got) {
		got = read(fd, notes + len, sizeof(notes) - len);
		if (got <= 0)
			break;
	}
	close(fd);
	n = sym_notes_build_id(notes, len, id, sizeof(id));
	if (!n) {
		pr_dbg("/sys/kernel/notes has no GNU build-id");
		return;
	}
	for (size_t i = 0; i < n; i++)
		snprintf(hex + 2 * i, 3, "%02x", id[i]);
	tw_set_attr_str(c->tw, PT_ATTR_KERNEL_BUILD_ID, hex);
}

static void write_header_attrs(struct collector *c)
{
	struct trace_attrs a = {
		.backend = "driver",
		.mode = mode_name(c->st.config.mode),
		.nr_cpus = c->st.nr_cpus,
		.argv = c->opts.argv,
	};

	trace_attrs_start(c->tw, &a);
	write_kernel_build_id(c);
	if (c->st.config.policy == PITRACE_POLICY_WRAP)
		tw_set_attr_str(c->tw, PT_ATTR_NOTE,
				"wrap mode: the buffers kept the newest steps; older ones were overwritten");
}

/*
 * A continuous session's trace says, while recording, up to which time its
 * files are whole (SYNCED_TIME), for a reader following it; when the
 * kernel can make sure (sync_cut).  Wrap and stop-when-full sessions are
 * read at the end only.
 */
static void sync_init(struct collector *c)
{
	long cmds = syscall(SYS_membarrier, MEMBARRIER_CMD_QUERY, 0, 0);

	if (c->st.config.policy != PITRACE_POLICY_CONTINUOUS)
		return;
	if (cmds < 0 || !(cmds & MEMBARRIER_CMD_GLOBAL)) {
		pr_dbg("no membarrier(MEMBARRIER_CMD_GLOBAL): a follower sees no new task records");
		return;
	}
	c->synced = true;
	tw_set_attr(c->tw, PT_ATTR_SYNCED_TIME, &(struct pt_attr_synced_time){ 0, 0, 0 },
		    sizeof(struct pt_attr_synced_time));
}

/*
 * The vDSO is the same image in every process of this kernel: save ours so
 * post can resolve the traced processes' [vdso] addresses.
 */
static void save_vdso(struct trace_writer *tw)
{
	unsigned long long start, end;
	char line[512];
	FILE *f;

	if (!getauxval(AT_SYSINFO_EHDR))
		return;
	f = fopen("/proc/self/maps", "re");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		if (!strstr(line, "[vdso]") || sscanf(line, "%llx-%llx", &start, &end) != 2)
			continue;
		tw_write_file(tw, PT_FILE_VDSO, (const void *)(uintptr_t)start, end - start);
		break;
	}
	fclose(f);
}

struct collector *collector_start(struct driver_session *ds, const struct collector_opts *opts)
{
	struct tw_options two = { .compress = opts->compress };
	struct collector *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->ds = ds;
	c->opts = *opts;
	if (ds_status(ds, &c->st) < 0)
		goto err_free;
	if (map_rings(c) < 0)
		goto err_unmap;
	if (c->st.config.mode == PITRACE_MODE_COUNT)
		two.features |= PT_FEAT_COUNT_ONLY;	/* COUNT records, no steps */
	if (c->st.config.flags & PITRACE_CFG_KERNEL)
		two.features |= PT_FEAT_KERNEL;	/* kernel-ring steps (docs/kernel-mode.md) */
	/* kallsyms and the kernel ring's steps give kernel addresses away */
	two.private = true;
	c->tw = tw_open(opts->out_dir, &two);
	if (!c->tw)
		goto err_unmap;
	write_header_attrs(c);
	for (uint32_t i = 0; i < c->nr_rings; i++) {
		c->rings[i].stream = tw_stream_open(c->tw, true, c->rings[i].cpu);
		if (!c->rings[i].stream)
			goto err_writer;
	}
	if (tw_copy_file(c->tw, PT_FILE_KALLSYMS, "/proc/kallsyms") == 0 &&
	    tw_copy_file(c->tw, PT_FILE_MODULES, "/proc/modules") == 0)
		tw_add_features(c->tw, PT_FEAT_KALLSYMS);
	save_vdso(c->tw);
	/* Module tables before the selection: every stepped mapping is known. */
	c->pm = pm_open(&opts->sel, c->tw, (uint32_t)getpid());
	if (!c->pm)
		goto err_writer;
	sync_init(c);
	if (tw_write_header(c->tw, "recording") < 0)
		goto err_writer;
	if (ds_select(ds, &opts->sel) < 0)
		goto err_writer;
	/* Tracing has started: the trace takes its name (an old one becomes DIR.old). */
	if (tw_commit(c->tw) < 0)
		goto err_writer;
	pr_dbg("collecting %u CPUs into %s", c->nr_rings, opts->out_dir);
	return c;

err_writer:
	pm_close(c->pm);
	c->pm = NULL;
	for (uint32_t i = 0; i < c->nr_rings; i++)
		if (c->rings[i].stream)
			tw_stream_close(c->rings[i].stream);
	tw_discard(c->tw);	/* nothing was traced: an earlier trace stays as it was */
err_unmap:
	for (uint32_t i = 0; i < c->nr_rings; i++)
		munmap(c->rings[i].map, c->rings[i].map_size);
	free(c->rings);
err_free:
	free(c);
	return NULL;
}

/*
 * The time a driver task record (FORK, EXEC, EXIT control records, format
 * v2) carries: its u64 time_ns follows 5, 3 and 4 uleb fields.  0 for other
 * records or a short payload.
 */
static uint64_t task_ctl_time(const struct step_item *it)
{
	struct ctl_cursor cur = { it->payload, it->payload + it->payload_len };
	unsigned skip;
	uint64_t v;

	switch (it->ctl_type) {
	case PT_CTL_FORK: skip = 5; break;
	case PT_CTL_EXEC: skip = 3; break;
	case PT_CTL_EXIT: skip = 4; break;
	default: return 0;
	}
	while (skip--)
		if (ctl_get_uleb(&cur, &v))
			return 0;
	return ctl_get_u64(&cur, &v) ? 0 : v;
}

/*
 * Append a sub-buffer's records to the CPU's stream.  Per-CPU streams are
 * merged by time, and between SWITCH records a reader knows no time: after
 * each task record the driver wrote (an execve in particular, whose new
 * mappings the following steps run in), a TIME record carries its time on
 * to the steps that follow.
 */
static int append_records(struct cpu_ring *r, const uint8_t *p, size_t len)
{
	size_t start = 0, off = 0;
	uint64_t last_pc = 0;

	while (off < len) {
		struct step_item it;
		size_t used;
		uint64_t t;

		if (step_decode(p + off, len - off, &last_pc, &it, &used) != STEP_DECODE_OK)
			break;	/* tw_raw below reports it */
		off += used;
		if (it.kind != STEP_ITEM_CTL)
			continue;
		if (it.ctl_type == PT_CTL_SWITCH)
			last_pc = 0;
		t = task_ctl_time(&it);
		if (!t)
			continue;
		if (tw_raw(r->stream, p + start, off - start, &r->markers_lost) < 0)
			return -1;
		tw_time(r->stream, t, PT_SEQ_NONE);
		start = off;
	}
	return tw_raw(r->stream, p + start, len - start, &r->markers_lost);
}

/*
 * Append sub-buffer n of a ring to the CPU's stream; false when it is not
 * complete (yet).  In wrap mode the driver may be overwriting it while we
 * read: copy it, then check its slot still holds sub-buffer n.
 */
static bool take_subbuf(struct collector *c, struct cpu_ring *r, uint64_t n, bool wrap)
{
	uint32_t idx = (uint32_t)(n % r->ctl->nr_subbufs);
	const struct pitrace_subbuf *sb = &r->sb[idx];
	const uint8_t *src = r->data + (size_t)idx * r->ctl->subbuf_size;
	uint32_t used;

	if (__atomic_load_n(&sb->seq, __ATOMIC_ACQUIRE) != n + 1)
		return false;
	used = sb->used;
	if (used > r->ctl->subbuf_size) {
		r->bad++;
		return true;
	}
	if (wrap) {
		if (!c->copy)
			c->copy = malloc(r->ctl->subbuf_size);
		if (!c->copy)
			return true;
		memcpy(c->copy, src, used);
		if (__atomic_load_n(&sb->seq, __ATOMIC_ACQUIRE) != n + 1) {
			c->wrapped = true;
			return true;
		}
		src = c->copy;
	}
	if (append_records(r, src, used) < 0) {
		r->bad++;
		pr_warn("CPU %u: sub-buffer %llu holds a malformed record; the rest of it is dropped",
			r->cpu, (unsigned long long)n);
	}
	return true;
}

/* Copy every completed sub-buffer of every CPU and hand their space back. */
static void drain_rings(struct collector *c)
{
	bool wrap = c->st.config.policy == PITRACE_POLICY_WRAP;

	for (uint32_t i = 0; i < c->nr_rings; i++) {
		struct cpu_ring *r = &c->rings[i];
		uint64_t produced = __atomic_load_n(&r->ctl->produced, __ATOMIC_ACQUIRE);
		uint64_t consumed = r->ctl->consumed;

		if (produced - consumed > r->ctl->nr_subbufs) {
			/* Only possible in wrap mode: the oldest were overwritten. */
			consumed = produced - r->ctl->nr_subbufs;
			c->wrapped = true;
		}
		for (; consumed < produced; consumed++) {
			if (!take_subbuf(c, r, consumed, wrap))
				break;
			__atomic_store_n(&r->ctl->consumed, consumed + 1, __ATOMIC_RELEASE);
		}
	}
}

/*
 * Every record of a time below the returned cut is drained (its task record
 * written, its sub-buffer taken), and every record a CPU writes from now on
 * starts a run at the cut or later; 0 when that cannot be made sure.  A
 * record's time is read where the kernel cannot be preempted (a trap, a
 * tracepoint, perf's output), so once membarrier's RCU grace period has
 * passed, each one read before t0 is in its ring; FLUSH then closes every
 * CPU's partial sub-buffer, so what a CPU writes next starts a new one,
 * with a SWITCH of a later time.  An exec perf has told of and whose path
 * is not known yet holds the cut before it.
 */
static uint64_t sync_cut(struct collector *c)
{
	uint64_t t0 = tw_now_ns(), pending;

	if (syscall(SYS_membarrier, MEMBARRIER_CMD_GLOBAL, 0, 0) < 0 ||
	    ioctl(c->ds->fd, PITRACE_IOC_FLUSH) < 0) {
		pr_warn("cannot make sure how far the trace is whole: %s; a reader following it "
			"waits for the end", strerror(errno));
		c->synced = false;
		return 0;
	}
	pm_drain(c->pm);
	drain_rings(c);
	pending = pm_pending_time(c->pm);
	t0 -= COLLECTOR_CUT_SLACK_NS;
	return pending < t0 ? pending : t0;
}

/*
 * Put what was collected so far on disk, with the header's totals: a
 * collector killed outright leaves a trace readable up to the last sync.
 */
static void sync_trace(struct collector *c)
{
	uint64_t cut = c->synced ? sync_cut(c) : 0;

	for (uint32_t i = 0; i < c->nr_rings; i++)
		if (tw_stream_flush(c->rings[i].stream) < 0)
			c->error = -1;
	if (cut > c->cut_ns) {
		c->cut_ns = cut;
		if (tw_synced_time(c->tw, cut) < 0)
			c->error = -1;
	} else if (tw_write_header(c->tw, "recording") < 0) {
		c->error = -1;
	}
}

int collector_run(struct collector *c, int stop_fd)
{
	const int *pfds;
	size_t npfds = pm_fds(c->pm, &pfds);
	struct pollfd *fds = calloc(npfds + 2, sizeof(*fds));
	/*
	 * Only continuous sessions are drained while tracing: a wrap buffer is a
	 * flight recorder and a stop-when-full buffer a fixed-size snapshot from
	 * the start, both read at the end.
	 */
	bool drain = c->st.config.policy == PITRACE_POLICY_CONTINUOUS;

	uint64_t last_sync = tw_now_ns();

	if (!fds)
		return -1;
	fds[0] = (struct pollfd){ .fd = stop_fd, .events = POLLIN };
	fds[1] = (struct pollfd){ .fd = c->ds->fd, .events = drain ? POLLIN : 0 };
	for (size_t i = 0; i < npfds; i++)
		fds[i + 2] = (struct pollfd){ .fd = pfds[i], .events = POLLIN };
	for (;;) {
		int n = poll(fds, npfds + 2, stop_fd < 0 ? 0 : COLLECTOR_POLL_MS);

		if (n < 0 && errno != EINTR) {
			pr_err("poll: %s", strerror(errno));
			break;
		}
		/* Module tables first: a mapping lands before the steps that run in it. */
		pm_drain(c->pm);
		if (drain)
			drain_rings(c);
		if (tw_now_ns() - last_sync >= COLLECTOR_SYNC_NS) {
			sync_trace(c);
			last_sync = tw_now_ns();
		}
		/*
		 * The trace cannot grow (a full filesystem): the writer keeps what
		 * was written, whole blocks only; stop here, so that the session
		 * ends as cut short and the steps from now on are not taken.
		 */
		if (tw_error(c->tw)) {
			c->error = -1;
			break;
		}
		if (stop_fd < 0 || (n > 0 && (fds[0].revents & (POLLIN | POLLHUP | POLLERR))))
			break;
	}
	free(fds);
	return c->error ? -1 : 0;
}

void collector_set_end_reason(struct collector *c, const char *reason)
{
	c->end_reason = reason;
}

int collector_finish(struct collector *c, struct collector_summary *sum)
{
	uint64_t driver_lost = 0, marker_lost = 0;
	struct pitrace_status st;
	int ret;

	memset(sum, 0, sizeof(*sum));
	/* Stop stepping, close the sub-buffers being filled, read what is left. */
	if (ioctl(c->ds->fd, PITRACE_IOC_OFF) < 0)
		pr_warn("cannot switch tracing off: %s", strerror(errno));
	if (ioctl(c->ds->fd, PITRACE_IOC_FLUSH) < 0)
		pr_warn("cannot flush the ring buffers: %s; the last steps may be missing",
			strerror(errno));
	pm_drain(c->pm);
	drain_rings(c);
	if (ds_status(c->ds, &st) == 0) {
		driver_lost = st.lost;
		/* Count mode: the driver's per-thread COUNT records carry the counts. */
		if (st.config.mode == PITRACE_MODE_COUNT) {
			sum->count_only = true;
			sum->counted = st.steps;
		}
	}
	for (uint32_t i = 0; i < c->nr_rings; i++) {
		struct cpu_ring *r = &c->rings[i];
		uint64_t unmarked = r->ctl->lost - r->ctl->lost_marked;

		/* Steps lost after the last LOST record (a buffer that stopped
		 * when full): the driver had no room to say so; we do. */
		if (r->ctl->lost > r->ctl->lost_marked) {
			struct ctl_payload p = { .len = 0 };

			ctl_put_uleb(&p, unmarked);
			/* a follower has this CPU's runs before the last cut: a new one */
			if (c->synced)
				tw_time(r->stream, tw_now_ns(), PT_SEQ_NONE);
			tw_ctl(r->stream, PT_CTL_LOST, &p);
			r->markers_lost += unmarked;
		}
		marker_lost += c->rings[i].markers_lost;
		if (c->rings[i].bad)
			c->error = -1;
		if (tw_stream_close(c->rings[i].stream) < 0)
			c->error = -1;
		munmap(c->rings[i].map, c->rings[i].map_size);
	}
	sum->cpus = c->nr_rings;
	/* The driver's counters are the truth; markers cover a driver that lacks them. */
	sum->lost = driver_lost > marker_lost ? driver_lost : marker_lost;
	tw_add_lost(c->tw, sum->lost);
	{
		/* with the steps that never reached the disk (a write error) */
		struct pt_attr_totals totals;

		tw_get_totals(c->tw, &totals);
		sum->lost = totals.lost;
	}
	sum->write_error = tw_error(c->tw);
	pm_drain(c->pm);
	sum->perf_lost = pm_records_lost(c->pm);
	sum->task_records = pm_records_written(c->pm);
	pm_tasks_seen(c->pm, &sum->processes, &sum->threads);
	pm_close(c->pm);
	if (sum->perf_lost) {
		/* the tasks file may not name every thread the streams do */
		tw_set_attr(c->tw, PT_ATTR_TASKS_LOST, &sum->perf_lost, sizeof(sum->perf_lost));
		tw_set_attr_str(c->tw, PT_ATTR_NOTE,
				"perf dropped some mmap/fork/exit records: module tables may be incomplete");
	}
	if (c->wrapped)
		tw_set_attr_str(c->tw, PT_ATTR_NOTE,
				"wrap mode: older sub-buffers were overwritten before they were read");
	tw_set_attr_str(c->tw, PT_ATTR_END_REASON,
			c->error || tw_error(c->tw) ? PT_END_FAILED :
			c->end_reason ? c->end_reason : PT_END_STOPPED);
	trace_attrs_stop(c->tw);
	sum->steps = tw_total_steps(c->tw);
	sum->wrapped = c->wrapped;
	ret = tw_close(c->tw, c->error ? "interrupted" : "complete");
	if (c->error)
		ret = -1;
	free(c->rings);
	free(c->copy);
	free(c);
	return ret < 0 ? -1 : 0;
}

void collector_summary_line(const struct collector_summary *sum, const char *dir, char *buf,
			    size_t size)
{
	char q[320];

	dir = td_quote(dir, q, sizeof(q));
	if (sum->count_only)
		snprintf(buf, size, "%llu steps counted on %u CPUs: trace in %s",
			 (unsigned long long)sum->counted, sum->cpus, dir);
	else
		snprintf(buf, size, "%llu steps, %llu lost, %u process%s, %u thread%s: trace in %s%s%s",
			 (unsigned long long)sum->steps, (unsigned long long)sum->lost,
			 sum->processes, sum->processes == 1 ? "" : "es", sum->threads,
			 sum->threads == 1 ? "" : "s", dir,
			 sum->write_error ? ", cut short: " : "",
			 sum->write_error ? strerror(sum->write_error) : "");
}
