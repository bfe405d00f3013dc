// SPDX-License-Identifier: GPL-2.0
/*
 * Code written at run time, three ways a JIT writes it: in a writable and
 * executable mapping, rewritten between two calls (self-modifying); in a
 * shared memfd mapped twice, written through its writable view and run
 * through its executable one; and written, then made read-only and
 * executable.  Each generated function is
 *	mov $N, %ecx; 1: dec %ecx; jnz 1b; ret
 * so a call runs 2N + 2 instructions: N = 100 and then 37 in the first
 * mapping, 25 in the second, 10 in the third, 352 in all, 172 of them
 * dec.  The recorder must count them as they ran, whatever it writes.
 */
// build: -O2 -static
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

typedef void (*jit_fn)(void);

static void emit(unsigned char *p, unsigned int n)
{
	static const unsigned char code[] = {
		0xb9, 0, 0, 0, 0,	/* mov $n, %ecx */
		0xff, 0xc9,		/* 1: dec %ecx */
		0x75, 0xfc,		/* jnz 1b */
		0xc3,			/* ret */
	};

	memcpy(p, code, sizeof(code));
	memcpy(p + 1, &n, sizeof(n));
	__builtin___clear_cache((char *)p, (char *)p + sizeof(code));
}

static int run_rwx(void)
{
	unsigned char *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return -1;
	emit(p, 100);
	((jit_fn)p)();
	p[1] = 37;	/* the same code, rewritten in place */
	((jit_fn)p)();
	return munmap(p, 4096);
}

static int run_dual(void)
{
	int fd = memfd_create("pt_jit", 0);
	unsigned char *w, *x;

	if (fd < 0 || ftruncate(fd, 4096) < 0)
		return -1;
	w = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	x = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_SHARED, fd, 0);
	if (w == MAP_FAILED || x == MAP_FAILED)
		return -1;
	emit(w, 25);
	((jit_fn)x)();
	close(fd);
	return munmap(w, 4096) | munmap(x, 4096);
}

static int run_sealed(void)
{
	unsigned char *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return -1;
	emit(p, 10);
	if (mprotect(p, 4096, PROT_READ | PROT_EXEC) < 0)
		return -1;
	((jit_fn)p)();
	return munmap(p, 4096);
}

int main(void)
{
	if (run_rwx() < 0 || run_dual() < 0 || run_sealed() < 0) {
		perror("pt_jit");
		return 1;
	}
	puts("jit done");
	return 0;
}
