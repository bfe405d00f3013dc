# SPDX-License-Identifier: GPL-2.0
# A loop of known length for exact step counts (ppc64le): 1 + 3 * 10000 + 3
# = 30004 user instructions from _start to the exit system call (included).
	.abiversion 2			# ELFv2: the entry point is code, not a descriptor
	.text
	.globl _start
_start:
	li	3, 10000		# 1
1:	addi	4, 4, 1			# 10000
	addic.	3, 3, -1		# 10000
	bne	1b			# 10000
	li	0, 1			# 1: exit(0)
	li	3, 0			# 1
	sc				# 1
