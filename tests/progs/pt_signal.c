// SPDX-License-Identifier: GPL-2.0
/* A SIGUSR1 handler with known work (pt_spin2(3000) per signal), raised twice; exits 5. */
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "pt_spin.h"

static volatile int handled;

static void on_usr1(int sig)
{
	(void)sig;
	pt_spin2(3000);		/* 6002 instructions per signal */
	handled++;
}

int main(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr1;
	sigaction(SIGUSR1, &sa, NULL);
	raise(SIGUSR1);
	pt_spin(100);
	raise(SIGUSR1);
	printf("handled %d signals\n", handled);
	fflush(stdout);
	return 5;
}
