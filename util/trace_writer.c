// SPDX-License-Identifier: GPL-2.0
/* Writing a trace directory (see trace_writer.h and docs/trace-format.md). */
#define PR_FMT "writer"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include "util/log.h"
#include "util/trace_dir.h"
#include "util/trace_reader.h"
#include "util/trace_record.h"
#include "util/trace_writer.h"

struct tw_attr {
	unsigned type;
	size_t len;
	uint8_t *data;
};

struct trace_writer {
	char *dir;		  /* where files go: staging until committed */
	char *name;		  /* the trace's name (-o DIR) */
	char shown[320];	  /* name quoted for messages (td_quote) */
	int dirfd;		  /* dir, opened once: every file is made relative to it */
	int lock_fd;		  /* name's lock (trace_dir.h), held until freed */
	bool committed;
	bool commit_failed;	  /* tw_commit said why: not tried again */
	bool in_place;		  /* writing into an existing empty name directly */
	struct tw_options opts;
	uint64_t features;
	struct tw_attr *attrs;
	size_t nr_attrs;
	int tasks_fd;
	uint64_t tasks_size;	  /* bytes of whole records in the tasks file */
	uint32_t tasks_crc;	  /* CRC-32 of those bytes (PT_TASK_CHECK) */
	uint64_t last_task_time, last_task_seq; /* of the last record, for its CHECK */
	size_t header_room;	  /* size of the header file (with its padding) */
	struct pt_attr_synced synced; /* the last SYNCED the header got (tw_synced) */
	uint64_t steps;
	uint64_t counted;	  /* steps counted by COUNT records, all streams */
	uint64_t lost;
	uint64_t dropped;	  /* steps that did not reach the disk (write error) */
	uint32_t threads, processes;
	int error;		  /* first write error, said once */
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

/* name without trailing slashes (a "DIR/" given on the command line). */
static char *clean_name(const char *dir)
{
	char *n = strdup(dir);
	size_t len = n ? strlen(n) : 0;

	while (len > 1 && n[len - 1] == '/')
		n[--len] = '\0';
	return n;
}

/* Private (the default, and always with kernel addresses): for the owner only. */
static bool is_private(const struct trace_writer *tw)
{
	return tw->opts.private || !tw->opts.shared;
}

/* Its files' mode: 0600, or 0644 less the umask for a shared trace (tw_options.shared). */
static mode_t file_mode(const struct trace_writer *tw)
{
	return is_private(tw) ? 0600 : 0644;
}

/* The trace directory's mode once it takes its name: 0700, or 0755 less the umask. */
static mode_t dir_mode(const struct trace_writer *tw)
{
	mode_t mask;

	if (is_private(tw))
		return 0700;
	mask = umask(0);
	umask(mask);
	return 0755 & ~mask;
}

/* Open a directory we made or checked; tw->dirfd, or -1 said. */
static int open_dir(struct trace_writer *tw, const char *path)
{
	tw->dirfd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (tw->dirfd < 0)
		pr_err("cannot open %s: %s", path, strerror(errno));
	return tw->dirfd;
}

/*
 * Make the staging directory next to tw->name (mkdtemp: 0700, ours), or
 * take an empty directory of ours as it is (it may be a mount point).
 */
static int make_staging(struct trace_writer *tw)
{
	enum td_kind kind;
	char *old;
	int ret;

	if (td_lock(tw->name, &tw->lock_fd) < 0 || td_classify(tw->name, &kind) < 0)
		return -1;
	if (kind == TD_EMPTY) {
		tw->dir = strdup(tw->name);
		tw->in_place = true;
		if (!tw->dir || open_dir(tw, tw->dir) < 0)
			return -1;
		return fchmod(tw->dirfd, dir_mode(tw));
	}
	if (kind == TD_TRACE) {
		/* Refused now, before anything runs, rather than at the commit. */
		old = td_with_suffix(tw->name, TD_OLD_SUFFIX);
		ret = old ? td_old_replaceable(old) : -1;
		free(old);
		if (ret < 0)
			return -1;
	}
	tw->dir = td_with_suffix(tw->name, TD_STAGING_SUFFIX);
	if (!tw->dir)
		return -1;
	if (!mkdtemp(tw->dir)) {
		pr_err("cannot create %s: %s", tw->dir, strerror(errno));
		free(tw->dir);
		tw->dir = NULL;
		return -1;
	}
	return open_dir(tw, tw->dir) < 0 ? -1 : 0;
}

/* The previous trace at name gives way: DIR.old replaced, the two names swapped. */
static int rotate(struct trace_writer *tw)
{
	char *old = td_with_suffix(tw->name, TD_OLD_SUFFIX);
	int ret = -1;

	if (!old)
		return -1;
	if (td_remove_trace(old) < 0) {
		pr_err("the trace is in %s", tw->dir);
		goto out;
	}
	/* Swap the two names in one step where the filesystem can: DIR is
	 * never missing.  Then the old trace, now at the staging name,
	 * becomes DIR.old. */
	if (renameat2(AT_FDCWD, tw->dir, AT_FDCWD, tw->name, RENAME_EXCHANGE) == 0) {
		if (rename(tw->dir, old) < 0)
			pr_warn("cannot move the previous trace to %s: %s; it is in %s", old,
				strerror(errno), tw->dir);
		ret = 1;
		goto out;
	}
	if (rename(tw->name, old) < 0) {
		pr_err("cannot move previous trace %s to %s: %s; the trace is in %s", tw->name,
		       old, strerror(errno), tw->dir);
		goto out;
	}
	ret = 0;
out:
	free(old);
	return ret;
}

/* Give the staged trace its name and mode: 0, or -1 said (it stays where it is). */
static int commit(struct trace_writer *tw)
{
	enum td_kind kind;
	int ret;

	if (td_classify(tw->name, &kind) < 0) {
		pr_err("the trace is in %s", tw->dir);
		return -1;
	}
	if (fchmod(tw->dirfd, dir_mode(tw)) < 0) {
		pr_err("cannot set the mode of %s: %s", tw->dir, strerror(errno));
		return -1;
	}
	ret = kind == TD_TRACE ? rotate(tw) : 0;
	if (ret < 0)
		return -1;
	if (!ret && rename(tw->dir, tw->name) < 0) {
		pr_err("cannot rename %s to %s: %s", tw->dir, tw->name, strerror(errno));
		return -1;
	}
	free(tw->dir);
	tw->dir = strdup(tw->name);
	return tw->dir ? 0 : -1;
}

int tw_commit(struct trace_writer *tw)
{
	if (tw->committed || tw->in_place) {
		tw->committed = true;
		return 0;
	}
	if (tw->commit_failed)
		return -1;	/* said once: the trace stays in its staging directory */
	if (commit(tw) < 0) {
		tw->commit_failed = true;
		return -1;
	}
	tw->committed = true;
	return 0;
}

const char *tw_dir(const struct trace_writer *tw)
{
	return tw->dir;
}

bool tw_has_file(const struct trace_writer *tw, const char *name)
{
	return faccessat(tw->dirfd, name, F_OK, AT_SYMLINK_NOFOLLOW) == 0;
}

int tw_error(const struct trace_writer *tw)
{
	return tw->error;
}

const char *tw_limit_note(int err, char *buf, size_t size)
{
	struct rlimit rl;

	buf[0] = '\0';
	if (err == EFBIG && getrlimit(RLIMIT_FSIZE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
		snprintf(buf, size, " (the file size limit, ulimit -f, is %llu bytes)",
			 (unsigned long long)rl.rlim_cur);
	return buf;
}

/* The first write error of the trace: said once, in one line, then remembered. */
static void write_failed(struct trace_writer *tw, const char *name, int err)
{
	if (tw->error)
		return;
	char note[96];

	tw->error = err ? err : EIO;
	pr_err("cannot write %s/%s: %s%s: the trace ends here (what was written before stays "
	       "readable)", tw->shown, name, strerror(tw->error),
	       tw_limit_note(tw->error, note, sizeof(note)));
}

static void free_writer(struct trace_writer *tw)
{
	for (size_t i = 0; i < tw->nr_attrs; i++)
		free(tw->attrs[i].data);
	free(tw->attrs);
	if (tw->dirfd >= 0)
		close(tw->dirfd);
	if (tw->name)
		td_unlock(tw->name, tw->lock_fd);
	free(tw->dir);
	free(tw->name);
	free(tw);
}

void tw_discard(struct trace_writer *tw)
{
	if (!tw)
		return;
	if (tw->tasks_fd >= 0)
		close(tw->tasks_fd);
	if (!tw->committed && tw->dirfd >= 0) {
		if (tw->in_place)
			td_clear_at(tw->dirfd);
		else
			td_remove_staging(tw->dir);
	}
	free_writer(tw);
}

/*
 * Create a new file of the trace: relative to the directory opened once,
 * never following a link, never one that is there already (the
 * directory is ours and no one else can write it: nothing should be).
 */
static int open_new(struct trace_writer *tw, const char *name)
{
	return openat(tw->dirfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
		      file_mode(tw));
}

struct trace_writer *tw_open(const char *dir, const struct tw_options *opts)
{
	struct trace_writer *tw;
	struct pt_file_header h;

	tw = calloc(1, sizeof(*tw));
	if (!tw)
		return NULL;
	tw->tasks_fd = tw->dirfd = tw->lock_fd = -1;
	if (opts)
		tw->opts = *opts;
	tw->name = clean_name(dir);
	if (tw->name)
		td_quote(tw->name, tw->shown, sizeof(tw->shown));
	if (!tw->name || make_staging(tw) < 0) {
		free_writer(tw);
		return NULL;
	}
	tw->features = tw->opts.features | (tw->opts.compress ? PT_FEAT_ZSTD : 0);
	/* O_CLOEXEC: not inherited by traced commands */
	tw->tasks_fd = open_new(tw, PT_FILE_TASKS);
	fill_file_header(&h, PT_KIND_TASKS, 0, 0, 0);
	if (tw->tasks_fd < 0 || write_all(tw->tasks_fd, &h, sizeof(h)) < 0) {
		pr_err("cannot create %s/%s: %s", tw->shown, PT_FILE_TASKS, strerror(errno));
		tw_discard(tw);
		return NULL;
	}
	tw->tasks_size = sizeof(h);
	tw->tasks_crc = (uint32_t)crc32(0, (const Bytef *)&h, sizeof(h));
	return tw;
}

/* Create the trace's file name (mode per file_mode); fd, or -1 with it said (write_failed). */
static int create_file(struct trace_writer *tw, const char *name)
{
	int fd = open_new(tw, name);

	if (fd < 0)
		write_failed(tw, name, errno);
	return fd;
}

/*
 * Close a file create_file made; keep it when it is whole (err 0), else
 * remove it: a partial snapshot is worse than none, the reader would trust
 * it.  0 or -1.
 */
static int finish_file(struct trace_writer *tw, const char *name, int fd, int err)
{
	if (close(fd) < 0 && !err)
		err = errno ? errno : EIO;
	if (err) {
		unlinkat(tw->dirfd, name, 0);
		write_failed(tw, name, err);
	}
	return err ? -1 : 0;
}

int tw_write_file(struct trace_writer *tw, const char *name, const void *data, size_t len)
{
	int fd;

	if (tw->error)
		return -1;
	fd = create_file(tw, name);
	if (fd < 0)
		return -1;
	return finish_file(tw, name, fd, write_all(fd, data, len) < 0 ? errno : 0);
}

int tw_copy_file(struct trace_writer *tw, const char *name, const char *src)
{
	uint8_t buf[65536];
	int in, out, err = 0, read_err = 0;
	ssize_t n;

	if (tw->error)
		return -1;
	in = open(src, O_RDONLY | O_CLOEXEC);
	if (in < 0) {
		read_err = errno;
		goto err_source;
	}
	out = create_file(tw, name);
	if (out < 0) {
		close(in);
		return -1;
	}
	/* To its end: a /proc file's size (0 to stat) says nothing. */
	while ((n = read(in, buf, sizeof(buf))) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			read_err = errno;
			break;
		}
		if (write_all(out, buf, (size_t)n) < 0) {
			err = errno;
			break;
		}
	}
	close(in);
	if (read_err) {
		close(out);
		unlinkat(tw->dirfd, name, 0);
		goto err_source;
	}
	return finish_file(tw, name, out, err);

err_source:
	/* Not the trace's failure: it goes on without this file. */
	pr_warn("cannot read %s: %s; the trace has no %s", src, strerror(read_err), name);
	errno = read_err;
	return -1;
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

/* The attribute is gone from the header written next. */
static void drop_attr(struct trace_writer *tw, unsigned type)
{
	size_t n = 0;

	for (size_t i = 0; i < tw->nr_attrs; i++) {
		if (tw->attrs[i].type == type)
			free(tw->attrs[i].data);
		else
			tw->attrs[n++] = tw->attrs[i];
	}
	tw->nr_attrs = n;
}

int tw_set_attr_str(struct trace_writer *tw, unsigned type, const char *s)
{
	return tw_set_attr(tw, type, s, strlen(s) + 1);
}

void tw_set_stop_time(struct trace_writer *tw)
{
	struct pt_attr_time stop = { tw_realtime_ns(), tw_now_ns() };

	tw_set_attr(tw, PT_ATTR_STOP_TIME, &stop, sizeof(stop));
}

void tw_add_features(struct trace_writer *tw, uint64_t features)
{
	tw->features |= features;
}

/* Append a tagged record to a growing buffer; -1 when out of memory. */
static int put_rec(uint8_t **buf, size_t *len, unsigned type, const void *a, size_t alen,
		   const void *b, size_t blen)
{
	struct pt_rec_header rh = { .type = type, .size = (uint32_t)(sizeof(rh) + alen + blen) };
	uint8_t *n = realloc(*buf, *len + rh.size);

	if (!n)
		return -1;
	memcpy(n + *len, &rh, sizeof(rh));
	if (alen)
		memcpy(n + *len + sizeof(rh), a, alen);
	if (blen)
		memcpy(n + *len + sizeof(rh) + alen, b, blen);
	*buf = n;
	*len += rh.size;
	return 0;
}

/* The header's CHECK attribute: the CRC-32 of everything before it (v6). */
static int check_header(uint8_t **buf, size_t *len)
{
	uint32_t crc = (uint32_t)crc32(0, *buf, (uInt)*len);

	return put_rec(buf, len, PT_ATTR_CHECK, &crc, sizeof(crc), NULL, 0);
}

/* Seal the header image with its CHECK, then pad it to size with a
 * PT_ATTR_PAD record (size >= len + HEADER_SEAL). */
#define HEADER_SEAL (2 * sizeof(struct pt_rec_header) + sizeof(uint32_t))
static int seal_header(uint8_t **buf, size_t *len, size_t size)
{
	size_t pad;
	uint8_t *zeros;
	int ret;

	if (check_header(buf, len) < 0)
		return -1;
	pad = size - *len - sizeof(struct pt_rec_header);
	zeros = calloc(1, pad ? pad : 1);
	if (!zeros)
		return -1;
	ret = put_rec(buf, len, PT_ATTR_PAD, zeros, pad, NULL, 0);
	free(zeros);
	return ret;
}

/* The header as it goes on disk, padded to room (which grows when needed). */
static int header_image(struct trace_writer *tw, uint8_t **buf, size_t *len, size_t *room)
{
	struct pt_file_header h;

	fill_file_header(&h, PT_KIND_HEADER, tw->features, 0, 0);
	*buf = malloc(sizeof(h));
	if (!*buf)
		return -1;
	memcpy(*buf, &h, sizeof(h));
	*len = sizeof(h);
	for (size_t i = 0; i < tw->nr_attrs; i++)
		if (put_rec(buf, len, tw->attrs[i].type, tw->attrs[i].data, tw->attrs[i].len, NULL,
			    0) < 0)
			return -1;
	/* Room for what is added at the end (state, stop time, notes). */
	*room = tw->header_room;
	if (*room < *len + 1024)
		*room = (*len + 1024 + PT_HEADER_ROOM - 1) / PT_HEADER_ROOM * PT_HEADER_ROOM;
	return 0;
}

/* Rewrite the header file where it is (a full filesystem has no room for a new one). */
static int header_in_place(struct trace_writer *tw, uint8_t **buf, size_t *len)
{
	int fd, ret = -1;

	if (!tw->header_room || *len + HEADER_SEAL > tw->header_room ||
	    seal_header(buf, len, tw->header_room) < 0)
		return -1;
	fd = openat(tw->dirfd, PT_FILE_HEADER, O_WRONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd >= 0 && pwrite(fd, *buf, *len, 0) == (ssize_t)*len)
		ret = 0;
	if (fd >= 0 && close(fd) < 0)
		ret = -1;
	return ret;
}

void tw_get_totals(const struct trace_writer *tw, struct pt_attr_totals *t)
{
	t->steps = tw->steps - tw->dropped;
	t->lost = tw->lost + tw->dropped;
	t->threads = tw->threads;
	t->processes = tw->processes;
	t->counted = tw->counted;
}

int tw_write_header(struct trace_writer *tw, const char *state)
{
	static const char tmp[] = PT_FILE_HEADER ".tmp";
	struct pt_attr_totals t;
	uint8_t *buf = NULL;
	size_t len = 0, room;
	char note[96];
	int fd, ret = -1, err = 0;

	tw_get_totals(tw, &t);
	tw_set_attr(tw, PT_ATTR_TOTALS, &t, sizeof(t));
	tw_set_attr_str(tw, PT_ATTR_STATE, state);
	if (header_image(tw, &buf, &len, &room) < 0)
		goto out;
	unlinkat(tw->dirfd, tmp, 0);	/* a leftover of a failed rewrite */
	fd = open_new(tw, tmp);
	if (fd >= 0 && seal_header(&buf, &len, room) == 0 && write_all(fd, buf, len) == 0)
		ret = 0;
	err = errno;
	if (fd >= 0 && close(fd) < 0 && !ret) {
		ret = -1;
		err = errno;
	}
	if (!ret && renameat(tw->dirfd, tmp, tw->dirfd, PT_FILE_HEADER) < 0) {
		ret = -1;
		err = errno;
	}
	if (!ret) {
		tw->header_room = room;
		goto out;
	}
	unlinkat(tw->dirfd, tmp, 0);
	free(buf);
	buf = NULL;
	if ((err == ENOSPC || err == EDQUOT || err == EFBIG) &&
	    header_image(tw, &buf, &len, &room) == 0 && header_in_place(tw, &buf, &len) == 0) {
		pr_dbg("%s/%s rewritten in place (%s)", tw->shown, PT_FILE_HEADER, strerror(err));
		ret = 0;
		goto out;
	}
	pr_err("cannot write %s/%s: %s%s", tw->shown, PT_FILE_HEADER, strerror(err),
	       tw_limit_note(err, note, sizeof(note)));
out:
	free(buf);
	return ret;
}

int tw_task(struct trace_writer *tw, unsigned type, const void *rec, size_t len, const char *str)
{
	struct pt_task_check check = { .c = { 0 } };
	uint8_t *buf = NULL;
	size_t n = 0;
	uint32_t crc;

	if (tw->error)
		return -1;
	/* Task records are rare and make the steps readable: each one is
	 * written through with its CHECK, whole or not at all, so a recorder
	 * killed outright or a full filesystem still leaves whole records on
	 * disk. */
	if (put_rec(&buf, &n, type, rec, len, str, str ? strlen(str) + 1 : 0) < 0)
		return -1;
	if (len >= sizeof(struct pt_task_common)) {
		struct pt_task_common c;

		memcpy(&c, rec, sizeof(c));
		tw->last_task_time = c.time_ns;
		tw->last_task_seq = c.seq;
	}
	check.c.time_ns = tw->last_task_time;
	check.c.seq = tw->last_task_seq;
	check.crc32 = (uint32_t)crc32(tw->tasks_crc, buf, (uInt)n);
	crc = check.crc32;
	if (put_rec(&buf, &n, PT_TASK_CHECK, &check, sizeof(check), NULL, 0) < 0) {
		free(buf);
		return -1;
	}
	if (write_all(tw->tasks_fd, buf, n) < 0) {
		int err = errno;

		if (ftruncate(tw->tasks_fd, (off_t)tw->tasks_size) < 0 ||
		    lseek(tw->tasks_fd, (off_t)tw->tasks_size, SEEK_SET) < 0)
			pr_dbg("cannot cut %s back to its last record: %s", PT_FILE_TASKS,
			       strerror(errno));
		write_failed(tw, PT_FILE_TASKS, err);
		free(buf);
		return -1;
	}
	tw->tasks_size += n;
	/* the next CHECK covers this one too: everything before it */
	tw->tasks_crc = (uint32_t)crc32(crc, buf + n - sizeof(struct pt_rec_header) - sizeof(check),
				       (uInt)(sizeof(struct pt_rec_header) + sizeof(check)));
	free(buf);
	return 0;
}

int tw_synced(struct trace_writer *tw)
{
	struct pt_attr_synced a = { tw->steps, tw->tasks_size, tw_now_ns() };

	/* nothing new: a reader already knows (a thread blocking again and again) */
	if (tw->error || (tw->synced.seq == a.seq && tw->synced.tasks_bytes == a.tasks_bytes))
		return 0;
	tw->synced = a;
	if (tw_set_attr(tw, PT_ATTR_SYNCED, &a, sizeof(a)) < 0)
		return -1;
	return tw_write_header(tw, PT_STATE_RECORDING);
}

int tw_synced_time(struct trace_writer *tw, uint64_t cut_ns)
{
	struct pt_attr_synced_time a = { cut_ns, tw->tasks_size, tw_now_ns() };

	if (tw->error)
		return 0;
	if (tw_set_attr(tw, PT_ATTR_SYNCED_TIME, &a, sizeof(a)) < 0)
		return -1;
	return tw_write_header(tw, PT_STATE_RECORDING);
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

/* A stream that cannot be written: cut it back to its last whole block, say so once. */
static void stream_failed(struct tw_stream *s, int err)
{
	char name[64];

	if (s->error)
		return;
	s->error = err ? err : EIO;
	if (ftruncate(s->fd, (off_t)s->disk_bytes) < 0)
		pr_dbg("cannot cut step stream %u back to byte %llu: %s", s->id,
		       (unsigned long long)s->disk_bytes, strerror(errno));
	snprintf(name, sizeof(name), s->per_cpu ? PT_FILE_STEPS_CPU_FMT : PT_FILE_STEPS_THREAD_FMT,
		 s->id);
	write_failed(s->tw, name, s->error);
}

struct tw_stream *tw_stream_open(struct trace_writer *tw, bool per_cpu, uint32_t id)
{
	struct tw_stream *s = calloc(1, sizeof(*s));
	struct pt_file_header h;
	char name[64];

	if (!s)
		return NULL;
	snprintf(name, sizeof(name), per_cpu ? PT_FILE_STEPS_CPU_FMT : PT_FILE_STEPS_THREAD_FMT, id);
	s->fd = open_new(tw, name);
	if (s->fd < 0) {
		write_failed(tw, name, errno);
		free(s);
		return NULL;
	}
	s->tw = tw;
	s->per_cpu = per_cpu;
	s->id = id;
	s->total_steps = &tw->steps;
	tw_add_features(tw, per_cpu ? PT_FEAT_PER_CPU : PT_FEAT_PER_THREAD);
	fill_file_header(&h, PT_KIND_STEPS, 0, id, tw->opts.compress ? PT_FLAG_ZSTD : 0);
	if (write_all(s->fd, &h, sizeof(h)) < 0)
		stream_failed(s, errno);
	else
		s->disk_bytes = sizeof(h);
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

/*
 * Write data to the file, compressed when asked, adding the bytes written
 * to *written.  Compressed streams are flushed at every call (ZSTD_e_flush)
 * so the file always ends on whole zstd blocks: cut there, it still
 * decodes up to its last CHECK.  end closes the zstd frame.
 */
static int stream_out(struct tw_stream *s, const uint8_t *data, size_t len, bool end,
		      uint64_t *written)
{
	ZSTD_inBuffer in = { data, len, 0 };

	if (!s->zstd) {
		if (write_all(s->fd, data, len) < 0)
			return -1;
		*written += len;
		return 0;
	}
	for (;;) {
		ZSTD_outBuffer out = { s->zbuf, s->zbuf_size, 0 };
		size_t r = ZSTD_compressStream2(s->zstd, &out, &in, end ? ZSTD_e_end : ZSTD_e_flush);

		if (ZSTD_isError(r)) {
			errno = EIO;
			return -1;
		}
		if (out.pos && write_all(s->fd, s->zbuf, out.pos) < 0)
			return -1;
		*written += out.pos;
		if (r == 0 && in.pos == in.size)
			return 0;
	}
}

/* Seal the buffer with a CHECK record covering it, then write it out. */
int tw_stream_flush(struct tw_stream *s)
{
	struct ctl_payload p = { .len = 0 };
	uint64_t written = 0;

	if (!s->len)
		return s->error ? -1 : 0;
	ctl_put_u32(&p, (uint32_t)crc32(0, s->buf, (uInt)s->len));
	ctl_put_uleb(&p, s->blocks++);
	s->len += pt_ctl_put(s->buf + s->len, PT_CTL_CHECK, p.buf, p.len);
	if (!s->error) {
		if (stream_out(s, s->buf, s->len, false, &written) < 0) {
			stream_failed(s, errno);
		} else {
			s->disk_bytes += written;
			s->disk_steps = s->steps;
		}
	}
	s->len = 0;
	return s->error ? -1 : 0;
}

/* Steps a COUNT record counts: the stream's END and the header's TOTALS say their sum. */
static void count_steps(struct tw_stream *s, uint64_t n)
{
	s->counted += n;
	s->tw->counted += n;
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
			if (it.ctl_type == PT_CTL_COUNT && !ctl_get_uleb(&c, &n))
				count_steps(s, n);
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
	if (type == PT_CTL_COUNT) {
		struct ctl_cursor c = { p->buf, p->buf + p->len };
		uint64_t n;

		if (!ctl_get_uleb(&c, &n))
			count_steps(s, n);
	}
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

void tw_native(struct tw_stream *s, unsigned kind, uint64_t pc, uint64_t end, unsigned flags,
	       uint64_t count)
{
	struct ctl_payload p = { .len = 0 };

	ctl_put_uleb(&p, kind);
	ctl_put_u64(&p, pc);
	ctl_put_u64(&p, end);
	ctl_put_uleb(&p, flags);
	ctl_put_uleb(&p, count);
	tw_ctl(s, PT_CTL_NATIVE, &p);
	tw_gap(s, PT_GAP_NATIVE);
}

void tw_gap(struct tw_stream *s, unsigned reason)
{
	struct ctl_payload p = { .len = 0 };

	ctl_put_uleb(&p, reason);
	tw_ctl(s, PT_CTL_GAP, &p);
}

void tw_restored(struct tw_stream *s, unsigned reason)
{
	struct ctl_payload p = { .len = 0 };

	ctl_put_uleb(&p, reason);
	tw_ctl(s, PT_CTL_RESTORED, &p);
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
	uint64_t written = 0;
	int ret;

	if (!s->error) {
		ctl_put_uleb(&p, s->steps);
		ctl_put_uleb(&p, s->counted);
		tw_ctl(s, PT_CTL_END, &p);
		tw_stream_flush(s);
	}
	if (s->zstd && !s->error && stream_out(s, NULL, 0, true, &written) < 0)
		stream_failed(s, errno);
	if (close(s->fd) < 0)
		stream_failed(s, errno);
	ret = s->error ? -1 : 0;
	/* Steps that never reached the disk count as lost in the header. */
	s->tw->dropped += s->steps - s->disk_steps;
	ZSTD_freeCStream(s->zstd);
	free(s->zbuf);
	free(s);
	return ret;
}

int tw_close(struct trace_writer *tw, const char *state)
{
	int ret = 0;

	if (tw->tasks_fd >= 0 && close(tw->tasks_fd) < 0)
		write_failed(tw, PT_FILE_TASKS, errno);
	tw->tasks_fd = -1;
	if (tw_commit(tw) < 0)
		ret = -1;
	if (tw->error) {
		char note[256];

		snprintf(note, sizeof(note), "writing the trace failed (%s): the recording "
			 "stopped there", strerror(tw->error));
		tw_set_attr_str(tw, PT_ATTR_NOTE, note);
		state = PT_STATE_INTERRUPTED;
		ret = -1;
	}
	drop_attr(tw, PT_ATTR_SYNCED);	/* for a recording in progress only */
	drop_attr(tw, PT_ATTR_SYNCED_TIME);
	if (tw_write_header(tw, state) < 0)
		ret = -1;
	free_writer(tw);
	return ret;
}

int tw_mark_cut_short(const char *dir, const char *state, const char *note,
		      const struct pt_attr_totals *totals)
{
	struct trace_writer *tw = calloc(1, sizeof(*tw));
	const struct pt_rec_header *rh;
	struct pt_file_header h;
	struct pt_attr_totals t = { 0 };
	char *path = path_join(dir, PT_FILE_HEADER);
	uint8_t *data = NULL;
	size_t len, off = sizeof(h);
	int ret = -1;
	struct stat st;

	if (!tw)
		goto out;
	tw->tasks_fd = tw->lock_fd = -1;
	if (!path || open_dir(tw, dir) < 0 ||
	    trace_load_file(path, PT_KIND_HEADER, &h, &data, &len) < 0)
		goto out;
	/* The header keeps the mode the trace's files have. */
	tw->opts.shared = fstatat(tw->dirfd, PT_FILE_HEADER, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
			  (st.st_mode & S_IROTH);
	tw->dir = strdup(dir);
	tw->name = strdup(dir);
	td_quote(dir, tw->shown, sizeof(tw->shown));
	tw->committed = true;
	tw->features = h.features;
	tw->header_room = len;
	while (trace_next_record(data, len, &off, &rh) == 1) {
		size_t plen = rh->size - sizeof(*rh);

		if (rh->type == PT_ATTR_TOTALS && plen >= PT_ATTR_TOTALS_V1_SIZE)
			memcpy(&t, rh + 1, plen < sizeof(t) ? plen : sizeof(t));
		else if (rh->type != PT_ATTR_PAD && rh->type != PT_ATTR_STATE &&
			 rh->type != PT_ATTR_CHECK)
			tw_set_attr(tw, rh->type, rh + 1, plen);
	}
	if (totals)
		t = *totals;
	tw->steps = t.steps;
	tw->counted = t.counted;
	tw->lost = t.lost;
	tw->threads = t.threads;
	tw->processes = t.processes;
	tw_set_stop_time(tw);
	if (note)
		tw_set_attr_str(tw, PT_ATTR_NOTE, note);
	ret = tw->dir && tw->name ? tw_write_header(tw, state) : -1;
out:
	free(data);
	free(path);
	if (tw)
		free_writer(tw);
	return ret;
}

int tw_remove_staging(const char *staging)
{
	if (!strstr(staging, ".new-")) {
		errno = EINVAL;		/* not a name tw_open makes */
		return -1;
	}
	return td_remove_staging(staging);
}
