# SPDX-License-Identifier: GPL-2.0
# A signal handler run three times (kill to self), ppc64le: the kernel
# enters it through the vDSO's signal trampoline (bctrl to the handler;
# then addi, li, sc for rt_sigreturn).  8 setup + 3 * 7 loop + 5 exit
# + 3 * 5 handler + 3 * 4 trampoline = 61 user instructions.  Exit status 0
# proves every handler ran and returned.
	.abiversion 2			# ELFv2: the entry point is code, not a descriptor
	.text
	.globl _start
_start:
	lis	4, act@ha		# 1: rt_sigaction(SIGUSR1, &act, NULL, 8)
	addi	4, 4, act@l		# 1
	li	3, 10			# 1
	li	5, 0			# 1
	li	6, 8			# 1
	li	0, 173			# 1
	sc				# 1
	li	31, 3			# 1
2:	li	0, 20			# 3: getpid
	sc				# 3
	li	4, 10			# 3
	li	0, 37			# 3: kill(getpid(), SIGUSR1)
	sc				# 3: the handler runs on the way back
	addic.	31, 31, -1		# 3
	bne	2b			# 3
	lis	3, handled@ha		# 1: exit(handled - 3): 0 when 3 handlers ran
	lwz	3, handled@l(3)		# 1 (sigreturn restores registers: count in memory)
	addi	3, 3, -3		# 1
	li	0, 1			# 1
	sc				# 1
handler:
	lis	9, handled@ha		# 3
	lwz	10, handled@l(9)	# 3
	addi	10, 10, 1		# 3
	stw	10, handled@l(9)	# 3
	blr				# 3: to the trampoline

	.data
	.balign	8
act:	.quad	handler			# sa_handler
	.quad	0			# sa_flags
	.quad	0			# sa_restorer (ppc64 uses the vDSO's)
	.quad	0			# sa_mask
handled: .long	0
