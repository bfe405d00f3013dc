# SPDX-License-Identifier: GPL-2.0
# Runs until killed: a counting loop with a getpid system call every 1000
# iterations, for tests that trace a running process and tear down.
	.text
	.globl _start
_start:
1:	mov	$1000, %ecx
2:	dec	%ecx
	jnz	2b
	mov	$39, %eax		# getpid
	syscall
	jmp	1b
