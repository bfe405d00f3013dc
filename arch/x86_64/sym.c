// SPDX-License-Identifier: GPL-2.0
/*
 * x86_64 facts for the symbol resolver: PLT entry decoding, a stripped
 * program's main, and the kernel half.
 */
#include <elf.h>
#include <string.h>

#include <capstone/capstone.h>

#include "arch/x86_64/x86_64.h"

/*
 * Every x86_64 PLT flavour (.plt with lazy binding, .plt.sec with IBT,
 * .plt.got, a static executable's .plt) reaches its target through
 * "jmp *disp(%rip)", optionally with a bnd prefix and after an endbr64: the
 * slot is the end of that instruction plus disp.  Decoding with capstone
 * rather than matching byte patterns keeps encodings we have not seen yet
 * working.
 */
static bool got_jump(const cs_insn *insn, uint64_t *slot)
{
	const cs_x86 *x = &insn->detail->x86;

	if (insn->id != X86_INS_JMP || x->op_count != 1 || x->operands[0].type != X86_OP_MEM ||
	    x->operands[0].mem.base != X86_REG_RIP)
		return false;
	*slot = insn->address + insn->size + (int64_t)x->operands[0].mem.disp;
	return true;
}

size_t x86_64_plt_entries(const uint8_t *code, size_t size, uint64_t vaddr, size_t entsize,
			  struct arch_plt_entry *out, size_t max)
{
	size_t n = 0;
	cs_insn *insn;
	csh handle;

	if (cs_open(CS_ARCH_X86, CS_MODE_64, &handle) != CS_ERR_OK)
		return 0;
	cs_option(handle, CS_OPT_DETAIL, CS_OPT_ON);
	insn = cs_malloc(handle);
	if (insn && entsize) {
		/* Entry by entry: padding between them is not decoded as code. */
		for (size_t i = 0; i < size / entsize && n < max; i++) {
			const uint8_t *p = code + i * entsize;
			uint64_t addr = vaddr + i * entsize, slot = 0;
			size_t left = entsize;

			while (!slot && cs_disasm_iter(handle, &p, &left, &addr, insn))
				if (!got_jump(insn, &slot))
					slot = 0;
			out[n++] = (struct arch_plt_entry){ vaddr + i * entsize, entsize, slot };
		}
	} else if (insn) {
		/* Unknown size: an entry starts at each GOT jump (or the endbr64
		 * just before it) and runs to the next one. */
		const uint8_t *p = code;
		uint64_t addr = vaddr, prev_endbr = 0, slot;
		size_t left = size;

		while (n < max && cs_disasm_iter(handle, &p, &left, &addr, insn)) {
			if (insn->id == X86_INS_ENDBR64) {
				prev_endbr = insn->address;
				continue;
			}
			if (got_jump(insn, &slot)) {
				uint64_t start = prev_endbr ? prev_endbr : insn->address;

				if (n)
					out[n - 1].size = start - out[n - 1].addr;
				out[n++] = (struct arch_plt_entry){ start, vaddr + size - start,
								    slot };
			}
			prev_endbr = 0;
		}
	}
	if (insn)
		cs_free(insn, 1);
	cs_close(&handle);
	return n;
}

/* Whether reg is rdi or a part of it: the first argument's register. */
static bool is_rdi(unsigned reg)
{
	return reg == X86_REG_RDI || reg == X86_REG_EDI || reg == X86_REG_DI || reg == X86_REG_DIL;
}

/*
 * The address an instruction writing rdi puts there, when it is one: "lea
 * rdi,[rip+X]" (PIE) or "mov rdi/edi, imm" (at a fixed address); false for
 * any other value.
 */
static bool rdi_address(const cs_insn *insn, uint64_t *addr)
{
	const cs_x86 *x = &insn->detail->x86;
	const cs_x86_op *src = &x->operands[1];
	unsigned dst = x->operands[0].reg;

	if (x->op_count != 2 || (dst != X86_REG_RDI && dst != X86_REG_EDI))
		return false;
	if (insn->id == X86_INS_LEA && src->type == X86_OP_MEM && src->mem.base == X86_REG_RIP &&
	    src->mem.index == X86_REG_INVALID)
		*addr = insn->address + insn->size + (uint64_t)src->mem.disp;
	else if (insn->id == X86_INS_MOV && src->type == X86_OP_IMM)
		*addr = (uint64_t)src->imm;
	else
		return false;
	if (dst == X86_REG_EDI)
		*addr = (uint32_t)*addr;
	return true;
}

/*
 * glibc's _start (sysdeps/x86_64/start.S) sets up the arguments of
 * __libc_start_main and calls it, main being the first (rdi): decode from
 * the entry up to that first call, keeping what was last put in rdi.
 */
bool x86_64_entry_main(const struct arch_elf_image *img, uint64_t *main_addr)
{
	uint8_t code[128];
	size_t left =
		img->machine == EM_X86_64 ? img->read(img->ctx, img->entry, code, sizeof(code)) : 0;
	const uint8_t *p = code;
	uint64_t addr = img->entry, value = 0;
	bool known = false, called = false;
	cs_insn *insn;
	csh handle;

	if (!left || cs_open(CS_ARCH_X86, CS_MODE_64, &handle) != CS_ERR_OK)
		return false;
	cs_option(handle, CS_OPT_DETAIL, CS_OPT_ON);
	insn = cs_malloc(handle);
	while (insn && !called && cs_disasm_iter(handle, &p, &left, &addr, insn)) {
		const cs_x86 *x = &insn->detail->x86;

		if (cs_insn_group(handle, insn, CS_GRP_CALL)) {
			called = true;
		} else if (cs_insn_group(handle, insn, CS_GRP_JUMP) ||
			   cs_insn_group(handle, insn, CS_GRP_RET)) {
			break;
		} else if (x->op_count && x->operands[0].type == X86_OP_REG &&
			   is_rdi(x->operands[0].reg)) {
			known = rdi_address(insn, &value);
		}
	}
	if (insn)
		cs_free(insn, 1);
	cs_close(&handle);
	if (!called || !known)
		return false;
	*main_addr = value;
	return true;
}

int x86_64_kernel_alias_rank(const char *name)
{
	/* SYSCALL_DEFINE0(getpid): __x64_sys_getpid = __ia32_sys_getpid = __do_sys_getpid */
	if (!strncmp(name, "__x64_sys_", 10))
		return 1;
	if (!strncmp(name, "__ia32_", 7) || !strncmp(name, "__x32_", 6))
		return -1;
	return 0;
}

/* Canonical high half: user space never reaches it. */
bool x86_64_is_kernel_addr(uint64_t addr)
{
	return addr >= 0xffff800000000000ull;
}
