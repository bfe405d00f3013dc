// SPDX-License-Identifier: GPL-2.0
/* Calls through the PLT, into the vDSO and into a static function a known number of times. */
#include <stdio.h>
#include <time.h>

#define CALLS 7

static int helper(int x)
{
	return x * 3 + 1;
}

int main(void)
{
	struct timespec ts;
	int acc = 0;

	for (int i = 0; i < CALLS; i++) {
		clock_gettime(CLOCK_MONOTONIC, &ts);
		acc += helper(i);
		puts("sym");
	}
	printf("%d\n", acc);
	return 0;
}
