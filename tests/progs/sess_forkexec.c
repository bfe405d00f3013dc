// SPDX-License-Identifier: GPL-2.0
/*
 * Driver session tests: fork; the child execs argv[1] with argv[2] as its
 * argument (sess_loop N: work = 2N+2 steps) and stdin from /dev/null, the
 * parent runs parent_spin(3000) = 6002 steps and waits.
 */
#include <fcntl.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sess_spin.h"

SESS_SPIN(parent_spin);

int main(int argc, char **argv)
{
	int status;
	pid_t pid;

	if (argc < 3) {
		fprintf(stderr, "usage: sess_forkexec PROGRAM N\n");
		return 2;
	}
	pid = fork();
	if (pid < 0) {
		perror("fork");
		return 1;
	}
	if (pid == 0) {
		int null = open("/dev/null", O_RDONLY);

		dup2(null, 0);
		execl(argv[1], argv[1], argv[2], (char *)NULL);
		perror("execl");
		_exit(127);
	}
	parent_spin(3000);
	if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status))
		return 1;
	return 0;
}
