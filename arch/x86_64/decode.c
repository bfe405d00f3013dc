// SPDX-License-Identifier: GPL-2.0
/* x86-64 instruction classification and disassembly with capstone (arch_decode.h). */
#include <capstone/capstone.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arch_decode.h"
#include "log.h"

struct arch_decoder {
	csh cs;
	cs_insn *insn;		  /* one reusable instruction buffer (cs_disasm_iter) */
};

struct arch_decoder *arch_decoder_new(void)
{
	struct arch_decoder *d = calloc(1, sizeof(*d));

	if (!d) {
		pr_err("out of memory for the instruction decoder");
		return NULL;
	}
	if (cs_open(CS_ARCH_X86, CS_MODE_64, &d->cs) != CS_ERR_OK) {
		pr_err("cannot open the capstone x86-64 disassembler");
		free(d);
		return NULL;
	}
	/* Groups and operands are needed to tell calls, jumps and targets apart. */
	cs_option(d->cs, CS_OPT_DETAIL, CS_OPT_ON);
	d->insn = cs_malloc(d->cs);
	if (!d->insn) {
		pr_err("out of memory for the instruction decoder");
		cs_close(&d->cs);
		free(d);
		return NULL;
	}
	return d;
}

void arch_decoder_free(struct arch_decoder *d)
{
	if (!d)
		return;
	cs_free(d->insn, 1);
	cs_close(&d->cs);
	free(d);
}

/* Decode one instruction into d->insn; false when the bytes are not one. */
static bool decode_one(struct arch_decoder *d, const uint8_t *code, size_t avail, uint64_t pc)
{
	const uint8_t *p = code;
	size_t n = avail;
	uint64_t addr = pc;

	if (n > ARCH_INSN_MAX_LEN)
		n = ARCH_INSN_MAX_LEN;
	return n && cs_disasm_iter(d->cs, &p, &n, &addr, d->insn);
}

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

int arch_decode(struct arch_decoder *d, const uint8_t *code, size_t avail, uint64_t pc,
		struct arch_insn *out)
{
	const cs_x86 *x86;

	memset(out, 0, sizeof(*out));
	if (!decode_one(d, code, avail, pc)) {
		out->cls = ARCH_INSN_INVALID;
		return -1;
	}
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

size_t arch_disasm(struct arch_decoder *d, const uint8_t *code, size_t avail, uint64_t pc,
		   char *buf, size_t size)
{
	if (!size)
		return 0;
	if (!decode_one(d, code, avail, pc)) {
		snprintf(buf, size, "(bad)");
		return 0;
	}
	if (d->insn->op_str[0])
		snprintf(buf, size, "%s %s", d->insn->mnemonic, d->insn->op_str);
	else
		snprintf(buf, size, "%s", d->insn->mnemonic);
	return d->insn->size;
}

const char *arch_insn_class_name(unsigned cls)
{
	static const char *const names[ARCH_INSN_NR_CLASSES] = {
		[ARCH_INSN_INVALID] = "invalid", [ARCH_INSN_OTHER] = "other",
		[ARCH_INSN_CALL] = "call",	 [ARCH_INSN_RET] = "ret",
		[ARCH_INSN_JUMP] = "jump",	 [ARCH_INSN_COND] = "cond",
		[ARCH_INSN_SYSCALL] = "syscall", [ARCH_INSN_INT] = "int",
		[ARCH_INSN_KRET] = "kret",
	};

	return cls < ARCH_INSN_NR_CLASSES ? names[cls] : "?";
}
