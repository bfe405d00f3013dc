// SPDX-License-Identifier: GPL-2.0
/*
 * Fidelity under tracing: execs that fail (a missing file, a command not
 * in PATH, a file that is not executable) return their errors to the
 * program, which goes on; a child then execs a real program; exit 42.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static void try(const char *what, int (*fn)(const char *, char *const[]), const char *path)
{
	char *argv[] = { (char *)path, NULL };

	fn(path, argv);
	fprintf(stderr, "%s %s: %s\n", what, path, strerror(errno));
}

int main(void)
{
	int status;
	pid_t pid;

	try("execv", execv, "/nonexistent/prog");
	try("execvp", execvp, "no-such-command-pitrace-test");
	try("execv", execv, "/etc/passwd");
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		execl("/bin/echo", "echo", "exec'd in the child", (char *)NULL);
		_exit(127);
	}
	waitpid(pid, &status, 0);
	printf("child status %d\n", WEXITSTATUS(status));
	return 42;
}
