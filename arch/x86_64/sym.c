// SPDX-License-Identifier: GPL-2.0
/* x86_64 facts for the symbol resolver: PLT entry decoding and the kernel half. */
#include <capstone/capstone.h>

#include "arch_sym.h"

/*
 * Every x86_64 PLT flavour (.plt with lazy binding, .plt.sec with IBT,
 * .plt.got) reaches its target through "jmp *disp(%rip)", optionally with a
 * bnd prefix and after an endbr64: the slot is the end of that instruction
 * plus disp.  Decoding with capstone rather than matching byte patterns keeps
 * prefixes and encodings we have not seen yet working.
 */
void arch_sym_plt_slots(const uint8_t *code, size_t size, uint64_t vaddr, size_t entsize,
			uint64_t *slots)
{
	size_t nr = entsize ? size / entsize : 0;
	cs_insn *insn;
	csh handle;

	for (size_t i = 0; i < nr; i++)
		slots[i] = 0;
	if (!nr || cs_open(CS_ARCH_X86, CS_MODE_64, &handle) != CS_ERR_OK)
		return;
	cs_option(handle, CS_OPT_DETAIL, CS_OPT_ON);
	insn = cs_malloc(handle);
	for (size_t i = 0; insn && i < nr; i++) {
		const uint8_t *p = code + i * entsize;
		uint64_t addr = vaddr + i * entsize;
		size_t left = entsize;

		/* Entries are decoded one by one: padding between them is not code. */
		while (!slots[i] && cs_disasm_iter(handle, &p, &left, &addr, insn)) {
			const cs_x86 *x = &insn->detail->x86;

			if (insn->id != X86_INS_JMP || x->op_count != 1 ||
			    x->operands[0].type != X86_OP_MEM || x->operands[0].mem.base != X86_REG_RIP)
				continue;
			slots[i] = insn->address + insn->size + (int64_t)x->operands[0].mem.disp;
		}
	}
	if (insn)
		cs_free(insn, 1);
	cs_close(&handle);
}

/* Canonical high half: user space never reaches it. */
bool arch_sym_is_kernel_addr(uint64_t addr)
{
	return addr >= 0xffff800000000000ull;
}
