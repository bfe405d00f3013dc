// SPDX-License-Identifier: GPL-2.0
/* pitrace start: claim the driver and leave a collector running in the background. */
#define PR_FMT "start"
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pitrace/kernel_opts.h"
#include "pitrace/collector.h"
#include "pitrace/driver_session.h"
#include "util/log.h"
#include "pitrace/commands.h"
#include "util/popt.h"
#include "util/trace_dir.h"

struct start_opts {
	struct collector_opts copts;
	struct pitrace_config cfg;
	char out_dir[PATH_MAX];
	const char *out;
	bool have_sel, policy_set, off;
};

/* A selection option (--all, -p, ...): its long name is the selection's. */
static int selection_cb(const struct popt *opt, const char *arg, const char *cmd)
{
	struct start_opts *o = opt->value;

	(void)cmd;
	if (o->have_sel) {
		pr_err("give one selection (--all, -p, --pid-range, --pid-min, --comm, --tree)");
		return -1;
	}
	if (sel_parse(opt->long_name, arg, &o->copts.sel) < 0)
		return -1;
	o->have_sel = true;
	return 0;
}

static int mode_cb(const struct popt *opt, const char *arg, const char *cmd)
{
	int mode = mode_parse(arg);

	(void)cmd;
	if (mode < 0) {
		pr_err("start: --mode '%s' is not one of step, block, count (see "
		       "'pitrace start --help')", arg);
		return -1;
	}
	((struct pitrace_config *)opt->value)->mode = (uint32_t)mode;
	return 0;
}

static int buffer_size_cb(const struct popt *opt, const char *arg, const char *cmd)
{
	unsigned long long mb;
	char *end;

	(void)cmd;
	errno = 0;
	mb = strtoull(arg, &end, 10);
	if (errno || *end || !mb || mb > (1ull << 20)) {
		pr_err("--buffer-size: '%s' is not a size in MiB (1 or more)", arg);
		return -1;
	}
	((struct pitrace_config *)opt->value)->buffer_size = mb << 20;
	return 0;
}

/* --wrap or --stop-when-full, once. */
static int policy_cb(const struct popt *opt, const char *arg, const char *cmd)
{
	struct start_opts *o = opt->value;

	(void)arg;
	(void)cmd;
	if (o->policy_set) {
		pr_err("--wrap and --stop-when-full exclude each other");
		return -1;
	}
	o->policy_set = true;
	o->cfg.policy = !strcmp(opt->long_name, "wrap") ? PITRACE_POLICY_WRAP :
							  PITRACE_POLICY_STOP;
	return 0;
}

static int output_cb(const struct popt *opt, const char *arg, const char *cmd)
{
	(void)cmd;
	if (td_check_name(arg) < 0)
		return -1;
	((struct start_opts *)opt->value)->out = arg;
	return 0;
}

/* The trace directory as an absolute path: the collector runs from /. */
static int absolute_out_dir(struct start_opts *o)
{
	char cwd[PATH_MAX];

	if (o->out[0] == '/') {
		snprintf(o->out_dir, sizeof(o->out_dir), "%s", o->out);
		return 0;
	}
	if (!getcwd(cwd, sizeof(cwd))) {
		pr_err("cannot find the current directory: %s", strerror(errno));
		return EXIT_RUNTIME;
	}
	if ((size_t)snprintf(o->out_dir, sizeof(o->out_dir), "%s/%s", cwd, o->out) >=
	    sizeof(o->out_dir)) {
		pr_err("-o: path too long");
		return EXIT_USAGE;
	}
	return 0;
}

/* Parse start's options into o; 0, POPT_HELP after --help, or an exit status. */
static int parse_args(int argc, char **argv, struct start_opts *o)
{
	const struct popt start_opts[] = {
		OPT_GROUP("SELECTION is one of"),
		OPT_CALLBACK(0, "all", o, NULL, selection_cb, "every process (but the collector)"),
		OPT_CALLBACK('p', "pid", o, "PIDS", selection_cb,
			     "these processes (comma-separated)"),
		OPT_CALLBACK(0, "pid-range", o, "A-B", selection_cb,
			     "processes with A <= pid <= B"),
		OPT_CALLBACK(0, "pid-min", o, "N", selection_cb, "processes with pid >= N"),
		OPT_CALLBACK(0, "comm", o, "NAME", selection_cb,
			     "processes whose command name is NAME"),
		OPT_CALLBACK(0, "tree", o, "PID", selection_cb,
			     "PID and all its descendants, present and future"),
		OPT_GROUP("Options"),
		OPT_CALLBACK(0, "mode", &o->cfg, "MODE", mode_cb,
			     "step (default): every instruction; block: taken branches;\n"
			     "count: per-CPU step counts only"),
		OPT_CALLBACK(0, "buffer-size", &o->cfg, "MB", buffer_size_cb,
			     "ring buffer per CPU (default: the driver's)"),
		OPT_CALLBACK(0, "wrap", o, NULL, policy_cb,
			     "flight recorder: keep the newest steps, read at stop"),
		OPT_CALLBACK(0, "stop-when-full", o, NULL, policy_cb,
			     "stop recording when a buffer fills (loss counted)"),
		OPT_FLAG(0, "off", &o->off,
			 "start with tracing switched off ('pitrace on', pitrace_on())"),
		OPT_CALLBACK(0, "kernel", &o->cfg, "syscalls", kernel_opt_cb,
			     "also step the kernel code of system calls (driver)", .optional = true),
		OPT_CALLBACK(0, "kernel-limit", &o->cfg, "N", kernel_limit_cb,
			     "kernel steps per system call before a gap (10000000)"),
		OPT_FLAG('z', "compress", &o->copts.compress, "zstd-compress the step streams"),
		OPT_CALLBACK('o', "output", o, "DIR", output_cb,
			     "trace directory (default pitrace.data)"),
		OPT_END
	};
	const struct popt *tables[] = { start_opts, NULL };
	const struct popt_cmd cmd = {
		.name = "start",
		.synopsis = "[SELECTION] [--mode step|block|count] [--buffer-size MB]\n"
			    "                     [--wrap | --stop-when-full] [--off] [-z] [-o DIR]",
		.description = "Claim the driver and trace the selected processes until "
			       "'pitrace stop'.",
		.stop_at_args = true,
	};
	char **args;
	int nargs, ret;

	o->cfg.flags = PITRACE_CFG_START_ON;
	o->out = "pitrace.data";
	ret = popt_parse(&cmd, argc, argv, tables, &args, &nargs);
	if (ret)
		return ret;
	if (o->off)
		o->cfg.flags &= ~PITRACE_CFG_START_ON;
	if (nargs) {
		pr_err("unexpected argument '%s' (see 'pitrace start --help')", args[0]);
		return EXIT_USAGE;
	}
	if (!o->have_sel) {
		pr_err("say what to trace: --all, -p PIDS, --pid-range A-B, --pid-min N, "
		       "--comm NAME or --tree PID");
		return EXIT_USAGE;
	}
	ret = absolute_out_dir(o);
	if (ret)
		return ret;
	o->copts.out_dir = o->out_dir;
	return 0;
}

static void describe_mode(const struct pitrace_status *st, char *buf, size_t size)
{
	snprintf(buf, size, "%s, %s, %llu KiB per CPU", mode_name(st->config.mode),
		 policy_name(st->config.policy),
		 (unsigned long long)(st->config.buffer_size >> 10));
}

/* Redirect the daemon's standard streams: stdin from /dev/null, the rest to the log. */
static void detach_stdio(void)
{
	int null = open("/dev/null", O_RDONLY | O_CLOEXEC);
	int log = open(DS_LOG_FILE, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

	if (null >= 0)
		dup2(null, STDIN_FILENO);
	if (log < 0)
		log = open("/dev/null", O_WRONLY | O_CLOEXEC);
	if (log >= 0) {
		dup2(log, STDOUT_FILENO);
		dup2(log, STDERR_FILENO);
	}
	if (null > STDERR_FILENO)
		close(null);
	if (log > STDERR_FILENO)
		close(log);
}

/*
 * The collector process: claims, sets up, tells the parent (a byte on
 * ready_fd), then drains until SIGTERM or SIGINT ('pitrace stop').
 */
static int collector_main(struct start_opts *o, int ready_fd)
{
	struct driver_session ds;
	struct session_state state = { .collector_pid = (uint32_t)getpid() };
	struct collector_summary sum;
	struct pitrace_status st;
	struct collector *c;
	char line[4600];
	sigset_t mask;
	int sfd, ret;

	/* Nothing the starting shell had open (pipes, fifos) stays open for days. */
	for (int fd = STDERR_FILENO + 1; fd < 1024; fd++)
		if (fd != ready_fd)
			close(fd);
	sigemptyset(&mask);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGINT);
	sigprocmask(SIG_BLOCK, &mask, NULL);
	signal(SIGHUP, SIG_IGN);
	signal(SIGPIPE, SIG_IGN);
	sfd = signalfd(-1, &mask, SFD_CLOEXEC);
	if (sfd < 0) {
		pr_err("signalfd: %s", strerror(errno));
		return EXIT_RUNTIME;
	}
	if (ds_open_loading(&ds) < 0)
		return EXIT_RUNTIME;
	if (ds_claim(&ds, &o->cfg) < 0)
		return EXIT_RUNTIME;
	c = collector_start(&ds, &o->copts);
	if (!c)
		return EXIT_RUNTIME;
	if (ds_status(&ds, &st) == 0)
		describe_mode(&st, state.mode, sizeof(state.mode));
	snprintf(state.output, sizeof(state.output), "%s", o->out_dir);
	sel_format(&o->copts.sel, state.selection, sizeof(state.selection));
	unlink(DS_RESULT_FILE);
	if (session_state_write(&state) < 0) {
		collector_finish(c, &sum);
		return EXIT_RUNTIME;
	}
	printf("pitrace: session started: collector pid %d, tracing %s (%s) into %s\n",
	       (int)getpid(), state.selection, state.mode, o->out_dir);
	fflush(stdout);
	detach_stdio();
	if (write(ready_fd, "K", 1) != 1)
		pr_warn("the starting pitrace went away");
	close(ready_fd);

	collector_run(c, sfd);
	ret = collector_finish(c, &sum);
	collector_summary_line(&sum, o->out_dir, line, sizeof(line));
	pr_info("%s", line);
	session_result_write(ret < 0 ? EXIT_RUNTIME : 0, line);
	ioctl(ds.fd, PITRACE_IOC_RELEASE);
	ds_close(&ds);
	/* Ended by itself (the trace could not be written): 'pitrace stop' reports it. */
	if (!sum.write_error)
		session_state_remove();
	return ret < 0 ? EXIT_RUNTIME : 0;
}

int cmd_start(int argc, char **argv, struct pitrace_opts *opts)
{
	struct start_opts o = { 0 };
	int pipefd[2], status, ret;
	pid_t pid;
	char b;

	(void)opts;
	ret = parse_args(argc, argv, &o);
	if (ret)
		return ret == POPT_HELP ? 0 : ret;
	if (pipe2(pipefd, O_CLOEXEC) < 0) {
		pr_err("pipe: %s", strerror(errno));
		return EXIT_RUNTIME;
	}
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		pr_err("cannot start the collector: %s", strerror(errno));
		return EXIT_RUNTIME;
	}
	if (pid == 0) {
		close(pipefd[0]);
		/* Its own session: the terminal's signals and hangups don't reach it. */
		setsid();
		if (chdir("/") < 0)
			_exit(EXIT_RUNTIME);
		_exit(collector_main(&o, pipefd[1]));
	}
	close(pipefd[1]);
	/* Wait until the collector is ready or has failed (and said why). */
	while ((ret = (int)read(pipefd[0], &b, 1)) < 0 && errno == EINTR)
		;
	close(pipefd[0]);
	if (ret == 1)
		return 0;
	if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status)) {
		pr_err("the collector died while starting");
		return EXIT_RUNTIME;
	}
	return WEXITSTATUS(status) ? WEXITSTATUS(status) : EXIT_RUNTIME;
}
