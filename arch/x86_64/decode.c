// SPDX-License-Identifier: GPL-2.0
/* x86-64 instruction classification with capstone (arch_decode.h, arch_ops.h). */
#include <capstone/capstone.h>
#include <stdbool.h>

#include "arch/arch_ops.h"
#include "arch/x86_64/x86_64.h"

static bool in_group(const cs_insn *insn, uint8_t group)
{
	for (uint8_t i = 0; i < insn->detail->groups_count; i++)
		if (insn->detail->groups[i] == group)
			return true;
	return false;
}

static unsigned classify(const cs_insn *insn)
{
	switch (insn->id) {
	case X86_INS_SYSCALL:
	case X86_INS_SYSENTER:
		return ARCH_INSN_SYSCALL;
	case X86_INS_SYSRET:
	case X86_INS_SYSEXIT:
	case X86_INS_IRET:
	case X86_INS_IRETD:
	case X86_INS_IRETQ:
		return ARCH_INSN_KRET;
	case X86_INS_UD2:
		return ARCH_INSN_INT;
	case X86_INS_JMP:
	case X86_INS_LJMP:
		return ARCH_INSN_JUMP;
	/* capstone 4 leaves the loop family out of its jump group. */
	case X86_INS_LOOP:
	case X86_INS_LOOPE:
	case X86_INS_LOOPNE:
	case X86_INS_JRCXZ:
	case X86_INS_JECXZ:
		return ARCH_INSN_COND;
	default:
		break;
	}
	if (in_group(insn, CS_GRP_CALL))
		return ARCH_INSN_CALL;
	if (in_group(insn, CS_GRP_RET))
		return ARCH_INSN_RET;
	if (in_group(insn, CS_GRP_IRET))
		return ARCH_INSN_KRET;
	if (in_group(insn, CS_GRP_INT))
		return ARCH_INSN_INT;
	/* Every other jump-group member (jcc, jrcxz, loop*) may fall through. */
	if (in_group(insn, CS_GRP_JUMP))
		return ARCH_INSN_COND;
	return ARCH_INSN_OTHER;
}

int x86_64_decode(struct arch_decoder *d, const uint8_t *code, size_t avail, uint64_t pc,
		  struct arch_insn *out)
{
	const cs_x86 *x86;

	if (!arch_cs_decode_one(d, code, avail, pc))
		return -1;
	out->len = (uint8_t)d->insn->size;
	out->cls = (uint8_t)classify(d->insn);
	x86 = &d->insn->detail->x86;
	if (x86->prefix[0] == X86_PREFIX_REP || x86->prefix[0] == X86_PREFIX_REPNE)
		out->flags |= ARCH_INSN_REP;
	switch (out->cls) {
	case ARCH_INSN_CALL:
	case ARCH_INSN_JUMP:
	case ARCH_INSN_COND:
		if (x86->op_count >= 1 && x86->operands[0].type == X86_OP_IMM) {
			out->flags |= ARCH_INSN_HAS_TARGET;
			out->target = (uint64_t)x86->operands[0].imm;
		} else {
			out->flags |= ARCH_INSN_INDIRECT;
		}
		break;
	case ARCH_INSN_RET:
		out->flags |= ARCH_INSN_INDIRECT;
		break;
	default:
		break;
	}
	return 0;
}
