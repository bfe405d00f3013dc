// SPDX-License-Identifier: GPL-2.0
/*
 * Contention on one word and nothing else: THREADS threads, released
 * together, each add 1 ITER times to one counter with __atomic_fetch_add
 * (on POWER the loop lwarx; add; stwcx.; bne- back to the lwarx).  The
 * only instructions of worker() whose number depends on the threads'
 * timing are those of that loop's retries: a store-conditional that fails
 * because another thread stored first runs the loop again.  So
 * worker()'s steps minus (its stwcx. executions - THREADS * ITER) times
 * the loop's length is the same for every run, under either backend.
 * argv[1], if given, is ITER.  Exits 0 when the counter is THREADS * ITER.
 */
// build: -O2 -pthread -static
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define THREADS 4

static unsigned long iter = 1000;
static unsigned int counter;
static pthread_barrier_t start;

__attribute__((noinline)) static void *worker(void *arg)
{
	(void)arg;
	pthread_barrier_wait(&start);
	for (unsigned long i = 0; i < iter; i++)
		__atomic_fetch_add(&counter, 1, __ATOMIC_RELAXED);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t[THREADS];

	if (argc > 1)
		iter = strtoul(argv[1], NULL, 0);
	pthread_barrier_init(&start, NULL, THREADS);
	for (int i = 0; i < THREADS; i++)
		if (pthread_create(&t[i], NULL, worker, NULL))
			return 2;
	for (int i = 0; i < THREADS; i++)
		pthread_join(t[i], NULL);
	printf("counter %u expected %lu\n", counter, THREADS * iter);
	return counter == THREADS * iter ? 0 : 1;
}
