// SPDX-License-Identifier: GPL-2.0
// A single-threaded ldaxr/stlxr loop (arm64), the shape gcc gives
// __atomic_fetch_add with -mno-outline-atomics -march=armv8-a: 1000
// increments of one word.  Single-stepped, the stlxr would never store
// (each step trap clears the exclusive monitor); with nobody else writing
// the word every first attempt stores (its page is written once before,
// so the first store-exclusive takes no copy-on-write fault), so by
// construction 4 + 1000 * 6 + 4 = 6008 user instructions, and exit status
// 0 says all 1000 increments stored.
	.text
	.globl _start
_start:
	adrp	x0, counter		// 1
	add	x0, x0, :lo12:counter	// 1
	str	wzr, [x0]		// 1: the page is written from here on
	mov	x3, #1000		// 1
1:	ldaxr	w1, [x0]		// 1000
	add	w1, w1, #1		// 1000
	stlxr	w2, w1, [x0]		// 1000
	cbnz	w2, 1b			// 1000: never taken (no other writer)
	subs	x3, x3, #1		// 1000
	b.ne	1b			// 1000
	ldr	w0, [x0]		// 1: exit(counter - 1000)
	sub	w0, w0, #1000		// 1
	mov	x8, #93			// 1
	svc	#0			// 1
	.data
	.balign	4
counter: .word	0
