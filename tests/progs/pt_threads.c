// SPDX-License-Identifier: GPL-2.0
/* Three threads with known work: thread i runs pt_spin(10000 * (i + 1)); main runs pt_spin2(5000). */
// build: -pthread
#include <pthread.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "pt_spin.h"

static void *worker(void *arg)
{
	unsigned n = (unsigned)(unsigned long)arg;

	pt_spin(n);
	printf("thread %ld spin %u\n", (long)syscall(SYS_gettid), n);
	return NULL;
}

int main(void)
{
	pthread_t th[3];

	for (unsigned i = 0; i < 3; i++)
		pthread_create(&th[i], NULL, worker, (void *)(unsigned long)(10000 * (i + 1)));
	pt_spin2(5000);
	for (unsigned i = 0; i < 3; i++)
		pthread_join(th[i], NULL);
	printf("main %ld spin2 5000\n", (long)syscall(SYS_gettid));
	return 0;
}
