// SPDX-License-Identifier: GPL-2.0
/*
 * A fault in the middle of straight-line code, handled: touch() runs 4
 * adds, a load from a page that is PROT_NONE, 4 adds; the SIGSEGV handler
 * makes the page readable again (pt_spin2(100) first), so the load runs
 * again and completes.  Three rounds, the page taken away before each.
 */
#include <signal.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

#include "pt_spin.h"

static char *page;
static long page_size;

static void on_segv(int sig)
{
	(void)sig;
	pt_spin2(100);
	mprotect(page, (size_t)page_size, PROT_READ | PROT_WRITE);
}

/* touch(p): eax = 20 + *(int *)p */
__asm__(".text\n.globl touch\n.type touch, @function\ntouch:\n"
	"\txor %eax, %eax\n\tadd $1, %eax\n\tadd $2, %eax\n\tadd $3, %eax\n"
	"\tadd (%rdi), %eax\n"
	"\tadd $4, %eax\n\tadd $5, %eax\n\tadd $5, %eax\n\tret\n"
	".size touch, . - touch\n");
int touch(const char *p);

int main(void)
{
	struct sigaction sa = { .sa_handler = on_segv };
	int sum = 0;

	page_size = sysconf(_SC_PAGESIZE);
	page = mmap(NULL, (size_t)page_size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		    -1, 0);
	if (page == MAP_FAILED)
		return 2;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGSEGV, &sa, NULL);
	for (int i = 0; i < 3; i++) {
		page[0] = (char)i;
		mprotect(page, (size_t)page_size, PROT_NONE);
		sum += touch(page);
	}
	printf("sum %d\n", sum);
	return 0;
}
