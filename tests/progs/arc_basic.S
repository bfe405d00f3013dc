# SPDX-License-Identifier: GPL-2.0
# Call-flow test: _start -> main -> f, g, f; f -> g.  No libc, so every step
# is one of these instructions and the counts follow by construction:
#   g: 3 steps a call, 3 calls (main 1, f 2)      Base 9,  Cum 9
#   f: 3 steps a call + g,  2 calls               Base 6,  Cum 12
#   main: 4 steps + f, g, f, 1 call               Base 4,  Cum 19
#   _start: call, mov, xor, syscall (exit)        Base 4,  Cum 23 = total
	.text
	.globl _start
_start:
	call main
	mov $60, %eax
	xor %edi, %edi
	syscall

	.type main, @function
main:
	call f
	call g
	call f
	ret
	.size main, . - main

	.type f, @function
f:
	nop
	call g
	ret
	.size f, . - f

	.type g, @function
g:
	nop
	nop
	ret
	.size g, . - g
