# SPDX-License-Identifier: GPL-2.0
# System calls in a loop: the instruction after each syscall is reported by
# no trap, so this checks that the driver records it.  1 + 4 * 100 + 3 = 404
# user instructions.  (syscall clobbers rcx and r11: the counter is in ebx.)
	.text
	.globl _start
_start:
	mov	$100, %ebx		# 1
1:	mov	$39, %eax		# 100: getpid
	syscall				# 100
	dec	%ebx			# 100
	jnz	1b			# 100
	mov	$60, %eax		# 1: exit(0)
	xor	%edi, %edi		# 1
	syscall				# 1
