# SPDX-License-Identifier: GPL-2.0
# A loop, a read of one byte from standard input (the test decides when the
# program goes on: meanwhile it can change what the machine looks like),
# the loop again: 1 + 3 * 10000 + 5 + 1 + 3 * 10000 + 3 = 60010 user
# instructions from _start to the exit system call (included).
	.text
	.globl _start
_start:
	mov	$10000, %ecx		# 1
1:	add	$1, %rax		# 10000
	dec	%ecx			# 10000
	jnz	1b			# 10000
	xor	%eax, %eax		# 1: read(0, byte, 1)
	xor	%edi, %edi		# 1
	lea	byte(%rip), %rsi	# 1
	mov	$1, %edx		# 1
	syscall				# 1
	mov	$10000, %ecx		# 1
2:	add	$1, %rax		# 10000
	dec	%ecx			# 10000
	jnz	2b			# 10000
	mov	$60, %eax		# 1: exit(0)
	xor	%edi, %edi		# 1
	syscall				# 1

	.bss
byte:	.skip	1
