// SPDX-License-Identifier: GPL-2.0
/* Runs until killed: spins, then bumps a counter in the file argv[1], forever. */
#include <stdio.h>
#include <unistd.h>

#include "pt_spin.h"

int main(int argc, char **argv)
{
	unsigned long n = 0;

	if (argc < 2)
		return 2;
	for (;;) {
		FILE *f;

		pt_spin(20000);
		f = fopen(argv[1], "w");
		if (f) {
			fprintf(f, "%lu\n", ++n);
			fclose(f);
		}
		usleep(2000);
	}
}
