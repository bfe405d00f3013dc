# SPDX-License-Identifier: GPL-2.0
# Blocks in read(0) until its input gives a byte or ends, then exits 0: a
# task that sleeps within a few instructions of its start (ppc64le), for
# tests that need one stepped by ptrace while it sleeps.
	.abiversion 2			# ELFv2: the entry point is code, not a descriptor
	.text
	.globl _start
_start:
	li	0, 3			# read(0, sp - 16, 1)
	li	3, 0
	addi	4, 1, -16
	li	5, 1
	sc
	li	0, 1			# exit(0)
	li	3, 0
	sc
