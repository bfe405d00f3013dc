// SPDX-License-Identifier: GPL-2.0
/* Reading a trace directory: validation, attributes, tasks, verified and merged step streams. */
#define PR_FMT "reader"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include "log.h"
#include "stepcodec.h"
#include "trace_reader.h"

/*
 * Step streams are read in chunks of this size; a CHECK block must fit (the
 * buffer grows if one does not).  Every stream of a trace is open at once
 * while merging, so this times the number of threads is the reader's memory.
 */
#define SR_CHUNK (128u << 10)
/* Writers CHECK every 64 KiB; a block longer than this is corruption. */
#define SR_MAX_BLOCK (16u << 20)

struct thread_entry {
	uint32_t tid, pid;
	char comm[16];
	bool has_comm;
};

struct trace {
	char *dir;
	bool force;
	struct trace_info info;
	char *strings[7];	  /* owned copies of info's string attributes */
	uint8_t *tasks_data;	  /* the tasks file; task strings point into it */
	struct trace_task_rec *tasks;
	size_t nr_tasks;
	struct thread_entry *threads; /* sorted by tid */
	size_t nr_threads;
	struct trace_stream_info *streams;
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

int trace_check_file_header(const char *path, const struct pt_file_header *h, size_t have,
			    unsigned kind)
{
	if (have < sizeof(*h)) {
		pr_err("%s: truncated file header (%zu of %zu bytes)", path, have, sizeof(*h));
		return -1;
	}
	if (memcmp(h->magic, PT_MAGIC, sizeof(PT_MAGIC)) != 0) {
		pr_err("%s: bad magic: not a pitrace file", path);
		return -1;
	}
	if (h->endian != (host_is_little_endian() ? PT_ENDIAN_LITTLE : PT_ENDIAN_BIG)) {
		pr_err("%s: written in the other byte order (endian %u); this %s cannot read it",
		       path, h->endian, log_progname);
		return -1;
	}
	if (h->min_reader > PT_FORMAT_VERSION) {
		pr_err("%s: format version %u needs a newer %s (this one reads up to %u)", path,
		       h->min_reader, log_progname, PT_FORMAT_VERSION);
		return -1;
	}
	if (kind && h->kind != kind) {
		pr_err("%s: not a %s file (kind %u, %s)", path, kind_name(kind), h->kind,
		       kind_name(h->kind));
		return -1;
	}
	return 0;
}

int trace_load_file(const char *path, unsigned kind, struct pt_file_header *h, uint8_t **data,
		    size_t *len)
{
	struct stat st;
	uint8_t *buf = NULL;
	size_t size, got = 0;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		if (errno == ENOENT)
			pr_err("%s: missing", path);
		else
			pr_err("cannot open %s: %s", path, strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		pr_err("%s: not a regular file", path);
		goto err_close;
	}
	size = (size_t)st.st_size;
	buf = malloc(size + 1);
	if (!buf) {
		pr_err("%s: out of memory (%zu bytes)", path, size);
		goto err_close;
	}
	while (got < size) {
		ssize_t n = read(fd, buf + got, size - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			pr_err("cannot read %s: %s", path, strerror(errno));
			goto err_free;
		}
		if (n == 0)
			break;
		got += (size_t)n;
	}
	if (got >= sizeof(*h))
		memcpy(h, buf, sizeof(*h));
	if (trace_check_file_header(path, (const struct pt_file_header *)buf, got, kind) < 0)
		goto err_free;
	close(fd);
	*data = buf;
	*len = got;
	return 0;

err_free:
	free(buf);
err_close:
	close(fd);
	return -1;
}

int trace_next_record(const uint8_t *data, size_t len, size_t *off, const struct pt_rec_header **rh)
{
	struct pt_rec_header h;

	if (*off == len)
		return 0;
	if (len - *off < sizeof(h))
		return -1;
	memcpy(&h, data + *off, sizeof(h));
	if (h.size < sizeof(h) || h.size > len - *off)
		return -1;
	*rh = (const struct pt_rec_header *)(data + *off);
	*off += h.size;
	return 1;
}

/* ---- the header file ---- */

static char **strv_push(char **v, const char *s)
{
	size_t n = 0;
	char **nv;

	while (v && v[n])
		n++;
	nv = realloc(v, (n + 2) * sizeof(*nv));
	if (!nv)
		return v;
	nv[n] = strdup(s);	/* out of memory: the list just ends early */
	nv[n + 1] = NULL;
	return nv;
}

static void strv_free(char **v)
{
	for (size_t i = 0; v && v[i]; i++)
		free(v[i]);
	free(v);
}

static char *payload_str(const uint8_t *p, size_t len)
{
	return strndup((const char *)p, len);
}

static int load_header(struct trace *t)
{
	struct pt_file_header h;
	const struct pt_rec_header *rh;
	char *path = path_join(t->dir, PT_FILE_HEADER);
	size_t len, off = sizeof(h);
	uint8_t *data;
	struct trace_info *in = &t->info;
	int r;

	if (!path)
		return -1;
	if (trace_load_file(path, PT_KIND_HEADER, &h, &data, &len) < 0) {
		free(path);
		return -1;
	}
	in->version = h.version;
	in->min_reader = h.min_reader;
	in->features = h.features;
	while ((r = trace_next_record(data, len, &off, &rh)) == 1) {
		const uint8_t *p = (const uint8_t *)(rh + 1);
		size_t plen = rh->size - sizeof(*rh);
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
		case PT_ATTR_CMDLINE:
			for (size_t i = 0, n; i < plen; i += n + 1) {
				char *a = payload_str(p + i, plen - i);

				n = strnlen((const char *)p + i, plen - i);
				in->argv = strv_push(in->argv, a ? a : "");
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
			if (plen >= sizeof(struct pt_attr_totals))
				memcpy(&in->totals, p, sizeof(struct pt_attr_totals));
			break;
		case PT_ATTR_NR_CPUS:
			if (plen >= 4)
				memcpy(&in->nr_cpus, p, 4);
			break;
		case PT_ATTR_ON_SYMBOL:
		case PT_ATTR_NOTE: {
			char *s = payload_str(p, plen);

			if (rh->type == PT_ATTR_NOTE)
				in->notes = strv_push(in->notes, s ? s : "");
			else
				in->on_symbols = strv_push(in->on_symbols, s ? s : "");
			free(s);
			break;
		}
		default:
			break;	/* newer attribute: skipped, as the format says */
		}
		if (slot) {
			char *s = payload_str(p, plen);

			free(t->strings[idx]);
			t->strings[idx] = s;
			*slot = s ? s : "";
		}
	}
	if (r < 0) {
		pr_err("%s: truncated or corrupt record at byte %zu", path, off);
		free(data);
		free(path);
		return -1;
	}
	free(data);
	free(path);
	return 0;
}

/* ---- the tasks file ---- */

static const size_t task_fixed_size[] = {
	[PT_TASK_FORK] = sizeof(struct pt_task_fork),
	[PT_TASK_EXEC] = sizeof(struct pt_task_exec),
	[PT_TASK_COMM] = sizeof(struct pt_task_comm),
	[PT_TASK_EXIT] = sizeof(struct pt_task_exit),
	[PT_TASK_MMAP] = sizeof(struct pt_task_mmap),
	[PT_TASK_MUNMAP] = sizeof(struct pt_task_munmap),
};

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
	}
	if (rh->type == PT_TASK_EXEC || rh->type == PT_TASK_COMM || rh->type == PT_TASK_MMAP) {
		/* the string must end inside the record */
		if (plen == fixed || p[plen - 1] != '\0')
			return -1;
		out->str = (const char *)p + fixed;
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

	t->threads = calloc(t->nr_tasks ? t->nr_tasks : 1, sizeof(*t->threads));
	if (!t->threads)
		return -1;
	for (size_t i = 0; i < t->nr_tasks; i++)
		if (t->tasks[i].c.tid)
			t->threads[n++].tid = t->tasks[i].c.tid;
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

static int load_tasks(struct trace *t)
{
	struct pt_file_header h;
	const struct pt_rec_header *rh;
	char *path = path_join(t->dir, PT_FILE_TASKS);
	size_t len, off = sizeof(h), cap = 0, rec_off;
	int r, ret = -1;

	if (!path)
		return -1;
	if (trace_load_file(path, PT_KIND_TASKS, &h, &t->tasks_data, &len) < 0)
		goto out;
	for (;;) {
		struct trace_task_rec rec;

		rec_off = off;
		r = trace_next_record(t->tasks_data, len, &off, &rh);
		if (r == 0)
			break;
		if (r < 0) {
			if (trace_cut_short(t)) {
				/* a recorder that died while writing its last record */
				pr_dbg("%s: ends in a partial record at byte %zu (cut short)", path,
				       rec_off);
				break;
			}
			if (!t->force) {
				pr_err("%s: truncated record at byte %zu", path, rec_off);
				goto out;
			}
			pr_warn("%s: truncated record at byte %zu; reading up to there", path,
				rec_off);
			break;
		}
		if (trace_task_decode(rh, &rec) < 0) {
			pr_err("%s: malformed %s record (type %u) at byte %zu", path,
			       trace_task_type_name(rh->type), rh->type, rec_off);
			goto out;
		}
		rec.offset = rec_off;
		if (t->nr_tasks == cap) {
			struct trace_task_rec *n;

			cap = cap ? cap * 2 : 256;
			n = realloc(t->tasks, cap * sizeof(*n));
			if (!n)
				goto out;
			t->tasks = n;
		}
		t->tasks[t->nr_tasks++] = rec;
	}
	ret = build_threads(t);
out:
	free(path);
	return ret;
}

/* ---- the list of step streams ---- */

static bool parse_stream_name(const char *name, bool *per_cpu, uint32_t *id)
{
	const char *d;
	char *end;
	unsigned long v;

	if (strncmp(name, "steps.", 6) || (name[6] != 't' && name[6] != 'c'))
		return false;
	d = name + 7;
	if (*d < '0' || *d > '9')
		return false;
	errno = 0;
	v = strtoul(d, &end, 10);
	if (*end || errno || v > UINT32_MAX)
		return false;
	*per_cpu = name[6] == 'c';
	*id = (uint32_t)v;
	return true;
}

static int cmp_stream(const void *a, const void *b)
{
	const struct trace_stream_info *x = a, *y = b;

	if (x->per_cpu != y->per_cpu)
		return x->per_cpu ? 1 : -1;
	return x->id < y->id ? -1 : x->id > y->id;
}

static int list_streams(struct trace *t)
{
	DIR *d = opendir(t->dir);
	struct dirent *e;
	size_t cap = 0;

	if (!d) {
		pr_err("cannot read %s: %s", t->dir, strerror(errno));
		return -1;
	}
	while ((e = readdir(d))) {
		struct trace_stream_info si = { 0 };
		struct stat st;

		if (!parse_stream_name(e->d_name, &si.per_cpu, &si.id))
			continue;
		si.path = path_join(t->dir, e->d_name);
		if (!si.path)
			continue;
		si.name = si.path + strlen(t->dir) + 1;
		if (stat(si.path, &st) == 0)
			si.file_size = (uint64_t)st.st_size;
		if (trace_cut_short(t) && si.file_size < sizeof(struct pt_file_header)) {
			/* created by a recorder that died before writing to it */
			pr_dbg("%s: no file header (the recording was cut short): skipped", si.path);
			free(si.path);
			continue;
		}
		if (t->nr_streams == cap) {
			struct trace_stream_info *n;

			cap = cap ? cap * 2 : 16;
			n = realloc(t->streams, cap * sizeof(*n));
			if (!n) {
				free(si.path);
				closedir(d);
				return -1;
			}
			t->streams = n;
		}
		t->streams[t->nr_streams++] = si;
	}
	closedir(d);
	qsort(t->streams, t->nr_streams, sizeof(*t->streams), cmp_stream);
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
				&t->info.kernel_build_id };

	for (size_t i = 0; i < sizeof(strs) / sizeof(strs[0]); i++)
		if (!*strs[i])
			*strs[i] = "";
	if (!t->info.argv)
		t->info.argv = calloc(1, sizeof(char *));
	if (!t->info.on_symbols)
		t->info.on_symbols = calloc(1, sizeof(char *));
	if (!t->info.notes)
		t->info.notes = calloc(1, sizeof(char *));
	if (!t->info.argv || !t->info.on_symbols || !t->info.notes) {
		trace_close(t);
		return NULL;
	}
	return t;
}

struct trace *trace_open(const char *dir)
{
	return trace_open_common(dir, false);
}

struct trace *trace_open_flags(const char *dir, unsigned flags)
{
	return trace_open_common(dir, flags & TRACE_OPEN_FORCE);
}

void trace_close(struct trace *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < sizeof(t->strings) / sizeof(t->strings[0]); i++)
		free(t->strings[i]);
	strv_free(t->info.argv);
	strv_free(t->info.on_symbols);
	strv_free(t->info.notes);
	for (size_t i = 0; i < t->nr_streams; i++)
		free(t->streams[i].path);
	free(t->streams);
	free(t->tasks);
	free(t->tasks_data);
	free(t->threads);
	free(t->dir);
	free(t);
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

size_t trace_nr_streams(const struct trace *t)
{
	return t->nr_streams;
}

const struct trace_stream_info *trace_stream(const struct trace *t, size_t i)
{
	return i < t->nr_streams ? &t->streams[i] : NULL;
}

const char *trace_task_type_name(unsigned type)
{
	static const char *const names[] = {
		[PT_TASK_FORK] = "FORK", [PT_TASK_EXEC] = "EXEC", [PT_TASK_COMM] = "COMM",
		[PT_TASK_EXIT] = "EXIT", [PT_TASK_MMAP] = "MMAP", [PT_TASK_MUNMAP] = "MUNMAP",
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
	};

	if (type < sizeof(names) / sizeof(names[0]) && names[type])
		return names[type];
	return "UNKNOWN";
}

/* ---- one step stream: chunked, decompressed, CHECK-verified ---- */

struct stream_reader {
	char *path;
	int fd;
	struct pt_file_header hdr;
	bool force;
	bool quiet;		  /* damage is not printed, only kept in damage */
	char *damage;		  /* what was wrong, once something was */
	ZSTD_DStream *zstd;
	uint8_t *zin;		  /* compressed input */
	size_t zin_len, zin_pos;
	size_t zret;		  /* last ZSTD_decompressStream result: 0 = frame complete */
	uint64_t file_pos;	  /* bytes of the file consumed (for messages) */
	bool input_eof;
	uint8_t *buf;		  /* decoded stream bytes */
	size_t cap, len, pos;
	size_t blk_end;		  /* records before this offset in buf are verified */
	uint64_t base;		  /* stream offset of buf[0] (the file header counts) */
	uint64_t last_pc;
	bool end_seen;
	bool cut_ok;		  /* the recording was cut short: no END is fine */
	bool cut;		  /* it ended without END, after its last whole block */
	int state;		  /* 0 reading, 1 finished, -1 failed */
};

/* Damage: an error, or with force a warning and the end of the stream. */
static __attribute__((format(printf, 2, 3))) int sr_fail(struct stream_reader *r,
							 const char *fmt, ...)
{
	char what[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	free(r->damage);
	r->damage = strdup(what);
	if (r->force) {
		if (!r->quiet)
			pr_warn("%s: %s; reading up to there", r->path, what);
		r->state = 1;
		return 0;
	}
	if (!r->quiet)
		pr_err("%s: %s (--force reads up to there)", r->path, what);
	r->state = -1;
	return -1;
}

static ssize_t read_some(int fd, void *buf, size_t len)
{
	ssize_t n;

	do
		n = read(fd, buf, len);
	while (n < 0 && errno == EINTR);
	return n;
}

/* Append decoded bytes to buf; returns bytes added, 0 at the end of input, -1 on error. */
static ssize_t sr_fill(struct stream_reader *r)
{
	if (r->pos) {
		memmove(r->buf, r->buf + r->pos, r->len - r->pos);
		r->len -= r->pos;
		r->blk_end -= r->pos;
		r->base += r->pos;
		r->pos = 0;
	}
	if (r->len == r->cap) {
		size_t ncap = r->cap * 2;
		uint8_t *n;

		if (ncap > SR_MAX_BLOCK)
			return sr_fail(r, "no CHECK record within 16 MiB after byte %llu: corrupt",
				       (unsigned long long)r->base) ? -1 : 0;
		n = realloc(r->buf, ncap);
		if (!n) {
			pr_err("%s: out of memory", r->path);
			r->state = -1;
			return -1;
		}
		r->buf = n;
		r->cap = ncap;
	}
	if (!r->zstd) {
		ssize_t n = read_some(r->fd, r->buf + r->len, r->cap - r->len);

		if (n < 0) {
			pr_err("cannot read %s: %s", r->path, strerror(errno));
			r->state = -1;
			return -1;
		}
		r->len += (size_t)n;
		r->file_pos += (uint64_t)n;
		return n;
	}
	for (;;) {
		ZSTD_outBuffer out = { r->buf + r->len, r->cap - r->len, 0 };
		ZSTD_inBuffer in;

		if (r->zin_pos == r->zin_len && !r->input_eof) {
			ssize_t n = read_some(r->fd, r->zin, SR_CHUNK);

			if (n < 0) {
				pr_err("cannot read %s: %s", r->path, strerror(errno));
				r->state = -1;
				return -1;
			}
			r->zin_len = (size_t)n;
			r->zin_pos = 0;
			r->input_eof = n == 0;
		}
		if (r->zin_pos == r->zin_len && r->input_eof)
			return 0;
		in = (ZSTD_inBuffer){ r->zin, r->zin_len, r->zin_pos };
		r->zret = ZSTD_decompressStream(r->zstd, &out, &in);
		r->file_pos += in.pos - r->zin_pos;
		r->zin_pos = in.pos;
		if (ZSTD_isError(r->zret)) {
			return sr_fail(r, "corrupt compressed data (%s) at file byte %llu",
				       ZSTD_getErrorName(r->zret),
				       (unsigned long long)r->file_pos) ? -1 : 0;
		}
		if (out.pos) {
			r->len += out.pos;
			return (ssize_t)out.pos;
		}
	}
}

struct stream_reader *stream_reader_open(const char *path)
{
	struct stream_reader *r = calloc(1, sizeof(*r));
	ssize_t n;

	if (!r)
		return NULL;
	r->path = strdup(path);
	r->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (r->fd < 0) {
		pr_err("cannot open %s: %s", path, strerror(errno));
		goto err;
	}
	n = read_some(r->fd, &r->hdr, sizeof(r->hdr));
	if (n < 0) {
		pr_err("cannot read %s: %s", path, strerror(errno));
		goto err;
	}
	if (trace_check_file_header(path, &r->hdr, (size_t)n, PT_KIND_STEPS) < 0)
		goto err;
	r->file_pos = r->base = sizeof(r->hdr);
	r->cap = SR_CHUNK;
	r->buf = malloc(r->cap);
	if (!r->buf)
		goto err;
	if (r->hdr.flags & PT_FLAG_ZSTD) {
		r->zstd = ZSTD_createDStream();
		r->zin = malloc(SR_CHUNK);
		if (!r->zstd || !r->zin) {
			pr_err("%s: cannot set up zstd decompression", path);
			goto err;
		}
		ZSTD_initDStream(r->zstd);
		r->zret = 1;
	}
	return r;
err:
	stream_reader_close(r);
	return NULL;
}

uint64_t stream_reader_offset(const struct stream_reader *r)
{
	return r->base + r->pos;
}

uint64_t stream_reader_file_offset(const struct stream_reader *r)
{
	return r->file_pos;
}

void stream_reader_set_quiet(struct stream_reader *r, bool quiet)
{
	r->quiet = quiet;
}

const char *stream_reader_damage(const struct stream_reader *r)
{
	return r->damage;
}

void stream_reader_set_force(struct stream_reader *r, bool force)
{
	r->force = force;
}

void stream_reader_set_cut_short(struct stream_reader *r, bool cut_short)
{
	r->cut_ok = cut_short;
}

bool stream_reader_cut(const struct stream_reader *r)
{
	return r->cut;
}

const struct pt_file_header *stream_reader_header(const struct stream_reader *r)
{
	return &r->hdr;
}

void stream_reader_close(struct stream_reader *r)
{
	if (!r)
		return;
	if (r->fd >= 0)
		close(r->fd);
	ZSTD_freeDStream(r->zstd);
	free(r->zin);
	free(r->buf);
	free(r->damage);
	free(r->path);
	free(r);
}

/*
 * Make the next CHECK block available: find its CHECK record, compare the
 * CRC, and only then let records out, so no consumer ever sees a byte that
 * fails its check.  1: a block is ready, 0: clean end, -1: error.
 */
static int sr_verify_block(struct stream_reader *r)
{
	size_t p = r->pos;

	for (;;) {
		struct step_item it;
		uint64_t dummy = 0;
		size_t used;
		enum step_decode_status st = STEP_DECODE_SHORT;
		ssize_t got;

		if (p < r->len)
			st = step_decode(r->buf + p, r->len - p, &dummy, &it, &used);
		if (st == STEP_DECODE_BAD)
			return sr_fail(r, "malformed record at byte %llu",
				       (unsigned long long)(r->base + p)) ? -1 : 0;
		if (st == STEP_DECODE_OK) {
			uint32_t want, have;
			struct ctl_cursor c;

			if (it.kind != STEP_ITEM_CTL || it.ctl_type != PT_CTL_CHECK) {
				p += used;
				continue;
			}
			c = (struct ctl_cursor){ it.payload, it.payload + it.payload_len };
			if (ctl_get_u32(&c, &want) < 0)
				return sr_fail(r, "malformed CHECK record at byte %llu",
					       (unsigned long long)(r->base + p)) ? -1 : 0;
			have = (uint32_t)crc32(0, r->buf + r->pos, (uInt)(p - r->pos));
			if (have != want)
				return sr_fail(r, "checksum mismatch: corrupt data in bytes "
					       "%llu-%llu",
					       (unsigned long long)(r->base + r->pos),
					       (unsigned long long)(r->base + p - 1)) ? -1 : 0;
			r->blk_end = p + used;
			return 1;
		}
		/* more input needed; sr_fill moves the window, keep p relative */
		p -= r->pos;
		got = sr_fill(r);
		if (got < 0 || r->state)
			return r->state < 0 ? -1 : 0;
		if (got == 0) {
			if (r->len == 0 && r->end_seen && (!r->zstd || r->zret == 0)) {
				r->state = 1;
				return 0;
			}
			if (r->cut_ok && !r->end_seen) {
				/* The recorder stopped writing (died, or the disk was
				 * full): what follows the last whole block is a block it
				 * did not finish. */
				r->cut = true;
				r->state = 1;
				return 0;
			}
			if (r->zstd)
				return sr_fail(r, "truncated at byte %llu (decompressed: %llu)",
					       (unsigned long long)r->file_pos,
					       (unsigned long long)(r->base + r->len)) ? -1 : 0;
			return sr_fail(r, "truncated at byte %llu",
				       (unsigned long long)(r->base + r->len)) ? -1 : 0;
		}
	}
}

int stream_reader_next(struct stream_reader *r, struct step_item *it, uint64_t *offset)
{
	size_t used;

	if (r->state)
		return r->state < 0 ? -1 : 0;
	if (r->pos == r->blk_end) {
		int v = sr_verify_block(r);

		if (v <= 0)
			return v;
	}
	/* a verified block decodes cleanly: step_decode cannot fail here */
	if (step_decode(r->buf + r->pos, r->blk_end - r->pos, &r->last_pc, it, &used) !=
	    STEP_DECODE_OK)
		return sr_fail(r, "malformed record at byte %llu",
			       (unsigned long long)(r->base + r->pos)) ? -1 : 0;
	if (offset)
		*offset = r->base + r->pos;
	r->pos += used;
	if (it->kind == STEP_ITEM_CTL) {
		if (it->ctl_type == PT_CTL_SWITCH)
			r->last_pc = 0;
		else if (it->ctl_type == PT_CTL_END)
			r->end_seen = true;
	}
	return 1;
}

/*
 * Batch decoding: up to max steps that follow in the verified block, into
 * pcs; 0 when the next record is not a step (or the block is used up):
 * stream_reader_next goes on from there.  One-byte deltas, most steps,
 * decode without a call.
 */
size_t stream_reader_steps(struct stream_reader *r, uint64_t *pcs, size_t max)
{
	const uint8_t *b = r->buf + r->pos, *end = r->buf + r->blk_end;
	uint64_t pc = r->last_pc;
	size_t n = 0;

	if (r->state)
		return 0;
	while (n < max && b < end) {
		if (!(*b & PT_STEP_SHORT_MASK)) {
			pc += (uint64_t)((int64_t)((uint64_t)*b << 57) >> 57);
			b++;
		} else if ((*b & PT_CTL_TAG) == PT_STEP_LONG_TAG) {
			struct step_item it;
			size_t used;
			uint64_t last = pc;

			if (step_decode(b, (size_t)(end - b), &last, &it, &used) != STEP_DECODE_OK)
				break;	/* stream_reader_next says what is wrong */
			pc = last;
			b += used;
		} else {
			break;
		}
		pcs[n++] = pc;
	}
	r->last_pc = pc;
	r->pos = (size_t)(b - r->buf);
	return n;
}

bool trace_forced(const struct trace *t)
{
	return t->force;
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
