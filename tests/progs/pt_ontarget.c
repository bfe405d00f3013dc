// SPDX-License-Identifier: GPL-2.0
/*
 * For --on: target() (recursive, calling helper(), which calls pt_spin)
 * runs among other work that must not be recorded with --on target.
 */
#include <stdio.h>
#include <string.h>

#include "pt_spin.h"

__attribute__((noinline)) static unsigned helper(unsigned x)
{
	pt_spin(100 + x);
	return x * 3;
}

__attribute__((noinline)) unsigned target(unsigned depth)
{
	unsigned r = helper(depth);

	if (depth > 0)
		r += target(depth - 1);
	return r;
}

int main(void)
{
	char buf[64];
	unsigned r = 0;

	pt_spin2(20000);	/* outside: not recorded with --on target */
	r += target(4);
	snprintf(buf, sizeof(buf), "%u", r);
	pt_spin2(1000);
	r += target(2);
	printf("result %u %zu\n", r, strlen(buf));
	return 0;
}
