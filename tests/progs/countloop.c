// SPDX-License-Identifier: GPL-2.0
// Functions with fixed, input-independent work, for checking post counts
// against an independent instruction counter (callgrind) function by function.
#include <stdio.h>

static int __attribute__((noinline)) square_sum(int n)
{
	int s = 0;

	for (int i = 0; i < n; i++)
		s += i * i;
	return s;
}

static void __attribute__((noinline)) fill(volatile char *buf, int n)
{
	for (int i = 0; i < n; i++)
		buf[i] = (char)i;
}

static int __attribute__((noinline)) fib(int n)
{
	return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

int main(void)
{
	char buf[256];
	int s = square_sum(1000) + fib(15);

	fill(buf, sizeof(buf));
	printf("%d %d\n", s, buf[7]);
	return 0;
}
