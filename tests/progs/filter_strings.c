// SPDX-License-Identifier: GPL-2.0
/* Calls glibc's ifunc string functions and the vDSO from main and two work_ functions. */
// build: -fno-builtin
#include <string.h>
#include <time.h>

static char buf[64];

/* noinline: --on 'work_*' plants a breakpoint at each */
__attribute__((noinline)) size_t work_len(const char *s)
{
	return strlen(s);
}

__attribute__((noinline)) int work_cmp(const char *a, const char *b)
{
	return strcmp(a, b);
}

int main(int argc, char **argv)
{
	struct timespec ts;
	size_t n = strlen(argv[0]);
	int c = strcmp(argv[0], "x");

	memcpy(buf, argv[0], n < sizeof(buf) - 1 ? n : sizeof(buf) - 1);
	clock_gettime(CLOCK_MONOTONIC, &ts);
	n += work_len(buf) + (size_t)work_cmp(buf, argv[0]);
	return (int)(n + (size_t)c + (size_t)argc) == 12345;
}
