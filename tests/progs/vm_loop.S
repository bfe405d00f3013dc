# SPDX-License-Identifier: GPL-2.0
# A loop of known length for exact step counts: 1 + 3 * 10000 + 3 = 30004
# user instructions from _start to the exit system call (included).
	.text
	.globl _start
_start:
	mov	$10000, %ecx		# 1
1:	add	$1, %rax		# 10000
	dec	%ecx			# 10000
	jnz	1b			# 10000
	mov	$60, %eax		# 1: exit(0)
	xor	%edi, %edi		# 1
	syscall				# 1
