# SPDX-License-Identifier: GPL-2.0
# Call-flow test: rec(5) calls itself down to rec(0): 6 activations.
#   rec(n>0): test, jz (not taken), dec, call, ret = 5 steps; rec(0): test, jz, ret = 3
#   rec: calls 6 (_start 1, rec 5), Base 5 * 5 + 3 = 28, Cum 28 (counted once)
#   _start: mov, call, mov, xor, syscall = 5; total 33; deepest stack 7 frames
	.text
	.globl _start
_start:
	mov $5, %edi
	call rec
	mov $60, %eax
	xor %edi, %edi
	syscall

	.type rec, @function
rec:
	test %edi, %edi
	jz 1f
	dec %edi
	call rec
1:	ret
	.size rec, . - rec
