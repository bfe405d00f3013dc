# SPDX-License-Identifier: GPL-2.0
# Call-flow test: a tail call.  a ends with "jmp b", so b returns straight to
# _start: a's frame is replaced by b's.
#   a: nop, jmp = 2 (1 call)    b: nop, call c, ret = 3 (1 call, by a's jump)
#   c: ret = 1 (1 call)         _start: call, mov, xor, syscall = 4; total 10
	.text
	.globl _start
_start:
	call a
	mov $60, %eax
	xor %edi, %edi
	syscall

	.type a, @function
a:
	nop
	jmp b
	.size a, . - a

	.type c, @function
c:
	ret
	.size c, . - c

	.type b, @function
b:
	nop
	call c
	ret
	.size b, . - b
