# SPDX-License-Identifier: GPL-2.0
# Static, no libc: per-function instruction counts known by construction.
#
#   _start: 1 (mov) + 3 * (call, dec, jnz) + 1 (call g) + 3 (exit) = 14
#   f:      called 3 times; 1 (mov) + 1000 * (add, dec, jnz) + 1 (ret) = 3002 each: 9006
#   g:      called once;    1 (mov) + 500 * (inc, dec, jnz) + 1 (ret)   = 1502
#   total:  14 + 9006 + 1502 = 10522
	.text
	.globl _start
	.type _start, @function
_start:
	mov $3, %r12d
1:	call f
	dec %r12d
	jnz 1b
	call g
	mov $60, %eax
	xor %edi, %edi
	syscall
	.size _start, . - _start

	.type f, @function
f:
	mov $1000, %ecx
2:	add %ecx, %eax
	dec %ecx
	jnz 2b
	ret
	.size f, . - f

	.type g, @function
g:
	mov $500, %ecx
3:	inc %edx
	dec %ecx
	jnz 3b
	ret
	.size g, . - g
