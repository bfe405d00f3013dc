// SPDX-License-Identifier: GPL-2.0
// Exclusive sequences of every form the driver emulates (arm64), single
// threaded, each checked by value: 100 ldaxp/stlxp of a doubleword pair,
// 100 ldxp/stxp of a word pair, 50 ldxrb/stxrb, a ldaxrh compare-and-swap
// that finds another value and leaves before its stlxrh (b.ne out), and a
// ldaxr/stlxr with tbnz, orr and movk inside, and a ldaxr whose cbz leaves
// early straight to another sequence's ldaxr.  With nobody else writing
// (the page is written first), every first attempt stores: by construction
// 4 + 700 + 2 + 700 + 2 + 300 + 3 + 3 + 1 + 6 + 7 + 25 = 1753
// instructions, 254 sequences (252 stored, 2 left early), and exit status
// 0 says every value came out right.
	.text
	.globl _start
_start:
	adrp	x0, data		// 1
	add	x0, x0, :lo12:data	// 1
	stp	xzr, xzr, [x0]		// 1: the page is written from here on
	mov	x5, #100		// 1
1:	ldaxp	x1, x2, [x0]		// 100
	add	x1, x1, #1		// 100
	sub	x2, x2, #3		// 100
	stlxp	w3, x1, x2, [x0]	// 100
	cbnz	w3, 1b			// 100: never taken (no other writer)
	subs	x5, x5, #1		// 100
	b.ne	1b			// 100
	add	x4, x0, #16		// 1
	mov	x5, #100		// 1
2:	ldxp	w1, w2, [x4]		// 100
	add	w1, w1, #2		// 100
	eor	w2, w2, #0xff		// 100
	stxp	w3, w1, w2, [x4]	// 100
	cbnz	w3, 2b			// 100
	subs	x5, x5, #1		// 100
	b.ne	2b			// 100
	add	x9, x0, #24		// 1
	mov	x5, #50			// 1
3:	ldxrb	w1, [x9]		// 50
	add	w1, w1, #5		// 50
	stxrb	w3, w1, [x9]		// 50
	cbnz	w3, 3b			// 50
	subs	x5, x5, #1		// 50
	b.ne	3b			// 50
	add	x10, x0, #26		// 1
	mov	w11, #7			// 1: expected 7, the halfword holds 0
	mov	w12, #9			// 1
4:	ldaxrh	w1, [x10]		// 1
	cmp	w1, w11, uxth		// 1
	b.ne	5f			// 1: taken, the sequence left early
	stlxrh	w3, w12, [x10]		// 0
	cbnz	w3, 4b			// 0
5:	add	x13, x0, #32		// 1
6:	ldaxr	x1, [x13]		// 1
	tbnz	x1, #63, 7f		// 1: not taken
	orr	x1, x1, #0x10		// 1
	movk	x1, #0x1234, lsl #32	// 1
	stlxr	w3, x1, [x13]		// 1
	cbnz	w3, 6b			// 1
7:	add	x15, x0, #40		// 1
8:	ldaxr	w1, [x15]		// 1
	cbz	w1, 9f			// 1: taken (0): left early, to a load-exclusive
	stlxr	w3, w1, [x15]		// 0
	b	10f			// 0
9:	ldaxr	w1, [x15]		// 1
	add	w1, w1, #3		// 1
	stlxr	w3, w1, [x15]		// 1
	cbnz	w3, 9b			// 1
10:	ldp	x1, x2, [x0]		// 1: 100, -300
	ldp	w6, w7, [x0, #16]	// 1: 200, 0 (0xff toggled 100 times)
	ldrb	w9, [x0, #24]		// 1: 250
	ldrh	w10, [x0, #26]		// 1: 0, never stored
	ldr	x13, [x0, #32]		// 1: 0x123400000010
	sub	x1, x1, #100		// 1
	add	x2, x2, #300		// 1
	sub	w6, w6, #200		// 1
	sub	w9, w9, #250		// 1
	orr	x1, x1, x2		// 1
	orr	x1, x1, x6		// 1
	orr	x1, x1, x7		// 1
	orr	x1, x1, x9		// 1
	orr	x1, x1, x10		// 1
	mov	x2, #0x10		// 1
	movk	x2, #0x1234, lsl #32	// 1
	eor	x13, x13, x2		// 1
	orr	x1, x1, x13		// 1
	ldr	w15, [x0, #40]		// 1: 3
	sub	w15, w15, #3		// 1
	orr	x1, x1, x15		// 1
	cmp	x1, #0			// 1
	cset	w0, ne			// 1: exit status 0 when every value is right
	mov	x8, #93			// 1
	svc	#0			// 1
	.data
	.balign	16
data:	.skip	48
