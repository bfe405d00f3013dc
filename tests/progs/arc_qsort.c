// SPDX-License-Identifier: GPL-2.0
/* Call-flow test: libc's qsort calling back into the program's comparator. */
#include <stdlib.h>

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

int main(void)
{
	int v[64];

	for (int i = 0; i < 64; i++)
		v[i] = (i * 37) % 64;
	qsort(v, 64, sizeof(v[0]), cmp_int);
	for (int i = 1; i < 64; i++)
		if (v[i - 1] > v[i])
			return 1;
	return 0;
}
