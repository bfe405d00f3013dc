// SPDX-License-Identifier: GPL-2.0
/*
 * Runs until SIGUSR1 with SIGTRAP ignored ("ign") or blocked ("block"),
 * spinning and bumping a counter in the file argv[2]; then raises SIGTRAP
 * and exits 0: a process that got SIGTRAP's default action back (a
 * tracer's steps reset it) dies of it instead.
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "pt_spin.h"

static volatile sig_atomic_t go;

static void on_usr1(int sig)
{
	(void)sig;
	go = 1;
}

int main(int argc, char **argv)
{
	struct sigaction sa;
	unsigned long n = 0;
	sigset_t trap;

	if (argc < 3)
		return 2;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr1;
	sigaction(SIGUSR1, &sa, NULL);
	sigemptyset(&trap);
	sigaddset(&trap, SIGTRAP);
	if (!strcmp(argv[1], "ign"))
		signal(SIGTRAP, SIG_IGN);
	else
		sigprocmask(SIG_BLOCK, &trap, NULL);
	while (!go) {
		char tmp[4096];
		FILE *f;

		pt_spin(20000);
		snprintf(tmp, sizeof(tmp), "%s.tmp", argv[2]);
		f = fopen(tmp, "w");
		if (f) {
			fprintf(f, "%lu\n", ++n);
			fclose(f);
			rename(tmp, argv[2]);
		}
		usleep(2000);
	}
	raise(SIGTRAP);
	printf("survived\n");
	return 0;
}
