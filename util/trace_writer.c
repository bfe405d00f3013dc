// SPDX-License-Identifier: GPL-2.0
/* Writing a trace directory (see trace_writer.h and docs/trace-format.md). */
#define PR_FMT "writer"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include "log.h"
#include "trace_writer.h"

struct tw_attr {
	unsigned type;
	size_t len;
	uint8_t *data;
};

struct trace_writer {
	char *dir;
	struct tw_options opts;
	uint64_t features;
	struct tw_attr *attrs;
	size_t nr_attrs;
	FILE *tasks;
	uint64_t steps;
	uint64_t lost;
	uint32_t threads, processes;
	int error;
};

uint64_t tw_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

uint64_t tw_realtime_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void fill_file_header(struct pt_file_header *h, unsigned kind, uint64_t features,
			     uint32_t stream_id, uint32_t flags)
{
	memset(h, 0, sizeof(*h));
	memcpy(h->magic, PT_MAGIC, sizeof(PT_MAGIC));
	h->endian = PT_ENDIAN_LITTLE;	/* every supported arch is little-endian */
	h->kind = kind;
	h->version = PT_FORMAT_VERSION;
	h->min_reader = PT_FORMAT_MIN_READER;
	h->features = features;
	h->stream_id = stream_id;
	h->flags = flags;
}

static int write_all(int fd, const void *buf, size_t len)
{
	const uint8_t *p = buf;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

static char *path_join(const char *dir, const char *name)
{
	size_t n = strlen(dir) + strlen(name) + 2;
	char *p = malloc(n);

	if (p)
		snprintf(p, n, "%s/%s", dir, name);
	return p;
}

static bool dir_is_empty(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	bool empty = true;

	if (!d)
		return false;
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			empty = false;
	closedir(d);
	return empty;
}

/* Remove a previous trace directory's backup: only the files a trace has. */
static int remove_trace_dir(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int ret = 0;

	if (!d)
		return -1;
	while ((e = readdir(d))) {
		char *p;

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		p = path_join(dir, e->d_name);
		if (!p || unlink(p) < 0)
			ret = -1;
		free(p);
	}
	closedir(d);
	if (rmdir(dir) < 0)
		ret = -1;
	return ret;
}

/*
 * A directory holding a header file is a previous trace: keep it as DIR.old
 * (like perf).  An empty directory is used as it is; anything else that
 * already exists is refused rather than overwritten.
 */
static int prepare_dir(const char *dir)
{
	struct stat st;
	char *hdr, *old;
	bool is_trace;

	if (stat(dir, &st) < 0) {
		if (errno != ENOENT) {
			pr_err("cannot use %s: %s", dir, strerror(errno));
			return -1;
		}
	} else if (!S_ISDIR(st.st_mode)) {
		pr_err("%s exists and is not a trace directory", dir);
		errno = EEXIST;
		return -1;
	} else if (dir_is_empty(dir)) {
		return 0;
	} else {
		hdr = path_join(dir, PT_FILE_HEADER);
		is_trace = hdr && access(hdr, F_OK) == 0;
		free(hdr);
		if (!is_trace) {
			pr_err("%s exists and is not a trace directory", dir);
			errno = EEXIST;
			return -1;
		}
		old = malloc(strlen(dir) + 5);
		if (!old)
			return -1;
		sprintf(old, "%s.old", dir);
		if (access(old, F_OK) == 0 && remove_trace_dir(old) < 0) {
			pr_err("cannot remove the previous backup %s: %s", old, strerror(errno));
			free(old);
			return -1;
		}
		if (rename(dir, old) < 0) {
			pr_err("cannot move previous trace %s to %s: %s", dir, old,
			       strerror(errno));
			free(old);
			return -1;
		}
		free(old);
	}
	if (mkdir(dir, 0755) < 0) {
		pr_err("cannot create %s: %s", dir, strerror(errno));
		return -1;
	}
	return 0;
}

struct trace_writer *tw_open(const char *dir, const struct tw_options *opts)
{
	struct trace_writer *tw;
	struct pt_file_header h;
	char *path;

	if (prepare_dir(dir) < 0)
		return NULL;
	tw = calloc(1, sizeof(*tw));
	if (!tw)
		return NULL;
	tw->dir = strdup(dir);
	if (opts)
		tw->opts = *opts;
	tw->features = tw->opts.features | (tw->opts.compress ? PT_FEAT_ZSTD : 0);
	path = path_join(dir, PT_FILE_TASKS);
	tw->tasks = path ? fopen(path, "we") : NULL; /* not inherited by traced commands */
	if (!tw->tasks) {
		pr_err("cannot create %s: %s", path ? path : dir, strerror(errno));
		free(path);
		free(tw->dir);
		free(tw);
		return NULL;
	}
	free(path);
	setvbuf(tw->tasks, NULL, _IOFBF, 1 << 16);
	fill_file_header(&h, PT_KIND_TASKS, 0, 0, 0);
	fwrite(&h, sizeof(h), 1, tw->tasks);
	fflush(tw->tasks);	/* a recorder killed before any task record leaves a valid file */
	return tw;
}

int tw_set_attr(struct trace_writer *tw, unsigned type, const void *data, size_t len)
{
	struct tw_attr *a = NULL;

	if (type != PT_ATTR_ON_SYMBOL && type != PT_ATTR_NOTE) {
		for (size_t i = 0; i < tw->nr_attrs; i++)
			if (tw->attrs[i].type == type)
				a = &tw->attrs[i];
	}
	if (!a) {
		struct tw_attr *n = realloc(tw->attrs, (tw->nr_attrs + 1) * sizeof(*n));

		if (!n)
			return -1;
		tw->attrs = n;
		a = &tw->attrs[tw->nr_attrs++];
		a->type = type;
		a->data = NULL;
	}
	free(a->data);
	a->data = malloc(len ? len : 1);
	if (!a->data)
		return -1;
	memcpy(a->data, data, len);
	a->len = len;
	return 0;
}

int tw_set_attr_str(struct trace_writer *tw, unsigned type, const char *s)
{
	return tw_set_attr(tw, type, s, strlen(s) + 1);
}

void tw_add_features(struct trace_writer *tw, uint64_t features)
{
	tw->features |= features;
}

static int put_rec(FILE *f, unsigned type, const void *a, size_t alen, const void *b, size_t blen)
{
	struct pt_rec_header rh = { .type = type, .size = (uint32_t)(sizeof(rh) + alen + blen) };

	if (fwrite(&rh, sizeof(rh), 1, f) != 1)
		return -1;
	if (alen && fwrite(a, alen, 1, f) != 1)
		return -1;
	if (blen && fwrite(b, blen, 1, f) != 1)
		return -1;
	return 0;
}

int tw_write_header(struct trace_writer *tw, const char *state)
{
	struct pt_file_header h;
	struct pt_attr_totals t = {
		.steps = tw->steps, .lost = tw->lost,
		.threads = tw->threads, .processes = tw->processes,
	};
	char *path = path_join(tw->dir, PT_FILE_HEADER);
	char *tmp = path_join(tw->dir, PT_FILE_HEADER ".tmp");
	FILE *f;
	int ret = -1;

	if (!path || !tmp)
		goto out;
	tw_set_attr(tw, PT_ATTR_TOTALS, &t, sizeof(t));
	tw_set_attr_str(tw, PT_ATTR_STATE, state);
	f = fopen(tmp, "w");
	if (!f) {
		pr_err("cannot create %s: %s", tmp, strerror(errno));
		goto out;
	}
	fill_file_header(&h, PT_KIND_HEADER, tw->features, 0, 0);
	ret = fwrite(&h, sizeof(h), 1, f) == 1 ? 0 : -1;
	for (size_t i = 0; i < tw->nr_attrs && !ret; i++)
		ret = put_rec(f, tw->attrs[i].type, tw->attrs[i].data, tw->attrs[i].len, NULL, 0);
	if (fclose(f) != 0)
		ret = -1;
	if (!ret && rename(tmp, path) < 0)
		ret = -1;
	if (ret)
		pr_err("cannot write %s: %s", path, strerror(errno));
out:
	free(path);
	free(tmp);
	return ret;
}

int tw_task(struct trace_writer *tw, unsigned type, const void *rec, size_t len, const char *str)
{
	int ret = put_rec(tw->tasks, type, rec, len, str, str ? strlen(str) + 1 : 0);

	/* Task records are rare and make the steps readable: write each one
	 * through, so a recorder killed outright still leaves them on disk. */
	if (!ret && fflush(tw->tasks) != 0)
		ret = -1;
	if (ret && !tw->error) {
		tw->error = errno;
		pr_err("cannot write task record: %s", strerror(errno));
	}
	return ret;
}

uint64_t tw_total_steps(const struct trace_writer *tw)
{
	return tw->steps;
}

void tw_add_lost(struct trace_writer *tw, uint64_t n)
{
	tw->lost += n;
}

void tw_count_task(struct trace_writer *tw, bool new_process)
{
	tw->threads++;
	if (new_process)
		tw->processes++;
}

struct tw_stream *tw_stream_open(struct trace_writer *tw, bool per_cpu, uint32_t id)
{
	struct tw_stream *s = calloc(1, sizeof(*s));
	struct pt_file_header h;
	char name[64];
	char *path;

	if (!s)
		return NULL;
	snprintf(name, sizeof(name), per_cpu ? PT_FILE_STEPS_CPU_FMT : PT_FILE_STEPS_THREAD_FMT, id);
	path = path_join(tw->dir, name);
	s->fd = path ? open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644) : -1;
	if (s->fd < 0) {
		pr_err("cannot create %s: %s", path ? path : name, strerror(errno));
		free(path);
		free(s);
		return NULL;
	}
	free(path);
	s->tw = tw;
	s->per_cpu = per_cpu;
	s->id = id;
	s->total_steps = &tw->steps;
	tw_add_features(tw, per_cpu ? PT_FEAT_PER_CPU : PT_FEAT_PER_THREAD);
	fill_file_header(&h, PT_KIND_STEPS, 0, id, tw->opts.compress ? PT_FLAG_ZSTD : 0);
	if (write_all(s->fd, &h, sizeof(h)) < 0)
		s->error = errno;
	if (tw->opts.compress) {
		ZSTD_CStream *z = ZSTD_createCStream();

		s->zbuf_size = ZSTD_CStreamOutSize();
		s->zbuf = malloc(s->zbuf_size);
		if (!z || !s->zbuf) {
			pr_err("cannot set up zstd compression");
			s->error = ENOMEM;
		} else {
			ZSTD_CCtx_setParameter(z, ZSTD_c_compressionLevel,
					       tw->opts.compress_level ? tw->opts.compress_level : 3);
		}
		s->zstd = z;
	}
	return s;
}

static int stream_out(struct tw_stream *s, const uint8_t *data, size_t len, bool end)
{
	ZSTD_inBuffer in = { data, len, 0 };

	if (!s->zstd)
		return write_all(s->fd, data, len);
	for (;;) {
		ZSTD_outBuffer out = { s->zbuf, s->zbuf_size, 0 };
		size_t r = ZSTD_compressStream2(s->zstd, &out, &in, end ? ZSTD_e_end : ZSTD_e_continue);

		if (ZSTD_isError(r)) {
			errno = EIO;
			return -1;
		}
		if (out.pos && write_all(s->fd, s->zbuf, out.pos) < 0)
			return -1;
		if (end ? r == 0 : in.pos == in.size)
			return 0;
	}
}

/* Seal the buffer with a CHECK record covering it, then write it out. */
int tw_stream_flush(struct tw_stream *s)
{
	struct ctl_payload p = { .len = 0 };

	if (!s->len)
		return 0;
	ctl_put_u32(&p, (uint32_t)crc32(0, s->buf, (uInt)s->len));
	s->len += pt_ctl_put(s->buf + s->len, PT_CTL_CHECK, p.buf, p.len);
	if (!s->error && stream_out(s, s->buf, s->len, false) < 0) {
		s->error = errno;
		pr_err("cannot write step stream %u: %s", s->id, strerror(errno));
	}
	s->len = 0;
	return s->error ? -1 : 0;
}

int tw_raw(struct tw_stream *s, const uint8_t *data, size_t len, uint64_t *lost)
{
	uint64_t last_pc = s->last_pc;
	size_t off = 0;

	while (off < len) {
		struct step_item it;
		size_t used;

		if (step_decode(data + off, len - off, &last_pc, &it, &used) != STEP_DECODE_OK ||
		    used > TW_BUF_LIMIT) {
			s->last_pc = last_pc;
			errno = EINVAL;
			return -1;
		}
		if (it.kind == STEP_ITEM_CTL) {
			struct ctl_cursor c = { it.payload, it.payload + it.payload_len };
			uint64_t n;

			if (it.ctl_type == PT_CTL_CHECK || it.ctl_type == PT_CTL_END) {
				off += used;
				continue;
			}
			if (it.ctl_type == PT_CTL_SWITCH)
				last_pc = 0;
			if (it.ctl_type == PT_CTL_LOST && lost && !ctl_get_uleb(&c, &n))
				*lost += n;
		} else {
			s->steps++;
			(*s->total_steps)++;
		}
		if (s->len + used > TW_BUF_LIMIT)
			tw_stream_flush(s);
		memcpy(s->buf + s->len, data + off, used);
		s->len += used;
		off += used;
	}
	s->last_pc = last_pc;
	return 0;
}

void tw_ctl(struct tw_stream *s, unsigned type, const struct ctl_payload *p)
{
	if (s->len > TW_BUF_LIMIT)
		tw_stream_flush(s);
	s->len += pt_ctl_put(s->buf + s->len, type, p->buf, p->len);
}

void tw_switch(struct tw_stream *s, uint32_t pid, uint32_t tid, uint64_t time_ns, uint64_t seq)
{
	struct ctl_payload p = { .len = 0 };

	ctl_put_uleb(&p, pid);
	ctl_put_uleb(&p, tid);
	ctl_put_u64(&p, time_ns);
	ctl_put_uleb(&p, seq);
	tw_ctl(s, PT_CTL_SWITCH, &p);
	s->last_pc = 0;
}

void tw_time(struct tw_stream *s, uint64_t time_ns, uint64_t seq)
{
	struct ctl_payload p = { .len = 0 };

	ctl_put_u64(&p, time_ns);
	ctl_put_uleb(&p, seq);
	tw_ctl(s, PT_CTL_TIME, &p);
}

void tw_async(struct tw_stream *s, unsigned kind, uint64_t number)
{
	struct ctl_payload p = { .len = 0 };

	ctl_put_uleb(&p, kind);
	ctl_put_uleb(&p, number);
	tw_ctl(s, PT_CTL_ASYNC, &p);
}

void tw_atomic(struct tw_stream *s, unsigned kind, uint64_t pc, uint64_t steps)
{
	struct ctl_payload p = { .len = 0 };

	ctl_put_uleb(&p, kind);
	ctl_put_u64(&p, pc);
	ctl_put_uleb(&p, steps);
	tw_ctl(s, PT_CTL_ATOMIC, &p);
}

void tw_gap(struct tw_stream *s, unsigned reason)
{
	struct ctl_payload p = { .len = 0 };

	ctl_put_uleb(&p, reason);
	tw_ctl(s, PT_CTL_GAP, &p);
}

void tw_lost(struct tw_stream *s, uint64_t count)
{
	struct ctl_payload p = { .len = 0 };

	ctl_put_uleb(&p, count);
	tw_ctl(s, PT_CTL_LOST, &p);
	tw_add_lost(s->tw, count);
}

void tw_onoff(struct tw_stream *s, bool on, uint64_t time_ns)
{
	struct ctl_payload p = { .len = 0 };

	ctl_put_u64(&p, time_ns);
	tw_ctl(s, on ? PT_CTL_ON : PT_CTL_OFF, &p);
}

void tw_ring(struct tw_stream *s, unsigned ring)
{
	struct ctl_payload p = { .len = 0 };

	ctl_put_u8(&p, (uint8_t)ring);
	tw_ctl(s, PT_CTL_RING, &p);
}

int tw_stream_close(struct tw_stream *s)
{
	struct ctl_payload p = { .len = 0 };
	int ret;

	ctl_put_uleb(&p, s->steps);
	tw_ctl(s, PT_CTL_END, &p);
	tw_stream_flush(s);
	if (s->zstd && !s->error && stream_out(s, NULL, 0, true) < 0)
		s->error = errno;
	if (close(s->fd) < 0 && !s->error)
		s->error = errno;
	ret = s->error ? -1 : 0;
	if (ret)
		pr_err("cannot finish step stream %u: %s", s->id, strerror(s->error));
	ZSTD_freeCStream(s->zstd);
	free(s->zbuf);
	free(s);
	return ret;
}

int tw_close(struct trace_writer *tw, const char *state)
{
	int ret = 0;

	if (fclose(tw->tasks) != 0 || tw->error) {
		pr_err("cannot finish the tasks file in %s", tw->dir);
		ret = -1;
	}
	if (tw_write_header(tw, state) < 0)
		ret = -1;
	for (size_t i = 0; i < tw->nr_attrs; i++)
		free(tw->attrs[i].data);
	free(tw->attrs);
	free(tw->dir);
	free(tw);
	return ret;
}
