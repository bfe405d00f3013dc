// SPDX-License-Identifier: GPL-2.0
/*
 * A program that handles SIGTRAP itself: raise(SIGTRAP) and int3 must reach
 * its handler as untraced, not be taken as a tracer's step.  The handler's
 * path is one straight run of instructions, so its count is its calls
 * times its length; a SIGTRAP raised inside it waits until it returns;
 * SA_RESETHAND leaves SIG_DFL behind.
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>

#define MAX_HITS 8

static volatile int hits, codes[MAX_HITS], nested;

static void on_trap(int sig, siginfo_t *si, void *ctx)
{
	(void)sig, (void)ctx;
	codes[hits++ & (MAX_HITS - 1)] = si->si_code;
}

static void on_trap_nested(int sig)
{
	(void)sig;
	if (!nested++)
		raise(SIGTRAP);	/* blocked in here: delivered after the return */
}

int main(void)
{
	struct sigaction sa, old;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_trap;
	sa.sa_flags = SA_SIGINFO;
	sigaction(SIGTRAP, &sa, NULL);
	raise(SIGTRAP);
	__asm__ volatile("int3");
	raise(SIGTRAP);
	__asm__ volatile("int3");
	printf("hits=%d codes=%d %d %d %d\n", hits, codes[0], codes[1], codes[2], codes[3]);

	sa.sa_handler = on_trap_nested;
	sa.sa_flags = 0;
	sigaction(SIGTRAP, &sa, NULL);
	raise(SIGTRAP);
	printf("nested: handler ran %d times\n", nested);

	sa.sa_sigaction = on_trap;
	sa.sa_flags = SA_SIGINFO | SA_RESETHAND;
	sigaction(SIGTRAP, &sa, NULL);
	raise(SIGTRAP);
	sigaction(SIGTRAP, NULL, &old);
	printf("SA_RESETHAND: hits=%d then default=%d\n", hits, old.sa_handler == SIG_DFL);
	return 0;
}
