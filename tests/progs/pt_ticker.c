// SPDX-License-Identifier: GPL-2.0
/*
 * Runs until killed, natively almost all the time: spins (pt_spin2, 40
 * million instructions), then calls tick() (a few instructions), then bumps
 * the counter in the file argv[1].  For `--on tick`: between ticks nothing
 * is single-stepped.
 */
#include <stdio.h>
#include <unistd.h>

#include "pt_spin.h"

__attribute__((noinline)) unsigned long tick(unsigned long n)
{
	return n + 1;
}

int main(int argc, char **argv)
{
	unsigned long n = 0;

	if (argc < 2)
		return 2;
	for (;;) {
		char tmp[4096];
		FILE *f;

		pt_spin2(20000000);	/* about 10 ms natively */
		n = tick(n);
		snprintf(tmp, sizeof(tmp), "%s.tmp", argv[1]);
		f = fopen(tmp, "w");
		if (f) {
			fprintf(f, "%lu\n", n);
			fclose(f);
			rename(tmp, argv[1]);
		}
	}
}
