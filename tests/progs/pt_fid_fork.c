// SPDX-License-Identifier: GPL-2.0
/*
 * Fidelity under tracing: children made with fork write to stdout and
 * stderr and end with known statuses (one by a signal); the parent reports
 * each and exits 5.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

int main(void)
{
	pid_t kids[3];

	printf("parent %s\n", "starts");
	fflush(stdout);
	for (int i = 0; i < 3; i++) {
		fflush(stdout);
		kids[i] = fork();
		if (kids[i] < 0)
			return 1;
		if (kids[i] == 0) {
			printf("child %d out\n", i);
			fprintf(stderr, "child %d err\n", i);
			fflush(NULL);
			if (i == 2)
				raise(SIGUSR1);
			_exit(10 + i);
		}
		int status;

		/* one at a time, so the output order is fixed */
		if (waitpid(kids[i], &status, 0) != kids[i])
			return 1;
		if (WIFEXITED(status))
			printf("child %d exited %d\n", i, WEXITSTATUS(status));
		else if (WIFSIGNALED(status))
			printf("child %d killed by signal %d\n", i, WTERMSIG(status));
	}
	fprintf(stderr, "parent done\n");
	return 5;
}
