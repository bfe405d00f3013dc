// SPDX-License-Identifier: GPL-2.0
// build: -static -nostdlib -O1 -fno-stack-protector -fcf-protection=none
/*
 * Says "talk 1" to "talk 3" on stdout, each after 2 s of spinning (by the
 * clock, however slow stepping is): output that comes while pitrace's live
 * line, drawn after a second, is on the terminal.  No libc.
 */
#include <time.h>

static volatile unsigned long sink;

static long sys3(long nr, long a, long b, long c)
{
	long r;

	__asm__ volatile("syscall" : "=a"(r) : "a"(nr), "D"(a), "S"(b), "d"(c)
			 : "rcx", "r11", "memory");
	return r;
}

static long now_ms(void)
{
	struct timespec ts;

	sys3(228 /* clock_gettime */, CLOCK_MONOTONIC, (long)&ts, 0);
	return ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void _start(void)
{
	for (char n = '1'; n <= '3'; n++) {
		char msg[] = "talk 0\n";
		long until = now_ms() + 2000;

		while (now_ms() < until)
			for (unsigned long i = 0; i < 1000; i++)
				sink += i;
		msg[5] = n;
		sys3(1 /* write */, 1, (long)msg, 7);
	}
	sys3(60 /* exit */, 0, 0, 0);
	__builtin_unreachable();
}
