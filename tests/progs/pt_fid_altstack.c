// SPDX-License-Identifier: GPL-2.0
// build: -pthread
/*
 * Fidelity under tracing: a signal handler on an alternate stack
 * (sigaltstack, SA_ONSTACK) sees it is there; a thread with a small stack
 * overflows it, and its SIGSEGV handler, on that thread's alternate stack,
 * ends the process with status 3.
 */
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char alt_main[65536], alt_thread[65536];
static volatile int on_alt;

static void on_usr1(int sig)
{
	char here;

	(void)sig;
	on_alt = &here >= alt_main && &here < alt_main + sizeof(alt_main);
}

static void on_segv(int sig)
{
	char here;
	static const char yes[] = "stack overflow caught on the alternate stack\n";
	static const char no[] = "stack overflow caught elsewhere\n";
	int ok = &here >= alt_thread && &here < alt_thread + sizeof(alt_thread);

	(void)sig;
	if (write(1, ok ? yes : no, ok ? sizeof(yes) - 1 : sizeof(no) - 1) < 0)
		_exit(1);
	_exit(3);
}

__attribute__((noinline)) static int recurse(int n)
{
	volatile char pad[1024];

	pad[0] = (char)n;
	if (n > 1000000)	/* never: the 64 KiB stack ends long before */
		return 0;
	return recurse(n + 1) + pad[0];
}

static void *overflow(void *arg)
{
	stack_t ss = { .ss_sp = alt_thread, .ss_size = sizeof(alt_thread) };

	(void)arg;
	sigaltstack(&ss, NULL);
	return (void *)(intptr_t)recurse(0);
}

int main(void)
{
	stack_t ss = { .ss_sp = alt_main, .ss_size = sizeof(alt_main) };
	struct sigaction sa;
	pthread_attr_t attr;
	pthread_t th;

	sigaltstack(&ss, NULL);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr1;
	sa.sa_flags = SA_ONSTACK;
	sigaction(SIGUSR1, &sa, NULL);
	raise(SIGUSR1);
	printf("handler on the alternate stack: %s\n", on_alt ? "yes" : "no");
	fflush(stdout);
	sa.sa_handler = on_segv;
	sigaction(SIGSEGV, &sa, NULL);
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 65536);
	pthread_create(&th, &attr, overflow, NULL);
	pthread_join(th, NULL);
	return 0;
}
