// SPDX-License-Identifier: GPL-2.0
/*
 * The trace writer (util/trace_writer.h): what becomes of a directory that
 * is already there when a recording starts, commits or never starts; and a
 * trace whose files cannot be written to the end (RLIMIT_FSIZE stands for a
 * full filesystem here), which must stay readable, without --force, up to
 * where writing stopped.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/trace_reader.h"
#include "util/trace_writer.h"
#include "tests/unit/unit.h"

/* Entries of the directory path that are not named as a trace's files. */
static bool has_foreign_files(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *e;
	bool any = false;

	while (d && (e = readdir(d)))
		any |= e->d_name[0] != '.' && strcmp(e->d_name, "header") &&
		       strcmp(e->d_name, "tasks") && strncmp(e->d_name, "steps.", 6) &&
		       strcmp(e->d_name, "vdso");
	if (d)
		closedir(d);
	return any;
}

/*
 * What is at a path, for the table: "-" nothing, "empty", "file", "other" (a
 * directory that is no readable trace), a trace's first NOTE ("trace:NOTE",
 * "+extra" when it holds other files too), or "link:" and what the link
 * points to.
 */
static void describe(const char *path, char *out, size_t size)
{
	char target[512];
	struct stat st;
	struct trace *t;
	DIR *d;
	struct dirent *e;
	bool any = false;
	int quiet, devnull;
	ssize_t n;

	if (lstat(path, &st) < 0) {
		snprintf(out, size, "-");
		return;
	}
	if (S_ISLNK(st.st_mode)) {
		n = readlink(path, target, sizeof(target) - 1);
		target[n > 0 ? n : 0] = '\0';
		snprintf(out, size, "link:");
		describe(target, out + 5, size - 5);
		return;
	}
	if (!S_ISDIR(st.st_mode)) {
		snprintf(out, size, "file");
		return;
	}
	d = opendir(path);
	while (d && (e = readdir(d)))
		any |= e->d_name[0] != '.';
	if (d)
		closedir(d);
	if (!any) {
		snprintf(out, size, "empty");
		return;
	}
	fflush(stderr);
	quiet = dup(2);
	devnull = open("/dev/null", O_WRONLY);
	dup2(devnull, 2);	/* a directory that is no trace makes the reader say so */
	t = trace_open(path);
	dup2(quiet, 2);
	close(quiet);
	close(devnull);
	if (!t) {
		snprintf(out, size, "other");
		return;
	}
	snprintf(out, size, "trace:%s%s", trace_info(t)->notes[0] ? trace_info(t)->notes[0] : "?",
		 has_foreign_files(path) ? "+extra" : "");
	trace_close(t);
}

/* Make a small complete trace at path whose NOTE is note. */
static void make_trace(const char *path, const char *note)
{
	struct trace_writer *tw = tw_open(path, NULL);

	CU_ASSERT_PTR_NOT_NULL_FATAL(tw);
	tw_set_attr_str(tw, PT_ATTR_NOTE, note);
	CU_ASSERT_EQUAL(tw_close(tw, PT_STATE_COMPLETE), 0);
}

static void make_path(const char *path, const char *what)
{
	char f[512];

	if (!strcmp(what, "-"))
		return;
	if (!strcmp(what, "file")) {
		close(open(path, O_WRONLY | O_CREAT, 0644));
		return;
	}
	if (!strncmp(what, "link:", 5)) {	/* a link to a sibling made as what follows */
		snprintf(f, sizeof(f), "%s.target", path);
		make_path(f, what + 5);
		CU_ASSERT_EQUAL(symlink(f, path), 0);
		return;
	}
	CU_ASSERT_EQUAL_FATAL(mkdir(path, 0755), 0);
	if (!strcmp(what, "other")) {
		snprintf(f, sizeof(f), "%s/notes.txt", path);
		close(open(f, O_WRONLY | O_CREAT, 0644));
	} else if (!strcmp(what, "fake")) {	/* a file called header is not a header */
		snprintf(f, sizeof(f), "%s/header", path);
		close(open(f, O_WRONLY | O_CREAT, 0644));
	} else if (!strcmp(what, "open")) {	/* empty, but every user can write it */
		chmod(path, 0777);
	} else if (!strncmp(what, "trace:", 6)) {
		char note[64];

		snprintf(note, sizeof(note), "%.*s", (int)strcspn(what + 6, "+"), what + 6);
		rmdir(path);
		make_trace(path, note);
		if (strstr(what, "+extra")) {
			snprintf(f, sizeof(f), "%s/NOTES.txt", path);
			close(open(f, O_WRONLY | O_CREAT, 0644));
		}
	}
}

/* Entries left in dir other than the expected names (staging leftovers). */
static int leftovers(const char *dir, const char *name)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char old[300];
	int n = 0;

	snprintf(old, sizeof(old), "%s.old", name);
	while (d && (e = readdir(d)))
		if (e->d_name[0] != '.' && strcmp(e->d_name, name) && strcmp(e->d_name, old) &&
		    !strstr(e->d_name, ".target"))
			n++;
	if (d)
		closedir(d);
	return n;
}

/* One row: what is there before, what the recording does, what is there after. */
static const struct {
	const char *before, *before_old;
	const char *action;	  /* "commit", "discard", "refused" (tw_open fails) */
	const char *after, *after_old;
} dir_cases[] = {
	{ "-", "-", "commit", "trace:new", "-" },
	{ "-", "-", "discard", "-", "-" },
	{ "trace:good", "-", "discard", "trace:good", "-" },	/* a failed start */
	{ "trace:good", "-", "commit", "trace:new", "trace:good" },
	{ "trace:good", "trace:older", "commit", "trace:new", "trace:good" },
	{ "trace:good", "trace:older", "discard", "trace:good", "trace:older" },
	{ "empty", "-", "commit", "trace:new", "-" },
	{ "empty", "-", "discard", "empty", "-" },
	{ "file", "-", "refused", "file", "-" },
	{ "other", "-", "refused", "other", "-" },
	{ "fake", "-", "refused", "other", "-" },
	{ "open", "-", "refused", "empty", "-" },
	{ "link:trace:elsewhere", "-", "refused", "link:trace:elsewhere", "-" },
	{ "link:empty", "-", "refused", "link:empty", "-" },
	{ "trace:good", "trace:older+extra", "refused", "trace:good", "trace:older+extra" },
	{ "trace:good", "other", "refused", "trace:good", "other" },
	{ "trace:good", "link:trace:older", "refused", "trace:good", "link:trace:older" },
	{ "trace:good+extra", "-", "commit", "trace:new", "trace:good+extra" },
};

static void test_existing_directory(void)
{
	for (size_t i = 0; i < sizeof(dir_cases) / sizeof(dir_cases[0]); i++) {
		char parent[256], name[300], old[310], got[256], got_old[256];
		struct trace_writer *tw;
		int saved = dup(2), devnull = open("/dev/null", O_WRONLY);

		snprintf(parent, sizeof(parent), "%s/dirs%zu", unit_tmpdir(), i);
		mkdir(parent, 0755);
		snprintf(name, sizeof(name), "%s/t", parent);
		snprintf(old, sizeof(old), "%s/t.old", parent);
		make_path(name, dir_cases[i].before);
		make_path(old, dir_cases[i].before_old);
		dup2(devnull, 2);	/* "refused" rows print their error */
		tw = tw_open(name, NULL);
		dup2(saved, 2);
		close(saved);
		close(devnull);
		if (!strcmp(dir_cases[i].action, "refused")) {
			CU_ASSERT_PTR_NULL(tw);
		} else {
			CU_ASSERT_PTR_NOT_NULL_FATAL(tw);
			tw_set_attr_str(tw, PT_ATTR_NOTE, "new");
			CU_ASSERT_EQUAL(tw_write_header(tw, PT_STATE_RECORDING), 0);
			if (!strcmp(dir_cases[i].action, "commit")) {
				CU_ASSERT_EQUAL(tw_commit(tw), 0);
				CU_ASSERT_STRING_EQUAL(tw_dir(tw), name);
				CU_ASSERT_EQUAL(tw_close(tw, PT_STATE_COMPLETE), 0);
			} else {
				tw_discard(tw);
			}
		}
		describe(name, got, sizeof(got));
		describe(old, got_old, sizeof(got_old));
		if (strcmp(got, dir_cases[i].after) || strcmp(got_old, dir_cases[i].after_old))
			fprintf(stderr, "\n  row %zu (%s, %s, %s): got %s, %s", i,
				dir_cases[i].before, dir_cases[i].before_old, dir_cases[i].action,
				got, got_old);
		CU_ASSERT_STRING_EQUAL(got, dir_cases[i].after);
		CU_ASSERT_STRING_EQUAL(got_old, dir_cases[i].after_old);
		CU_ASSERT_EQUAL(leftovers(parent, "t"), 0);
	}
}

/* The trace takes its name at tw_commit, not before: readers of DIR see the old one. */
static void test_staging_until_commit(void)
{
	char name[300], got[256];
	struct trace_writer *tw;

	snprintf(name, sizeof(name), "%s/stage/", unit_tmpdir());	/* "DIR/" works */
	make_trace(name, "old");
	tw = tw_open(name, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(tw);
	CU_ASSERT(strcmp(tw_dir(tw), name) != 0);
	CU_ASSERT_EQUAL(tw_write_header(tw, PT_STATE_RECORDING), 0);
	CU_ASSERT_EQUAL(tw_write_file(tw, PT_FILE_VDSO, "x", 1), 0);
	describe(name, got, sizeof(got));
	CU_ASSERT_STRING_EQUAL(got, "trace:old");
	CU_ASSERT_EQUAL(tw_commit(tw), 0);
	describe(name, got, sizeof(got));
	CU_ASSERT_STRING_EQUAL(got, "trace:?");
	snprintf(got, sizeof(got), "%s/%s", tw_dir(tw), PT_FILE_VDSO);
	CU_ASSERT_EQUAL(access(got, F_OK), 0);
	CU_ASSERT_EQUAL(tw_close(tw, PT_STATE_COMPLETE), 0);
}

/*
 * Steps written until a file may grow no more: the writer says so once, the
 * stream ends at its last whole block, the trace is "interrupted" and reads
 * without --force, the header's totals match what the streams hold (the
 * steps that missed the disk count as lost).
 */
static void test_write_failure(void)
{
	static const struct {
		bool compress;
		rlim_t limit;		  /* largest file */
	} rows[] = { { false, 200000 }, { true, 3000 } };

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct tw_options o = { .compress = rows[i].compress };
		struct rlimit old, lim = { rows[i].limit, RLIM_INFINITY };
		struct pt_task_exit ex = { .c = { .pid = 7, .tid = 7 } };
		struct pt_task_comm comm = { .c = { .pid = 7, .tid = 7 } };
		char name[300], path[320];
		struct trace_writer *tw;
		struct tw_stream *st;
		struct trace *t;
		struct trace_iter *it;
		struct trace_event ev;
		uint64_t n = 0, written;
		int saved = dup(2), devnull = open("/dev/null", O_WRONLY), r, err;

		snprintf(name, sizeof(name), "%s/full%zu", unit_tmpdir(), i);
		tw = tw_open(name, &o);
		CU_ASSERT_PTR_NOT_NULL_FATAL(tw);
		CU_ASSERT_EQUAL(tw_commit(tw), 0);
		CU_ASSERT_EQUAL(tw_write_header(tw, PT_STATE_RECORDING), 0);
		CU_ASSERT_EQUAL(tw_task(tw, PT_TASK_COMM, &comm, sizeof(comm), "full"), 0);
		st = tw_stream_open(tw, false, 7);
		CU_ASSERT_PTR_NOT_NULL_FATAL(st);
		tw_switch(st, 7, 7, 0, 0);
		signal(SIGXFSZ, SIG_IGN);
		getrlimit(RLIMIT_FSIZE, &old);
		setrlimit(RLIMIT_FSIZE, &lim);
		dup2(devnull, 2);
		/* an address pattern zstd cannot squeeze to nothing */
		for (uint64_t k = 0; k < 2000000 && !tw_error(tw); k++)
			tw_step(st, 0x400000 + ((k * 2654435761u) >> 7) % 100000);
		err = tw_error(tw);
		tw_task(tw, PT_TASK_EXIT, &ex, sizeof(ex), NULL);
		written = tw_total_steps(tw);
		tw_stream_close(st);
		r = tw_close(tw, PT_STATE_COMPLETE);
		setrlimit(RLIMIT_FSIZE, &old);
		dup2(saved, 2);
		close(saved);
		close(devnull);
		CU_ASSERT_EQUAL(err, EFBIG);
		CU_ASSERT_EQUAL(r, -1);
		snprintf(path, sizeof(path), "%s/steps.t7", name);
		t = trace_open(name);
		CU_ASSERT_PTR_NOT_NULL_FATAL(t);
		CU_ASSERT_STRING_EQUAL(trace_info(t)->state, PT_STATE_INTERRUPTED);
		CU_ASSERT(trace_cut_short(t));
		it = trace_iter_new(t);
		CU_ASSERT_PTR_NOT_NULL_FATAL(it);
		while ((r = trace_next(it, &ev)) == 1)
			n += ev.kind == TEV_STEP;
		CU_ASSERT_EQUAL(r, 0);	/* the end, not an error */
		CU_ASSERT(n > 0);
		CU_ASSERT_EQUAL(n, trace_info(t)->totals.steps);
		CU_ASSERT_EQUAL(n + trace_info(t)->totals.lost, written);
		trace_iter_free(it);
		trace_close(t);
	}
}

/* Mode bits of DIR/NAME (NAME NULL: DIR itself), -1 when missing. */
static int mode_of(const char *dir, const char *name)
{
	char path[600];
	struct stat st;

	snprintf(path, sizeof(path), "%s%s%s", dir, name ? "/" : "", name ? name : "");
	return stat(path, &st) < 0 ? -1 : (int)(st.st_mode & 07777);
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every entry of dir, sorted, as "NAME MODE" separated by commas. */
static void list_files(const char *dir, char *out, size_t size)
{
	char *names[32];
	size_t n = 0, len = 0;
	struct dirent *e;
	DIR *d = opendir(dir);

	out[0] = '\0';
	while (d && (e = readdir(d)) && n < 32)
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			names[n++] = strdup(e->d_name);
	if (d)
		closedir(d);
	qsort(names, n, sizeof(names[0]), cmp_names);
	for (size_t i = 0; i < n; i++) {
		len += (size_t)snprintf(out + len, size - len, "%s%s %04o", i ? "," : "", names[i],
					mode_of(dir, names[i]));
		free(names[i]);
	}
}

/* The whole of a file (at most size - 1 bytes), NUL-terminated; its length or -1. */
static ssize_t slurp(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n, len = 0;

	if (fd < 0)
		return -1;
	while ((n = read(fd, buf + len, size - 1 - (size_t)len)) > 0)
		len += n;
	close(fd);
	buf[len] = '\0';
	return n < 0 ? -1 : len;
}

/*
 * A trace holds exactly the files its writer wrote: the header, the tasks
 * file, the streams and what tw_write_file and tw_copy_file put there,
 * each named in format.h.  A trace is its owner's only, 0700 with files
 * 0600, unless shared (0755 and 0644 less the umask); a private one (it
 * holds kernel addresses: kallsyms, the KASLR slide) even when shared.
 * The staging directory is 0700 whatever the trace becomes.
 */
static void test_trace_files(void)
{
	static const struct {
		bool private, shared;
		mode_t umask;
		int dir;
		const char *files;
	} cases[] = {
		{ false, false, 022, 0700, "header 0600,kallsyms 0600,modules 0600,steps.c0 0600,"
					   "steps.t7 0600,tasks 0600,vdso 0600" },
		{ false, true, 022, 0755, "header 0644,kallsyms 0644,modules 0644,steps.c0 0644,"
					  "steps.t7 0644,tasks 0644,vdso 0644" },
		{ false, true, 027, 0750, "header 0640,kallsyms 0640,modules 0640,steps.c0 0640,"
					  "steps.t7 0640,tasks 0640,vdso 0640" },
		{ true, false, 022, 0700, "header 0600,kallsyms 0600,modules 0600,steps.c0 0600,"
					  "steps.t7 0600,tasks 0600,vdso 0600" },
		{ true, true, 022, 0700, "header 0600,kallsyms 0600,modules 0600,steps.c0 0600,"
					 "steps.t7 0600,tasks 0600,vdso 0600" },
	};
	mode_t old = umask(022);

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct tw_options o = { .private = cases[i].private, .shared = cases[i].shared };
		struct trace_writer *tw;
		struct tw_stream *s[2];
		char name[300], got[512];

		umask(cases[i].umask);
		snprintf(name, sizeof(name), "%s/private%zu", unit_tmpdir(), i);
		tw = tw_open(name, &o);
		CU_ASSERT_PTR_NOT_NULL_FATAL(tw);
		CU_ASSERT_EQUAL(mode_of(tw_dir(tw), NULL), 0700);	/* staging */
		s[0] = tw_stream_open(tw, true, 0);
		s[1] = tw_stream_open(tw, false, 7);
		CU_ASSERT_PTR_NOT_NULL_FATAL(s[0]);
		CU_ASSERT_PTR_NOT_NULL_FATAL(s[1]);
		tw_step(s[0], 0x1000);
		tw_step(s[1], 0x2000);
		CU_ASSERT_EQUAL(tw_stream_close(s[0]), 0);
		CU_ASSERT_EQUAL(tw_stream_close(s[1]), 0);
		CU_ASSERT_EQUAL(tw_write_file(tw, PT_FILE_VDSO, "x", 1), 0);
		CU_ASSERT_EQUAL(tw_copy_file(tw, PT_FILE_KALLSYMS, "/proc/self/maps"), 0);
		CU_ASSERT_EQUAL(tw_copy_file(tw, PT_FILE_MODULES, "/proc/version"), 0);
		CU_ASSERT_EQUAL(tw_commit(tw), 0);
		CU_ASSERT_EQUAL(tw_close(tw, PT_STATE_COMPLETE), 0);
		CU_ASSERT_EQUAL(mode_of(name, NULL), cases[i].dir);
		list_files(name, got, sizeof(got));
		CU_ASSERT_STRING_EQUAL(got, cases[i].files);
	}
	umask(old);
}

/*
 * tw_copy_file, one row a source: a /proc file (0 bytes to stat) is read to
 * its end; a source that cannot be read is said and the trace goes on
 * without the file; a copy the trace's filesystem cannot take (RLIMIT_FSIZE
 * stands for a full one) is the trace's write error.  A failed copy leaves
 * no file, not even a partial one.
 */
static void test_copy_file(void)
{
	static const struct {
		const char *src;	  /* "big": a file of 1 MiB; "dir": a directory */
		rlim_t limit;		  /* largest file, 0: none */
		int ret, err, tw_err;
		const char *files;	  /* the trace's files after */
	} rows[] = {
		{ "/proc/version", 0, 0, 0, 0, "kallsyms,tasks" },
		{ "big", 0, 0, 0, 0, "kallsyms,tasks" },
		{ "/nonexistent/kallsyms", 0, -1, ENOENT, 0, "tasks" },
		{ "dir", 0, -1, EISDIR, 0, "tasks" },
		{ "big", 65536, -1, EFBIG, EFBIG, "tasks" },
	};
	char big[300], src_data[1 << 16], copy[1 << 16];
	int fd;

	/* 1 MiB of a pattern, larger than any one read */
	snprintf(big, sizeof(big), "%s/big", unit_tmpdir());
	fd = open(big, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	CU_ASSERT_FATAL(fd >= 0);
	for (size_t k = 0; k < sizeof(copy); k++)
		copy[k] = (char)('a' + k % 26);
	for (int k = 0; k < 16; k++)
		CU_ASSERT_EQUAL(write(fd, copy, sizeof(copy)), (ssize_t)sizeof(copy));
	close(fd);
	signal(SIGXFSZ, SIG_IGN);
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct rlimit old, lim = { rows[i].limit, RLIM_INFINITY };
		int saved = dup(2), devnull = open("/dev/null", O_WRONLY), r, err;
		char name[300], path[320], got[512], files[512] = "";
		const char *src = rows[i].src;
		struct trace_writer *tw;
		struct stat st, st_src;

		if (!strcmp(src, "big"))
			src = big;
		else if (!strcmp(src, "dir"))
			src = unit_tmpdir();
		snprintf(name, sizeof(name), "%s/copy%zu", unit_tmpdir(), i);
		tw = tw_open(name, NULL);
		CU_ASSERT_PTR_NOT_NULL_FATAL(tw);
		getrlimit(RLIMIT_FSIZE, &old);
		if (rows[i].limit)
			setrlimit(RLIMIT_FSIZE, &lim);
		dup2(devnull, 2);	/* failures say so */
		errno = 0;
		r = tw_copy_file(tw, PT_FILE_KALLSYMS, src);
		err = r < 0 ? errno : 0;
		setrlimit(RLIMIT_FSIZE, &old);
		dup2(saved, 2);
		close(saved);
		close(devnull);
		CU_ASSERT_EQUAL(r, rows[i].ret);
		CU_ASSERT_EQUAL(err, rows[i].err);
		CU_ASSERT_EQUAL(tw_error(tw), rows[i].tw_err);
		/* the staging directory, before the header is written */
		list_files(tw_dir(tw), got, sizeof(got));
		for (char *p = strtok(got, ","); p; p = strtok(NULL, ","))
			snprintf(files + strlen(files), sizeof(files) - strlen(files), "%s%.*s",
				 files[0] ? "," : "", (int)strcspn(p, " "), p);
		CU_ASSERT_STRING_EQUAL(files, rows[i].files);
		snprintf(path, sizeof(path), "%s/%s", tw_dir(tw), PT_FILE_KALLSYMS);
		if (!rows[i].ret && stat(path, &st) == 0) {
			if (src == big) {
				CU_ASSERT(stat(big, &st_src) == 0 && st.st_size == st_src.st_size);
			} else {
				CU_ASSERT(slurp(src, src_data, sizeof(src_data)) > 0);
				CU_ASSERT(slurp(path, copy, sizeof(copy)) > 0);
				CU_ASSERT_STRING_EQUAL(copy, src_data);
			}
		}
		tw_discard(tw);
	}
}

static CU_TestInfo trace_writer_tests[] = {
	{ "a trace holds exactly the files written, 0700/0600 unless shared", test_trace_files },
	{ "copying a file into a trace: whole, or not at all (table)", test_copy_file },
	{ "an existing directory: kept, replaced at commit, or refused (table)",
	  test_existing_directory },
	{ "files go to a staging directory until commit", test_staging_until_commit },
	{ "a write failure leaves a trace readable up to it", test_write_failure },
	CU_TEST_INFO_NULL,
};
UNIT_SUITE(trace_writer, trace_writer_tests);
