# SPDX-License-Identifier: GPL-2.0
# Static, no libc: exits with status 3 after exactly 3 instructions.
	.text
	.globl _start
	.type _start, @function
_start:
	mov $231, %eax		# exit_group
	mov $3, %edi
	syscall
	.size _start, . - _start
