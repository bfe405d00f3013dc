// SPDX-License-Identifier: GPL-2.0
/*
 * Runs until killed: spins, then bumps a counter in the file argv[1]
 * (atomically), forever; ignores the signals numbered in argv[2...].
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "pt_spin.h"

int main(int argc, char **argv)
{
	unsigned long n = 0;

	if (argc < 2)
		return 2;
	for (int i = 2; i < argc; i++)
		signal(atoi(argv[i]), SIG_IGN);
	for (;;) {
		char tmp[4096];
		FILE *f;

		pt_spin(20000);
		snprintf(tmp, sizeof(tmp), "%s.tmp", argv[1]);
		f = fopen(tmp, "w");
		if (f) {
			fprintf(f, "%lu\n", ++n);
			fclose(f);
			rename(tmp, argv[1]);
		}
		usleep(2000);
	}
}
