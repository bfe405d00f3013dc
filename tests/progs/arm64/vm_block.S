// SPDX-License-Identifier: GPL-2.0
// Blocks in read(0) until its input gives a byte or ends, then exits 0: a
// task that sleeps within a few instructions of its start (arm64), for
// tests that need one stepped by ptrace while it sleeps.
	.text
	.globl _start
_start:
	mov	x8, #63			// read(0, sp - 16, 1)
	mov	x0, #0
	sub	x1, sp, #16
	mov	x2, #1
	svc	#0
	mov	x8, #93			// exit(0)
	mov	x0, #0
	svc	#0
