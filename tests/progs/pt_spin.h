/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Functions with instruction counts known by construction, for test
 * programs in C: pt_spin(n) executes 2n + 2 instructions
 * (mov, n * (dec, jnz), ret) for n >= 1.
 */
#ifndef PT_SPIN_H
#define PT_SPIN_H

void pt_spin(unsigned n);
void pt_spin2(unsigned n);	/* same body, another name */

#define PT_SPIN_COUNT(n) (2 * (unsigned long)(n) + 2)

__asm__(".text\n"
	".globl pt_spin\n.type pt_spin, @function\n"
	"pt_spin:\n\tmov %edi, %ecx\n1:\tdec %ecx\n\tjnz 1b\n\tret\n"
	".size pt_spin, . - pt_spin\n"
	".globl pt_spin2\n.type pt_spin2, @function\n"
	"pt_spin2:\n\tmov %edi, %ecx\n1:\tdec %ecx\n\tjnz 1b\n\tret\n"
	".size pt_spin2, . - pt_spin2\n");

#endif /* PT_SPIN_H */
