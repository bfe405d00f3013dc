// SPDX-License-Identifier: GPL-2.0
// build: -static -nostdlib -O1 -fno-stack-protector -fcf-protection=none -g
/*
 * A recording a test follows while it is made (post script --follow):
 * calls work() 3 times, then blocks in read() on stdin until the test lets
 * it go, then calls work() 5 times more and exits 0.  No libc.
 */
static volatile unsigned long sink;

static long sys3(long nr, long a, long b, long c)
{
	long r;

	__asm__ volatile("syscall" : "=a"(r) : "a"(nr), "D"(a), "S"(b), "d"(c)
			 : "rcx", "r11", "memory");
	return r;
}

static void __attribute__((noinline)) leaf(unsigned long i)
{
	sink += i;
}

static void __attribute__((noinline)) work(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		leaf(i);
}

void _start(void)
{
	char c;

	for (int k = 0; k < 3; k++)
		work(4);
	sys3(0 /* read */, 0, (long)&c, 1);
	for (int k = 0; k < 5; k++)
		work(4);
	sys3(60 /* exit */, 0, 0, 0);
	__builtin_unreachable();
}
