// SPDX-License-Identifier: GPL-2.0
/*
 * Runs argv[1] rounds (default 100000) of branches a generator picks, so
 * its step stream does not compress to nothing, then says "done" and exits
 * with status 3: for recordings that fill their filesystem.
 */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	unsigned long rounds = argc > 1 ? strtoul(argv[1], NULL, 10) : 100000;
	unsigned x = 12345, acc = 0;

	for (unsigned long i = 0; i < rounds; i++) {
		x = x * 1103515245u + 12345u;
		switch ((x >> 16) & 15) {
		case 0: acc += 1; break;
		case 1: acc ^= x; break;
		case 2: acc -= 3; break;
		case 3: acc *= 5; break;
		case 4: acc += x >> 3; break;
		case 5: acc ^= 0x55; break;
		case 6: acc += 7; break;
		case 7: acc = acc << 1 | acc >> 31; break;
		case 8: acc += 11; break;
		case 9: acc ^= x << 2; break;
		case 10: acc -= x; break;
		case 11: acc += 13; break;
		case 12: acc ^= 0xaa; break;
		case 13: acc += x >> 5; break;
		case 14: acc -= 17; break;
		default: acc += 19; break;
		}
	}
	printf("done %u\n", acc);
	return 3;
}
