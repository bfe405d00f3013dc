// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel-mode tracing test program: N rounds (argv[1], default 100) of
 * getpid, a write and a read of 8 bytes on a pipe, mmap and munmap of one
 * anonymous page, open and close of /dev/null.  Prints "kern_syscalls N
 * rounds ok" and exits 0 when every call did what it should.
 */
// build: -static -O1
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	long rounds = argc > 1 ? atol(argv[1]) : 100;
	long pid = syscall(SYS_getpid);
	char out[8] = "pitrace", in[8];
	int p[2];

	if (pipe(p))
		return 1;
	for (long i = 0; i < rounds; i++) {
		void *m;
		int fd;

		if (syscall(SYS_getpid) != pid)
			return 2;
		if (write(p[1], out, sizeof(out)) != sizeof(out) ||
		    read(p[0], in, sizeof(in)) != sizeof(in) || in[6] != 'e')
			return 3;
		m = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (m == MAP_FAILED || munmap(m, 4096))
			return 4;
		fd = open("/dev/null", O_RDONLY);
		if (fd < 0 || close(fd))
			return 5;
	}
	printf("kern_syscalls %ld rounds ok\n", rounds);
	return 0;
}
