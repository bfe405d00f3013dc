# SPDX-License-Identifier: GPL-2.0
# Static, no libc: kills itself with SIGUSR1 (default action: terminate)
# after exactly 6 instructions (the kill syscall is the last one executed).
	.text
	.globl _start
	.type _start, @function
_start:
	mov $39, %eax		# getpid
	syscall
	mov %eax, %edi
	mov $10, %esi		# SIGUSR1
	mov $62, %eax		# kill
	syscall
	hlt			# never reached: the signal ends the process first
	.size _start, . - _start
