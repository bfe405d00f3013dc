// SPDX-License-Identifier: GPL-2.0
/*
 * Fidelity under tracing: vfork children, one execs echo, one _exits 9
 * (they borrow the parent's memory until then); the parent reports both.
 */
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

int main(void)
{
	int status;
	pid_t pid;

	fflush(NULL);
	pid = vfork();
	if (pid == 0) {
		execl("/bin/echo", "echo", "vforked and exec'd", (char *)NULL);
		_exit(127);
	}
	waitpid(pid, &status, 0);
	printf("first child exited %d\n", WEXITSTATUS(status));
	pid = vfork();
	if (pid == 0)
		_exit(9);
	waitpid(pid, &status, 0);
	printf("second child exited %d\n", WEXITSTATUS(status));
	return 0;
}
