# SPDX-License-Identifier: GPL-2.0
# A signal handler run three times (kill to self), with its own restorer:
# 7 setup + 3 * 8 loop + 4 exit + 3 * 5 handler and sigreturn = 50 user
# instructions.  Exit status 0 proves every handler ran and returned.
	.text
	.globl _start
_start:
	lea	act(%rip), %rsi		# 1: rt_sigaction(SIGUSR1, &act, NULL, 8)
	mov	$10, %edi		# 1
	xor	%edx, %edx		# 1
	mov	$8, %r10d		# 1
	mov	$13, %eax		# 1
	syscall				# 1
	mov	$3, %ebx		# 1
2:	mov	$39, %eax		# 3: getpid
	syscall				# 3
	mov	%eax, %edi		# 3
	mov	$10, %esi		# 3
	mov	$62, %eax		# 3: kill(getpid(), SIGUSR1)
	syscall				# 3: the handler runs on the way back
	dec	%ebx			# 3
	jnz	2b			# 3
	mov	$60, %eax		# 1: exit(handled - 3): 0 when 3 handlers ran
	mov	handled(%rip), %edi	# 1 (sigreturn restores registers: count in memory)
	sub	$3, %edi		# 1
	syscall				# 1
handler:
	incl	handled(%rip)		# 3
	nop				# 3
	ret				# 3: to the restorer
restorer:
	mov	$15, %eax		# 3: rt_sigreturn
	syscall				# 3

	.data
act:	.quad	handler			# sa_handler
	.quad	0x04000000		# sa_flags: SA_RESTORER
	.quad	restorer		# sa_restorer
	.quad	0			# sa_mask
handled: .long	0
