// SPDX-License-Identifier: GPL-2.0
/*
 * ptstep: a test-only ptrace single-stepper (a debugger stepping a program,
 * without a debugger in the guest): runs PROG under PTRACE_SINGLESTEP from
 * its first instruction to its exit, so the driver sees a task that another
 * user single-steps (TIF_SINGLESTEP) for the whole of its life.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>

static void die(const char *what)
{
	fprintf(stderr, "ptstep: error: %s: %s\n", what, strerror(errno));
	exit(1);
}

int main(int argc, char **argv)
{
	unsigned long long steps = 0;
	int status, sig = 0;
	pid_t child;

	if (argc < 2) {
		fprintf(stderr, "usage: ptstep PROG [ARGS]: single-step PROG by ptrace to its exit\n");
		return 2;
	}
	child = fork();
	if (child < 0)
		die("fork");
	if (child == 0) {
		if (ptrace(PTRACE_TRACEME, 0, NULL, NULL) < 0)
			die("PTRACE_TRACEME");
		execvp(argv[1], argv + 1);
		die(argv[1]);
	}
	/* The exec stop: nothing of the program has run yet. */
	if (waitpid(child, &status, 0) < 0 || !WIFSTOPPED(status))
		die("no exec stop");
	for (;;) {
		if (ptrace(PTRACE_SINGLESTEP, child, NULL, (void *)(long)sig) < 0)
			die("PTRACE_SINGLESTEP");
		/* Said once the child is single-stepped: TIF_SINGLESTEP is set from now on. */
		if (!steps && !sig) {
			printf("ptstep: tracer %d stepping %d\n", (int)getpid(), (int)child);
			fflush(stdout);
		}
		if (waitpid(child, &status, 0) < 0)
			die("waitpid");
		if (WIFEXITED(status) || WIFSIGNALED(status))
			break;
		/* A step ends with SIGTRAP; any other signal is the program's: pass it on. */
		sig = WSTOPSIG(status) == SIGTRAP ? 0 : WSTOPSIG(status);
		if (!sig)
			steps++;
	}
	printf("ptstep: steps %llu status %d\n", steps, status);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
