// SPDX-License-Identifier: GPL-2.0
/* Output for people (separators, colour, a pager) or scripts (plain) (output.h). */
#include <inttypes.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util/log.h"
#include "post/output.h"

const char *const output_color_names[] = { "auto", "always", "never", NULL };

struct output post_output;
static pid_t pager_pid;

static void start_pager(void)
{
	const char *pager = getenv("PAGER");
	int fd[2];
	pid_t pid;

	if (!pager)
		pager = "less";
	if (!*pager || !strcmp(pager, "cat"))
		return;
	if (pipe(fd) < 0)
		return;
	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		close(fd[0]);
		close(fd[1]);
		return;
	}
	if (!pid) {
		/* the pager reads what post writes; less: quit if one screen, keep colour */
		dup2(fd[0], STDIN_FILENO);
		close(fd[0]);
		close(fd[1]);
		setenv("LESS", getenv("LESS") ? getenv("LESS") : "FRSX", 1);
		if (!strcmp(pager, "less"))
			execlp("less", "less", "-FRSX", (char *)NULL);
		else
			execl("/bin/sh", "sh", "-c", pager, (char *)NULL);
		_exit(127);
	}
	dup2(fd[1], STDOUT_FILENO);
	close(fd[0]);
	close(fd[1]);
	/* the pager quitting early (q) is not an error of ours */
	signal(SIGPIPE, SIG_IGN);
	pager_pid = pid;
	post_output.paged = true;
}

void output_start(const struct output_opts *o)
{
	post_output.tty = isatty(STDOUT_FILENO);
	post_output.thousands = post_output.tty;
	post_output.color = o->color == OUTPUT_COLOR_ALWAYS ||
			    (o->color == OUTPUT_COLOR_AUTO && post_output.tty &&
			     getenv("TERM") && strcmp(getenv("TERM"), "dumb") &&
			     !getenv("NO_COLOR"));
	if (post_output.tty && !o->no_pager)
		start_pager();
}

void output_end(void)
{
	if (!pager_pid)
		return;
	fflush(stdout);
	fclose(stdout);
	waitpid(pager_pid, NULL, 0);
	pager_pid = 0;
}

const char *output_num(uint64_t v, char *buf, size_t size)
{
	char digits[32];
	size_t n, out = 0;

	n = (size_t)snprintf(digits, sizeof(digits), "%" PRIu64, v);
	if (!post_output.thousands) {
		snprintf(buf, size, "%s", digits);
		return buf;
	}
	for (size_t i = 0; i < n && out + 2 < size; i++) {
		if (i && (n - i) % 3 == 0)
			buf[out++] = ',';
		buf[out++] = digits[i];
	}
	buf[out] = '\0';
	return buf;
}

const char *output_hot(double percent)
{
	if (!post_output.color)
		return "";
	if (percent >= 5.0)
		return "\033[31m";
	if (percent >= 0.5)
		return "\033[32m";
	return "";
}

const char *output_reset(void)
{
	return post_output.color ? "\033[m" : "";
}
