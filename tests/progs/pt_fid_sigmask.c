// SPDX-License-Identifier: GPL-2.0
/*
 * Fidelity of the program's own SIGTRAP state, which a tracer's step traps
 * (forced by the kernel) would unblock and reset to SIG_DFL: the program
 * blocks every signal and reads its mask back, sends itself a SIGTRAP while
 * blocked (pending, then delivered on unblocking), sees SIGTRAP blocked in
 * a SIGUSR1 handler's saved mask, ignores SIGTRAP and reads that back,
 * and forks a child that reads what it inherited.
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <ucontext.h>

static volatile int traps, saved_trap = -1, cur_trap = -1;

static void on_trap(int sig)
{
	(void)sig;
	traps++;
}

static void on_usr1(int sig, siginfo_t *si, void *ctx)
{
	ucontext_t *uc = ctx;
	sigset_t cur;

	(void)sig, (void)si;
	saved_trap = sigismember(&uc->uc_sigmask, SIGTRAP);
	sigprocmask(SIG_BLOCK, NULL, &cur);
	cur_trap = sigismember(&cur, SIGTRAP);
}

static int trap_blocked(void)
{
	sigset_t s;

	sigprocmask(SIG_BLOCK, NULL, &s);
	return sigismember(&s, SIGTRAP);
}

int main(void)
{
	struct sigaction sa, old;
	sigset_t all, none, got, pend;
	pid_t child;

	sigfillset(&all);
	sigemptyset(&none);
	sigprocmask(SIG_BLOCK, &all, NULL);
	sigprocmask(SIG_BLOCK, NULL, &got);
	printf("all blocked: trap=%d usr1=%d\n", sigismember(&got, SIGTRAP),
	       sigismember(&got, SIGUSR1));
	/* the same buffer for the new mask and the old one */
	got = none;
	syscall(SYS_rt_sigprocmask, SIG_SETMASK, &got, &got, _NSIG / 8);
	printf("old mask in the new one's buffer: trap=%d, now trap=%d\n",
	       sigismember(&got, SIGTRAP), trap_blocked());

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_trap;
	sigaction(SIGTRAP, &sa, NULL);
	sigprocmask(SIG_BLOCK, &all, NULL);
	raise(SIGTRAP);
	sigpending(&pend);
	printf("blocked SIGTRAP raised: pending=%d handled=%d\n", sigismember(&pend, SIGTRAP),
	       traps);
	sigprocmask(SIG_SETMASK, &none, NULL);
	printf("unblocked: handled=%d blocked=%d\n", traps, trap_blocked());

	/* a handler entered while SIGTRAP is blocked: the frame saves that */
	sa.sa_sigaction = on_usr1;
	sa.sa_flags = SA_SIGINFO;
	sigaction(SIGUSR1, &sa, NULL);
	sigemptyset(&got);
	sigaddset(&got, SIGTRAP);
	sigprocmask(SIG_BLOCK, &got, NULL);
	raise(SIGUSR1);
	printf("SIGUSR1 handler: saved trap=%d in it trap=%d after it trap=%d\n", saved_trap,
	       cur_trap, trap_blocked());
	sigprocmask(SIG_SETMASK, &none, NULL);

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_IGN;
	sigaction(SIGTRAP, &sa, &old);
	printf("old action: handler=%d\n", old.sa_handler == on_trap);
	sigaction(SIGTRAP, NULL, &old);
	printf("SIGTRAP ignored: %d\n", old.sa_handler == SIG_IGN);
	raise(SIGTRAP);
	sigaction(SIGTRAP, NULL, &old);
	printf("raised while ignored: still ignored %d, handled=%d\n", old.sa_handler == SIG_IGN,
	       traps);

	/* a child (not followed: let go at once) gets the state, not the steps' */
	sigprocmask(SIG_BLOCK, &got, NULL);
	fflush(stdout);
	child = fork();
	if (child == 0) {
		sigaction(SIGTRAP, NULL, &old);
		printf("child: ignored=%d blocked=%d\n", old.sa_handler == SIG_IGN, trap_blocked());
		return 0;
	}
	waitpid(child, NULL, 0);
	return 0;
}
