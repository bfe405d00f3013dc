# SPDX-License-Identifier: GPL-2.0
# The driver benchmark's workload: 1 + 3 * 1000000 + 3 = 3000004 user
# instructions, no system calls in between.
	.text
	.globl _start
_start:
	mov	$1000000, %ecx		# 1
1:	add	$1, %rax		# 1000000
	dec	%ecx			# 1000000
	jnz	1b			# 1000000
	mov	$60, %eax		# 1: exit(0)
	xor	%edi, %edi		# 1
	syscall				# 1
