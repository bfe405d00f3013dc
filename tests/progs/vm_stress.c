// SPDX-License-Identifier: GPL-2.0
// build: -pthread
/*
 * Stress loads for the driver (tests/vm/cases/k98_stress.sh); each prints
 * one result line and exits 0 when it came out as it must:
 *
 *   vm_stress threads N     N threads, each a loop of known length: "threads N sum S"
 *   vm_stress maps N        maps, touches and unmaps N regions: "maps N"
 *   vm_stress popf N        N times clears the trap flag with popf (a traced
 *                           program may): "popf N tf T" (T: times it read TF set)
 *   vm_stress signals SECS  counts signals (SIGUSR1) sent at it for SECS
 *                           seconds of its own work: "signals N"
 *   vm_stress forks N       N children, each exec'ing "vm_stress noop": "forks N"
 *   vm_stress noop          exits 0
 */
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define LOOP 2000

static void *worker(void *arg)
{
	volatile unsigned long acc = 0;

	for (unsigned long i = 0; i < LOOP; i++)
		acc += i;
	*(unsigned long *)arg = acc;
	return NULL;
}

static int threads(int n)
{
	pthread_t *t = calloc((size_t)n, sizeof(*t));
	unsigned long *r = calloc((size_t)n, sizeof(*r)), sum = 0;
	int made = 0;

	if (!t || !r)
		return 1;
	for (; made < n; made++)
		if (pthread_create(&t[made], NULL, worker, &r[made]))
			break;
	for (int i = 0; i < made; i++) {
		pthread_join(t[i], NULL);
		sum += r[i];
	}
	printf("threads %d sum %lu\n", made, sum);
	return made == n && sum == (unsigned long)n * (LOOP * (LOOP - 1) / 2) ? 0 : 1;
}

static int maps(int n)
{
	long page = sysconf(_SC_PAGESIZE);

	for (int i = 0; i < n; i++) {
		char *p = mmap(NULL, (size_t)(1 + i % 4) * (size_t)page, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED)
			return 1;
		p[0] = (char)i;
		if (munmap(p, (size_t)(1 + i % 4) * (size_t)page))
			return 1;
	}
	printf("maps %d\n", n);
	return 0;
}

static int popf(int n)
{
	int tf = 0;

	for (int i = 0; i < n; i++) {
#if defined(__x86_64__)
		uint64_t f;

		/* clear TF in the flags image and load it: a program may */
		__asm__ volatile("pushfq; andq $~0x100, (%%rsp); popfq; pushfq; popq %0" : "=r"(f));
		tf += !!(f & 0x100);
#endif
	}
	printf("popf %d tf %d\n", n, tf);
	return 0;
}

static volatile sig_atomic_t got;

static void on_usr1(int sig)
{
	(void)sig;
	got++;
}

static int signals(int secs)
{
	struct sigaction sa = { .sa_handler = on_usr1 };
	time_t end = time(NULL) + secs;
	volatile unsigned long spin = 0;

	sigaction(SIGUSR1, &sa, NULL);
	printf("ready %d\n", getpid());
	fflush(stdout);
	while (time(NULL) < end)
		for (int i = 0; i < 1000; i++)
			spin++;
	printf("signals %d\n", (int)got);
	return got > 0 ? 0 : 1;
}

static int forks(int n, const char *self)
{
	for (int i = 0; i < n; i++) {
		int status;
		pid_t pid = fork();

		if (pid < 0)
			return 1;
		if (pid == 0) {
			execl(self, self, "noop", (char *)NULL);
			_exit(127);
		}
		if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status))
			return 1;
	}
	printf("forks %d\n", n);
	return 0;
}

int main(int argc, char **argv)
{
	int n = argc > 2 ? atoi(argv[2]) : 0;

	if (argc < 2)
		return 2;
	if (!strcmp(argv[1], "noop"))
		return 0;
	if (!strcmp(argv[1], "threads"))
		return threads(n);
	if (!strcmp(argv[1], "maps"))
		return maps(n);
	if (!strcmp(argv[1], "popf"))
		return popf(n);
	if (!strcmp(argv[1], "signals"))
		return signals(n);
	if (!strcmp(argv[1], "forks"))
		return forks(n, argv[0]);
	return 2;
}
