// SPDX-License-Identifier: GPL-2.0
/* util/alloc: out of memory is one line, "PROG: error: out of memory", and exit 1. */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util/alloc.h"
#include "util/log.h"
#include "tests/unit/unit.h"

#define HUGE (SIZE_MAX / 2 & ~(size_t)63)	/* more than any address space */

static void fail_malloc(void) { xmalloc(HUGE); }
static void fail_calloc(void) { xcalloc(HUGE, 4); }
static void fail_realloc(void) { xrealloc(NULL, HUGE); }
static void fail_reallocarray(void) { xreallocarray(NULL, HUGE, 4); }
static void fail_aligned(void) { xaligned_alloc(64, HUGE); }
static void fail_die(void) { xalloc_die(); }

static const struct {
	const char *what;
	void (*fail)(void);
} failures[] = {
	{ "xmalloc", fail_malloc },
	{ "xcalloc (n * size overflows)", fail_calloc },
	{ "xrealloc", fail_realloc },
	{ "xreallocarray (n * size overflows)", fail_reallocarray },
	{ "xaligned_alloc", fail_aligned },
	{ "xalloc_die", fail_die },
};

/* Each failure, in a child whose thread is quiet (log_quiet): its exit status and stderr. */
static void test_failures_exit_with_one_line(void)
{
	char path[512], buf[256];

	snprintf(path, sizeof(path), "%s/alloc-stderr", unit_tmpdir());
	for (size_t i = 0; i < sizeof(failures) / sizeof(failures[0]); i++) {
		int status, fd;
		ssize_t n;
		pid_t pid;

		fflush(NULL);
		pid = fork();
		CU_ASSERT_FATAL(pid >= 0);
		if (!pid) {
			fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
			if (fd < 0 || dup2(fd, STDERR_FILENO) < 0)
				_exit(99);
			log_progname = "post";
			log_quiet = 1;	/* the reason is said all the same */
			failures[i].fail();
			_exit(98);	/* it returned */
		}
		CU_ASSERT_FATAL(waitpid(pid, &status, 0) == pid);
		CU_ASSERT(WIFEXITED(status));
		CU_ASSERT_EQUAL(WEXITSTATUS(status), EXIT_RUNTIME);
		fd = open(path, O_RDONLY);
		CU_ASSERT_FATAL(fd >= 0);
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		buf[n > 0 ? n : 0] = '\0';
		if (strcmp(buf, "post: error: out of memory\n"))
			fprintf(stderr, "%s: said '%s'\n", failures[i].what, buf);
		CU_ASSERT_STRING_EQUAL(buf, "post: error: out of memory\n");
	}
}

/* What succeeds is what the plain allocator gives; a zero size is still a pointer to free. */
static void test_successes(void)
{
	char *s = xstrdup("pitrace");
	uint32_t *z = xcalloc(16, sizeof(*z));
	void *p = xmalloc(0), *a = xaligned_alloc(64, 100);

	CU_ASSERT_STRING_EQUAL(s, "pitrace");
	for (int i = 0; i < 16; i++)
		CU_ASSERT_EQUAL(z[i], 0);
	z = xreallocarray(z, 1024, sizeof(*z));
	CU_ASSERT_EQUAL(z[15], 0);	/* kept across the move */
	CU_ASSERT_PTR_NOT_NULL(p);
	CU_ASSERT_EQUAL((uintptr_t)a % 64, 0);
	free(s);
	free(z);
	free(p);
	free(a);
}

static CU_TestInfo alloc_tests[] = {
	{ "out of memory: one line, exit 1", test_failures_exit_with_one_line },
	{ "successes are plain allocations", test_successes },
	CU_TEST_INFO_NULL,
};
UNIT_SUITE(alloc, alloc_tests);
