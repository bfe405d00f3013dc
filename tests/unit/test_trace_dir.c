// SPDX-License-Identifier: GPL-2.0
/*
 * Where a trace may be written (util/trace_dir.h): which names are usable,
 * how they are quoted in messages, what counts as a trace, one recorder a
 * name, and that removing an old trace never reaches a file that is not a
 * trace's.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util/trace_dir.h"
#include "util/trace_writer.h"
#include "tests/unit/unit.h"

/* Run fn with stderr sent to /dev/null (refusals print their line). */
static int quietly(int (*fn)(const char *), const char *arg)
{
	int saved = dup(2), devnull = open("/dev/null", O_WRONLY), ret;

	fflush(stderr);
	dup2(devnull, 2);
	ret = fn(arg);
	dup2(saved, 2);
	close(saved);
	close(devnull);
	return ret;
}

static char *repeat(char c, size_t n)
{
	char *s = malloc(n + 1);

	memset(s, c, n);
	s[n] = '\0';
	return s;
}

/* A name's last part has room for the 11 bytes of ".new-XXXXXX" within NAME_MAX. */
static void test_names(void)
{
	static const struct {
		size_t len;
		int ret;
	} rows[] = {
		{ 0, -1 }, { 1, 0 }, { 244, 0 }, { 245, -1 }, { 255, -1 }, { 256, -1 }, { 300, -1 },
	};

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		char *name = repeat('n', rows[i].len);

		CU_ASSERT_EQUAL(quietly(td_check_name, name), rows[i].ret);
		free(name);
	}
	/* Only the last part counts against NAME_MAX. */
	CU_ASSERT_EQUAL(td_check_name("some/dir/x.data"), 0);
}

static void test_quote(void)
{
	static const struct {
		const char *name, *shown;
	} rows[] = {
		{ "pitrace.data", "pitrace.data" },
		{ "dir/run-1.data", "dir/run-1.data" },
		{ "my trace", "'my trace'" },
		{ "", "''" },
		{ "nl\nx", "$'nl\\nx'" },
		{ "esc\033[31mred", "$'esc\\e[31mred'" },
		{ "it's", "$'it\\'s'" },
		{ "tab\there\x01", "$'tab\\there\\x01'" },
	};
	char buf[64];

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		CU_ASSERT_STRING_EQUAL(td_quote(rows[i].name, buf, sizeof(buf)), rows[i].shown);
	/* Cut, never overrun, and still no raw control byte. */
	td_quote("a\nbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb", buf,
		 24);
	CU_ASSERT(strlen(buf) < 24);
	CU_ASSERT_PTR_NULL(strchr(buf, '\n'));
	CU_ASSERT(strstr(buf, "...") != NULL);
}

static int open_and_discard(const char *name)
{
	struct trace_writer *tw = tw_open(name, NULL);

	if (!tw)
		return -1;
	tw_discard(tw);
	return 0;
}

/* One writer a name: a second is refused while the first holds it, in this process or another. */
static void test_lock(void)
{
	char name[300], lock[310];
	struct trace_writer *tw;
	struct stat st;
	pid_t pid;
	int status;

	snprintf(name, sizeof(name), "%s/locked.data", unit_tmpdir());
	snprintf(lock, sizeof(lock), "%s.lock", name);
	CU_ASSERT_EQUAL(td_lock_holder(name), 0);		/* no recorder */
	tw = tw_open(name, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(tw);
	CU_ASSERT_EQUAL(lstat(lock, &st), 0);
	CU_ASSERT_EQUAL(td_lock_holder(name), getpid());	/* what --follow sees */
	CU_ASSERT_EQUAL(quietly(open_and_discard, name), -1);
	pid = fork();
	if (pid == 0)
		_exit(quietly(open_and_discard, name) == -1 ? 0 : 1);
	CU_ASSERT(waitpid(pid, &status, 0) == pid && WIFEXITED(status) && !WEXITSTATUS(status));
	CU_ASSERT_EQUAL(tw_commit(tw), 0);
	CU_ASSERT_EQUAL(tw_close(tw, "complete"), 0);
	CU_ASSERT(lstat(lock, &st) < 0 && errno == ENOENT);	/* nothing left behind */
	CU_ASSERT_EQUAL(td_lock_holder(name), 0);
	CU_ASSERT_EQUAL(open_and_discard(name), 0);		/* free again */
	/* A lock file left by a recorder killed outright is not held: reused. */
	pid = fork();
	if (pid == 0)
		_exit(0);
	CU_ASSERT(waitpid(pid, &status, 0) == pid);
	{
		char text[32];
		int fd = open(lock, O_WRONLY | O_CREAT, 0600), n;

		n = snprintf(text, sizeof(text), "%ld\n", (long)pid);
		CU_ASSERT(fd >= 0 && write(fd, text, (size_t)n) == n);
		close(fd);
	}
	CU_ASSERT_EQUAL(td_lock_holder(name), 0);		/* its pid is gone */
	CU_ASSERT_EQUAL(open_and_discard(name), 0);
	CU_ASSERT(lstat(lock, &st) < 0 && errno == ENOENT);
	/* A lock that is a link is not followed. */
	CU_ASSERT_EQUAL(symlink("/dev/null", lock), 0);
	CU_ASSERT_EQUAL(quietly(open_and_discard, name), -1);
	CU_ASSERT(lstat(lock, &st) == 0 && S_ISLNK(st.st_mode));
	unlink(lock);
}

/* Nothing of a trace is made in a directory everyone can write and that is not sticky. */
static void test_open_parent(void)
{
	char parent[300], name[320];

	snprintf(parent, sizeof(parent), "%s/shared-dir", unit_tmpdir());
	CU_ASSERT_EQUAL_FATAL(mkdir(parent, 0700), 0);
	chmod(parent, 0777);
	snprintf(name, sizeof(name), "%s/t.data", parent);
	CU_ASSERT_EQUAL(quietly(open_and_discard, name), -1);
	chmod(parent, 01777);	/* sticky, as /tmp: others cannot swap what is ours */
	CU_ASSERT_EQUAL(open_and_discard(name), 0);
	chmod(parent, 0755);
}

static int make_file(const char *dir, const char *name, const char *text)
{
	char path[400];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (!f)
		return -1;
	fputs(text, f);
	return fclose(f);
}

/* Removing an old trace: only a real trace of ours with a trace's files in it. */
static void test_remove_trace(void)
{
	char dir[300], path[400];
	struct trace_writer *tw;
	struct stat st;

	snprintf(dir, sizeof(dir), "%s/removable", unit_tmpdir());
	tw = tw_open(dir, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(tw);
	CU_ASSERT_EQUAL(tw_commit(tw), 0);
	CU_ASSERT_EQUAL(tw_close(tw, "complete"), 0);
	CU_ASSERT_EQUAL(make_file(dir, "NOTES.txt", "mine\n"), 0);
	CU_ASSERT_EQUAL(quietly(td_remove_trace, dir), -1);
	snprintf(path, sizeof(path), "%s/NOTES.txt", dir);
	CU_ASSERT_EQUAL(stat(path, &st), 0);			/* untouched */
	snprintf(path, sizeof(path), "%s/header", dir);
	CU_ASSERT_EQUAL(stat(path, &st), 0);
	snprintf(path, sizeof(path), "%s/NOTES.txt", dir);
	unlink(path);
	CU_ASSERT_EQUAL(td_remove_trace(dir), 0);
	CU_ASSERT(lstat(dir, &st) < 0 && errno == ENOENT);
	/* A directory with a file named header is no trace: nothing removed. */
	CU_ASSERT_EQUAL(mkdir(dir, 0700), 0);
	CU_ASSERT_EQUAL(make_file(dir, "header", "not a header\n"), 0);
	CU_ASSERT_EQUAL(quietly(td_remove_trace, dir), -1);
	snprintf(path, sizeof(path), "%s/header", dir);
	CU_ASSERT_EQUAL(stat(path, &st), 0);
}

static CU_TestInfo trace_dir_tests[] = {
	{ "a name leaves room for its staging suffix (table)", test_names },
	{ "names are quoted as a shell would, control bytes escaped (table)", test_quote },
	{ "one writer a name: the second is refused, the lock is gone after; its holder",
	  test_lock },
	{ "no trace in a directory every user can write unless it is sticky", test_open_parent },
	{ "only a real trace of ours holding only a trace's files is removed", test_remove_trace },
	CU_TEST_INFO_NULL,
};
UNIT_SUITE(trace_dir, trace_dir_tests);
