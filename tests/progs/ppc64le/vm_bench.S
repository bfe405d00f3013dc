# SPDX-License-Identifier: GPL-2.0
# The driver benchmark's workload (ppc64le): 2 + 3 * 1000000 + 2 = 3000004
# user instructions (lis and ori load the count; the loop leaves r3 0, the
# exit status), no system calls in between.
	.abiversion 2			# ELFv2: the entry point is code, not a descriptor
	.text
	.globl _start
_start:
	lis	3, 15			# 1: 15 << 16 = 983040
	ori	3, 3, 16960		# 1: + 16960 = 1000000
1:	addi	4, 4, 1			# 1000000
	addic.	3, 3, -1		# 1000000
	bne	1b			# 1000000
	li	0, 1			# 1: exit(r3 = 0)
	sc				# 1
