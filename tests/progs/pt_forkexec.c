// SPDX-License-Identifier: GPL-2.0
/* fork + exec: the child execs argv[1]; the parent runs pt_spin(7000) and exits with the child's status. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pt_spin.h"

int main(int argc, char **argv)
{
	int status;
	pid_t pid;

	if (argc < 2) {
		fprintf(stderr, "usage: pt_forkexec PROGRAM\n");
		return 2;
	}
	pid = fork();
	if (pid == 0) {
		execv(argv[1], argv + 1);
		_exit(127);
	}
	pt_spin(7000);
	waitpid(pid, &status, 0);
	printf("child %d exited %d\n", (int)pid, WEXITSTATUS(status));
	return WEXITSTATUS(status);
}
