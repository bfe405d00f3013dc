// SPDX-License-Identifier: GPL-2.0
// build: -pthread
/* Call-flow test: two threads, each with its own call stack (work() in both). */
#include <pthread.h>

static long work(long n)
{
	long s = 0;

	for (long i = 0; i < n; i++)
		s += i;
	return s;
}

static void *thread_main(void *arg)
{
	return (void *)work((long)arg);
}

int main(void)
{
	pthread_t t;
	void *r;
	long mine;

	if (pthread_create(&t, NULL, thread_main, (void *)200L))
		return 1;
	mine = work(100);
	pthread_join(t, &r);
	return (long)r == 19900 && mine == 4950 ? 0 : 1;
}
