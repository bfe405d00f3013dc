// SPDX-License-Identifier: GPL-2.0
// A loop of known length for exact step counts (arm64): 1 + 3 * 10000 + 3
// = 30004 user instructions from _start to the exit system call (included).
	.text
	.globl _start
_start:
	mov	x0, #10000		// 1
1:	add	x1, x1, #1		// 10000
	subs	x0, x0, #1		// 10000
	b.ne	1b			// 10000
	mov	x8, #93			// 1: exit(0)
	mov	x0, #0			// 1
	svc	#0			// 1
