// SPDX-License-Identifier: GPL-2.0
/*
 * Module tables for driver traces: /proc snapshots of the selected processes
 * and a system-wide perf dummy event's mmap2/comm/fork/exit records, written
 * as task records.  The driver decides what is stepped; this file mirrors its
 * selection rules closely enough that every stepped process has its maps.
 */
#define PR_FMT "perf_maps"
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "pitrace/driver_session.h"
#include "util/hashtab.h"
#include "util/log.h"
#include "pitrace/perf_maps.h"
#include "util/build_id.h"
#include "util/trace_writer.h"

#define PM_RING_PAGES 64	/* data pages per CPU: 256 KiB of records */

/* The sample_id every record ends with (sample_type TID | TIME). */
struct pm_sample_id {
	uint32_t pid, tid;
	uint64_t time;
} __attribute__((packed));

struct pm_rec_task {		  /* PERF_RECORD_FORK, PERF_RECORD_EXIT */
	struct perf_event_header h;
	uint32_t pid, ppid, tid, ptid;
	uint64_t time;
} __attribute__((packed));

struct pm_rec_comm {		  /* PERF_RECORD_COMM */
	struct perf_event_header h;
	uint32_t pid, tid;
	char comm[];
} __attribute__((packed));

struct pm_rec_mmap2 {		  /* PERF_RECORD_MMAP2 */
	struct perf_event_header h;
	uint32_t pid, tid;
	uint64_t addr, len, pgoff;
	union {
		struct {
			uint32_t maj, min;
			uint64_t ino, ino_generation;
		};
		struct {	  /* with PERF_RECORD_MISC_MMAP_BUILD_ID */
			uint8_t build_id_size;
			uint8_t reserved1;
			uint16_t reserved2;
			uint8_t build_id[20];
		};
	};
	uint32_t prot, flags;
	char filename[];
} __attribute__((packed));

struct pm_rec_lost {		  /* PERF_RECORD_LOST */
	struct perf_event_header h;
	uint64_t id, lost;
} __attribute__((packed));

#ifndef PERF_RECORD_MISC_MMAP_BUILD_ID
#define PERF_RECORD_MISC_MMAP_BUILD_ID (1 << 14)
#endif

void pm_attr_init(struct perf_event_attr *attr)
{
	memset(attr, 0, sizeof(*attr));
	attr->size = sizeof(*attr);
	attr->type = PERF_TYPE_SOFTWARE;
	attr->config = PERF_COUNT_SW_DUMMY;
	attr->sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME;
	attr->sample_id_all = 1;
	attr->mmap = 1;
	attr->mmap2 = 1;
	attr->build_id = 1;
	attr->comm = 1;
	attr->comm_exec = 1;
	attr->task = 1;
	attr->use_clockid = 1;
	attr->clockid = CLOCK_MONOTONIC;	/* the clock of the driver's records */
	attr->watermark = 1;
	attr->wakeup_watermark = PM_RING_PAGES * 4096 / 4;
}

/* A string field of a record: NUL-terminated before the sample_id. */
static const char *rec_string(const struct perf_event_header *h, const char *s)
{
	const char *end = (const char *)h + h->size - sizeof(struct pm_sample_id);

	if (s >= end || !memchr(s, 0, (size_t)(end - s)))
		return NULL;
	return s;
}

int pm_convert(const struct perf_event_header *h, struct pm_event *ev)
{
	const struct pm_sample_id *sid;

	memset(ev, 0, sizeof(*ev));
	if (h->size < sizeof(*h) + sizeof(*sid))
		return -1;
	sid = (const struct pm_sample_id *)((const char *)h + h->size - sizeof(*sid));
	ev->c.seq = PT_SEQ_NONE;	/* per-CPU traces order by time */
	ev->c.time_ns = sid->time;

	switch (h->type) {
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT: {
		const struct pm_rec_task *r = (const void *)h;

		if (h->size < sizeof(*r) + sizeof(*sid))
			return -1;
		ev->c.pid = r->pid;
		ev->c.tid = r->tid;
		ev->c.time_ns = r->time;
		if (h->type == PERF_RECORD_EXIT) {
			ev->type = PT_TASK_EXIT;
			ev->exit.status = -1;	/* perf does not know it */
			ev->len = sizeof(ev->exit);
			return 1;
		}
		ev->type = PT_TASK_FORK;
		ev->fork.ppid = r->ppid;
		ev->fork.ptid = r->ptid;
		ev->fork.flags = r->pid == r->ppid ? PT_FORK_THREAD : 0;
		ev->len = sizeof(ev->fork);
		return 1;
	}
	case PERF_RECORD_COMM: {
		const struct pm_rec_comm *r = (const void *)h;

		if (h->size < sizeof(*r) + sizeof(*sid))
			return -1;
		ev->str = rec_string(h, r->comm);
		if (!ev->str)
			return -1;
		ev->type = PT_TASK_COMM;
		ev->exec = h->misc & PERF_RECORD_MISC_COMM_EXEC;
		ev->c.pid = r->pid;
		ev->c.tid = r->tid;
		ev->len = sizeof(ev->comm);
		return 1;
	}
	case PERF_RECORD_MMAP2: {
		const struct pm_rec_mmap2 *r = (const void *)h;

		if (h->size < sizeof(*r) + sizeof(*sid))
			return -1;
		ev->str = rec_string(h, r->filename);
		if (!ev->str)
			return -1;
		if (!(r->prot & PROT_EXEC))
			return 0;
		ev->type = PT_TASK_MMAP;
		ev->c.pid = r->pid;
		ev->c.tid = 0;	/* mappings belong to the process */
		ev->mmap.start = r->addr;
		ev->mmap.len = r->len;
		ev->mmap.pgoff = r->pgoff;
		ev->mmap.prot = r->prot;
		if ((h->misc & PERF_RECORD_MISC_MMAP_BUILD_ID) && r->build_id_size <= PT_BUILD_ID_MAX) {
			ev->mmap.build_id_len = r->build_id_size;
			memcpy(ev->mmap.build_id, r->build_id, r->build_id_size);
		}
		if (!ev->str[0])
			ev->str = "[anon]";
		ev->len = sizeof(ev->mmap);
		return 1;
	}
	default:
		return 0;
	}
}

static inline uint64_t pid_hash(const uint32_t *pid)
{
	return hashtab_mix64(*pid);
}

static inline bool pid_eq(const uint32_t *a, const uint32_t *b)
{
	return *a == *b;
}

/* A set of pids. */
HASHTAB_DEFINE(pid_set, uint32_t, uint8_t, pid_hash, pid_eq)

static bool pid_set_has(const struct pid_set *s, uint32_t pid)
{
	return pid_set_find(s, &pid) != NULL;
}

/* -1: out of memory. */
static int pid_set_add(struct pid_set *s, uint32_t pid)
{
	bool added;

	return pid_set_insert(s, &pid, &added) ? 0 : -1;
}

static void pid_set_del(struct pid_set *s, uint32_t pid)
{
	pid_set_remove(s, &pid);
}

struct pm_ring {
	int fd;
	struct perf_event_mmap_page *meta;
	uint8_t *data;
	size_t size;		  /* data area bytes, a power of two */
};

/* A process whose execve was seen; its EXEC and COMM records wait for the path. */
struct pm_pending_exec {
	uint32_t pid, tid;
	uint64_t time_ns;
	char comm[PITRACE_COMM_LEN + 1];
};

struct perf_maps {
	struct pitrace_select sel;
	struct trace_writer *tw;
	uint32_t self;
	struct pm_ring *rings;
	int *fds;
	size_t nr_rings;
	struct pid_set selected;	  /* TREE and COMM selections */
	struct pm_pending_exec *pending;
	size_t nr_pending;
	uint64_t written, lost;
	uint32_t processes, threads;
	uint8_t scratch[65536];	  /* a record that wraps the ring's end */
};

/* Whether the driver steps pid (for kinds that need no history). */
static bool pm_selected(const struct perf_maps *pm, uint32_t pid)
{
	if (pid == pm->self)
		return false;
	if (pm->sel.kind == PITRACE_SEL_TREE || pm->sel.kind == PITRACE_SEL_COMM)
		return pid_set_has(&pm->selected, pid);
	return sel_match(&pm->sel, pid, NULL);
}

static void pm_count_task(struct perf_maps *pm, bool new_process)
{
	tw_count_task(pm->tw, new_process);
	pm->threads++;
	if (new_process)
		pm->processes++;
}

static void pm_write(struct perf_maps *pm, unsigned type, const void *rec, size_t len,
		     const char *str)
{
	if (tw_task(pm->tw, type, rec, len, str) == 0)
		pm->written++;
}

/* The selected process's current executable mappings, from /proc/PID/maps. */
static void snapshot_maps(struct perf_maps *pm, uint32_t pid, uint64_t time_ns)
{
	char path[64], line[PATH_MAX + 128];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%u/maps", pid);
	f = fopen(path, "r");
	if (!f) {
		pr_dbg("cannot read %s: %s", path, strerror(errno));
		return;
	}
	while (fgets(line, sizeof(line), f)) {
		struct pt_task_mmap m = { .c = { .time_ns = time_ns, .seq = PT_SEQ_NONE, .pid = pid } };
		unsigned long long start, end, off;
		char perms[8];
		int name_at = 0;
		char *name;

		if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %n", &start, &end, perms, &off,
			   &name_at) < 4 || !name_at)
			continue;
		if (perms[2] != 'x')
			continue;
		name = line + name_at;
		name[strcspn(name, "\n")] = 0;
		m.start = start;
		m.len = end - start;
		m.pgoff = off;
		m.prot = (perms[0] == 'r' ? PROT_READ : 0) | (perms[1] == 'w' ? PROT_WRITE : 0) |
			 PROT_EXEC;
		/*
		 * Its build-id, as perf's mmap2 records carry one: the file
		 * mapped (map_files: even if the path was replaced since), so
		 * that post finds it by build-id where the path is missing.
		 */
		if (name[0] == '/') {
			char mf[96];

			snprintf(mf, sizeof(mf), "/proc/%u/map_files/%llx-%llx", pid, start, end);
			m.build_id_len = (uint8_t)sym_file_build_id(mf, m.build_id, sizeof(m.build_id));
			if (!m.build_id_len)
				m.build_id_len = (uint8_t)sym_file_build_id(name, m.build_id,
									    sizeof(m.build_id));
		}
		pm_write(pm, PT_TASK_MMAP, &m, sizeof(m), *name ? name : "[anon]");
	}
	fclose(f);
}

static int read_line(const char *path, char *buf, size_t size)
{
	FILE *f = fopen(path, "r");

	if (!f)
		return -1;
	if (!fgets(buf, (int)size, f)) {
		fclose(f);
		return -1;
	}
	fclose(f);
	buf[strcspn(buf, "\n")] = 0;
	return 0;
}

/* One selected process at start: its executable, threads' comms, maps. */
static void snapshot_process(struct perf_maps *pm, uint32_t pid, uint64_t time_ns)
{
	struct pt_task_common c = { .time_ns = time_ns, .seq = PT_SEQ_NONE, .pid = pid, .tid = pid };
	char path[64], exe[PATH_MAX], comm[64];
	struct dirent *e;
	ssize_t n;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%u/exe", pid);
	n = readlink(path, exe, sizeof(exe) - 1);
	if (n > 0) {
		exe[n] = 0;
		pm_write(pm, PT_TASK_EXEC, &c, sizeof(c), exe);
	}
	snprintf(path, sizeof(path), "/proc/%u/task", pid);
	d = opendir(path);
	while (d && (e = readdir(d))) {
		char cpath[96];
		uint32_t tid = (uint32_t)strtoul(e->d_name, NULL, 10);

		if (!tid)
			continue;
		snprintf(cpath, sizeof(cpath), "/proc/%u/task/%u/comm", pid, tid);
		if (read_line(cpath, comm, sizeof(comm)) < 0)
			continue;
		c.tid = tid;
		pm_write(pm, PT_TASK_COMM, &c, sizeof(c), comm);
		pm_count_task(pm, tid == pid);
	}
	if (d)
		closedir(d);
	snapshot_maps(pm, pid, time_ns);
}

struct proc_entry {
	uint32_t pid, ppid;
	bool selected;
	char comm[PITRACE_COMM_LEN];
};

/* Every process now, with its parent and comm. */
static struct proc_entry *list_processes(size_t *nr)
{
	struct proc_entry *v = NULL;
	size_t n = 0, cap = 0;
	struct dirent *e;
	DIR *d = opendir("/proc");

	*nr = 0;
	if (!d)
		return NULL;
	while ((e = readdir(d))) {
		char path[64], stat[512], *rp;
		uint32_t pid = (uint32_t)strtoul(e->d_name, NULL, 10);
		struct proc_entry *p;

		if (!pid)
			continue;
		snprintf(path, sizeof(path), "/proc/%u/stat", pid);
		if (read_line(path, stat, sizeof(stat)) < 0)
			continue;
		/* "pid (comm) S ppid ...": comm may hold spaces and parentheses. */
		rp = strrchr(stat, ')');
		if (!rp || !strchr(stat, '('))
			continue;
		if (n == cap) {
			struct proc_entry *nv = realloc(v, (cap = cap ? cap * 2 : 256) * sizeof(*v));

			if (!nv)
				break;
			v = nv;
		}
		p = &v[n++];
		memset(p, 0, sizeof(*p));
		p->pid = pid;
		p->ppid = (uint32_t)strtoul(rp + 4, NULL, 10);
		*rp = 0;
		snprintf(p->comm, sizeof(p->comm), "%s", strchr(stat, '(') + 1);
	}
	closedir(d);
	*nr = n;
	return v;
}

static void snapshot(struct perf_maps *pm, uint64_t time_ns)
{
	size_t nr;
	struct proc_entry *procs = list_processes(&nr);
	bool changed = true;

	for (size_t i = 0; i < nr; i++)
		procs[i].selected = procs[i].pid != pm->self &&
				    sel_match(&pm->sel, procs[i].pid, procs[i].comm);
	/* A tree: the root and whatever descends from a selected process. */
	while (pm->sel.kind == PITRACE_SEL_TREE && changed) {
		changed = false;
		for (size_t i = 0; i < nr; i++) {
			if (procs[i].selected)
				continue;
			for (size_t j = 0; j < nr; j++) {
				if (procs[j].selected && procs[j].pid == procs[i].ppid &&
				    procs[i].pid != pm->self) {
					procs[i].selected = changed = true;
					break;
				}
			}
		}
	}
	if (pm->sel.kind == PITRACE_SEL_TREE && pm->sel.pids[0] != pm->self)
		pid_set_add(&pm->selected, pm->sel.pids[0]);
	for (size_t i = 0; i < nr; i++) {
		if (!procs[i].selected)
			continue;
		pid_set_add(&pm->selected, procs[i].pid);
		snapshot_process(pm, procs[i].pid, time_ns);
	}
	free(procs);
}

static int open_rings(struct perf_maps *pm)
{
	long ncpu = sysconf(_SC_NPROCESSORS_CONF);
	struct perf_event_attr attr;
	size_t page = (size_t)sysconf(_SC_PAGESIZE);

	pm_attr_init(&attr);
	pm->rings = calloc((size_t)ncpu, sizeof(*pm->rings));
	pm->fds = calloc((size_t)ncpu, sizeof(*pm->fds));
	if (!pm->rings || !pm->fds)
		return -1;
	for (long cpu = 0; cpu < ncpu; cpu++) {
		struct pm_ring *r = &pm->rings[pm->nr_rings];
		void *m;
		int fd = (int)syscall(SYS_perf_event_open, &attr, -1, (int)cpu, -1,
				      PERF_FLAG_FD_CLOEXEC);

		if (fd < 0) {
			if (errno == ENODEV || errno == EINVAL)
				continue;	/* offline CPU */
			pr_err("cannot open a perf event on CPU %ld for the module tables: %s",
			       cpu, strerror(errno));
			return -1;
		}
		m = mmap(NULL, (PM_RING_PAGES + 1) * page, PROT_READ | PROT_WRITE, MAP_SHARED,
			 fd, 0);
		if (m == MAP_FAILED) {
			pr_err("cannot map the perf ring of CPU %ld: %s", cpu, strerror(errno));
			close(fd);
			return -1;
		}
		r->fd = fd;
		r->meta = m;
		r->data = (uint8_t *)m + page;
		r->size = PM_RING_PAGES * page;
		pm->fds[pm->nr_rings++] = fd;
	}
	if (!pm->nr_rings) {
		pr_err("cannot open perf events for the module tables on any CPU");
		return -1;
	}
	return 0;
}

struct perf_maps *pm_open(const struct pitrace_select *sel, struct trace_writer *tw,
			  uint32_t self)
{
	struct perf_maps *pm = calloc(1, sizeof(*pm));

	if (!pm)
		return NULL;
	pm->sel = *sel;
	pm->tw = tw;
	pm->self = self;
	/* Rings first, snapshot second: a change in between is seen twice, never missed. */
	if (open_rings(pm) < 0) {
		pm_close(pm);
		return NULL;
	}
	snapshot(pm, tw_now_ns());
	return pm;
}

size_t pm_fds(const struct perf_maps *pm, const int **fds)
{
	*fds = pm->fds;
	return pm->nr_rings;
}

uint64_t pm_records_written(const struct perf_maps *pm)
{
	return pm->written;
}

uint64_t pm_records_lost(const struct perf_maps *pm)
{
	return pm->lost;
}

void pm_tasks_seen(const struct perf_maps *pm, uint32_t *processes, uint32_t *threads)
{
	*processes = pm->processes;
	*threads = pm->threads;
}

uint64_t pm_pending_time(const struct perf_maps *pm)
{
	uint64_t t = UINT64_MAX;

	for (size_t i = 0; i < pm->nr_pending; i++)
		if (pm->pending[i].time_ns < t)
			t = pm->pending[i].time_ns;
	return t;
}

/* A record copied out of a ring, waiting to be sorted by time. */
struct pm_item {
	struct pm_event ev;
	size_t order;		  /* arrival order: keeps ties stable */
	void *rec;
};

static int item_cmp(const void *a, const void *b)
{
	const struct pm_item *x = a, *y = b;

	if (x->ev.c.time_ns != y->ev.c.time_ns)
		return x->ev.c.time_ns < y->ev.c.time_ns ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

static struct pm_pending_exec *pending_find(struct perf_maps *pm, uint32_t pid)
{
	for (size_t i = 0; i < pm->nr_pending; i++)
		if (pm->pending[i].pid == pid)
			return &pm->pending[i];
	return NULL;
}

/* Write the EXEC (and COMM) records of pid that waited for the path, if any. */
static void pending_flush(struct perf_maps *pm, uint32_t pid, const char *path)
{
	struct pm_pending_exec *p = pending_find(pm, pid);
	struct pt_task_common c;

	if (!p)
		return;
	c = (struct pt_task_common){ .time_ns = p->time_ns, .seq = PT_SEQ_NONE,
				     .pid = p->pid, .tid = p->tid };
	pm_write(pm, PT_TASK_EXEC, &c, sizeof(c), path);
	pm_write(pm, PT_TASK_COMM, &c, sizeof(c), p->comm);
	*p = pm->pending[--pm->nr_pending];
}

/* Remember an execve until the new image's first executable mapping names the file. */
static void pending_add(struct perf_maps *pm, const struct pm_event *ev)
{
	struct pm_pending_exec *p = pending_find(pm, ev->c.pid);

	if (!p) {
		struct pm_pending_exec *n = realloc(pm->pending, (pm->nr_pending + 1) * sizeof(*n));

		if (!n) {	/* no memory: the record goes without its path */
			pm_write(pm, PT_TASK_COMM, &ev->comm, ev->len, ev->str);
			return;
		}
		pm->pending = n;
		p = &pm->pending[pm->nr_pending++];
	}
	p->pid = ev->c.pid;
	p->tid = ev->c.tid;
	p->time_ns = ev->c.time_ns;
	snprintf(p->comm, sizeof(p->comm), "%s", ev->str);
}

static void handle_comm(struct perf_maps *pm, const struct pm_event *ev)
{
	uint32_t pid = ev->c.pid;
	bool was = pm_selected(pm, pid);
	bool now = was;

	if (pm->sel.kind == PITRACE_SEL_COMM && pid != pm->self && ev->c.tid == pid)
		now = sel_match(&pm->sel, pid, ev->str);
	if (!was && !now)
		return;
	if (!was && now) {
		pid_set_add(&pm->selected, pid);
		pm_count_task(pm, true);
	}
	if (ev->exec && now)
		pending_add(pm, ev);
	else
		pm_write(pm, PT_TASK_COMM, &ev->comm, ev->len, ev->str);
	/* Renamed into the selection without an exec: its current maps are news. */
	if (!was && now && !ev->exec)
		snapshot_maps(pm, pid, ev->c.time_ns);
	if (was && !now)
		pid_set_del(&pm->selected, pid);
}

static void handle_event(struct perf_maps *pm, const struct pm_event *ev)
{
	uint32_t pid = ev->c.pid;
	bool thread;

	switch (ev->type) {
	case PT_TASK_FORK:
		thread = ev->fork.flags & PT_FORK_THREAD;
		if (thread || pm->sel.kind == PITRACE_SEL_TREE || pm->sel.kind == PITRACE_SEL_COMM) {
			/* Threads and tree members follow their parent; so does a
			 * comm match, the comm being inherited. */
			if (!pm_selected(pm, ev->fork.ppid) || pid == pm->self)
				return;
			if (!thread)
				pid_set_add(&pm->selected, pid);
		} else if (!pm_selected(pm, pid)) {
			return;
		}
		pm_count_task(pm, !thread);
		pm_write(pm, PT_TASK_FORK, &ev->fork, ev->len, NULL);
		break;
	case PT_TASK_COMM:
		handle_comm(pm, ev);
		break;
	case PT_TASK_EXIT:
		if (!pm_selected(pm, pid))
			return;
		pending_flush(pm, pid, "[unknown]");
		pm_write(pm, PT_TASK_EXIT, &ev->exit, ev->len, NULL);
		if (ev->c.tid == pid)
			pid_set_del(&pm->selected, pid);
		break;
	case PT_TASK_MMAP:
		if (!pm_selected(pm, pid))
			return;
		pending_flush(pm, pid, ev->str);
		pm_write(pm, PT_TASK_MMAP, &ev->mmap, ev->len, ev->str);
		break;
	}
}

/* Copy out every complete record of one ring, releasing its space. */
static int ring_read(struct perf_maps *pm, struct pm_ring *r, struct pm_item **items, size_t *nr,
		     size_t *cap)
{
	uint64_t head = __atomic_load_n(&r->meta->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = r->meta->data_tail;

	while (tail < head) {
		struct perf_event_header h;
		size_t off = tail & (r->size - 1);
		const uint8_t *rec;
		struct pm_item *it;

		memcpy(&h, r->data + off, sizeof(h));	/* 8-aligned: never wraps */
		if (h.size < sizeof(h) || tail + h.size > head)
			break;
		if (off + h.size > r->size) {
			size_t first = r->size - off;

			memcpy(pm->scratch, r->data + off, first);
			memcpy(pm->scratch + first, r->data, h.size - first);
			rec = pm->scratch;
		} else {
			rec = r->data + off;
		}
		tail += h.size;
		if (h.type == PERF_RECORD_LOST) {
			const struct pm_rec_lost *l = (const void *)rec;

			if (h.size >= sizeof(*l))
				pm->lost += l->lost;
			continue;
		}
		if (*nr == *cap) {
			struct pm_item *n = realloc(*items, (*cap = *cap ? *cap * 2 : 256) *
							    sizeof(**items));

			if (!n)
				return -1;
			*items = n;
		}
		it = &(*items)[*nr];
		it->rec = malloc(h.size);
		if (!it->rec)
			return -1;
		memcpy(it->rec, rec, h.size);
		if (pm_convert(it->rec, &it->ev) != 1) {
			free(it->rec);
			continue;
		}
		it->order = (*nr)++;
	}
	__atomic_store_n(&r->meta->data_tail, tail, __ATOMIC_RELEASE);
	return 0;
}

int pm_drain(struct perf_maps *pm)
{
	struct pm_item *items = NULL;
	size_t nr = 0, cap = 0;
	int ret = 0;

	for (size_t i = 0; i < pm->nr_rings && !ret; i++)
		ret = ring_read(pm, &pm->rings[i], &items, &nr, &cap);
	qsort(items, nr, sizeof(*items), item_cmp);
	for (size_t i = 0; i < nr; i++) {
		handle_event(pm, &items[i].ev);
		free(items[i].rec);
	}
	free(items);
	if (ret)
		pr_err("out of memory reading perf events");
	return ret;
}

void pm_close(struct perf_maps *pm)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);

	if (!pm)
		return;
	if (pm->rings && pm->tw)
		pm_drain(pm);
	while (pm->nr_pending)
		pending_flush(pm, pm->pending[0].pid, "[unknown]");
	for (size_t i = 0; i < pm->nr_rings; i++) {
		munmap(pm->rings[i].meta, (PM_RING_PAGES + 1) * page);
		close(pm->rings[i].fd);
	}
	free(pm->rings);
	free(pm->fds);
	pid_set_free(&pm->selected);
	free(pm->pending);
	free(pm);
}
