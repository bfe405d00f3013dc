// SPDX-License-Identifier: GPL-2.0
/* Driver session tests: 4 threads each run spin(50000) = 100002 steps; main runs none. */
// build: -pthread
#include <pthread.h>
#include <stdio.h>

#include "sess_spin.h"

SESS_SPIN(spin);

#define THREADS 4
#define ITERATIONS 50000

static void *worker(void *arg)
{
	(void)arg;
	spin(ITERATIONS);
	return NULL;
}

int main(void)
{
	pthread_t t[THREADS];

	for (int i = 0; i < THREADS; i++)
		if (pthread_create(&t[i], NULL, worker, NULL)) {
			perror("pthread_create");
			return 1;
		}
	for (int i = 0; i < THREADS; i++)
		pthread_join(t[i], NULL);
	return 0;
}
