// SPDX-License-Identifier: GPL-2.0
/*
 * ppc64le larx/stcx. sequences for the ptrace backend (arch_ptrace.h,
 * arch_atomic_sequence()): where the sequence at a load-reserve ends and
 * every exit a native run of it can stop at.  In every build (not only
 * POWER's), so that its unit tests run on any host.
 */
#include <string.h>

#include "arch/arch_decode.h"
#include "arch/arch_ptrace.h"
#include "arch/ppc64le/ppc64le.h"

static uint32_t word_at(const uint8_t *code, size_t i)
{
	const uint8_t *b = code + 4 * i;

	return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}

/* Instructions a sequence may have after its load-reserve (GDB's limit). */
#define ATOMIC_SEQ_MAX 16

bool ppc64le_may_start_atomic(const uint8_t *code, size_t len)
{
	return len >= 4 && ppc_is_larx(word_at(code, 0));
}

/* Add an exit, or merge it with one at the same address (two paths reach it). */
static int add_exit(struct arch_atomic_seq *seq, uint64_t addr, unsigned path, bool store)
{
	for (unsigned i = 0; i < seq->nr_exits; i++) {
		if (seq->exits[i].addr != addr)
			continue;
		seq->exits[i].ambiguous = true;
		seq->exits[i].store |= store;
		if (path > seq->exits[i].path)
			seq->exits[i].path = path;
		return 0;
	}
	if (seq->nr_exits == ARCH_ATOMIC_MAX_EXITS)
		return -1;
	seq->exits[seq->nr_exits++] = (typeof(seq->exits[0])){ addr, path, store, false };
	return 0;
}

int ppc64le_atomic_sequence(const uint8_t *code, size_t avail, uint64_t pc,
			    struct arch_atomic_seq *seq)
{
	struct {
		unsigned index;
		uint64_t target;
	} branches[ATOMIC_SEQ_MAX];
	unsigned nr_branches = 0, end = 0;
	uint64_t stcx;

	if (avail < 4 || !ppc_is_larx(word_at(code, 0)))
		return 0;
	memset(seq, 0, sizeof(*seq));
	seq->start = pc;
	seq->insn_len = 4;
	/* X-form, EA = (RA|0) + RB: RA 0 reads as zero, not r0. */
	seq->addr_regs[0] = (int)(word_at(code, 0) >> 16 & 31) ?: -1;
	seq->addr_regs[1] = (int)(word_at(code, 0) >> 11 & 31);
	for (unsigned i = 1; i <= ATOMIC_SEQ_MAX && !end; i++) {
		uint32_t w;
		struct arch_insn in;

		if (4 * (i + 1) > avail)
			return -1;
		w = word_at(code, i);
		if (ppc_is_stcx(w)) {
			end = i;
			break;
		}
		if (ppc_is_larx(w))
			return -1;
		memset(&in, 0, sizeof(in));
		ppc64le_classify_word(w, pc + 4 * i, &in);
		if (in.cls == ARCH_INSN_OTHER)
			continue;
		if ((in.cls != ARCH_INSN_COND && in.cls != ARCH_INSN_JUMP) ||
		    !(in.flags & ARCH_INSN_HAS_TARGET))
			return -1;	/* an indirect branch, a call, sc, a trap */
		branches[nr_branches].index = i;
		branches[nr_branches++].target = in.target;
	}
	if (!end)
		return -1;
	stcx = pc + 4 * end;
	if (add_exit(seq, stcx + 4, end + 1, true) < 0)
		return -1;
	for (unsigned b = 0; b < nr_branches; b++) {
		/* A branch back into the sequence would run a part of it twice. */
		if (branches[b].target >= pc && branches[b].target <= stcx)
			return -1;
		if (add_exit(seq, branches[b].target, branches[b].index + 1, false) < 0)
			return -1;
	}
	return 1;
}
