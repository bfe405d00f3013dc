// SPDX-License-Identifier: GPL-2.0
/*
 * The demo program `make demo` traces: a little work in a few functions of
 * its own (recursion, a loop, a libc callback) so the reports have
 * something to show.
 */
#include <stdio.h>
#include <stdlib.h>

static int fib(int n)
{
	return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

static long checksum(const int *v, int n)
{
	long s = 0;

	for (int i = 0; i < n; i++)
		s = s * 31 + v[i];
	return s;
}

int main(void)
{
	int v[64];

	for (int i = 0; i < 64; i++)
		v[i] = (i * 7919) % 101;
	qsort(v, 64, sizeof(v[0]), cmp_int);
	printf("fib(15) = %d, checksum = %ld\n", fib(15), checksum(v, 64));
	return 0;
}
