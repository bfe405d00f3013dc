// SPDX-License-Identifier: GPL-2.0
/*
 * `pitrace record` with the driver backend (cmd_record.c parses the
 * options).  The command is started under ptrace only to hold it at its
 * first instruction after execve; there it is handed to the driver (a TREE
 * selection on its pid, so its descendants follow) and let go, so the trace
 * starts exactly where the ptrace backend's does.
 */
#define PR_FMT "record"
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pitrace/format.h"
#include "pitrace/collector.h"
#include "pitrace/driver_session.h"
#include "util/log.h"
#include "pitrace/commands.h"
#include "pitrace/record_driver.h"

/* Start argv stopped at its first instruction; returns its pid or -1. */
static pid_t spawn_stopped(char **argv, bool aslr)
{
	int status;
	pid_t pid = fork();

	if (pid < 0) {
		pr_err("fork: %s", strerror(errno));
		return -1;
	}
	if (pid == 0) {
		if (ptrace(PTRACE_TRACEME, 0, NULL, NULL) < 0) {
			pr_err("PTRACE_TRACEME: %s", strerror(errno));
			_exit(127);
		}
		aslr_child_setup(aslr);
		signals_child_restore();
		execvp(argv[0], argv);
		pr_err("cannot run %s: %s", argv[0], strerror(errno));
		_exit(127);
	}
	/* The exec stop: the new program is loaded, nothing of it has run. */
	if (waitpid(pid, &status, 0) < 0 || !WIFSTOPPED(status)) {
		if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
			return -1;	/* the child said why */
		pr_err("%s did not start", argv[0]);
		return -1;
	}
	/* Leave ptrace, staying stopped: the driver arms it when it resumes. */
	if (ptrace(PTRACE_DETACH, pid, NULL, (void *)(long)SIGSTOP) < 0 ||
	    waitpid(pid, &status, WUNTRACED) < 0 || !WIFSTOPPED(status)) {
		pr_err("cannot hand %s over to the driver: %s", argv[0], strerror(errno));
		kill(pid, SIGKILL);
		waitpid(pid, &status, 0);
		return -1;
	}
	return pid;
}

int record_driver(const struct record_driver_opts *o, char **argv)
{
	struct pitrace_config cfg = o->cfg;
	struct collector_opts co = { .out_dir = o->out_dir, .compress = o->compress, .argv = argv };
	struct collector_summary sum;
	struct driver_session ds;
	struct collector *c;
	char line[4600];
	int status = 0, pidfd, ret;
	pid_t pid;

	if (ds_open_loading(&ds) < 0)
		return EXIT_RUNTIME;
	if (ds_claim(&ds, &cfg) < 0)
		goto err_close;
	pid = spawn_stopped(argv, o->aslr);
	if (pid < 0)
		goto err_release;
	/* Ctrl-C reaches the command; we stay to finish the trace. */
	signal(SIGINT, SIG_IGN);
	signal(SIGQUIT, SIG_IGN);
	co.sel.kind = PITRACE_SEL_TREE;
	co.sel.nr_pids = 1;
	co.sel.pids[0] = (uint32_t)pid;
	c = collector_start(&ds, &co);
	if (!c) {
		kill(pid, SIGKILL);
		waitpid(pid, &status, 0);
		goto err_release;
	}
	/* Readable when the command ends (Linux 5.3 and later). */
	pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	if (pidfd < 0)
		pr_err("pidfd_open: %s", strerror(errno));
	kill(pid, SIGCONT);
	if (pidfd >= 0) {
		collector_run(c, pidfd);
		close(pidfd);
	}
	/*
	 * The collector returns when CMD ends, or earlier when the trace could
	 * not be written: then tracing ends first and CMD runs on untraced, as
	 * with the ptrace backend (docs/record.md, "A full filesystem").
	 */
	if (pidfd >= 0 && waitpid(pid, &status, WNOHANG) == 0) {
		ret = collector_finish(c, &sum);
		ioctl(ds.fd, PITRACE_IOC_RELEASE);
		ds_close(&ds);
		waitpid(pid, &status, 0);
	} else {
		if (pidfd < 0)
			waitpid(pid, &status, 0);
		collector_set_end_reason(c, PT_END_EXITED);
		ret = collector_finish(c, &sum);
		ioctl(ds.fd, PITRACE_IOC_RELEASE);
		ds_close(&ds);
	}
	collector_summary_line(&sum, co.out_dir, line, sizeof(line));
	pr_info("%s", line);
	/* A trace cut short by a write error still gives CMD's status. */
	if (ret < 0 && !sum.write_error)
		return EXIT_RUNTIME;
	/* Like the ptrace backend: the command's status, 128+N for signal N. */
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WIFEXITED(status) ? WEXITSTATUS(status) : EXIT_RUNTIME;

err_release:
	ioctl(ds.fd, PITRACE_IOC_RELEASE);
err_close:
	ds_close(&ds);
	return EXIT_RUNTIME;
}
