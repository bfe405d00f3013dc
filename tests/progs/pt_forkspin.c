// SPDX-License-Identifier: GPL-2.0
/* fork() after which parent and child both run pt_spin(1000) (2002 instructions); exits with the child's status. */
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pt_spin.h"

int main(void)
{
	int status = 0;
	pid_t pid = fork();

	pt_spin(1000);
	if (pid == 0)
		_exit(7);
	waitpid(pid, &status, 0);
	printf("child %s %d\n", WIFEXITED(status) ? "exited" : "killed by signal",
	       WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
	return 0;
}
