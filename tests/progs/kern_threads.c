// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel-mode tracing test program: two threads each make N rounds
 * (argv[1], default 1000) of five system calls -- getpid, a pipe write and
 * read, dup and close -- so that traced system calls run on two CPUs at
 * once.
 * Prints "kern_threads 2x N ok" and exits 0 when every call succeeded.
 */
// build: -static -O1 -pthread
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

static long rounds = 1000;

static void *worker(void *arg)
{
	char buf[16] = "two threads";
	int p[2];

	(void)arg;
	if (pipe(p))
		return (void *)1;
	for (long i = 0; i < rounds; i++) {
		int fd;

		if (syscall(SYS_getpid) <= 0)
			return (void *)2;
		if (write(p[1], buf, sizeof(buf)) != sizeof(buf) ||
		    read(p[0], buf, sizeof(buf)) != sizeof(buf))
			return (void *)3;
		fd = dup(p[0]);
		if (fd < 0 || close(fd))
			return (void *)4;
	}
	close(p[0]);
	close(p[1]);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t[2];
	void *ret[2];

	if (argc > 1)
		rounds = atol(argv[1]);
	for (int i = 0; i < 2; i++)
		if (pthread_create(&t[i], NULL, worker, NULL))
			return 1;
	for (int i = 0; i < 2; i++)
		if (pthread_join(t[i], &ret[i]) || ret[i])
			return 1;
	printf("kern_threads 2x %ld ok\n", rounds);
	return 0;
}
