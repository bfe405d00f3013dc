// SPDX-License-Identifier: GPL-2.0
/* pitrace start: claim the driver and leave a collector running in the background. */
#define PR_FMT "start"
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kernel_opts.h"
#include "collector.h"
#include "driver_session.h"
#include "log.h"
#include "pitrace.h"
#include "trace_dir.h"

struct start_opts {
	struct collector_opts copts;
	struct pitrace_config cfg;
	char out_dir[PATH_MAX];
	bool have_sel;
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: pitrace start [SELECTION] [--mode step|block|count] [--buffer-size MB]\n"
		"                     [--wrap | --stop-when-full] [--off] [-z] [-o DIR]\n"
		"Claim the driver and trace the selected processes until 'pitrace stop'.\n"
		"SELECTION is one of:\n"
		"  --all              every process (but the collector)\n"
		"  -p, --pid PIDS     these processes (comma-separated)\n"
		"  --pid-range A-B    processes with A <= pid <= B\n"
		"  --pid-min N        processes with pid >= N\n"
		"  --comm NAME        processes whose command name is NAME\n"
		"  --tree PID         PID and all its descendants, present and future\n"
		"  --mode MODE        step (default): every instruction; block: taken branches;\n"
		"                     count: per-CPU step counts only\n"
		"  --buffer-size MB   ring buffer per CPU (default: the driver's)\n"
		"  --wrap             flight recorder: keep the newest steps, read at stop\n"
		"  --stop-when-full   stop recording when a buffer fills (loss counted)\n"
		"  --off              start with tracing switched off ('pitrace on', pitrace_on())\n"
		KERNEL_OPTS_HELP
		"  -z, --compress     zstd-compress the step streams\n"
		"  -o, --output DIR   trace directory (default pitrace.data)\n");
}

/* Parse the options shared by `start`; returns 0, or an exit status. */
static int parse_args(int argc, char **argv, struct start_opts *o)
{
	enum { OPT_ALL = 256, OPT_RANGE, OPT_MIN, OPT_COMM, OPT_TREE, OPT_MODE, OPT_BUF,
	       OPT_WRAP, OPT_STOP_FULL, OPT_OFF, OPT_KERNEL, OPT_KERNEL_LIMIT };
	static const struct option longopts[] = {
		{ "all", no_argument, NULL, OPT_ALL },
		{ "pid", required_argument, NULL, 'p' },
		{ "pid-range", required_argument, NULL, OPT_RANGE },
		{ "pid-min", required_argument, NULL, OPT_MIN },
		{ "comm", required_argument, NULL, OPT_COMM },
		{ "tree", required_argument, NULL, OPT_TREE },
		{ "mode", required_argument, NULL, OPT_MODE },
		{ "buffer-size", required_argument, NULL, OPT_BUF },
		{ "wrap", no_argument, NULL, OPT_WRAP },
		{ "stop-when-full", no_argument, NULL, OPT_STOP_FULL },
		{ "off", no_argument, NULL, OPT_OFF },
		KERNEL_LONGOPTS(OPT_KERNEL, OPT_KERNEL_LIMIT),
		{ "compress", no_argument, NULL, 'z' },
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *out = "pitrace.data";
	bool policy_set = false;
	int c, mode;

	o->cfg.flags = PITRACE_CFG_START_ON;
	optind = 1;
	while ((c = getopt_long(argc, argv, "+p:o:zh", longopts, NULL)) != -1) {
		const char *sel_opt = NULL;
		char *end;
		unsigned long long mb;

		switch (c) {
		case OPT_ALL: sel_opt = "all"; break;
		case 'p': sel_opt = "pid"; break;
		case OPT_RANGE: sel_opt = "pid-range"; break;
		case OPT_MIN: sel_opt = "pid-min"; break;
		case OPT_COMM: sel_opt = "comm"; break;
		case OPT_TREE: sel_opt = "tree"; break;
		case OPT_MODE:
			mode = mode_parse(optarg);
			if (mode < 0) {
				pr_err("start: --mode '%s' is not one of step, block, count (see "
				       "'pitrace start --help')", optarg);
				return EXIT_USAGE;
			}
			o->cfg.mode = (uint32_t)mode;
			break;
		case OPT_BUF:
			errno = 0;
			mb = strtoull(optarg, &end, 10);
			if (errno || *end || !mb || mb > (1ull << 20)) {
				pr_err("--buffer-size: '%s' is not a size in MiB (1 or more)", optarg);
				return EXIT_USAGE;
			}
			o->cfg.buffer_size = mb << 20;
			break;
		case OPT_WRAP:
		case OPT_STOP_FULL:
			if (policy_set) {
				pr_err("--wrap and --stop-when-full exclude each other");
				return EXIT_USAGE;
			}
			policy_set = true;
			o->cfg.policy = c == OPT_WRAP ? PITRACE_POLICY_WRAP : PITRACE_POLICY_STOP;
			break;
		case OPT_OFF:
			o->cfg.flags &= ~PITRACE_CFG_START_ON;
			break;
		case OPT_KERNEL:
			if (kernel_opt_parse(optarg, &o->cfg))
				return EXIT_USAGE;
			break;
		case OPT_KERNEL_LIMIT:
			if (kernel_opt_limit(optarg, &o->cfg))
				return EXIT_USAGE;
			break;
		case 'z':
			o->copts.compress = true;
			break;
		case 'o':
			if (td_check_name(optarg) < 0)
				return EXIT_USAGE;
			out = optarg;
			break;
		case 'h':
			usage(stdout);
			return -1;
		default:
			usage(stderr);
			return EXIT_USAGE;
		}
		if (sel_opt) {
			if (o->have_sel) {
				pr_err("give one selection (--all, -p, --pid-range, --pid-min, --comm, --tree)");
				return EXIT_USAGE;
			}
			if (sel_parse(sel_opt, optarg, &o->copts.sel) < 0)
				return EXIT_USAGE;
			o->have_sel = true;
		}
	}
	if (optind < argc) {
		pr_err("unexpected argument '%s' (see 'pitrace start --help')", argv[optind]);
		return EXIT_USAGE;
	}
	if (!o->have_sel) {
		pr_err("say what to trace: --all, -p PIDS, --pid-range A-B, --pid-min N, "
		       "--comm NAME or --tree PID");
		return EXIT_USAGE;
	}
	/* The collector runs from /: keep the directory the user meant. */
	if (out[0] == '/') {
		snprintf(o->out_dir, sizeof(o->out_dir), "%s", out);
	} else {
		char cwd[PATH_MAX];

		if (!getcwd(cwd, sizeof(cwd))) {
			pr_err("cannot find the current directory: %s", strerror(errno));
			return EXIT_RUNTIME;
		}
		if ((size_t)snprintf(o->out_dir, sizeof(o->out_dir), "%s/%s", cwd, out) >=
		    sizeof(o->out_dir)) {
			pr_err("-o: path too long");
			return EXIT_USAGE;
		}
	}
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
		return ret < 0 ? 0 : ret;
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
