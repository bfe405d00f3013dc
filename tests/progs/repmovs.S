# SPDX-License-Identifier: GPL-2.0
# One rep movsb of 100 bytes: single-stepping traps once per iteration, so
# post counts must show that instruction 100 times (and the 6 others once).
	.text
	.globl _start
	.type _start, @function
_start:
	lea src(%rip), %rsi
	lea dst(%rip), %rdi
	mov $100, %ecx
	rep movsb
	mov $60, %eax
	xor %edi, %edi
	syscall
	.size _start, .-_start

	.bss
src:	.skip 128
dst:	.skip 128
	.section .note.GNU-stack, "", @progbits
