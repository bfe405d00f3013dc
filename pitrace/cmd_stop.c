// SPDX-License-Identifier: GPL-2.0
/* pitrace stop: have the session's collector drain, finish the trace and release the driver. */
#define PR_FMT "stop"
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "pitrace/driver_session.h"
#include "util/log.h"
#include "pitrace/commands.h"
#include "util/popt.h"

#define STOP_TIMEOUT_S 300	/* a final drain of big buffers takes a while */

/* Wait for a process that is not our child to end; -1 on timeout. */
static int wait_exit(pid_t pid, int timeout_s)
{
	int pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	time_t deadline = time(NULL) + timeout_s;
	bool shown = false;

	while (time(NULL) < deadline) {
		if (pidfd >= 0) {
			struct pollfd p = { .fd = pidfd, .events = POLLIN };

			if (poll(&p, 1, 1000) > 0) {
				close(pidfd);
				return 0;
			}
		} else {
			if (kill(pid, 0) < 0 && errno == ESRCH)
				return 0;
			usleep(20000);
		}
		if (!shown && log_is_tty()) {
			fprintf(stderr, "pitrace: waiting for the collector (pid %d) to finish...\n",
				(int)pid);
			shown = true;
		}
	}
	if (pidfd >= 0)
		close(pidfd);
	return -1;
}

int cmd_stop(int argc, char **argv, struct pitrace_opts *opts)
{
	struct session_state s;
	char line[4600];
	int status, ret;

	(void)opts;
	ret = cmd_no_options(argc, argv, "End the session: drain the buffers, finish the "
			     "trace, release the driver.");
	if (ret)
		return ret == POPT_HELP ? 0 : ret;
	if (session_state_read(&s) < 0) {
		struct driver_session ds;
		struct pitrace_status st;
		char holder[96];

		/* No collector of ours; say who holds the driver, if anyone. */
		if (ds_open(&ds) < 0)
			return EXIT_RUNTIME;
		if (ds_status(&ds, &st) == 0 && st.claimed) {
			ds_describe_pid(st.owner_pid, holder, sizeof(holder));
			pr_err("no session started by 'pitrace start'; the driver is held by %s",
			       holder);
		} else {
			pr_err("no session to stop");
		}
		ds_close(&ds);
		return EXIT_RUNTIME;
	}
	if (!ds_pid_alive(s.collector_pid) &&
	    session_result_read(&status, line, sizeof(line)) == 0) {
		/* It ended by itself (the trace could not be written) and said how. */
		unlink(DS_RESULT_FILE);
		session_state_remove();
		printf("pitrace: session ended by itself: %s\n", line);
		return status;
	}
	unlink(DS_RESULT_FILE);
	if (!ds_pid_alive(s.collector_pid) || kill((pid_t)s.collector_pid, SIGTERM) < 0) {
		session_state_remove();
		pr_err("the session's collector (pid %u) is gone; the trace in %s is incomplete",
		       s.collector_pid, s.output);
		return EXIT_RUNTIME;
	}
	if (wait_exit((pid_t)s.collector_pid, STOP_TIMEOUT_S) < 0) {
		pr_err("the collector (pid %u) did not finish within %d s", s.collector_pid,
		       STOP_TIMEOUT_S);
		return EXIT_RUNTIME;
	}
	if (session_result_read(&status, line, sizeof(line)) < 0) {
		pr_err("the session's collector (pid %u) is gone; the trace in %s is incomplete",
		       s.collector_pid, s.output);
		session_state_remove();
		return EXIT_RUNTIME;
	}
	unlink(DS_RESULT_FILE);
	printf("pitrace: session stopped: %s\n", line);
	return status;
}
