// SPDX-License-Identifier: GPL-2.0
// build: -static -nostdlib -fno-stack-protector -fcf-protection=none
/*
 * A plain recursive C function as gcc -O0 compiles it, in a program with
 * no libc (its code is one mapping, so a test can write a trace of this
 * code at any depth through tests/progs/mktrace from one short recording:
 * tests/e2e/t323_deep_recursion.sh).  depth(n) calls itself n times, then
 * the returns add up; the exit status is 0 when they came to n.
 */
#define LEVELS 50

__attribute__((noinline)) unsigned long depth(unsigned long n)
{
	if (!n)
		return 0;
	return depth(n - 1) + 1;
}

void _start(void)
{
	unsigned long r = depth(LEVELS);

	__asm__ volatile("syscall" : : "a"(60), "D"(r == LEVELS ? 0 : 1));
	for (;;)
		;
}
