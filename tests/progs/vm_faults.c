// SPDX-License-Identifier: GPL-2.0
/*
 * Known interrupts and exceptions for the driver tests (tests/vm/cases/
 * kk50_async.sh): touch_pages() writes one byte to each of 64 fresh
 * anonymous pages (64 user-mode page faults, at known addresses, in
 * touch_pages), fill_pages() read()s a pipe into 64 other fresh pages (the
 * kernel's copy to user faults on each), then spin() loops long enough for
 * several timer interrupts.  Prints the ranges: "pages A B", "buffer A B"
 * (fixed addresses).
 * Static and deterministic, so its instruction counts can be compared.
 */
// build: -static
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define NPAGES 64
#define PAGE 4096
#define CHUNK (16 * PAGE)	/* what an empty pipe holds */

/* Fixed addresses: what is printed (and so the instructions printing takes) never varies. */
static char *map_pages(unsigned long at)
{
	char *p = mmap((void *)at, NPAGES * PAGE, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);

	if (p == MAP_FAILED) {
		perror("vm_faults: mmap");
		exit(1);
	}
	return p;
}

void touch_pages(char *p)
{
	for (int i = 0; i < NPAGES; i++)
		p[i * PAGE] = 1;
}

void fill_pages(int rfd, int wfd, const char *src, char *dst)
{
	for (int off = 0; off < NPAGES * PAGE; off += CHUNK) {
		ssize_t n = 0, r;

		if (write(wfd, src, CHUNK) != CHUNK) {
			perror("vm_faults: write");
			exit(1);
		}
		while (n < CHUNK) {
			r = read(rfd, dst + off + n, CHUNK - n);
			if (r <= 0) {
				perror("vm_faults: read");
				exit(1);
			}
			n += r;
		}
	}
}

unsigned long spin(unsigned long n)
{
	volatile unsigned long acc = 0;

	for (unsigned long i = 0; i < n; i++)
		acc += i;
	return acc;
}

int main(int argc, char **argv)
{
	unsigned long rounds = argc > 1 ? strtoul(argv[1], NULL, 10) : 20000;
	char *pages = map_pages(0x10000000), *buffer = map_pages(0x20000000);
	int fds[2];

	printf("pages %p %p\nbuffer %p %p\n", (void *)pages, (void *)(pages + NPAGES * PAGE),
	       (void *)buffer, (void *)(buffer + NPAGES * PAGE));
	fflush(stdout);
	if (pipe(fds)) {
		perror("vm_faults: pipe");
		return 1;
	}
	touch_pages(pages);
	fill_pages(fds[0], fds[1], pages, buffer);
	spin(rounds);
	printf("vm_faults ok\n");
	return 0;
}
