# SPDX-License-Identifier: GPL-2.0
# Driver session tests: waits for a byte (or EOF) on stdin, then runs work(N)
# once and exits.  N is argv[1] (default 100000); work takes 2N+2 steps:
# mov, N x (dec, jnz), ret.  Waiting first lets a test select the process by
# pid before the counted part runs.
	.globl	_start
	.text
_start:
	mov	$100000, %r12d
	cmpq	$2, (%rsp)		# argc
	jb	.Lwait
	mov	16(%rsp), %rsi		# argv[1]: decimal iteration count
	xor	%r12d, %r12d
.Lparse:
	movzbl	(%rsi), %eax
	sub	$'0', %eax
	cmp	$9, %eax
	ja	.Lwait
	imul	$10, %r12d, %r12d
	add	%eax, %r12d
	inc	%rsi
	jmp	.Lparse
.Lwait:
	xor	%eax, %eax		# read(0, buf, 1)
	xor	%edi, %edi
	lea	buf(%rip), %rsi
	mov	$1, %edx
	syscall
	mov	%r12d, %edi
	call	work
	mov	$60, %eax		# exit(0)
	xor	%edi, %edi
	syscall

	.globl	work
	.type	work, @function
work:
	mov	%edi, %ecx
1:	dec	%ecx
	jnz	1b
	ret
	.size	work, .-work

	.bss
buf:	.skip	8
