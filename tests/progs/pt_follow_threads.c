// SPDX-License-Identifier: GPL-2.0
// build: -static -nostdlib -O1 -fno-stack-protector -fcf-protection=none -g
/*
 * Threads a test follows while they are made (post script --follow): main
 * calls work() 3 times, then blocks in read() on stdin until the test lets
 * it go (so the follower has opened the trace before any thread exists),
 * then starts 4 threads that each call work() and sleep 20 ms by turns
 * (thread i: 3 + i rounds), waits for them (futex), calls tail() and exits
 * 0.  No libc: the threads are clone()s with stacks of their own.
 */
#define NR_THREADS 4
#define STACK 16384
#ifndef SCALE
#define SCALE 1		  /* -DSCALE=N: N times the work, for a longer run by hand */
#endif

static volatile unsigned long sink;
static int tids[NR_THREADS];	/* the kernel clears each at its thread's exit */
static char stacks[NR_THREADS][STACK] __attribute__((aligned(16)));

static long sys6(long nr, long a, long b, long c, long d, long e)
{
	register long r10 __asm__("r10") = d;
	register long r8 __asm__("r8") = e;
	long r;

	__asm__ volatile("syscall" : "=a"(r) : "a"(nr), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8)
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

static void __attribute__((noinline)) tail(void)
{
	work(2);
}

static void nap(void)
{
	const long ts[2] = { 0, 20000000 };

	sys6(35 /* nanosleep */, (long)ts, 0, 0, 0, 0);
}

static void __attribute__((noinline, used)) thread_main(long i)
{
	for (long k = 0; k < 3 + i; k++) {
		work(SCALE * (5 + (unsigned long)i));
		nap();
	}
	sys6(60 /* exit: this thread only */, 0, 0, 0, 0, 0);
}

/* clone(2) a thread running thread_main(i) on its own stack; the child never returns here. */
static void spawn(long i)
{
	/* VM FS FILES SIGHAND THREAD SYSVSEM PARENT_SETTID CHILD_CLEARTID */
	const long flags = 0x100 | 0x200 | 0x400 | 0x800 | 0x10000 | 0x40000 | 0x100000 |
			   0x200000;
	register long r10 __asm__("r10") = (long)&tids[i];
	register long r8 __asm__("r8") = 0;
	long r;

	__asm__ volatile("syscall\n\t"
			 "test %%rax, %%rax\n\t"
			 "jnz 1f\n\t"
			 "mov %[arg], %%rdi\n\t"
			 "call thread_main\n\t"
			 "hlt\n"
			 "1:"
			 : "=a"(r)
			 : "a"(56 /* clone */), "D"(flags), "S"(stacks[i] + STACK), "d"(&tids[i]),
			   "r"(r10), "r"(r8), [arg] "r"(i)
			 : "rcx", "r11", "memory");
}

void _start(void)
{
	char c;

	for (int k = 0; k < 3; k++)
		work(4);
	sys6(0 /* read */, 0, (long)&c, 1, 0, 0);
	for (long i = 0; i < NR_THREADS; i++)
		spawn(i);
	for (int i = 0; i < NR_THREADS; i++) {
		int t;

		while ((t = __atomic_load_n(&tids[i], __ATOMIC_ACQUIRE)) != 0)
			sys6(202 /* futex */, (long)&tids[i], 0 /* WAIT */, t, 0, 0);
	}
	tail();
	sys6(231 /* exit_group */, 0, 0, 0, 0, 0);
	__builtin_unreachable();
}
