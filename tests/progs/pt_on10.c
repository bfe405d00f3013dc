// SPDX-License-Identifier: GPL-2.0
/*
 * For --on: main calls hot_loop ten times, with other work between the
 * calls; hot_loop(n) calls mix() n times, so each activation has its own
 * Base and Cum (callgrind counts the same).
 */
#include <stdio.h>

__attribute__((noinline)) static unsigned mix(unsigned x)
{
	return x * 2654435761u ^ (x >> 3);
}

__attribute__((noinline)) unsigned hot_loop(unsigned n)
{
	unsigned s = 0;

	for (unsigned i = 0; i < n; i++)
		s += mix(i);
	return s;
}

__attribute__((noinline)) static unsigned between(unsigned x)
{
	for (int i = 0; i < 50; i++)
		x = mix(x + (unsigned)i);
	return x;
}

int main(void)
{
	unsigned r = 0;

	for (unsigned i = 0; i < 10; i++) {
		r += hot_loop(10 + i);
		r ^= between(i);
	}
	printf("%u\n", r);
	return 0;
}
