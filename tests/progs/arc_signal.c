// SPDX-License-Identifier: GPL-2.0
/* Call-flow test: a signal handler entered three times (raise), returning through sigreturn. */
#include <signal.h>

static volatile sig_atomic_t hits;

static void on_usr1(int sig)
{
	(void)sig;
	hits++;
}

int main(void)
{
	signal(SIGUSR1, on_usr1);
	for (int i = 0; i < 3; i++)
		raise(SIGUSR1);
	return hits == 3 ? 0 : 1;
}
