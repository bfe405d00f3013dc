/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Loops with step counts known by construction for the driver session
 * tests: NAME(n) takes 2n+2 steps (mov, n x (dec, jnz), ret), n >= 1.
 */
#ifndef SESS_SPIN_H
#define SESS_SPIN_H

#define SESS_SPIN(name)                                                    \
	void name(long n);                                                 \
	__asm__(".text\n.globl " #name "\n.type " #name ", @function\n"    \
		#name ":\n\tmov %rdi, %rcx\n1:\tdec %rcx\n\tjnz 1b\n\tret\n" \
		".size " #name ", .-" #name "\n")

#endif /* SESS_SPIN_H */
