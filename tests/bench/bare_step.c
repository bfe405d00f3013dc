// SPDX-License-Identifier: GPL-2.0
/*
 * The floor for `pitrace record`'s speed: the bare PTRACE_SINGLESTEP loop
 * (step, wait, one register read) over a command, pinned like pitrace pins,
 * writing nothing.  Prints "steps N seconds S steps/s R".
 * usage: bare_step [--no-pin] CMD [ARGS]
 */
#define _GNU_SOURCE
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	unsigned long long steps = 0;
	int i = 1, status, sig = 0;
	double t0, t1;
	pid_t pid;

	if (i < argc && !strcmp(argv[i], "--no-pin")) {
		i++;
	} else {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(sched_getcpu(), &set);
		sched_setaffinity(0, sizeof(set), &set);
	}
	if (i >= argc) {
		fprintf(stderr, "usage: bare_step [--no-pin] CMD [ARGS]\n");
		return 2;
	}
	pid = fork();
	if (pid == 0) {
		ptrace(PTRACE_TRACEME, 0, NULL, NULL);
		execvp(argv[i], argv + i);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFSTOPPED(status)) {
		fprintf(stderr, "bare_step: cannot start %s\n", argv[i]);
		return 1;
	}
	t0 = now();
	for (;;) {
		unsigned long regs[64];	/* x86's user_regs_struct, ppc64's pt_regs: both fit */

		ptrace(PTRACE_SINGLESTEP, pid, NULL, (void *)(long)sig);
		if (waitpid(pid, &status, 0) != pid || !WIFSTOPPED(status))
			break;
		sig = WSTOPSIG(status) == SIGTRAP ? 0 : WSTOPSIG(status);
		ptrace(PTRACE_GETREGS, pid, NULL, &regs);	/* what pitrace reads per step */
		steps++;
	}
	t1 = now();
	printf("steps %llu seconds %.3f steps/s %.0f\n", steps, t1 - t0, (double)steps / (t1 - t0));
	return 0;
}
