// SPDX-License-Identifier: GPL-2.0
/*
 * cpuid under single-stepping: a loop of 1,000 cpuids (5 instructions an
 * iteration, the one after cpuid a dec), then cpuid followed by three nops
 * in main.  Hypervisors that emulate cpuid may deliver its step trap one
 * instruction late; every instruction here must still count as it ran.
 */
// build: -O2 -static
#include <stdio.h>

static __attribute__((noinline)) void cpuid_loop(void)
{
	__asm__ volatile("mov $1000, %%esi\n"
			 "1: xor %%eax, %%eax\n\t"
			 "xor %%ecx, %%ecx\n\t"
			 "cpuid\n\t"
			 "dec %%esi\n\t"
			 "jnz 1b"
			 : : : "eax", "ebx", "ecx", "edx", "esi", "memory");
}

int main(void)
{
	cpuid_loop();
	__asm__ volatile("xor %%eax, %%eax\n\t"
			 "xor %%ecx, %%ecx\n\t"
			 "cpuid\n\t"
			 "nop\n\t"
			 "nop\n\t"
			 "nop"
			 : : : "eax", "ebx", "ecx", "edx", "memory");
	puts("cpuid done");
	return 0;
}
