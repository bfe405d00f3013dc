// SPDX-License-Identifier: GPL-2.0
/*
 * Signals that arrive in the middle of straight-line code: a forked child
 * (not traced without --follow-fork) sends SIGUSR1 to its parent argv[1]
 * times (default 20), each 2 ms after the handler of the one before said
 * (through a pipe) that it ran, while the parent runs body(), 16 adds and
 * a return, until its handler (pt_spin2(300)) has run that often.
 * Where each signal lands varies; the counts that don't vary: every
 * instruction of body() runs equally often, pt_spin2 runs 602 instructions
 * per signal.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pt_spin.h"

static volatile sig_atomic_t handled;
static int done_pipe[2];

static void on_signal(int sig)
{
	(void)sig;
	pt_spin2(300);
	handled++;
	if (write(done_pipe[1], "", 1) != 1)
		_exit(2);
}

/* 16 instructions that only fall through, then ret. */
__asm__(".text\n.globl body\n.type body, @function\nbody:\n"
	"\tadd $1, %eax\n\tadd $2, %eax\n\tadd $3, %eax\n\tadd $4, %eax\n"
	"\tadd $5, %eax\n\tadd $6, %eax\n\tadd $7, %eax\n\tadd $8, %eax\n"
	"\tadd $1, %eax\n\tadd $2, %eax\n\tadd $3, %eax\n\tadd $4, %eax\n"
	"\tadd $5, %eax\n\tadd $6, %eax\n\tadd $7, %eax\n\tadd $8, %eax\n"
	"\tret\n.size body, . - body\n");
void body(void);

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 20, status;
	char c;
	struct sigaction sa = { .sa_handler = on_signal };
	pid_t parent = getpid(), child;

	sigemptyset(&sa.sa_mask);
	sigaction(SIGUSR1, &sa, NULL);
	if (pipe(done_pipe) < 0)
		return 2;
	child = fork();
	if (child == 0) {
		for (int i = 0; i < n; i++) {
			usleep(2000);
			kill(parent, SIGUSR1);
			if (read(done_pipe[0], &c, 1) != 1)
				_exit(2);
		}
		_exit(0);
	}
	while (handled < n)
		body();
	waitpid(child, &status, 0);
	printf("handled %d\n", (int)handled);
	return 0;
}
