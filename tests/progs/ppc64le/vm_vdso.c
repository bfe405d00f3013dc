// SPDX-License-Identifier: GPL-2.0
/*
 * The vDSO under POWER's ptrace backend: 200 clock_gettime calls (glibc's
 * bctrl into the vDSO), 199 from main and one from a SIGUSR2 handler,
 * and a SIGUSR1 handler that calls nothing.  The kernel enters both
 * handlers through the vDSO's signal trampoline and they return into it.
 * Prints how many calls were made and failed and which handlers ran: the
 * same traced or not.  Static: the ptrace backend steps no dynamic loader.
 */
// build: -O1 -static
#include <signal.h>
#include <stdio.h>
#include <time.h>

static volatile sig_atomic_t calls, failed, handlers;

/* One call into the vDSO; noinline so that it is a function of its own in reports. */
__attribute__((noinline)) static void read_clock(void)
{
	struct timespec ts;

	calls++;
	failed += clock_gettime(CLOCK_MONOTONIC, &ts) != 0;
}

static void on_usr1(int sig)
{
	(void)sig;
	handlers |= 1;
}

static void on_usr2(int sig)
{
	(void)sig;
	read_clock();
	handlers |= 2;
}

int main(void)
{
	signal(SIGUSR1, on_usr1);
	signal(SIGUSR2, on_usr2);
	for (int i = 0; i < 100; i++)
		read_clock();
	raise(SIGUSR1);
	for (int i = 0; i < 99; i++)
		read_clock();
	raise(SIGUSR2);
	printf("calls %d failed %d handlers %d\n", (int)calls, (int)failed, (int)handlers);
	return failed || handlers != 3;
}
