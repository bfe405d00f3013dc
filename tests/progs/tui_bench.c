// SPDX-License-Identifier: GPL-2.0
// build: -O1
/*
 * A workload for measuring the viewer on a long trace (tests/bench/tui.sh):
 * about 10M steps with many calls of several shapes: a wide call tree
 * (fib), a libc callback (qsort's comparisons), and one recursion 20000
 * calls deep.  `tui_bench SCALE` scales the work (default 1).
 */
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) static int fib(int n)
{
	return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

__attribute__((noinline)) static long deep(long n)
{
	return n ? 1 + deep(n - 1) : 0;
}

int main(int argc, char **argv)
{
	int scale = argc > 1 ? atoi(argv[1]) : 1;
	int n = 6000 * scale, *v = malloc(sizeof(*v) * (size_t)n);
	long f = 0, d = 0;

	if (!v)
		return 1;
	for (int i = 0; i < n; i++)
		v[i] = (int)((i * 7919L) % 10007);
	qsort(v, (size_t)n, sizeof(*v), cmp_int);
	for (int k = 0; k < scale; k++) {
		f += fib(22);
		d += deep(20000);
	}
	printf("%ld %ld %d\n", f, d, v[n / 2]);
	free(v);
	return 0;
}
