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
bool arch_sym_plt_slot(const uint8_t *code, size_t len, uint64_t vaddr, uint64_t *got_slot)
{
	csh handle;
	cs_insn *insn;
	size_t n;
	bool found = false;

	if (cs_open(CS_ARCH_X86, CS_MODE_64, &handle) != CS_ERR_OK)
		return false;
	cs_option(handle, CS_OPT_DETAIL, CS_OPT_ON);
	n = cs_disasm(handle, code, len, vaddr, 0, &insn);
	for (size_t i = 0; i < n && !found; i++) {
		const cs_x86 *x = &insn[i].detail->x86;

		if (insn[i].id != X86_INS_JMP || x->op_count != 1)
			continue;
		if (x->operands[0].type != X86_OP_MEM || x->operands[0].mem.base != X86_REG_RIP)
			continue;
		*got_slot = insn[i].address + insn[i].size + (int64_t)x->operands[0].mem.disp;
		found = true;
	}
	if (n)
		cs_free(insn, n);
	cs_close(&handle);
	return found;
}

/* Canonical high half: user space never reaches it. */
bool arch_sym_is_kernel_addr(uint64_t addr)
{
	return addr >= 0xffff800000000000ull;
}
