# SPDX-License-Identifier: GPL-2.0
# System calls in a loop (ppc64le): the instruction after each sc is
# reported by no trap, so this checks that the driver records it.
# 1 + 4 * 100 + 3 = 404 user instructions (r31 survives sc).
	.abiversion 2			# ELFv2: the entry point is code, not a descriptor
	.text
	.globl _start
_start:
	li	31, 100			# 1
1:	li	0, 20			# 100: getpid
	sc				# 100
	addic.	31, 31, -1		# 100
	bne	1b			# 100
	li	0, 1			# 1: exit(0)
	li	3, 0			# 1
	sc				# 1
