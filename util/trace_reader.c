// SPDX-License-Identifier: GPL-2.0
/*
 * Reading a trace directory: file headers, the header's attributes and the
 * tasks file, verified and checked, and the list of step streams
 * (stream_reader.c reads one stream, trace_iter.c merges them).
 */
#define PR_FMT "reader"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include "util/log.h"
#include "util/stepcodec.h"
#include "util/trace_dir.h"
#include "util/trace_reader.h"
#include "util/trace_record.h"

/* A growing NULL-terminated list of strings (argv, notes): each push is O(1). */
struct strv {
	char **v;
	size_t n, cap;
};

struct thread_entry {
	uint32_t tid, pid;
	char comm[16];
	bool has_comm;
};

struct trace {
	char *dir;
	bool force;
	bool follow;		  /* TRACE_OPEN_FOLLOW of a trace in state recording */
	bool follow_over;	  /* the recorder let go (or Ctrl-C): read what is there */
	bool synced;		  /* the header has SYNCED (v9): new tasks and streams are
				   * followed too (trace_follow_refresh) */
	uint64_t synced_seq;	  /* its seq: every record placed before it is on disk */
	bool synced_time;	  /* ... SYNCED_TIME (v10): synced_seq is a time, cut_ns */
	size_t tasks_end;	  /* the tasks file's bytes read, to its last CHECK */
	uint32_t tasks_crc;	  /* their CRC-32, for the CHECKs after them */
	bool tasks_checked;	  /* it has CHECKs (v6): more can be read as it grows */
	uint8_t **more_tasks;	  /* the tasks file's later reads: later tasks' strings */
	size_t nr_more_tasks;
	struct trace_info info;
	char *strings[8];	  /* owned copies of info's string attributes */
	struct strv argv, on_symbols, notes; /* info's lists */
	bool totals_seen;	  /* the header has TOTALS (and counted, v6: counted_seen) */
	bool counted_seen;
	uint8_t *tasks_data;	  /* the tasks file; task strings point into it */
	struct trace_task_rec *tasks;
	size_t nr_tasks, tasks_cap;
	struct thread_entry *threads; /* sorted by tid */
	size_t nr_threads;
	struct trace_stream_info **streams; /* each where it stays: followed, more come */
	size_t nr_streams;
};

static bool host_is_little_endian(void)
{
	const uint16_t one = 1;

	return *(const uint8_t *)&one == 1;
}

static char *path_join(const char *dir, const char *name)
{
	size_t n = strlen(dir) + strlen(name) + 2;
	char *p = malloc(n);

	if (p)
		snprintf(p, n, "%s/%s", dir, name);
	return p;
}

static const char *kind_name(unsigned kind)
{
	switch (kind) {
	case PT_KIND_HEADER: return "header";
	case PT_KIND_TASKS: return "tasks";
	case PT_KIND_STEPS: return "steps";
	}
	return "unknown";
}

/*
 * Damage in the header or tasks file: an error (-1), or with --force a
 * warning and 0, the file then read as far as it goes (then: "up to there",
 * "as it is").
 */
static __attribute__((format(printf, 4, 5))) int file_damage(const struct trace *t,
							    const char *path, const char *then,
							    const char *fmt, ...)
{
	char what[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	if (t->force) {
		pr_warn("%s: %s; reading %s", path, what, then);
		return 0;
	}
	pr_err("%s: %s (--force reads %s)", path, what, then);
	return -1;
}

const char *trace_file_header_problem(const struct pt_file_header *h, size_t have, unsigned kind,
				      char *buf, size_t size)
{
	if (have < sizeof(*h))
		snprintf(buf, size, "truncated file header (%zu of %zu bytes)", have, sizeof(*h));
	else if (memcmp(h->magic, PT_MAGIC, sizeof(PT_MAGIC)) != 0)
		snprintf(buf, size, "bad magic: not a pitrace file");
	else if (h->endian != (host_is_little_endian() ? PT_ENDIAN_LITTLE : PT_ENDIAN_BIG))
		snprintf(buf, size, "written in the other byte order (endian %u); this %s cannot "
			 "read it", h->endian, log_progname);
	else if (h->min_reader > PT_FORMAT_VERSION)
		snprintf(buf, size, "format version %u needs a newer %s (this one reads up to %u)",
			 h->min_reader, log_progname, PT_FORMAT_VERSION);
	else if (h->min_reader > h->version)
		snprintf(buf, size, "corrupt file header (version %u, readable from version %u)",
			 h->version, h->min_reader);
	else if (kind && h->kind != kind)
		snprintf(buf, size, "not a %s file (kind %u, %s)", kind_name(kind), h->kind,
			 kind_name(h->kind));
	else
		return NULL;
	return buf;
}

int trace_check_file_header(const char *path, const struct pt_file_header *h, size_t have,
			    unsigned kind)
{
	char buf[256];

	if (!trace_file_header_problem(h, have, kind, buf, sizeof(buf)))
		return 0;
	pr_err("%s: %s", path, buf);
	return -1;
}

/* What a path is, for a refusal: "a FIFO", "a symbolic link to a FIFO". */
static void file_type_name(const char *path, mode_t mode, char *buf, size_t size)
{
	struct stat l;
	const char *what = S_ISFIFO(mode) ? "a FIFO" : S_ISSOCK(mode) ? "a socket"
			 : S_ISCHR(mode) ? "a character device" : S_ISBLK(mode) ? "a block device"
			 : S_ISDIR(mode) ? "a directory" : "not a file";
	bool link = lstat(path, &l) == 0 && S_ISLNK(l.st_mode);

	snprintf(buf, size, "%s%s", link ? "a symbolic link to " : "", what);
}

static void refuse_not_regular(const char *path, mode_t mode)
{
	char what[64];

	file_type_name(path, mode, what, sizeof(what));
	pr_err("%s: not a regular file (%s)", path, what);
}

static int read_full(int fd, void *buf, size_t len, size_t *got)
{
	*got = 0;
	while (*got < len) {
		ssize_t n = read(fd, (uint8_t *)buf + *got, len - *got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		if (n == 0)
			break;
		*got += (size_t)n;
	}
	return 0;
}

int trace_open_file(const char *path, uint64_t *size)
{
	struct stat st;
	off_t hole;
	int fd, fl;

	/* looked at before it is opened: opening a FIFO waits for a writer,
	 * opening a device may act (a tape rewinds) */
	if (stat(path, &st) < 0)
		goto err_open;
	if (!S_ISREG(st.st_mode))
		goto err_type;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0)
		goto err_open;
	/* what was opened, should the path have been swapped since */
	if (fstat(fd, &st) < 0) {
		pr_err("cannot read %s: %s", path, strerror(errno));
		goto err_close;
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		goto err_type;
	}
	fl = fcntl(fd, F_GETFL);
	if (fl < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) < 0) {
		pr_err("cannot read %s: %s", path, strerror(errno));
		goto err_close;
	}
	/* writers write every byte in order: a hole is no trace's, and its
	 * size (3 GiB, say) nothing to allocate for */
	hole = lseek(fd, 0, SEEK_HOLE);
	if (hole >= 0 && hole < st.st_size) {
		pr_err("%s: a sparse file (a hole at byte %lld of %lld): not written by a recorder",
		       path, (long long)hole, (long long)st.st_size);
		goto err_close;
	}
	if (lseek(fd, 0, SEEK_SET) < 0) {
		pr_err("cannot read %s: %s", path, strerror(errno));
		goto err_close;
	}
	*size = (uint64_t)st.st_size;
	return fd;

err_open:
	if (errno == ENOENT)
		pr_err("%s: missing", path);
	else
		pr_err("cannot open %s: %s", path, strerror(errno));
	return -1;
err_type:
	refuse_not_regular(path, st.st_mode);
	return -1;
err_close:
	close(fd);
	return -1;
}

int trace_load_file(const char *path, unsigned kind, struct pt_file_header *h, uint8_t **data,
		    size_t *len)
{
	uint8_t *buf = NULL;
	uint64_t size;
	size_t got;
	int fd = trace_open_file(path, &size);

	if (fd < 0)
		return -1;
	/* the file header first: a file that is no trace's gets nothing allocated */
	if (read_full(fd, h, sizeof(*h), &got) < 0) {
		pr_err("cannot read %s: %s", path, strerror(errno));
		goto err_close;
	}
	if (trace_check_file_header(path, h, got, kind) < 0)
		goto err_close;
	if (kind == PT_KIND_HEADER && size > PT_HEADER_FILE_MAX) {
		pr_err("%s: %llu bytes: larger than a header file can be (%u MiB)", path,
		       (unsigned long long)size, PT_HEADER_FILE_MAX >> 20);
		goto err_close;
	}
	if (size > SIZE_MAX - 1 || !(buf = malloc((size_t)size + 1))) {
		pr_err("%s: out of memory (%llu bytes)", path, (unsigned long long)size);
		goto err_close;
	}
	memcpy(buf, h, sizeof(*h));
	if (size > sizeof(*h) && read_full(fd, buf + sizeof(*h), (size_t)size - sizeof(*h),
					   &got) < 0) {
		pr_err("cannot read %s: %s", path, strerror(errno));
		goto err_free;
	}
	close(fd);
	*data = buf;
	*len = sizeof(*h) + (size > sizeof(*h) ? got : 0);
	return 0;

err_free:
	free(buf);
err_close:
	close(fd);
	return -1;
}

/* ---- the header file ---- */

static void strv_push(struct strv *l, const char *s)
{
	if (l->n + 2 > l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 8;
		char **v = realloc(l->v, cap * sizeof(*v));

		if (!v)
			return;	/* out of memory: the list just ends early */
		l->v = v;
		l->cap = cap;
	}
	l->v[l->n] = strdup(s);
	if (l->v[l->n])
		l->n++;
	l->v[l->n] = NULL;
}

static void strv_free(struct strv *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
	memset(l, 0, sizeof(*l));
}

static char *payload_str(const uint8_t *p, size_t len)
{
	return strndup((const char *)p, len);
}

static bool all_zero(const uint8_t *p, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (p[i])
			return false;
	return true;
}

/*
 * The header's CHECK attribute (v6): a CRC-32 of every byte before it, and
 * after it only zero padding.  A header of version 6 or later must have
 * it; an older one is checked if it has one.  *end: where the attributes
 * end (the CHECK, or with --force the damage).  0, or -1 after an error.
 */
static int verify_header(struct trace *t, const char *path, const struct pt_file_header *h,
			 const uint8_t *data, size_t len, size_t *end)
{
	const struct pt_rec_header *rh;
	size_t off = sizeof(*h), at = off;
	bool found = false;
	int r;

	*end = len;
	while ((r = trace_next_record(data, len, &off, &rh)) == 1) {
		size_t plen = rh->size - sizeof(*rh);
		uint32_t want;

		if (found) {
			if (rh->type != PT_ATTR_PAD || !all_zero((const uint8_t *)(rh + 1), plen))
				return file_damage(t, path, "it as it is",
						   "a record after its CHECK, at byte %zu", at);
		} else if (rh->type == PT_ATTR_CHECK) {
			if (plen < sizeof(want)) {
				*end = at;
				return file_damage(t, path, "it as it is",
						   "malformed CHECK record at byte %zu", at);
			}
			memcpy(&want, rh + 1, sizeof(want));
			*end = at;
			found = true;
			if (want != (uint32_t)crc32(0, data, (uInt)at))
				return file_damage(t, path, "it as it is",
						   "checksum mismatch: corrupt data in bytes 0-%zu",
						   at - 1);
		}
		at = off;
	}
	if (r < 0) {
		if (!found)
			*end = at;
		return file_damage(t, path, "it as it is", "truncated or corrupt record at byte %zu",
				   at);
	}
	if (!found && h->version >= PT_FORMAT_CHECKED)
		return file_damage(t, path, "it as it is",
				   "no CHECK record (truncated or corrupt: a version %u header has one)",
				   h->version);
	return 0;
}

static void header_attr(struct trace *t, const struct pt_rec_header *rh)
{
	const uint8_t *p = (const uint8_t *)(rh + 1);
	size_t plen = rh->size - sizeof(*rh);
	struct trace_info *in = &t->info;
	const char **slot = NULL;
	size_t idx = 0;	/* which of t->strings owns *slot */

	switch (rh->type) {
	case PT_ATTR_ARCH: slot = &in->arch; idx = 0; break;
	case PT_ATTR_BACKEND: slot = &in->backend; idx = 1; break;
	case PT_ATTR_MODE: slot = &in->mode; idx = 2; break;
	case PT_ATTR_KERNEL_RELEASE: slot = &in->kernel_release; idx = 3; break;
	case PT_ATTR_STATE: slot = &in->state; idx = 4; break;
	case PT_ATTR_HOSTNAME: slot = &in->hostname; idx = 5; break;
	case PT_ATTR_KERNEL_BUILD_ID: slot = &in->kernel_build_id; idx = 6; break;
	case PT_ATTR_END_REASON: slot = &in->end_reason; idx = 7; break;
	case PT_ATTR_CMDLINE:
		for (size_t i = 0, n; i < plen; i += n + 1) {
			char *a = payload_str(p + i, plen - i);

			n = strnlen((const char *)p + i, plen - i);
			strv_push(&t->argv, a ? a : "");
			free(a);
		}
		break;
	case PT_ATTR_START_TIME:
	case PT_ATTR_STOP_TIME:
		if (plen >= sizeof(struct pt_attr_time))
			memcpy(rh->type == PT_ATTR_START_TIME ? &in->start : &in->stop, p,
			       sizeof(struct pt_attr_time));
		break;
	case PT_ATTR_TOTALS:
		/* counted came with version 6; older TOTALS end before it */
		if (plen >= PT_ATTR_TOTALS_V1_SIZE) {
			memset(&in->totals, 0, sizeof(in->totals));
			memcpy(&in->totals, p, plen < sizeof(in->totals) ? plen : sizeof(in->totals));
			t->totals_seen = true;
			t->counted_seen = plen >= sizeof(in->totals);
		}
		break;
	case PT_ATTR_SYNCED:
		if (plen >= sizeof(struct pt_attr_synced)) {
			struct pt_attr_synced a;

			memcpy(&a, p, sizeof(a));
			t->synced = true;
			t->synced_seq = a.seq;
		}
		break;
	case PT_ATTR_SYNCED_TIME:
		if (plen >= sizeof(struct pt_attr_synced_time)) {
			struct pt_attr_synced_time a;

			memcpy(&a, p, sizeof(a));
			t->synced = t->synced_time = true;
			t->synced_seq = a.cut_ns;
		}
		break;
	case PT_ATTR_NR_CPUS:
		if (plen >= 4)
			memcpy(&in->nr_cpus, p, 4);
		break;
	case PT_ATTR_TASKS_LOST:
		if (plen >= 8)
			memcpy(&in->tasks_lost, p, 8);
		break;
	case PT_ATTR_RESTORED:
		if (plen >= 8) {
			memcpy(&in->restored, p, 8);
			in->restore_checked = true;
		}
		break;
	case PT_ATTR_ON_SYMBOL:
	case PT_ATTR_NOTE: {
		char *s = payload_str(p, plen);

		strv_push(rh->type == PT_ATTR_NOTE ? &t->notes : &t->on_symbols, s ? s : "");
		free(s);
		break;
	}
	default:
		break;	/* newer attribute (or CHECK, PAD): skipped, as the format says */
	}
	if (slot) {
		char *s = payload_str(p, plen);

		free(t->strings[idx]);
		t->strings[idx] = s;
		*slot = s ? s : "";
	}
}

static int load_header(struct trace *t)
{
	struct pt_file_header h;
	const struct pt_rec_header *rh;
	char *path = path_join(t->dir, PT_FILE_HEADER);
	size_t len, end, off = sizeof(h);
	uint8_t *data;
	int ret = -1;

	if (!path)
		return -1;
	/* a directory without one is something else than a damaged trace */
	if (faccessat(AT_FDCWD, path, F_OK, AT_SYMLINK_NOFOLLOW) < 0 && errno == ENOENT) {
		pr_err("%s: not a pitrace trace (no %s file)", t->dir, PT_FILE_HEADER);
		free(path);
		return -1;
	}
	if (trace_load_file(path, PT_KIND_HEADER, &h, &data, &len) < 0) {
		free(path);
		return -1;
	}
	t->info.version = h.version;
	t->info.min_reader = h.min_reader;
	t->info.features = h.features;
	if (verify_header(t, path, &h, data, len, &end) == 0) {
		while (trace_next_record(data, end, &off, &rh) == 1)
			header_attr(t, rh);
		ret = 0;
	}
	free(data);
	free(path);
	return ret;
}

/* ---- the tasks file ---- */

static const size_t task_fixed_size[] = {
	[PT_TASK_FORK] = sizeof(struct pt_task_fork),
	[PT_TASK_EXEC] = sizeof(struct pt_task_exec),
	[PT_TASK_COMM] = sizeof(struct pt_task_comm),
	[PT_TASK_EXIT] = sizeof(struct pt_task_exit),
	[PT_TASK_MMAP] = sizeof(struct pt_task_mmap),
	[PT_TASK_MUNMAP] = sizeof(struct pt_task_munmap),
	[PT_TASK_CHECK] = sizeof(struct pt_task_check),
};

/* No part of the path longer than a file name can be (NAME_MAX). */
static bool path_parts_fit(const char *path)
{
	for (const char *s = path; *s; s += *s == '/') {
		size_t n = strcspn(s, "/");

		if (n > PT_TASK_NAME_MAX)
			return false;
		s += n;
	}
	return true;
}

int trace_task_decode(const struct pt_rec_header *rh, struct trace_task_rec *out)
{
	const uint8_t *p = (const uint8_t *)(rh + 1);
	size_t plen = rh->size - sizeof(*rh);
	size_t fixed = sizeof(struct pt_task_common);

	memset(out, 0, sizeof(*out));
	out->type = rh->type;
	if (rh->type < sizeof(task_fixed_size) / sizeof(task_fixed_size[0]) &&
	    task_fixed_size[rh->type])
		fixed = task_fixed_size[rh->type];
	if (plen < fixed)
		return -1;
	memcpy(&out->c, p, sizeof(out->c));
	switch (rh->type) {
	case PT_TASK_FORK: {
		struct pt_task_fork f;

		memcpy(&f, p, sizeof(f));
		out->fork.ppid = f.ppid;
		out->fork.ptid = f.ptid;
		out->fork.flags = f.flags;
		break;
	}
	case PT_TASK_EXIT: {
		struct pt_task_exit e;

		memcpy(&e, p, sizeof(e));
		out->exit.status = e.status;
		break;
	}
	case PT_TASK_MMAP: {
		struct pt_task_mmap m;

		memcpy(&m, p, sizeof(m));
		if (m.start + m.len < m.start)
			return -1;	/* a mapping past the end of the address space */
		out->mmap.start = m.start;
		out->mmap.len = m.len;
		out->mmap.pgoff = m.pgoff;
		out->mmap.prot = m.prot;
		out->mmap.build_id_len = m.build_id_len > PT_BUILD_ID_MAX ? PT_BUILD_ID_MAX
									  : m.build_id_len;
		memcpy(out->mmap.build_id, m.build_id, PT_BUILD_ID_MAX);
		break;
	}
	case PT_TASK_MUNMAP: {
		struct pt_task_munmap m;

		memcpy(&m, p, sizeof(m));
		out->munmap.start = m.start;
		out->munmap.len = m.len;
		break;
	}
	case PT_TASK_CHECK: {
		struct pt_task_check k;

		memcpy(&k, p, sizeof(k));
		out->check.crc32 = k.crc32;
		break;
	}
	}
	if (rh->type == PT_TASK_EXEC || rh->type == PT_TASK_COMM || rh->type == PT_TASK_MMAP) {
		/* the string must end inside the record, no longer than Linux's */
		size_t max = rh->type == PT_TASK_COMM ? PT_TASK_COMM_MAX : PT_TASK_PATH_MAX;

		if (plen == fixed || p[plen - 1] != '\0' ||
		    strnlen((const char *)p + fixed, max) == max)
			return -1;
		out->str = (const char *)p + fixed;
		if (rh->type != PT_TASK_COMM && !path_parts_fit(out->str))
			return -1;
	}
	return 0;
}

static int cmp_tid(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

static struct thread_entry *find_thread(const struct trace *t, uint32_t tid)
{
	return bsearch(&tid, t->threads, t->nr_threads, sizeof(*t->threads), cmp_tid);
}

static void set_comm(struct thread_entry *e, const char *s)
{
	snprintf(e->comm, sizeof(e->comm), "%s", s);
	e->has_comm = true;
}

/* The last-known pid and comm of every thread named by a task record. */
static int build_threads(struct trace *t)
{
	size_t n = 0;

	free(t->threads);	/* built again as the tasks file grows (followed) */
	t->threads = calloc(t->nr_tasks ? 2 * t->nr_tasks : 1, sizeof(*t->threads));
	if (!t->threads)
		return -1;
	for (size_t i = 0; i < t->nr_tasks; i++) {
		if (t->tasks[i].c.tid)
			t->threads[n++].tid = t->tasks[i].c.tid;
		/* a FORK names its parent thread too */
		if (t->tasks[i].type == PT_TASK_FORK && t->tasks[i].fork.ptid)
			t->threads[n++].tid = t->tasks[i].fork.ptid;
	}
	qsort(t->threads, n, sizeof(*t->threads), cmp_tid);
	t->nr_threads = 0;
	for (size_t i = 0; i < n; i++)
		if (!t->nr_threads || t->threads[t->nr_threads - 1].tid != t->threads[i].tid)
			t->threads[t->nr_threads++] = t->threads[i];
	for (size_t i = 0; i < t->nr_tasks; i++) {
		const struct trace_task_rec *r = &t->tasks[i];
		struct thread_entry *e = r->c.tid ? find_thread(t, r->c.tid) : NULL;
		const char *base;

		if (!e)
			continue;
		if (r->c.pid)
			e->pid = r->c.pid;
		switch (r->type) {
		case PT_TASK_FORK: {
			struct thread_entry *parent = find_thread(t, r->fork.ptid);

			if (parent && parent->has_comm)
				set_comm(e, parent->comm);
			break;
		}
		case PT_TASK_EXEC:
			/* the kernel names a task after the file it executes */
			base = strrchr(r->str, '/');
			set_comm(e, base ? base + 1 : r->str);
			break;
		case PT_TASK_COMM:
			set_comm(e, r->str);
			break;
		}
	}
	return 0;
}

static int add_task(struct trace *t, const struct trace_task_rec *rec, size_t *cap)
{
	if (t->nr_tasks == *cap) {
		struct trace_task_rec *n;

		*cap = *cap ? *cap * 2 : 256;
		n = realloc(t->tasks, *cap * sizeof(*n));
		if (!n) {
			pr_err("out of memory reading the tasks file");
			return -1;
		}
		t->tasks = n;
	}
	t->tasks[t->nr_tasks++] = *rec;
	return 0;
}

/*
 * The tasks file, verified: each CHECK record (v6) holds the CRC-32 of the
 * file before it, and a record counts only once a CHECK after it holds.  A
 * file of version 6 or later, or one with CHECK records, is checked to its
 * end: records after its last CHECK are a write the recorder did not
 * finish (a trace cut short) or damage.
 */
static int load_tasks(struct trace *t)
{
	struct pt_file_header h;
	const struct pt_rec_header *rh;
	char *path = path_join(t->dir, PT_FILE_TASKS);
	size_t len, off, rec_off, cap = 0, verified = 0, checked_end, crc_upto = 0;
	uint32_t crc = (uint32_t)crc32(0, NULL, 0);
	bool checked, stopped = false, partial = false;
	int r, ret = -1;

	if (!path)
		return -1;
	if (trace_load_file(path, PT_KIND_TASKS, &h, &t->tasks_data, &len) < 0)
		goto out;
	checked = h.version >= PT_FORMAT_CHECKED;
	checked_end = off = sizeof(h);
	while (!stopped) {
		struct trace_task_rec rec;

		rec_off = off;
		r = trace_next_record(t->tasks_data, len, &off, &rh);
		if (r == 0)
			break;
		if (r < 0) {
			stopped = true;
			if (trace_cut_short(t)) {
				/* a recorder that died while writing its last record
				 * (or, followed, is writing it) */
				partial = true;
				pr_dbg("%s: ends in a partial record at byte %zu (cut short)", path,
				       rec_off);
				break;
			}
			if (file_damage(t, path, "up to there", "truncated record at byte %zu",
					rec_off) < 0)
				goto out;
			break;
		}
		if (trace_task_decode(rh, &rec) < 0) {
			stopped = true;
			if (file_damage(t, path, "up to there", "malformed %s record (type %u) at byte %zu",
					trace_task_type_name(rh->type), rh->type, rec_off) < 0)
				goto out;
			break;
		}
		if (rh->type != PT_TASK_CHECK) {
			rec.offset = rec_off;
			if (add_task(t, &rec, &cap) < 0)
				goto out;
			continue;
		}
		crc = (uint32_t)crc32(crc, t->tasks_data + crc_upto, (uInt)(rec_off - crc_upto));
		crc_upto = rec_off;
		if (crc != rec.check.crc32) {
			stopped = true;
			if (file_damage(t, path, "up to there",
					"checksum mismatch: corrupt data in bytes %zu-%zu", checked_end,
					rec_off - 1) < 0)
				goto out;
			break;
		}
		checked = true;
		verified = t->nr_tasks;
		checked_end = off;
	}
	if (checked && t->nr_tasks > verified) {
		/* records no CHECK covers: not written whole, or damaged */
		if (!stopped && !trace_cut_short(t) &&
		    file_damage(t, path, "up to there",
				"no CHECK record after byte %zu: truncated or corrupt", checked_end) < 0)
			goto out;
		t->nr_tasks = verified;
	}
	/* followed, the file is read on from its last CHECK (not after damage) */
	t->tasks_checked = checked && (!stopped || partial);
	if (t->tasks_checked) {
		t->tasks_end = checked_end;
		t->tasks_crc = (uint32_t)crc32(crc, t->tasks_data + crc_upto,
					       (uInt)(checked_end - crc_upto));
	}
	t->tasks_cap = cap;
	ret = build_threads(t);
out:
	free(path);
	return ret;
}

/* ---- the list of step streams ---- */

static bool parse_stream_name(const char *name, bool *per_cpu, uint32_t *id)
{
	static const size_t prefix = sizeof(PT_FILE_STEPS_CPU) - 1;
	bool cpu = !strncmp(name, PT_FILE_STEPS_CPU, prefix);
	const char *d;
	char *end;
	unsigned long v;

	_Static_assert(sizeof(PT_FILE_STEPS_CPU) == sizeof(PT_FILE_STEPS_THREAD),
		       "one prefix length for both kinds of stream");
	if (!cpu && strncmp(name, PT_FILE_STEPS_THREAD, prefix))
		return false;
	d = name + prefix;
	if (*d < '0' || *d > '9' || (*d == '0' && d[1]))
		return false;	/* writers write ids in decimal, without leading zeros */
	errno = 0;
	v = strtoul(d, &end, 10);
	if (*end || errno || v > UINT32_MAX)
		return false;
	*per_cpu = cpu;
	*id = (uint32_t)v;
	return true;
}

static int cmp_stream(const void *a, const void *b)
{
	const struct trace_stream_info *x = *(struct trace_stream_info *const *)a;
	const struct trace_stream_info *y = *(struct trace_stream_info *const *)b;

	if (x->per_cpu != y->per_cpu)
		return x->per_cpu ? 1 : -1;
	return x->id < y->id ? -1 : x->id > y->id;
}

static bool stream_known(const struct trace *t, const struct trace_stream_info *si)
{
	for (size_t i = 0; i < t->nr_streams; i++)
		if (t->streams[i]->id == si->id && t->streams[i]->per_cpu == si->per_cpu)
			return true;
	return false;
}

/*
 * The step streams, sorted; called again while following, the ones made
 * since, after those (sorted among themselves): trace_stream(t, i) stays.
 */
static int list_streams(struct trace *t)
{
	DIR *d = opendir(t->dir);
	struct dirent *e;
	size_t cap = t->nr_streams, first = t->nr_streams;
	struct trace_stream_info *copy;

	if (!d) {
		pr_err("cannot read %s: %s", t->dir, strerror(errno));
		return -1;
	}
	while ((e = readdir(d))) {
		struct trace_stream_info si = { 0 };
		struct stat st;

		if (!parse_stream_name(e->d_name, &si.per_cpu, &si.id) || stream_known(t, &si))
			continue;
		si.path = path_join(t->dir, e->d_name);
		if (!si.path)
			continue;
		si.name = si.path + strlen(t->dir) + 1;
		if (stat(si.path, &st) == 0) {
			if (!S_ISREG(st.st_mode)) {
				/* refused here, not skipped: it is where steps should be */
				refuse_not_regular(si.path, st.st_mode);
				free(si.path);
				closedir(d);
				return -1;
			}
			si.file_size = (uint64_t)st.st_size;
		}
		if (trace_cut_short(t) && si.file_size < sizeof(struct pt_file_header)) {
			/* created by a recorder that died before writing to it */
			pr_dbg("%s: no file header (the recording was cut short): skipped", si.path);
			free(si.path);
			continue;
		}
		if (t->nr_streams == cap) {
			struct trace_stream_info **n;

			cap = cap ? cap * 2 : 16;
			n = realloc(t->streams, cap * sizeof(*n));
			if (!n) {
				free(si.path);
				closedir(d);
				return -1;
			}
			t->streams = n;
		}
		copy = malloc(sizeof(*copy));
		if (!copy) {
			free(si.path);
			closedir(d);
			return -1;
		}
		*copy = si;
		t->streams[t->nr_streams++] = copy;
	}
	closedir(d);
	if (t->nr_streams - first > 1)
		qsort(t->streams + first, t->nr_streams - first, sizeof(*t->streams), cmp_stream);
	return 0;
}

/* ---- the trace ---- */

static struct trace *trace_open_common(const char *dir, bool force)
{
	struct trace *t;
	struct stat st;

	if (stat(dir, &st) < 0) {
		if (errno == ENOENT)
			pr_err("%s: no such trace directory", dir);
		else
			pr_err("cannot open %s: %s", dir, strerror(errno));
		return NULL;
	}
	if (!S_ISDIR(st.st_mode)) {
		pr_err("%s: not a trace directory", dir);
		return NULL;
	}
	t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	t->dir = strdup(dir);
	t->force = force;
	if (!t->dir || load_header(t) < 0 || load_tasks(t) < 0 || list_streams(t) < 0) {
		trace_close(t);
		return NULL;
	}
	/* the API promises strings and lists, never NULL */
	const char **strs[] = { &t->info.arch, &t->info.backend, &t->info.mode,
				&t->info.kernel_release, &t->info.state, &t->info.hostname,
				&t->info.kernel_build_id, &t->info.end_reason };
	struct strv *lists[] = { &t->argv, &t->on_symbols, &t->notes };

	for (size_t i = 0; i < sizeof(strs) / sizeof(strs[0]); i++)
		if (!*strs[i])
			*strs[i] = "";
	for (size_t i = 0; i < sizeof(lists) / sizeof(lists[0]); i++)
		if (!lists[i]->v && !(lists[i]->v = calloc(1, sizeof(char *)))) {
			trace_close(t);
			return NULL;
		}
	t->info.argv = t->argv.v;
	t->info.on_symbols = t->on_symbols.v;
	t->info.notes = t->notes.v;
	return t;
}

struct trace *trace_open(const char *dir)
{
	return trace_open_common(dir, false);
}

/* dir without trailing slashes (its lock is DIR.lock, not DIR/.lock), malloc'd */
static char *follow_name(const char *dir)
{
	size_t n = strlen(dir);

	while (n > 1 && dir[n - 1] == '/')
		n--;
	return strndup(dir, n);
}

/* Sleep a little while a recording goes on: false when Ctrl-C (a signal) came. */
static bool follow_nap(void)
{
	struct timespec ts = { 0, 50000000 };

	return nanosleep(&ts, NULL) == 0;
}

/*
 * A recorder holds the name: wait until it is a trace in state recording
 * (a recording starts in DIR.new-XXXXXX and takes the name once its command
 * runs; until then the name is the previous trace, or nothing).  The trace,
 * or NULL (said).
 */
static struct trace *open_following(const char *dir, bool force)
{
	char *name = follow_name(dir), *header;
	struct trace *t = NULL;
	struct stat st;

	if (!name)
		return NULL;
	header = path_join(name, PT_FILE_HEADER);
	while (header && !t) {
		bool live = td_lock_holder(name) != 0;

		if (!live || stat(header, &st) == 0) {
			t = trace_open_common(dir, force);
			/* until its first step stream, there is nothing to follow */
			if (!t || !live ||
			    (!strcmp(t->info.state, PT_STATE_RECORDING) && t->nr_streams))
				break;
			trace_close(t);	/* the previous trace: the new one takes the name soon */
			t = NULL;
		}
		if (!follow_nap()) {
			pr_err("%s: interrupted while waiting for the recording to start", dir);
			break;
		}
	}
	if (t && !strcmp(t->info.state, PT_STATE_RECORDING)) {
		t->follow = true;
		free(t->dir);
		t->dir = name;	/* the lock's name */
		name = NULL;
	}
	free(header);
	free(name);
	return t;
}

struct trace *trace_open_flags(const char *dir, unsigned flags)
{
	if (flags & TRACE_OPEN_FOLLOW)
		return open_following(dir, flags & TRACE_OPEN_FORCE);
	return trace_open_common(dir, flags & TRACE_OPEN_FORCE);
}

/* A string attribute of n's (t->strings[idx], in *slot) becomes t's. */
static void adopt_string(struct trace *t, const struct trace *n, size_t idx, const char **slot)
{
	char *v = n->strings[idx] ? strdup(n->strings[idx]) : NULL;

	if (!v)
		return;
	free(t->strings[idx]);
	t->strings[idx] = v;
	*slot = v;
}

/* The recording is over: the final header's state, totals and end become the trace's. */
static void follow_end(struct trace *t)
{
	struct trace *n = trace_open_common(t->dir, t->force);

	if (n) {
		adopt_string(t, n, 4, &t->info.state);
		adopt_string(t, n, 7, &t->info.end_reason);
		t->info.stop = n->info.stop;
		t->info.totals = n->info.totals;
		t->totals_seen = n->totals_seen;
		t->counted_seen = n->counted_seen;
	}
	trace_close(n);
	if (!strcmp(t->info.state, PT_STATE_RECORDING))
		pr_err("%s: the recorder ended without finishing the trace (killed?): what it "
		       "wrote is read", t->dir);
}

/*
 * The header's SYNCED seq (SYNCED_TIME's cut_ns) now (the recorder renames
 * a new header into place: it is whole; one that fails its CHECK, rewritten
 * in place on a full filesystem, is taken next time).  0 when there is none.
 */
static uint64_t header_synced(const struct trace *t)
{
	char *path = path_join(t->dir, PT_FILE_HEADER);
	const struct pt_rec_header *rh;
	struct pt_file_header h;
	uint64_t seq = 0, found = 0;
	size_t len, off = sizeof(h);
	uint8_t *data;

	log_quiet++;	/* (the recorder rewrites it: read again next time) */
	if (path && trace_load_file(path, PT_KIND_HEADER, &h, &data, &len) == 0) {
		while (trace_next_record(data, len, &off, &rh) == 1) {
			size_t plen = rh->size - sizeof(*rh), at = off - rh->size;
			uint32_t want;

			if ((rh->type == PT_ATTR_SYNCED && plen >= sizeof(struct pt_attr_synced)) ||
			    (rh->type == PT_ATTR_SYNCED_TIME &&
			     plen >= sizeof(struct pt_attr_synced_time)))
				memcpy(&found, rh + 1, sizeof(found));
			if (rh->type == PT_ATTR_CHECK && plen >= sizeof(want)) {
				memcpy(&want, rh + 1, sizeof(want));
				if (want == (uint32_t)crc32(0, data, (uInt)at))
					seq = found;
				break;
			}
		}
		free(data);
	}
	log_quiet--;
	free(path);
	return seq;
}

/* Keep a later read of the tasks file (its tasks' strings point into it); -1 out of memory. */
static int keep_tasks_read(struct trace *t, uint8_t *buf)
{
	uint8_t **n = realloc(t->more_tasks, (t->nr_more_tasks + 1) * sizeof(*n));

	if (!n)
		return -1;
	t->more_tasks = n;
	t->more_tasks[t->nr_more_tasks++] = buf;
	return 0;
}

/*
 * The records the tasks file gained since it was read, each taken once a
 * CHECK after it holds (the recorder writes a record and its CHECK in one
 * write: a read may end between the two).  0, or -1 after an error (said).
 */
static int follow_tasks(struct trace *t)
{
	char *path = path_join(t->dir, PT_FILE_TASKS);
	size_t len, off = 0, crc_upto = 0, taken = 0, whole = t->nr_tasks;
	uint32_t crc = t->tasks_crc;
	const struct pt_rec_header *rh;
	uint8_t *buf = NULL;
	bool damaged = false;
	struct stat st;
	ssize_t got;
	int fd, ret = -1;

	if (!path)
		return -1;
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) < 0) {
		pr_err("cannot read %s: %s", path, strerror(errno));
		goto out;
	}
	ret = 0;
	if ((uint64_t)st.st_size <= t->tasks_end)
		goto out;
	len = (size_t)st.st_size - t->tasks_end;
	buf = malloc(len + 1);
	got = buf ? pread(fd, buf, len, (off_t)t->tasks_end) : -1;
	if (got < 0) {
		pr_err("cannot read %s: %s", path, buf ? strerror(errno) : "out of memory");
		ret = -1;
		goto out;
	}
	len = (size_t)got;
	while (trace_next_record(buf, len, &off, &rh) == 1) {
		struct trace_task_rec rec;
		size_t at = off - rh->size;

		if (trace_task_decode(rh, &rec) < 0) {
			damaged = true;
			ret = file_damage(t, path, "up to there", "malformed %s record at byte %zu",
					  trace_task_type_name(rh->type), t->tasks_end + at);
			break;
		}
		if (rh->type != PT_TASK_CHECK) {
			rec.offset = t->tasks_end + at;
			if (add_task(t, &rec, &t->tasks_cap) < 0) {
				ret = -1;
				break;
			}
			continue;
		}
		crc = (uint32_t)crc32(crc, buf + crc_upto, (uInt)(at - crc_upto));
		crc_upto = at;
		if (crc != rec.check.crc32) {
			damaged = true;
			ret = file_damage(t, path, "up to there",
					  "checksum mismatch: corrupt data in bytes %zu-%zu",
					  t->tasks_end + taken, t->tasks_end + at - 1);
			break;
		}
		whole = t->nr_tasks;
		taken = off;
	}
	t->nr_tasks = whole;	/* records without their CHECK yet: next time */
	if (ret < 0)
		goto out;
	if (damaged)
		t->tasks_checked = false;	/* (--force) read no further */
	if (taken) {
		t->tasks_crc = (uint32_t)crc32(crc, buf + crc_upto, (uInt)(taken - crc_upto));
		t->tasks_end += taken;
		if (keep_tasks_read(t, buf) < 0) {
			ret = -1;
			goto out;
		}
		buf = NULL;
		ret = build_threads(t);
	}
out:
	if (fd >= 0)
		close(fd);
	free(buf);
	free(path);
	return ret;
}

uint64_t trace_follow_limit(const struct trace *t)
{
	return t->follow && t->synced && !t->follow_over ? t->synced_seq : UINT64_MAX;
}

bool trace_follow_by_time(const struct trace *t)
{
	return t->synced_time;
}

/* What the recorder added: the tasks file's records, the streams it made. */
static int follow_more(struct trace *t)
{
	if (t->tasks_checked && follow_tasks(t) < 0)
		return -1;
	return list_streams(t);
}

int trace_follow_refresh(struct trace *t)
{
	uint64_t seq;

	if (t->follow_over || !t->follow || !t->synced)
		return 0;
	if (!td_lock_holder(t->dir)) {
		/* let go: the last of what it wrote, then its final header */
		int ret = follow_more(t);

		t->follow_over = true;
		follow_end(t);
		return ret;
	}
	if (!follow_nap()) {
		t->follow_over = true;	/* Ctrl-C: what is there is read; the caller sees it */
		return 0;
	}
	/* the header first: what it says is on disk is, when the rest is read */
	seq = header_synced(t);
	if (seq > t->synced_seq)
		t->synced_seq = seq;
	return follow_more(t);
}

int trace_follow_wait(void *trace)
{
	struct trace *t = trace;

	if (!t->follow || t->follow_over)
		return 0;
	if (td_lock_holder(t->dir) && follow_nap())
		return 1;
	/* let go (or Ctrl-C): once more, for what was written before */
	t->follow_over = true;
	if (td_lock_holder(t->dir))
		return 1;	/* Ctrl-C: the caller sees the signal */
	follow_end(t);
	return 1;
}

void trace_follow_finish(struct trace *t)
{
	if (!t->follow || t->follow_over)
		return;
	/* every stream ended with END: the recorder writes the final header next */
	t->follow_over = true;
	while (td_lock_holder(t->dir))
		if (!follow_nap())
			return;	/* Ctrl-C: the caller sees the signal */
	follow_end(t);
}

void trace_close(struct trace *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < sizeof(t->strings) / sizeof(t->strings[0]); i++)
		free(t->strings[i]);
	strv_free(&t->argv);
	strv_free(&t->on_symbols);
	strv_free(&t->notes);
	for (size_t i = 0; i < t->nr_streams; i++) {
		free(t->streams[i]->path);
		free(t->streams[i]);
	}
	free(t->streams);
	free(t->tasks);
	free(t->tasks_data);
	for (size_t i = 0; i < t->nr_more_tasks; i++)
		free(t->more_tasks[i]);
	free(t->more_tasks);
	free(t->threads);
	free(t->dir);
	free(t);
}

bool trace_forced(const struct trace *t)
{
	return t->force;
}

bool trace_count_only(const struct trace *t)
{
	return (t->info.features & PT_FEAT_COUNT_ONLY) || !strcmp(t->info.mode, "count");
}

bool trace_totals(const struct trace *t, bool *with_counted)
{
	*with_counted = t->counted_seen;
	return t->totals_seen;
}

bool trace_cut_short(const struct trace *t)
{
	const char *state = t->info.state;

	return state && state[0] && strcmp(state, PT_STATE_COMPLETE);
}

const struct trace_info *trace_info(const struct trace *t)
{
	return &t->info;
}

const char *trace_dir(const struct trace *t)
{
	return t->dir;
}

size_t trace_nr_tasks(const struct trace *t)
{
	return t->nr_tasks;
}

const struct trace_task_rec *trace_tasks(const struct trace *t)
{
	return t->tasks;
}

const char *trace_comm(const struct trace *t, uint32_t tid)
{
	const struct thread_entry *e = find_thread(t, tid);

	return e && e->has_comm ? e->comm : NULL;
}

uint32_t trace_pid_of(const struct trace *t, uint32_t tid)
{
	const struct thread_entry *e = find_thread(t, tid);

	return e ? e->pid : 0;
}

bool trace_names_thread(const struct trace *t, uint32_t tid)
{
	return find_thread(t, tid) != NULL;
}

bool trace_names_every_thread(const struct trace *t)
{
	/* cut short, the streams may hold steps of a thread whose task
	 * records the recorder had not written yet */
	return !trace_cut_short(t) && !t->info.tasks_lost;
}

size_t trace_nr_streams(const struct trace *t)
{
	return t->nr_streams;
}

const struct trace_stream_info *trace_stream(const struct trace *t, size_t i)
{
	return i < t->nr_streams ? t->streams[i] : NULL;
}

void trace_say_stream_damage(const char *path, const char *what, size_t more, bool force)
{
	if (!more && force)
		pr_warn("%s: %s; reading up to there", path, what);
	else if (!more)
		pr_err("%s: %s (--force reads up to there)", path, what);
	else if (force)
		pr_warn("%s: %s; %zu more step streams are damaged, -v lists them; reading each "
			"up to there", path, what, more);
	else
		pr_err("%s: %s; %zu more step streams are damaged, -v lists them (--force reads "
		       "each up to there)", path, what, more);
}

struct stream_reader *trace_stream_open(const struct trace *t, size_t i)
{
	struct stream_reader *r;

	if (i >= t->nr_streams)
		return NULL;
	r = stream_reader_open_quiet(t->streams[i]->path, t->force);
	if (!r)
		return NULL;
	stream_reader_set_force(r, t->force);
	stream_reader_set_cut_short(r, trace_cut_short(t));
	if (t->follow)
		stream_reader_set_follow(r, trace_follow_wait, (void *)t);
	stream_reader_expect(r, t, t->streams[i]);
	return r;
}

const char *trace_task_type_name(unsigned type)
{
	static const char *const names[] = {
		[PT_TASK_FORK] = "FORK", [PT_TASK_EXEC] = "EXEC", [PT_TASK_COMM] = "COMM",
		[PT_TASK_EXIT] = "EXIT", [PT_TASK_MMAP] = "MMAP", [PT_TASK_MUNMAP] = "MUNMAP",
		[PT_TASK_CHECK] = "CHECK",
	};

	if (type < sizeof(names) / sizeof(names[0]) && names[type])
		return names[type];
	return "UNKNOWN";
}

const char *trace_ctl_type_name(unsigned type)
{
	static const char *const names[] = {
		[PT_CTL_SWITCH] = "SWITCH", [PT_CTL_TIME] = "TIME", [PT_CTL_LOST] = "LOST",
		[PT_CTL_ON] = "ON", [PT_CTL_OFF] = "OFF", [PT_CTL_RING] = "RING",
		[PT_CTL_ASYNC] = "ASYNC", [PT_CTL_GAP] = "GAP", [PT_CTL_CHECK] = "CHECK",
		[PT_CTL_END] = "END", [PT_CTL_COUNT] = "COUNT", [PT_CTL_FORK] = "FORK",
		[PT_CTL_EXEC] = "EXEC", [PT_CTL_EXIT] = "EXIT", [PT_CTL_ATOMIC] = "ATOMIC",
		[PT_CTL_RESTORED] = "RESTORED",
		[PT_CTL_NATIVE] = "NATIVE",
	};

	if (type < sizeof(names) / sizeof(names[0]) && names[type])
		return names[type];
	return "UNKNOWN";
}

/* ---- ASYNC records ---- */

int trace_async_decode(const uint8_t *payload, size_t len, struct trace_async *out)
{
	struct ctl_cursor c = { payload, payload + len };
	uint64_t ring = 0;

	memset(out, 0, sizeof(*out));
	if (ctl_get_uleb(&c, &out->kind) < 0 || ctl_get_uleb(&c, &out->number) < 0)
		return -1;
	/* v3 detail, all or nothing; anything after it is from a newer writer */
	if (ctl_get_uleb(&c, &ring) == 0 && ctl_get_u64(&c, &out->pc) == 0 &&
	    ctl_get_u64(&c, &out->address) == 0 && ctl_get_uleb(&c, &out->error) == 0) {
		out->detail = true;
		out->ring = ring <= PT_ASYNC_RING_UNKNOWN ? (uint8_t)ring : PT_ASYNC_RING_UNKNOWN;
	} else {
		out->pc = out->address = out->error = 0;
	}
	return 0;
}

const char *trace_async_kind_name(uint64_t kind)
{
	static const char *const names[] = {
		[PT_ASYNC_SIGNAL] = "signal",	    [PT_ASYNC_SIGRETURN] = "sigreturn",
		[PT_ASYNC_INTERRUPT] = "interrupt", [PT_ASYNC_EXCEPTION] = "exception",
		[PT_ASYNC_IRQ] = "irq",
	};

	return kind < sizeof(names) / sizeof(names[0]) && names[kind] ? names[kind] : "unknown";
}
