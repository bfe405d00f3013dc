// SPDX-License-Identifier: GPL-2.0
/*
 * The vDSO under the ptrace backend: clock_gettime calls (200 by default),
 * from two threads at once ("threads"), from a signal handler as well
 * ("signal"), or from a forked child too ("fork").
 */
// build: -O2 -pthread
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t ticks;

/* One call into the vDSO; noinline so that it is a function of its own in reports. */
__attribute__((noinline)) static long read_clock(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_MONOTONIC, &ts))
		return -1;
	return ts.tv_nsec & 1;
}

static void *calls(void *arg)
{
	long n = (long)arg, bad = 0;

	for (long i = 0; i < n; i++)
		bad += read_clock() < 0;
	return (void *)bad;
}

static void on_alarm(int sig)
{
	(void)sig;
	read_clock();
	ticks++;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	void *r1 = NULL, *r2 = NULL;
	pthread_t t1, t2;

	if (!strcmp(mode, "threads")) {
		pthread_create(&t1, NULL, calls, (void *)100);
		pthread_create(&t2, NULL, calls, (void *)100);
		pthread_join(t1, &r1);
		pthread_join(t2, &r2);
		return r1 || r2;
	}
	if (!strcmp(mode, "signal")) {
		struct itimerval it = { { 0, 2000 }, { 0, 2000 } };

		signal(SIGALRM, on_alarm);
		setitimer(ITIMER_REAL, &it, NULL);
		while (ticks < 5)
			calls((void *)20);
		return 0;
	}
	if (!strcmp(mode, "fork")) {
		pid_t pid = fork();
		int status = 1;

		calls((void *)50);
		if (!pid)
			_exit(0);
		waitpid(pid, &status, 0);
		return status != 0;
	}
	return calls((void *)200) != NULL;
}
