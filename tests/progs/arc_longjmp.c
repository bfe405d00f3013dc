// SPDX-License-Identifier: GPL-2.0
/* Call-flow test: longjmp out of 6 nested frames, three times. */
#include <setjmp.h>

static jmp_buf env;

static void deep(int n)
{
	if (n < 0)
		return;
	if (n == 0)
		longjmp(env, 1);
	deep(n - 1);
}

int main(void)
{
	volatile int jumps = 0;

	for (int i = 0; i < 3; i++)
		if (setjmp(env) == 0)
			deep(5);
		else
			jumps++;
	return jumps == 3 ? 0 : 1;
}
