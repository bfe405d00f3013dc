// SPDX-License-Identifier: GPL-2.0
// A signal handler run three times (kill to self), arm64, returning through
// its own sa_restorer (mov x8, #139; svc: rt_sigreturn).  8 setup + 3 * 7
// loop + 6 exit + 3 * 6 handler + 3 * 2 restorer = 59 user instructions.
// Exit status 0 proves every handler ran and returned.
	.text
	.globl _start
_start:
	adrp	x1, act			// 1: rt_sigaction(SIGUSR1, &act, NULL, 8)
	add	x1, x1, :lo12:act	// 1
	mov	x0, #10			// 1
	mov	x2, #0			// 1
	mov	x3, #8			// 1
	mov	x8, #134		// 1
	svc	#0			// 1
	mov	x19, #3			// 1
2:	mov	x8, #172		// 3: getpid
	svc	#0			// 3
	mov	x1, #10			// 3
	mov	x8, #129		// 3: kill(getpid(), SIGUSR1)
	svc	#0			// 3: the handler runs on the way back
	subs	x19, x19, #1		// 3
	b.ne	2b			// 3
	adrp	x0, handled		// 1: exit(handled - 3): 0 when 3 handlers ran
	add	x0, x0, :lo12:handled	// 1
	ldr	w0, [x0]		// 1
	sub	w0, w0, #3		// 1
	mov	x8, #93			// 1
	svc	#0			// 1
handler:
	adrp	x9, handled		// 3
	add	x9, x9, :lo12:handled	// 3
	ldr	w10, [x9]		// 3
	add	w10, w10, #1		// 3
	str	w10, [x9]		// 3
	ret				// 3: to the restorer
restorer:
	mov	x8, #139		// 3: rt_sigreturn
	svc	#0			// 3

	.data
	.balign	8
act:	.quad	handler			// sa_handler
	.quad	0x04000000		// sa_flags: SA_RESTORER
	.quad	restorer		// sa_restorer
	.quad	0			// sa_mask
handled: .long	0
