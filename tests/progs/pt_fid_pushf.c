// SPDX-License-Identifier: GPL-2.0
/*
 * Fidelity under tracing: the program reads its own flags with pushf
 * (64-bit and 16-bit forms) and prints the trap flag (0x100), which it
 * never set; prints the direction flag too, set and cleared by it.
 */
#include <stdint.h>
#include <stdio.h>

static uint64_t flags64(void)
{
	uint64_t f;

	__asm__ volatile("pushfq; popq %0" : "=r"(f));
	return f;
}

static uint16_t flags16(void)
{
	uint16_t f;

	__asm__ volatile("pushfw; popw %0" : "=r"(f));
	return f;
}

static uint64_t flags_df(void)
{
	uint64_t f;

	__asm__ volatile("std; pushfq; popq %0; cld" : "=r"(f));
	return f;
}

int main(void)
{
	int tf = 0;

	for (int i = 0; i < 3; i++)
		tf |= (flags64() & 0x100) || (flags16() & 0x100);
	printf("trap flag seen: %s\n", tf ? "yes" : "no");
	printf("direction flag when set: %s\n", flags_df() & 0x400 ? "yes" : "no");
	printf("direction flag now: %s\n", flags64() & 0x400 ? "yes" : "no");
	return tf;
}
