// SPDX-License-Identifier: GPL-2.0
/* Call-flow test: plain and mutual recursion (fib 177 calls, sum_to 51, is_even/is_odd 21). */
static int fib(int n)
{
	return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

static int sum_to(int n)
{
	if (n <= 0)
		return 0;
	return n + sum_to(n - 1);
}

static int is_odd(int n);

static int is_even(int n)
{
	return n == 0 ? 1 : is_odd(n - 1);
}

static int is_odd(int n)
{
	return n == 0 ? 0 : is_even(n - 1);
}

int main(void)
{
	volatile int r = fib(10) + sum_to(50) + is_even(20);

	return r == 55 + 1275 + 1 ? 0 : 1;
}
