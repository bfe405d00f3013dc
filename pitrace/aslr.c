// SPDX-License-Identifier: GPL-2.0
/*
 * Address-space randomization for a command pitrace starts.  Where the
 * stack, heap and mappings land changes how many instructions libc's
 * alignment-dependent code (string functions, malloc's first sbrk) runs,
 * so two recordings of one command differ by a few dozen instructions.
 * Like a debugger, record turns randomization off for its command unless
 * asked (--aslr); the kernel's own randomization is untouched.
 */
#include <sys/personality.h>

#include "pitrace/commands.h"

void aslr_child_setup(bool keep)
{
	int cur;

	if (keep)
		return;
	cur = personality(0xffffffff);
	/* Failure leaves the command randomized: counts may vary, nothing else breaks. */
	if (cur != -1)
		personality((unsigned long)cur | ADDR_NO_RANDOMIZE);
}
