// SPDX-License-Identifier: GPL-2.0
// A function for uprobes to probe twice: at its first instruction, which
// uprobes emulates (x86's push) or simulates (arm64's adrp), and at an
// instruction it single-steps out of line (x86's RIP-relative add to
// memory, arm64's load).  "uprobe_target offsets" prints both file offsets
// for tracefs uprobe_events; "uprobe_target N" calls it N times and prints
// how many times it ran.  Static: the counts don't depend on the dynamic
// loader's work, which varies between runs on some kernels.  One source
// for every architecture: tests/progs/arm64/uprobe_target.c is a link to it.
// build: -static
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

unsigned long probe_hits;
void probed(void);
extern char probed_xol[];

#if defined(__x86_64__)
asm(".text\n"
    ".globl probed\n"
    ".type probed, @function\n"
    "probed:\n"
    "	push %rbp\n"
    "	mov %rsp, %rbp\n"
    ".globl probed_xol\n"
    "probed_xol:\n"
    "	addq $1, probe_hits(%rip)\n"
    "	pop %rbp\n"
    "	ret\n"
    ".size probed, . - probed\n");
#elif defined(__aarch64__)
asm(".text\n"
    ".globl probed\n"
    ".type probed, @function\n"
    "probed:\n"
    "	adrp x0, probe_hits\n"
    "	add x0, x0, :lo12:probe_hits\n"
    ".globl probed_xol\n"
    "probed_xol:\n"
    "	ldr x1, [x0]\n"
    "	add x1, x1, #1\n"
    "	str x1, [x0]\n"
    "	ret\n"
    ".size probed, . - probed\n");
#else
#error "uprobe_target: no probed function for this architecture"
#endif

/* The file offset of code address addr, from the mapping that holds it. */
static unsigned long file_offset(const void *addr)
{
	unsigned long lo, hi, off, a = (unsigned long)addr;
	char line[512], perm[8];
	FILE *f = fopen("/proc/self/maps", "r");

	while (f && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx-%lx %7s %lx", &lo, &hi, perm, &off) == 4 && a >= lo &&
		    a < hi) {
			fclose(f);
			return a - lo + off;
		}
	}
	fprintf(stderr, "uprobe_target: %p is in no mapping\n", addr);
	exit(1);
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? strtol(argv[1], NULL, 10) : 10;

	if (argc > 1 && !strcmp(argv[1], "offsets")) {
		printf("%#lx %#lx\n", file_offset((void *)probed), file_offset(probed_xol));
		return 0;
	}
	for (long i = 0; i < n; i++)
		probed();
	printf("uprobe_target: %lu calls\n", probe_hits);
	return probe_hits == (unsigned long)n ? 0 : 1;
}
