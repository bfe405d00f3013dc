// SPDX-License-Identifier: GPL-2.0
// build: -O2 -static -pthread
/*
 * The post benchmark's program (scripts/bench_post.sh, and the driver
 * recording of tests/vm/bench/b20_post_trace.sh): THREADS threads (main
 * and three workers), each calling iteration() ITERS times (or argv[1]
 * times).  An
 * iteration does the same work every time (qsort of a fixed array with a
 * callback, a recursion, string and memory calls in libc, a switch), so
 * its steps are the same each time: the bench cuts a recording at
 * iteration()'s entries and repeats one iteration's steps to any length,
 * with calls of iteration() known by construction.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define THREADS 4
#define ITERS 4
#define N 24

static int __attribute__((noinline)) cmp(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

static int __attribute__((noinline)) fib(int n)
{
	return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

static unsigned __attribute__((noinline)) mix(unsigned v, int k)
{
	switch (k & 3) {
	case 0: return v * 2654435761u;
	case 1: return v ^ (v >> 7);
	case 2: return v + 0x9e3779b9u;
	default: return v << 3 | v >> 29;
	}
}

static unsigned __attribute__((noinline)) iteration(int *a, char *s)
{
	unsigned v = 1;

	for (int i = 0; i < N; i++)
		a[i] = (int)((i * 7919u) % 101);
	qsort(a, N, sizeof(*a), cmp);
	for (int i = 0; i < N; i++)
		v = mix(v + (unsigned)a[i], i);
	memset(s, 'x', 40);
	s[40] = '\0';
	return v + (unsigned)fib(8) + (unsigned)strlen(s);
}

static int iters = ITERS;

static void *worker(void *arg)
{
	int a[N];
	char s[64];
	unsigned v = 0;

	for (int i = 0; i < iters; i++)
		v += iteration(a, s);
	*(unsigned *)arg = v;
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t[THREADS - 1];
	unsigned r[THREADS];

	if (argc > 1 && (iters = atoi(argv[1])) <= 0) {
		fprintf(stderr, "usage: bench_calls [ITERATIONS per thread, default %d]\n", ITERS);
		return 2;
	}
	for (int i = 0; i < THREADS - 1; i++)
		if (pthread_create(&t[i], NULL, worker, &r[i + 1]))
			return 1;
	worker(&r[0]);
	for (int i = 0; i < THREADS - 1; i++)
		pthread_join(t[i], NULL);
	for (int i = 1; i < THREADS; i++)
		if (r[i] != r[0])
			return 1;
	return 0;
}
