// SPDX-License-Identifier: GPL-2.0
// build: -O2
/*
 * Calls into assembly that has no CFI, so that once the program is
 * stripped neither a symbol nor an FDE covers it (tests/e2e/t334_arc_nosym.sh):
 * asm_outer calls asm_inner, which calls back into C; asm_leaf is called
 * directly and through a pointer.  Known counts (recorded --on main):
 * 3 calls of asm_outer, 12 of asm_inner and of c_back, 2 of asm_leaf.
 */

long asm_outer(long n);	/* asm_inner(n) + ... + asm_inner(1) */
long asm_leaf(long n);	/* n + ... + 1 */
long c_back(long x);

long c_back(long x)
{
	return 3 * x + 1;
}

__asm__(".text\n"
	".globl asm_outer\n"
	".type asm_outer, @function\n"
	"asm_outer:\n"
	"	push %rbx\n"
	"	push %r12\n"
	"	sub $8, %rsp\n"
	"	mov %rdi, %rbx\n"
	"	xor %r12d, %r12d\n"
	"1:	mov %rbx, %rdi\n"
	"	call asm_inner\n"
	"	add %rax, %r12\n"
	"	dec %rbx\n"
	"	jnz 1b\n"
	"	mov %r12, %rax\n"
	"	add $8, %rsp\n"
	"	pop %r12\n"
	"	pop %rbx\n"
	"	ret\n"
	".size asm_outer, .-asm_outer\n"
	".type asm_inner, @function\n"
	"asm_inner:\n"
	"	push %rbx\n"
	"	mov %rdi, %rbx\n"
	"	call c_back\n"
	"	add %rbx, %rax\n"
	"	pop %rbx\n"
	"	ret\n"
	".size asm_inner, .-asm_inner\n"
	".globl asm_leaf\n"
	".type asm_leaf, @function\n"
	"asm_leaf:\n"
	"	xor %eax, %eax\n"
	"2:	add %rdi, %rax\n"
	"	dec %rdi\n"
	"	jnz 2b\n"
	"	ret\n"
	".size asm_leaf, .-asm_leaf\n");

volatile long sink;

int main(void)
{
	long (*volatile leaf)(long) = asm_leaf;
	long r = 0;

	for (int i = 0; i < 3; i++)
		r += asm_outer(4);
	r += leaf(10);
	r += asm_leaf(7);
	sink = r;
	return 0;
}
