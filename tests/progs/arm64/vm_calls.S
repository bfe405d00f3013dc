// SPDX-License-Identifier: GPL-2.0
// arm64's call rules in a static program, counts known by construction:
// _start calls f with bl and g with blr, 100 times; f, built as
// -mbranch-protection=standard builds a function (paciasp ... retaa),
// calls h with bl; g tail-calls h with br.  Steps: _start 1 + 100 * 5 +
// 3 = 504, f 500, g 200, h 400: 1604.  Calls: f 100, g 100, h 200 (100
// from f, 100 tail calls from g).  retaa needs pointer authentication
// (QEMU's -cpu max has it).
// build: -march=armv8.3-a
	.text
	.globl _start
_start:
	mov	x20, #100		// 1
1:	bl	f			// 100
	adr	x1, g			// 100
	blr	x1			// 100
	subs	x20, x20, #1		// 100
	b.ne	1b			// 100
	mov	x8, #93			// 1: exit(0)
	mov	x0, #0			// 1
	svc	#0			// 1

	.type	f, %function
f:	paciasp				// 100
	stp	x29, x30, [sp, #-16]!	// 100
	bl	h			// 100
	ldp	x29, x30, [sp], #16	// 100
	retaa				// 100
	.size	f, . - f

	.type	g, %function
g:	adr	x16, h			// 100
	br	x16			// 100: a tail call
	.size	g, . - g

	.type	h, %function
h:	add	x0, x0, #1		// 200
	ret				// 200
	.size	h, . - h
