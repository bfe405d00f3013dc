// SPDX-License-Identifier: GPL-2.0
// build: -O2
/*
 * Call-flow test: a SIGUSR1 handler, on an alternate stack, raises SIGUSR2
 * (a signal delivered at the exit of tgkill, inside the outer handler), and
 * a SIGSEGV probe recovers with siglongjmp.  Built with gcc and clang -O2.
 */
#include <setjmp.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

static volatile sig_atomic_t usr1, usr2, segv;
static sigjmp_buf probe_env;
static volatile char sink;	/* a load whose value is kept: valgrind drops dead loads */

static __attribute__((noinline)) void on_usr2(int sig)
{
	(void)sig;
	usr2++;
}

static __attribute__((noinline)) void on_usr1(int sig)
{
	(void)sig;
	usr1++;
	raise(SIGUSR2);
}

static __attribute__((noinline)) void on_segv(int sig)
{
	(void)sig;
	segv++;
	siglongjmp(probe_env, 1);
}

/* Can addr be read?  A fault is caught and recovered from. */
static __attribute__((noinline)) int probe(volatile const char *addr)
{
	if (sigsetjmp(probe_env, 1))
		return 0;
	sink = *addr;
	return 1;
}

int main(void)
{
	static char altstack[1 << 16];
	stack_t ss = { .ss_sp = altstack, .ss_size = sizeof(altstack) };
	struct sigaction sa;
	/* a page that faults when read, natively and under valgrind */
	const char *guard = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	int readable = 0;

	if (guard == MAP_FAILED)
		return 2;
	sigaltstack(&ss, NULL);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr1;
	sa.sa_flags = SA_ONSTACK;
	sigaction(SIGUSR1, &sa, NULL);
	sa.sa_handler = on_usr2;
	sa.sa_flags = 0;
	sigaction(SIGUSR2, &sa, NULL);
	sa.sa_handler = on_segv;
	sigaction(SIGSEGV, &sa, NULL);
	for (int i = 0; i < 3; i++) {
		raise(SIGUSR1);
		readable += probe(guard);
		readable += probe((const char *)&ss);
	}
	return usr1 == 3 && usr2 == 3 && segv == 3 && readable == 3 ? 0 : 1;
}
