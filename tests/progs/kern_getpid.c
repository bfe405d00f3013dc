// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel-mode benchmark program: argv[1] (default 10000) getpid system
 * calls in a loop, so that a --kernel trace is mostly kernel steps.
 * Prints "kern_getpid N calls ok" and exits 0.
 */
// build: -static -O1
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	long calls = argc > 1 ? atol(argv[1]) : 10000;
	long pid = syscall(SYS_getpid);

	for (long i = 0; i < calls; i++)
		if (syscall(SYS_getpid) != pid)
			return 1;
	printf("kern_getpid %ld calls ok\n", calls);
	return 0;
}
