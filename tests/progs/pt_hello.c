// SPDX-License-Identifier: GPL-2.0
/* Dynamically linked: ld.so and libc code run before and around main. */
#include <stdio.h>

#include "pt_spin.h"

int main(void)
{
	pt_spin(1000);		/* 2002 instructions */
	puts("hello from pt_hello");
	return 0;
}
