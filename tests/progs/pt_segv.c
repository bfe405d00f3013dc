// SPDX-License-Identifier: GPL-2.0
/*
 * Dies of SIGSEGV in crash() (the line marked FAULT below), or with an
 * argument dies of that signal number sent to itself from main: pitrace
 * record says which signal, where and in which function.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) int crash(volatile int *p)
{
	return *p + 1;	/* FAULT */
}

int main(int argc, char **argv)
{
	puts("about to die");
	fflush(stdout);
	if (argc > 1)
		raise(atoi(argv[1]));
	return crash(NULL);
}
