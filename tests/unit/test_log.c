// SPDX-License-Identifier: GPL-2.0
/*
 * util/log.c: a message is one whole line, even when threads warn at once
 * (decoding threads did, and lines came out mixed mid-line), and even
 * when it is longer than the formatting buffer.
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/log.h"
#include "tests/unit/unit.h"

#define THREADS 8
#define LINES 200

static void *warn_lines(void *arg)
{
	long id = (long)arg;

	for (int i = 0; i < LINES; i++)
		pr_warn("thread %ld line %d: %s", id, i, "a message long enough to be cut in two");
	return NULL;
}

/* Run fn with stderr into a file; its contents (malloc'ed) and length. */
static char *capture_stderr(void (*fn)(void), size_t *len)
{
	char path[512];
	int fd, saved;
	FILE *f;
	char *buf;
	long n;

	snprintf(path, sizeof(path), "%s/log-stderr", unit_tmpdir());
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	CU_ASSERT_FATAL(fd >= 0);
	fflush(stderr);
	saved = dup(STDERR_FILENO);
	dup2(fd, STDERR_FILENO);
	fn();
	dup2(saved, STDERR_FILENO);
	close(saved);
	close(fd);
	f = fopen(path, "r");
	CU_ASSERT_FATAL(f != NULL);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	buf = calloc(1, (size_t)n + 1);
	CU_ASSERT_FATAL(buf != NULL);
	*len = fread(buf, 1, (size_t)n, f);
	fclose(f);
	return buf;
}

static void run_threads(void)
{
	pthread_t t[THREADS];

	for (long k = 0; k < THREADS; k++)
		CU_ASSERT_FATAL(pthread_create(&t[k], NULL, warn_lines, (void *)k) == 0);
	for (int k = 0; k < THREADS; k++)
		pthread_join(t[k], NULL);
}

static void test_threads_whole_lines(void)
{
	const char *saved_name = log_progname;
	size_t len, lines = 0;
	char *out, *save = NULL;

	log_progname = "post";
	out = capture_stderr(run_threads, &len);
	log_progname = saved_name;
	CU_ASSERT_EQUAL(out[len - 1], '\n');
	for (char *l = strtok_r(out, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		long id;
		int i, end = 0;

		lines++;
		if (sscanf(l, "post: warning: thread %ld line %d: a message long enough to be cut "
			   "in two%n", &id, &i, &end) != 2 || l[end]) {
			CU_FAIL("a line mixed with another");
			fprintf(stderr, "mixed: '%s'\n", l);
			break;
		}
	}
	CU_ASSERT_EQUAL(lines, THREADS * LINES);
	free(out);
}

static void long_message(void)
{
	char word[3000];

	memset(word, 'x', sizeof(word) - 1);
	word[sizeof(word) - 1] = '\0';
	pr_err("%s: end", word);
}

static void test_long_message_whole(void)
{
	const char *saved_name = log_progname;
	size_t len;
	char *out;

	log_progname = "post";
	out = capture_stderr(long_message, &len);
	log_progname = saved_name;
	CU_ASSERT_EQUAL(len, strlen("post: error: ") + 2999 + strlen(": end\n"));
	CU_ASSERT(!strncmp(out, "post: error: xxx", 16));
	CU_ASSERT(!strcmp(out + len - 6, ": end\n"));
	free(out);
}

static CU_TestInfo log_tests[] = {
	{ "threads' warnings are whole lines", test_threads_whole_lines },
	{ "a long message is one whole line", test_long_message_whole },
	CU_TEST_INFO_NULL,
};
UNIT_SUITE(log, log_tests);
