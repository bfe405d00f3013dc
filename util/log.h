/* SPDX-License-Identifier: GPL-2.0 */
/* Leveled, prefixed diagnostics for pitrace and post (-v raises the level). */
#ifndef PT_LOG_H
#define PT_LOG_H

#include <errno.h>
#include <string.h>

extern int log_verbose;		/* 0 default, 1 -v, 2 -vv */
extern const char *log_progname; /* "pitrace" or "post" */
/* Above 0: this thread's messages are dropped (a pass whose findings another reports). */
extern _Thread_local int log_quiet;

void log_msg(int level, const char *file, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

enum { LOG_ERR = -2, LOG_WARN = -1, LOG_INFO = 0, LOG_DBG = 1, LOG_DBG2 = 2 };

#ifndef PR_FMT
#define PR_FMT __FILE__
#endif

#define pr_err(fmt, ...) log_msg(LOG_ERR, PR_FMT, fmt, ##__VA_ARGS__)
#define pr_warn(fmt, ...) log_msg(LOG_WARN, PR_FMT, fmt, ##__VA_ARGS__)
#define pr_info(fmt, ...) log_msg(LOG_INFO, PR_FMT, fmt, ##__VA_ARGS__)
#define pr_dbg(fmt, ...) \
	do { if (log_verbose >= 1) log_msg(LOG_DBG, PR_FMT, fmt, ##__VA_ARGS__); } while (0)
#define pr_dbg2(fmt, ...) \
	do { if (log_verbose >= 2) log_msg(LOG_DBG2, PR_FMT, fmt, ##__VA_ARGS__); } while (0)

/* Exit codes shared by every command. */
#define EXIT_USAGE 2	/* bad options or arguments */
#define EXIT_RUNTIME 1	/* something failed while working */

/* True when stderr is a terminal: progress output only then. */
int log_is_tty(void);

#endif /* PT_LOG_H */
