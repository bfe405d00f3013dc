// SPDX-License-Identifier: GPL-2.0
/*
 * Driver session tests: a SIGUSR1 handler runs handler_spin(2000) = 4002
 * steps; after it returns, main runs after_spin(3000) = 6002 steps.
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "sess_spin.h"

SESS_SPIN(handler_spin);
SESS_SPIN(after_spin);

static void on_usr1(int sig)
{
	(void)sig;
	handler_spin(2000);
}

int main(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr1;
	if (sigaction(SIGUSR1, &sa, NULL) < 0) {
		perror("sigaction");
		return 1;
	}
	raise(SIGUSR1);
	after_spin(3000);
	return 0;
}
