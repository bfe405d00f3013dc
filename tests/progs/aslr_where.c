// SPDX-License-Identifier: GPL-2.0
// Prints where its stack, heap and a fresh mapping landed, then strlen()s
// its argument: run twice with randomization on, both the addresses and
// (through libc's alignment-dependent string code) the instruction counts
// may differ; with it off they must not.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int local = 0;
	void *m = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	printf("stack %p heap %p mmap %p len %zu\n", (void *)&local, sbrk(0), m,
	       strlen(argc > 1 ? argv[1] : ""));
	return local;
}
