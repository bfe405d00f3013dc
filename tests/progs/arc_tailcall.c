// SPDX-License-Identifier: GPL-2.0
// build: -O2
/*
 * Call-flow test at -O2: middle() ends in a tail call to leaf() and
 * ping()/pong() tail-call each other 100 times (jumps, not calls: the stack
 * must stay flat).  noipa keeps gcc from inlining or cloning them.
 */
__attribute__((noipa)) static int leaf(int x)
{
	return x * 3 + 1;
}

__attribute__((noipa)) static int middle(int x)
{
	return leaf(x + 1);
}

__attribute__((noipa)) static int pong(int n, int acc);

__attribute__((noipa)) static int ping(int n, int acc)
{
	if (n == 0)
		return acc;
	return pong(n - 1, acc + 1);
}

__attribute__((noipa)) static int pong(int n, int acc)
{
	if (n == 0)
		return acc;
	return ping(n - 1, acc + 2);
}

int main(void)
{
	int r = 0;

	for (int i = 0; i < 10; i++)
		r += middle(i);
	r += ping(100, 0);
	return r == 175 + 150 ? 0 : 1;
}
