// SPDX-License-Identifier: GPL-2.0
/*
 * Atomics under contention (arm64): THREADS threads each add 1 ITER times
 * to one counter with __atomic builtins (ldaxr/stlxr loops: built with
 * -mno-outline-atomics -march=armv8-a) and ITER times to another under a
 * pthread mutex, all released together.  Prints both totals; exits 0 when
 * both are THREADS * ITER, i.e. no increment was lost and no loop hung.  argv[1], if given, is ITER.  Static: the ptrace backend steps no
 * dynamic loader before main (it runs some 500-800 steps/s under TCG).
 */
// build: -O2 -pthread -static -mno-outline-atomics -march=armv8-a
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define THREADS 4

static unsigned long iter = 2000;
static unsigned int atomic_total;
static unsigned long locked_total;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_barrier_t start;

static void *worker(void *arg)
{
	(void)arg;
	pthread_barrier_wait(&start);
	for (unsigned long i = 0; i < iter; i++) {
		__atomic_fetch_add(&atomic_total, 1, __ATOMIC_SEQ_CST);
		pthread_mutex_lock(&lock);
		locked_total++;
		pthread_mutex_unlock(&lock);
	}
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
	printf("atomic %u locked %lu expected %lu\n", atomic_total, locked_total, THREADS * iter);
	return atomic_total == THREADS * iter && locked_total == THREADS * iter ? 0 : 1;
}
