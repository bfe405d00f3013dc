# SPDX-License-Identifier: GPL-2.0
# Report formats test: functions whose names JSON and CSV must escape or
# quote: "café" (UTF-8), "a,\"b\"é" (a comma, quotes and UTF-8) and "x<0xff>y"
# (a byte that is not UTF-8).  No libc; steps by construction:
#   _start: call, call, call, mov, xor, syscall      Base 6, Cum 17 = total
#   café: nop, call, ret, 1 call                     Base 3, Cum 5
#   x<0xff>y: nop, ret, 1 call                       Base 2
#   a,"b"é: nop, nop, ret, 2 calls                   Base 6
# The names are called through local labels: gas reads a quote escaped in
# a quoted name where a label is defined, not in an operand.
	.text
	.globl _start
_start:
	call .Lcafe
	call .Lodd
	call .Lodd
	mov $60, %eax
	xor %edi, %edi
	syscall

	.type "café", @function
"café":
.Lcafe:
	nop
	call .Lbad
	ret
	.size "café", . - .Lcafe

	.type "x�y", @function
"x�y":
.Lbad:
	nop
	ret
	.size "x�y", . - .Lbad

	.type "a,\"b\"é", @function
"a,\"b\"é":
.Lodd:
	nop
	nop
	ret
	.size "a,\"b\"é", . - .Lodd
