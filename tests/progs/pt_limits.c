// SPDX-License-Identifier: GPL-2.0
/*
 * For record's and attach's limits: spins pt_spin2(N) (2N + 2 steps), then
 * prints "spun N" and exits with status 3, so that a recording cut short
 * shows the program still ran to its end.  With a second argument FILE it
 * first spins in rounds of a million until FILE exists ("waited a while"),
 * so that an attach has something to take and the process ends when told.
 */
// build: -static
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "pt_spin.h"

int main(int argc, char **argv)
{
	unsigned long rounds = 0;
	unsigned n;

	if (argc < 2)
		return 2;
	n = (unsigned)strtoul(argv[1], NULL, 10);
	if (argc > 2) {
		while (access(argv[2], F_OK) != 0) {
			pt_spin2(1000000);
			rounds++;
		}
		printf("waited %s\n", rounds ? "a while" : "not at all");
	}
	pt_spin2(n);
	printf("spun %u\n", n);
	return 3;
}
