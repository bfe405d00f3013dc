// SPDX-License-Identifier: GPL-2.0
// build: -pthread
/*
 * Two threads that name themselves (pthread_setname_np: the comm a
 * viewer shows) before a little work, for the exports' thread names
 * (t350): "pt-worker-1" and "pt-worker-2" in process "named_threads".
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>

static long __attribute__((noinline)) work(long n)
{
	long s = 0;

	for (long i = 0; i < n; i++)
		s += i;
	return s;
}

static void *worker(void *arg)
{
	char name[16];

	snprintf(name, sizeof(name), "pt-worker-%ld", (long)arg);
	pthread_setname_np(pthread_self(), name);
	return (void *)work(100 * (long)arg);
}

int main(void)
{
	pthread_t t[2];
	long sum = 0;

	for (long i = 0; i < 2; i++)
		if (pthread_create(&t[i], NULL, worker, (void *)(i + 1)))
			return 1;
	for (int i = 0; i < 2; i++) {
		void *r;

		pthread_join(t[i], &r);
		sum += (long)r;
	}
	return sum == 0;
}
