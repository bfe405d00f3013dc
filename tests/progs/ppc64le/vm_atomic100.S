# SPDX-License-Identifier: GPL-2.0
# A single-threaded lwarx/stwcx. loop (ppc64le) of 100 increments, written as
# __atomic_fetch_add's seq_cst code is, on a word of .data the program only
# read before (its page is not written yet: the first stwcx. takes the
# copy-on-write fault).  The store-conditional is the sequence's last
# instruction and the retry branch its exit.  Nobody else writes the word,
# so every first attempt stores: 6 + 100 * 5 + 5 = 511 user instructions by
# construction, and exit status 0 says all 100 increments stored.
	.abiversion 2			# ELFv2: the entry point is code, not a descriptor
	.text
	.globl _start
_start:
	lis	3, counter@ha		# 1
	addi	3, 3, counter@l		# 1
	li	4, 100			# 1
	mtctr	4			# 1
	lwz	6, 0(3)			# 1: read, not written
	sync				# 1
1:	lwarx	5, 0, 3			# 100
	addi	5, 5, 1			# 100
	stwcx.	5, 0, 3			# 100
	bne-	1b			# 100: never taken (no other writer)
	bdnz	1b			# 100
	lwz	5, 0(3)			# 1: exit(counter - before - 100)
	subf	5, 6, 5			# 1
	subf	3, 4, 5			# 1
	li	0, 1			# 1
	sc				# 1

	.data
	.balign	4
counter: .long	0
