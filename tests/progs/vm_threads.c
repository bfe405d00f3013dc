// SPDX-License-Identifier: GPL-2.0
/*
 * Two worker threads, each running a loop of 3 * ITER instructions written
 * in assembly, so each worker thread executes at least that many.  One
 * source for every architecture: tests/progs/ARCH/vm_threads.c includes it
 * with its own build line.
 */
// build: -pthread
#include <pthread.h>
#include <stdio.h>

#define ITER 20000

static void *worker(void *arg)
{
	unsigned long n = ITER, acc = 0;

#if defined(__x86_64__)
	asm volatile("1: add $1, %1\n\tdec %0\n\tjnz 1b" : "+r"(n), "+r"(acc));
#elif defined(__powerpc64__)
	asm volatile("1: addi %1, %1, 1\n\taddic. %0, %0, -1\n\tbne 1b"
		     : "+r"(n), "+r"(acc) : : "cr0", "xer");
#elif defined(__aarch64__)
	asm volatile("1: add %1, %1, #1\n\tsubs %0, %0, #1\n\tb.ne 1b"
		     : "+r"(n), "+r"(acc) : : "cc");
#else
#error "vm_threads: no loop for this architecture"
#endif
	return (void *)acc;
}

int main(void)
{
	pthread_t t[2];
	void *r[2];

	for (int i = 0; i < 2; i++)
		if (pthread_create(&t[i], NULL, worker, NULL))
			return 1;
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], &r[i]);
	return (unsigned long)r[0] == ITER && (unsigned long)r[1] == ITER ? 0 : 1;
}
