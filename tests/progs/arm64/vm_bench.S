// SPDX-License-Identifier: GPL-2.0
// The driver benchmark's workload (arm64): 2 + 3 * 1000000 + 2 = 3000004
// user instructions (movz and movk load the count; the loop leaves x0 0,
// the exit status), no system calls in between.
	.text
	.globl _start
_start:
	movz	x0, #0x4240		// 1: 1000000 = 0xf4240
	movk	x0, #0xf, lsl #16	// 1
1:	add	x1, x1, #1		// 1000000
	subs	x0, x0, #1		// 1000000
	b.ne	1b			// 1000000
	mov	x8, #93			// 1: exit(x0 = 0)
	svc	#0			// 1
