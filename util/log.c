// SPDX-License-Identifier: GPL-2.0
/* Leveled, prefixed diagnostics: "prog: error: message" on stderr. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "assert.h"
#include "log.h"

int log_verbose;
const char *log_progname = "pitrace";

void log_msg(int level, const char *file, const char *fmt, ...)
{
	va_list ap;
	int saved = errno;

	fputs(log_progname, stderr);
	fputs(": ", stderr);
	if (level == LOG_ERR)
		fputs("error: ", stderr);
	else if (level == LOG_WARN)
		fputs("warning: ", stderr);
	else if (level >= LOG_DBG)
		fprintf(stderr, "debug: %s: ", file);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
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
