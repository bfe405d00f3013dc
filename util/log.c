// SPDX-License-Identifier: GPL-2.0
/* Leveled, prefixed diagnostics: "prog: error: message" on stderr. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "util/assert.h"
#include "util/log.h"

int log_verbose;
_Thread_local int log_quiet;
const char *log_progname = "pitrace";

/* The line's prefix: "prog: error: ", "prog: debug: file: ". */
static int log_prefix(char *buf, size_t size, int level, const char *file)
{
	const char *what = level == LOG_ERR ? "error: " : level == LOG_WARN ? "warning: " : "";

	if (level >= LOG_DBG)
		return snprintf(buf, size, "%s: debug: %s: ", log_progname, file);
	return snprintf(buf, size, "%s: %s", log_progname, what);
}

/*
 * One message is one line written by one write(2): decoding threads warn
 * at once, and a prefix and message written apart came out mixed with
 * another thread's mid-line.  A line longer than the stack buffer is
 * formatted again into one of its size.
 */
void log_msg(int level, const char *file, const char *fmt, ...)
{
	char stack[1024], *line = stack;
	size_t size = sizeof(stack), len;
	int saved = errno, head, body;
	va_list ap;

	if (log_quiet > 0)
		return;
	for (;;) {
		head = log_prefix(line, size, level, file);
		if (head < 0)
			goto out;
		va_start(ap, fmt);
		body = (size_t)head < size ? vsnprintf(line + head, size - head, fmt, ap) : 0;
		va_end(ap);
		if (body < 0)
			goto out;
		len = (size_t)head + (size_t)body;
		if (len + 1 < size || line != stack)
			break;
		size = len + 2;
		line = malloc(size);
		if (!line) {
			/* the message cut to the stack buffer rather than none */
			line = stack;
			size = sizeof(stack);
			len = size - 2;
			break;
		}
	}
	if (len > size - 2)
		len = size - 2;
	line[len++] = '\n';
	for (size_t done = 0; done < len;) {
		ssize_t n = write(STDERR_FILENO, line + done, len - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		done += (size_t)n;
	}
out:
	if (line != stack)
		free(line);
	errno = saved;
}

int log_is_tty(void)
{
	return isatty(STDERR_FILENO);
}

void pt_assert_fail(const char *file, int line, const char *func, const char *cond)
{
	fflush(stdout);
	fprintf(stderr, "%s: internal error: %s:%d: %s: invariant '%s' does not hold\n",
		log_progname, file, line, func, cond);
	abort();
}
