// SPDX-License-Identifier: GPL-2.0
/* Where a trace may be written: output names, their lock, what is a trace (trace_dir.h). */
#define PR_FMT "writer"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <pitrace/format.h>

#include "util/log.h"
#include "util/trace_dir.h"
#include "util/trace_record.h"

/* A header larger than this is no header of ours (a long command line is ~100 KB). */
#define TD_HEADER_MAX (64u << 20)

char *td_with_suffix(const char *name, const char *suffix)
{
	size_t n = strlen(name) + strlen(suffix) + 1;
	char *p = malloc(n);

	if (p)
		snprintf(p, n, "%s%s", name, suffix);
	return p;
}

/* The last component of name and its length. */
static size_t base_len(const char *name)
{
	const char *slash = strrchr(name, '/');

	return strlen(slash ? slash + 1 : name);
}

int td_check_name(const char *name)
{
	char q[128];
	size_t len = base_len(name);

	if (!*name) {
		pr_err("the trace's name is empty");
		return -1;
	}
	if (strlen(name) + sizeof(TD_STAGING_SUFFIX) > PATH_MAX) {
		pr_err("%s: the path is %zu bytes long; with its staging suffix (%s) it would be "
		       "longer than the system's limit of %d", td_quote(name, q, sizeof(q)),
		       strlen(name), TD_STAGING_SUFFIX, PATH_MAX - 1);
		return -1;
	}
	if (len > NAME_MAX) {
		pr_err("%s: the name is %zu bytes long, longer than the file system's limit of %d",
		       td_quote(name, q, sizeof(q)), len, NAME_MAX);
		return -1;
	}
	if (len + strlen(TD_STAGING_SUFFIX) > NAME_MAX) {
		pr_err("%s: the name is %zu bytes long; pitrace first writes the trace to NAME%s, "
		       "which must fit the file system's limit of %d bytes (use a name of at most "
		       "%zu)", td_quote(name, q, sizeof(q)), len, TD_STAGING_SUFFIX, NAME_MAX,
		       NAME_MAX - strlen(TD_STAGING_SUFFIX));
		return -1;
	}
	return 0;
}

/* ---- what is a trace ---- */

/* A header file's bytes make it pitrace's: magic, kind, version, and CRC from v6 on. */
static bool header_is_ours(const uint8_t *data, size_t len)
{
	const struct pt_rec_header *rh;
	struct pt_file_header h;
	size_t off = sizeof(h), at = off;
	uint32_t want;

	if (len < sizeof(h))
		return false;
	memcpy(&h, data, sizeof(h));
	if (memcmp(h.magic, PT_MAGIC, sizeof(PT_MAGIC)) || h.kind != PT_KIND_HEADER ||
	    h.endian != PT_ENDIAN_LITTLE || !h.version)
		return false;
	if (h.version < PT_FORMAT_CHECKED)
		return true;	/* older headers carry no CRC: magic and kind say it */
	while (trace_next_record(data, len, &off, &rh) == 1) {
		if (rh->type == PT_ATTR_CHECK && rh->size >= sizeof(*rh) + sizeof(want)) {
			memcpy(&want, rh + 1, sizeof(want));
			return want == (uint32_t)crc32(0, data, (uInt)at);
		}
		at = off;
	}
	return false;
}

bool td_is_trace_at(int dirfd)
{
	int fd = openat(dirfd, PT_FILE_HEADER, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	uint8_t *buf = NULL;
	bool ours = false;
	struct stat st;
	size_t got = 0;

	if (fd < 0)
		return false;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size < 1 ||
	    (uint64_t)st.st_size > TD_HEADER_MAX)
		goto out;
	buf = malloc((size_t)st.st_size);
	while (buf && got < (size_t)st.st_size) {
		ssize_t n = read(fd, buf + got, (size_t)st.st_size - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	ours = buf && got == (size_t)st.st_size && header_is_ours(buf, got);
out:
	free(buf);
	close(fd);
	return ours;
}

/* ---- classifying the output name ---- */

/* A listing of the directory open as dirfd, from its start (dirfd stays open). */
static DIR *dir_list(int dirfd)
{
	int fd = dup(dirfd);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;

	if (!d && fd >= 0)
		close(fd);
	if (d)
		rewinddir(d);	/* the duplicate shares dirfd's offset */
	return d;
}

static bool dirfd_is_empty(int dirfd)
{
	DIR *d = dir_list(dirfd);
	struct dirent *e;
	bool empty = true;

	if (!d)
		return false;
	while (empty && (e = readdir(d)))
		empty = !strcmp(e->d_name, ".") || !strcmp(e->d_name, "..");
	closedir(d);
	return empty;
}

/* Owned by the effective user and writable by no one else. */
static bool only_ours(const struct stat *st)
{
	return st->st_uid == geteuid() && !(st->st_mode & (S_IWGRP | S_IWOTH));
}

/* The directory that holds name must not let others swap what we made there. */
static int check_parent(const char *name)
{
	char *copy = strdup(name), *slash, q[128];
	const char *parent = ".";
	struct stat st;
	int ret = 0;

	if (!copy)
		return -1;
	slash = strrchr(copy, '/');
	if (slash == copy)
		parent = "/";
	else if (slash) {
		*slash = '\0';
		parent = copy;
	}
	if (stat(parent, &st) == 0 && (st.st_mode & S_IWOTH) && !(st.st_mode & S_ISVTX)) {
		pr_err("%s: every user can write the directory that would hold it (%s, mode %04o, "
		       "not sticky): give a name elsewhere", td_quote(name, q, sizeof(q)), parent,
		       (unsigned)(st.st_mode & 07777));
		ret = -1;
	}
	free(copy);
	return ret;
}

static int classify_dir(const char *name, enum td_kind *kind)
{
	int fd = open(name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	struct stat st;
	char q[128];
	int ret = -1;

	if (fd < 0 || fstat(fd, &st) < 0) {
		pr_err("cannot use %s: %s", td_quote(name, q, sizeof(q)), strerror(errno));
		goto out;
	}
	if (td_is_trace_at(fd)) {
		*kind = TD_TRACE;
		ret = 0;
	} else if (!dirfd_is_empty(fd)) {
		pr_err("%s exists and is not a pitrace trace (no valid header): it is left as it is",
		       td_quote(name, q, sizeof(q)));
	} else if (!only_ours(&st)) {
		pr_err("%s is an empty directory that %s (mode %04o, owner uid %u): pitrace "
		       "writes a trace only into a directory no one else can write",
		       td_quote(name, q, sizeof(q)),
		       st.st_uid != geteuid() ? "another user owns" : "other users can write",
		       (unsigned)(st.st_mode & 07777), (unsigned)st.st_uid);
	} else {
		*kind = TD_EMPTY;
		ret = 0;
	}
out:
	if (fd >= 0)
		close(fd);
	return ret;
}

int td_classify(const char *name, enum td_kind *kind)
{
	struct stat st;
	char q[128];

	if (td_check_name(name) < 0 || check_parent(name) < 0)
		return -1;
	if (lstat(name, &st) < 0) {
		if (errno == ENOENT) {
			*kind = TD_ABSENT;
			return 0;
		}
		pr_err("cannot use %s: %s", td_quote(name, q, sizeof(q)), strerror(errno));
		return -1;
	}
	if (S_ISLNK(st.st_mode)) {
		pr_err("%s is a symbolic link: pitrace does not write a trace through one (give "
		       "the path it points to)", td_quote(name, q, sizeof(q)));
		return -1;
	}
	if (!S_ISDIR(st.st_mode)) {
		pr_err("%s exists and is not a directory: it is left as it is",
		       td_quote(name, q, sizeof(q)));
		return -1;
	}
	return classify_dir(name, kind);
}

/* ---- replacing an old trace ---- */

static bool is_trace_file_name(const char *n)
{
	static const char *const fixed[] = {
		PT_FILE_HEADER, PT_FILE_HEADER ".tmp", PT_FILE_TASKS, PT_FILE_KALLSYMS,
		PT_FILE_MODULES, PT_FILE_VDSO,
	};
	const char *digits = NULL;

	for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++)
		if (!strcmp(n, fixed[i]))
			return true;
	if (!strncmp(n, PT_FILE_STEPS_THREAD, strlen(PT_FILE_STEPS_THREAD)))
		digits = n + strlen(PT_FILE_STEPS_THREAD);
	else if (!strncmp(n, PT_FILE_STEPS_CPU, strlen(PT_FILE_STEPS_CPU)))
		digits = n + strlen(PT_FILE_STEPS_CPU);
	return digits && *digits && strspn(digits, "0123456789") == strlen(digits);
}

/* The first entry of dirfd that is not a trace's regular file, in *what; -1 if none. */
static int foreign_entry(int dirfd, char *what, size_t size)
{
	DIR *d = dir_list(dirfd);
	struct dirent *e;
	int found = -1;

	if (!d) {
		snprintf(what, size, "it cannot be listed");
		return 0;
	}
	while (found < 0 && (e = readdir(d))) {
		struct stat st;

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (!is_trace_file_name(e->d_name) ||
		    fstatat(dirfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISREG(st.st_mode)) {
			snprintf(what, size, "it holds %s, which is not a trace's file", e->d_name);
			found = 0;
		}
	}
	closedir(d);
	return found;
}

/* Why the directory open as dirfd may not be removed, in why; 0 if it may. */
static int removal_problem(int dirfd, bool need_header, char *why, size_t size)
{
	struct stat st;

	if (fstat(dirfd, &st) < 0) {
		snprintf(why, size, "%s", strerror(errno));
		return -1;
	}
	if (need_header && !td_is_trace_at(dirfd)) {
		snprintf(why, size, "it is not a pitrace trace");
		return -1;
	}
	if (!only_ours(&st)) {
		snprintf(why, size, "%s (mode %04o, owner uid %u)",
			 st.st_uid != geteuid() ? "another user owns it" : "other users can write it",
			 (unsigned)(st.st_mode & 07777), (unsigned)st.st_uid);
		return -1;
	}
	return foreign_entry(dirfd, why, size) == 0 ? -1 : 0;
}

/* Open path for removal, checked; 0 (*dirfd -1 when absent), or -1 with why. */
static int open_removable(const char *old, bool need_header, int *dirfd, char *why, size_t size)
{
	struct stat st;

	*dirfd = -1;
	if (lstat(old, &st) < 0) {
		if (errno == ENOENT)
			return 0;
		snprintf(why, size, "%s", strerror(errno));
		return -1;
	}
	if (!S_ISDIR(st.st_mode)) {
		snprintf(why, size, S_ISLNK(st.st_mode) ? "it is a symbolic link"
							: "it is not a directory");
		return -1;
	}
	*dirfd = open(old, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (*dirfd < 0) {
		snprintf(why, size, "%s", strerror(errno));
		return -1;
	}
	if (removal_problem(*dirfd, need_header, why, size) < 0) {
		close(*dirfd);
		*dirfd = -1;
		return -1;
	}
	return 0;
}

int td_old_replaceable(const char *old)
{
	char why[512], q[128];
	int fd;

	if (open_removable(old, true, &fd, why, sizeof(why)) < 0) {
		pr_err("the previous backup %s cannot be replaced: %s; it is left as it is (move it "
		       "away, or give another name)", td_quote(old, q, sizeof(q)), why);
		return -1;
	}
	if (fd >= 0)
		close(fd);
	return 0;
}

/* Remove the entries of dirfd (only a trace's files when trace_only). */
static int unlink_entries(int dirfd, bool trace_only)
{
	DIR *d = dir_list(dirfd);
	struct dirent *e;
	int ret = 0;

	if (!d)
		return -1;
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if ((!trace_only || is_trace_file_name(e->d_name)) &&
		    unlinkat(dirfd, e->d_name, 0) < 0)
			ret = -1;
	}
	closedir(d);
	return ret;
}

/* Remove the directory at path, a trace's (need_header) or staging's, checked. */
static int remove_checked(const char *path, bool need_header)
{
	char why[512], q[128];
	int fd, ret = 0;

	if (open_removable(path, need_header, &fd, why, sizeof(why)) < 0) {
		pr_err("cannot remove %s: %s; it is left as it is", td_quote(path, q, sizeof(q)),
		       why);
		return -1;
	}
	if (fd < 0)
		return 0;
	if (unlink_entries(fd, false) < 0 || rmdir(path) < 0) {
		pr_err("cannot remove %s: %s", td_quote(path, q, sizeof(q)), strerror(errno));
		ret = -1;
	}
	close(fd);
	return ret;
}

int td_remove_trace(const char *path)
{
	return remove_checked(path, true);
}

int td_remove_staging(const char *path)
{
	return remove_checked(path, false);
}

int td_clear_at(int dirfd)
{
	return unlink_entries(dirfd, true);
}

/* ---- the lock ---- */

/* The pid written in a lock file, or 0. */
static long lock_holder(int fd)
{
	char buf[32] = "";
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);

	if (n <= 0)
		return 0;
	buf[n] = '\0';
	return strtol(buf, NULL, 10);
}

/* Open name's lock file, checked: a regular file of ours with one link. */
static int open_lock(const char *lock, const char *name)
{
	int fd = open(lock, O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0600);
	struct stat st;
	char q[128];

	if (fd < 0) {
		pr_err("cannot create %s (its lock %s): %s", td_quote(name, q, sizeof(q)), lock,
		       strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid() ||
	    st.st_nlink != 1) {
		pr_err("cannot lock %s: %s is not a lock file of this user's; it is left as it is",
		       td_quote(name, q, sizeof(q)), lock);
		close(fd);
		return -1;
	}
	return fd;
}

/* The file still at lock is the one open as fd (a holder may have removed it meanwhile). */
static bool lock_current(const char *lock, int fd)
{
	struct stat a, b;

	return fstat(fd, &a) == 0 && lstat(lock, &b) == 0 && a.st_dev == b.st_dev &&
	       a.st_ino == b.st_ino;
}

int td_lock(const char *name, int *fd_out)
{
	char *lock = td_with_suffix(name, TD_LOCK_SUFFIX), pid[32], q[128];
	int fd = -1;

	for (int tries = 0; lock && tries < 100; tries++) {
		fd = open_lock(lock, name);
		if (fd < 0)
			break;
		if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
			long holder = lock_holder(fd);

			pr_err("%s is being written by another pitrace (pid %ld, holding %s)",
			       td_quote(name, q, sizeof(q)), holder, lock);
			close(fd);
			fd = -1;
			break;
		}
		if (lock_current(lock, fd)) {
			int n = snprintf(pid, sizeof(pid), "%ld\n", (long)getpid());

			if (ftruncate(fd, 0) < 0 || pwrite(fd, pid, (size_t)n, 0) != n)
				pr_dbg("cannot write the pid into %s: %s", lock, strerror(errno));
			break;
		}
		close(fd);	/* its holder removed it as we opened it: again */
		fd = -1;
	}
	free(lock);
	*fd_out = fd;
	return fd >= 0 ? 0 : -1;
}

/* pid runs (a zombie does not: its recording is over). */
static bool pid_runs(long pid)
{
	char path[64], buf[512], *p;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	p = strrchr(buf, ')');	/* after the command's name, which may hold anything */
	return p && p[1] == ' ' && p[2] != 'Z' && p[2] != 'X';
}

long td_lock_holder(const char *name)
{
	char *lock = td_with_suffix(name, TD_LOCK_SUFFIX);
	long pid = 0;
	int fd;

	if (!lock)
		return 0;
	/* read, never locked: a lock of ours, however short, could refuse a recorder */
	fd = open(lock, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	free(lock);
	if (fd < 0)
		return 0;
	pid = lock_holder(fd);
	close(fd);
	return pid > 0 && pid_runs(pid) ? pid : 0;
}

void td_unlock(const char *name, int fd)
{
	char *lock;

	if (fd < 0)
		return;
	lock = td_with_suffix(name, TD_LOCK_SUFFIX);
	if (lock && lock_current(lock, fd))
		unlink(lock);
	free(lock);
	close(fd);
}

/* ---- messages ---- */

static bool needs_quotes(const char *s)
{
	if (!*s)
		return true;
	for (; *s; s++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
			    "_./+-:,@%=", *s))
			return true;
	return false;
}

static bool has_control(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f || *s == '\'')
			return true;
	return false;
}

/* One byte of name in $'...' form. */
static int escape_byte(unsigned char c, char *out, size_t size)
{
	switch (c) {
	case '\n': return snprintf(out, size, "\\n");
	case '\t': return snprintf(out, size, "\\t");
	case '\r': return snprintf(out, size, "\\r");
	case 0x1b: return snprintf(out, size, "\\e");
	case '\\': return snprintf(out, size, "\\\\");
	case '\'': return snprintf(out, size, "\\'");
	default:
		if (c < 0x20 || c == 0x7f)
			return snprintf(out, size, "\\x%02x", c);
		return snprintf(out, size, "%c", c);
	}
}

const char *td_quote(const char *name, char *buf, size_t size)
{
	bool dollar = has_control(name);
	size_t len = 0;

	if (size < 8) {
		if (size)
			buf[0] = '\0';
		return buf;
	}
	if (!needs_quotes(name)) {
		if ((size_t)snprintf(buf, size, "%s", name) >= size)
			strcpy(buf + size - 4, "...");
		return buf;
	}
	len = (size_t)snprintf(buf, size, "%s'", dollar ? "$" : "");
	for (const char *p = name; *p; p++) {
		char one[8];
		int n = dollar ? escape_byte((unsigned char)*p, one, sizeof(one))
			       : snprintf(one, sizeof(one), "%c", *p);

		if (len + (size_t)n + 5 > size) {
			strcpy(buf + len, "'...");
			return buf;
		}
		memcpy(buf + len, one, (size_t)n);
		len += (size_t)n;
	}
	buf[len++] = '\'';
	buf[len] = '\0';
	return buf;
}
