// SPDX-License-Identifier: GPL-2.0
/*
 * Loops whose trip counts are known by construction, for post annotate
 * (t341): nested() runs its outer loop OUTER times and its inner loop
 * INNER times for each, so the inner body runs OUTER * INNER times;
 * halve() runs its while loop once per bit of START (HALVINGS times);
 * pick() takes each of its switch's cases as often as its argument
 * says.  The trip counts come in through volatile variables, so that
 * gcc at -O2 cannot fold the loops away (the test builds this file at
 * -O2 too).  No library calls inside the loops' functions: valgrind
 * counts a PLT stub as its caller's code, pitrace as the stub's.
 */
#define OUTER 10
#define INNER 7
#define START 1000		/* 10 bits: 10 halvings */

static volatile int outer = OUTER, inner = INNER, start = START;

static int __attribute__((noinline)) nested(int n, int m)
{
	int s = 0;

	for (int i = 0; i < n; i++)
		for (int j = 0; j < m; j++)
			s += i ^ j;
	return s;
}

static int __attribute__((noinline)) halve(int v)
{
	int steps = 0;

	while (v > 0) {
		v >>= 1;
		steps++;
	}
	return steps;
}

static int __attribute__((noinline)) pick(int k)
{
	int r = 0;

	for (int i = 0; i < k; i++) {
		switch (i % 3) {
		case 0:
			r += 5;
			break;
		case 1:
			r ^= 3;
			break;
		default:
			r -= 1;
			break;
		}
	}
	return r;
}

int main(void)
{
	int s = nested(outer, inner);

	s += halve(start);
	s += pick(outer + inner);
	return s == 0;
}
