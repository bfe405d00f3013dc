// SPDX-License-Identifier: GPL-2.0
/*
 * `pitrace record` with the driver backend.  The command is started under
 * ptrace only to hold it at its first instruction after execve; there it is
 * handed to the driver (a TREE selection on its pid, so its descendants
 * follow) and let go, so the trace starts exactly where the ptrace
 * backend's does.
 */
#define PR_FMT "record"
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
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

#include "collector.h"
#include "driver_session.h"
#include "kernel_opts.h"
#include "log.h"
#include "pitrace.h"
#include "record_driver.h"

int record_select_backend(int *argc, char **argv)
{
	const char *name = NULL;
	int i, drop = 0;

	for (i = 1; i < *argc; i++) {
		if (!strcmp(argv[i], "--"))
			break;
		if (!strcmp(argv[i], "--backend") && i + 1 < *argc) {
			name = argv[i + 1];
			drop = 2;
			break;
		}
		if (!strncmp(argv[i], "--backend=", 10)) {
			name = argv[i] + 10;
			drop = 1;
			break;
		}
		if (!strcmp(argv[i], "--backend")) {
			pr_err("--backend needs a name: driver or ptrace");
			return -1;
		}
	}
	if (drop) {
		memmove(&argv[i], &argv[i + drop], (size_t)(*argc - i - drop + 1) * sizeof(*argv));
		*argc -= drop;
	}
	if (!name)
		return access(PITRACE_DEVICE, F_OK) == 0;
	if (!strcmp(name, "driver"))
		return 1;
	if (!strcmp(name, "ptrace"))
		return 0;
	pr_err("--backend: '%s' is not one of driver, ptrace", name);
	return -1;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: pitrace record --backend driver [OPTIONS] [--] CMD [ARGS]\n"
		"Trace CMD and its descendants with the driver.\n"
		"  --mode step|block|count  single steps (default), blocks, or counts only\n"
		"  --buffer-size MB   ring buffer per CPU (default: the driver's)\n"
		KERNEL_OPTS_HELP
		"  -z, --compress     zstd-compress the step streams\n"
		"  -o, --output DIR   trace directory (default pitrace.data)\n"
		"  --aslr             keep CMD's address-space randomization (default: off,\n"
		"                     so that recordings of CMD count the same)\n");
}

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

int cmd_record_driver(int argc, char **argv, struct pitrace_opts *opts)
{
	enum { OPT_MODE = 256, OPT_BUF, OPT_KERNEL, OPT_KERNEL_LIMIT, OPT_ASLR };
	static const struct option longopts[] = {
		{ "mode", required_argument, NULL, OPT_MODE },
		{ "buffer-size", required_argument, NULL, OPT_BUF },
		KERNEL_LONGOPTS(OPT_KERNEL, OPT_KERNEL_LIMIT),
		{ "compress", no_argument, NULL, 'z' },
		{ "output", required_argument, NULL, 'o' },
		{ "aslr", no_argument, NULL, OPT_ASLR },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct pitrace_config cfg = { .flags = PITRACE_CFG_START_ON };
	struct collector_opts co = { .out_dir = "pitrace.data" };
	struct collector_summary sum;
	struct driver_session ds;
	struct collector *c;
	char line[4600];
	int ch, mode, status = 0, pidfd, ret;
	bool aslr = false;
	pid_t pid;

	(void)opts;
	optind = 1;
	while ((ch = getopt_long(argc, argv, "+o:zh", longopts, NULL)) != -1) {
		char *end;
		unsigned long long mb;

		switch (ch) {
		case OPT_MODE:
			mode = mode_parse(optarg);
			if (mode < 0) {
				pr_err("--mode: '%s' is not one of step, block, count", optarg);
				return EXIT_USAGE;
			}
			cfg.mode = (uint32_t)mode;
			break;
		case OPT_BUF:
			errno = 0;
			mb = strtoull(optarg, &end, 10);
			if (errno || *end || !mb || mb > (1ull << 20)) {
				pr_err("--buffer-size: '%s' is not a size in MiB (1 or more)", optarg);
				return EXIT_USAGE;
			}
			cfg.buffer_size = mb << 20;
			break;
		case OPT_KERNEL:
			if (kernel_opt_parse(optarg, &cfg))
				return EXIT_USAGE;
			break;
		case OPT_KERNEL_LIMIT:
			if (kernel_opt_limit(optarg, &cfg))
				return EXIT_USAGE;
			break;
		case 'z':
			co.compress = true;
			break;
		case OPT_ASLR:
			aslr = true;
			break;
		case 'o':
			co.out_dir = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			pr_err("that option is not supported by the driver backend "
			       "(try --backend ptrace; see 'pitrace record --help')");
			return EXIT_USAGE;
		}
	}
	if (optind >= argc) {
		pr_err("no command to trace (pitrace record [OPTIONS] -- CMD [ARGS])");
		return EXIT_USAGE;
	}
	co.argv = argv + optind;

	if (ds_open_loading(&ds) < 0)
		return EXIT_RUNTIME;
	if (ds_claim(&ds, &cfg) < 0)
		goto err_close;
	pid = spawn_stopped(argv + optind, aslr);
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
	waitpid(pid, &status, 0);
	ret = collector_finish(c, &sum);
	ioctl(ds.fd, PITRACE_IOC_RELEASE);
	ds_close(&ds);
	collector_summary_line(&sum, co.out_dir, line, sizeof(line));
	pr_info("%s", line);
	if (ret < 0)
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
