// SPDX-License-Identifier: GPL-2.0
// build: -O0
/*
 * For post diff: work() loops N times (N the first argument, default 100),
 * fixed() the same 50 times whatever N is, so two recordings differ by
 * construction in work() only: its Base grows by the same number of
 * instructions for each more iteration.
 */
#include <stdlib.h>

static volatile long sink;

__attribute__((noinline)) static void work(long n)
{
	for (long i = 0; i < n; i++)
		sink += i;
}

__attribute__((noinline)) static void fixed(void)
{
	for (long i = 0; i < 50; i++)
		sink ^= i;
}

int main(int argc, char **argv)
{
	work(argc > 1 ? atol(argv[1]) : 100);
	fixed();
	return 0;
}
