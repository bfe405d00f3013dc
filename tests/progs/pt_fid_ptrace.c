// SPDX-License-Identifier: GPL-2.0
/*
 * Fidelity under tracing: the program is a tracer itself.  Its child asks
 * to be traced (PTRACE_TRACEME) and stops; the program sees the stop, reads
 * the child's registers, lets it go on and reports how it ended (exit 4).
 */
#include <signal.h>
#include <stdio.h>
#include <sys/ptrace.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

int main(void)
{
	struct user_regs_struct regs;
	int status;
	pid_t pid;

	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		if (ptrace(PTRACE_TRACEME, 0, NULL, NULL) < 0) {
			perror("PTRACE_TRACEME");
			_exit(1);
		}
		raise(SIGSTOP);
		_exit(4);
	}
	waitpid(pid, &status, 0);
	printf("child stopped: %s (signal %d)\n", WIFSTOPPED(status) ? "yes" : "no",
	       WIFSTOPPED(status) ? WSTOPSIG(status) : 0);
	printf("its registers: %s\n",
	       ptrace(PTRACE_GETREGS, pid, NULL, &regs) == 0 ? "read" : "not read");
	ptrace(PTRACE_CONT, pid, NULL, NULL);
	waitpid(pid, &status, 0);
	printf("child exited %d\n", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	return 0;
}
