# SPDX-License-Identifier: GPL-2.0
# Known instruction counts per function, for post counts tests: _start calls
# alpha (3 instructions) once and beta (2 + 3 a loop iteration, 4 iterations
# = 14) once, then exits: _start executes 6 instructions (2 calls, mov, xor,
# syscall, and the mov of the loop count), 23 in all.
	.text
	.globl _start
	.type _start, @function
_start:
	call alpha
	mov $4, %ecx
	call beta
	mov $60, %eax
	xor %edi, %edi
	syscall
	.size _start, .-_start

	.type alpha, @function
alpha:
	nop
	nop
	ret
	.size alpha, .-alpha

	.type beta, @function
beta:
	xor %eax, %eax
1:	add %ecx, %eax
	dec %ecx
	jnz 1b
	ret
	.size beta, .-beta
	.section .note.GNU-stack, "", @progbits
