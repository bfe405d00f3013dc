// SPDX-License-Identifier: GPL-2.0
// build: -O2
/*
 * gcc -O2 moves walk()'s unlikely branch into walk.cold: the branch is
 * entered by a jump to walk.cold's first instruction and jumps back into
 * walk's body, while outer activations of walk are on the stack.
 */
/*
 * By construction: main calls walk(20) 10 times, so walk runs 210 times (16
 * instructions each, 9 at depth 0) and walk.cold 40 times (depths 20, 15, 10,
 * 5: 6 instructions, and note() 4); walk.cold of walk(d) runs above walk(d+1),
 * or above main for d = 20.
 */
#include <stdio.h>

static volatile int sink;

__attribute__((noinline, cold)) static void note(int depth)
{
	sink += depth;
}

__attribute__((noipa)) static int walk(int depth)
{
	int r;

	if (depth == 0)
		return 0;
	r = walk(depth - 1);
	if (__builtin_expect(depth % 5 == 0, 0)) {
		note(depth);
		r += 2;
	}
	return r + 1;
}

int main(void)
{
	int r = 0;

	for (int i = 0; i < 10; i++)
		r += walk(20);
	printf("%d %d\n", r, sink);
	return 0;
}
