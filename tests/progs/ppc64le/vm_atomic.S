# SPDX-License-Identifier: GPL-2.0
# A single-threaded lwarx/stwcx. loop (ppc64le), __atomic_fetch_add's code
# shape: 1000 increments of one word.  Single-stepped, the stwcx. would
# never store (each trap clears the reservation); with nobody else writing
# the word every first attempt stores (the word's page is written once
# before, so the first store-conditional takes no copy-on-write fault, which
# would clear the reservation and make the program retry), so by
# construction 5 + 1000 * 6 + 4 = 6009 user instructions, and exit status 0
# says all 1000 increments stored.
	.abiversion 2			# ELFv2: the entry point is code, not a descriptor
	.text
	.globl _start
_start:
	lis	3, counter@ha		# 1
	addi	3, 3, counter@l		# 1
	li	5, 0			# 1
	stw	5, 0(3)			# 1: the page is written from here on
	li	31, 1000		# 1
1:	lwarx	5, 0, 3			# 1000
	addi	5, 5, 1			# 1000
	stwcx.	5, 0, 3			# 1000
	bne-	1b			# 1000: never taken (no other writer)
	addic.	31, 31, -1		# 1000
	bne	1b			# 1000
	lwz	3, 0(3)			# 1: exit(counter - 1000)
	addi	3, 3, -1000		# 1
	li	0, 1			# 1
	sc				# 1

	.data
	.balign	4
counter: .long	0
