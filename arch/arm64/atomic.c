// SPDX-License-Identifier: GPL-2.0
/*
 * arm64 exclusive sequences (ldxr ... stxr) for the ptrace backend
 * (arch_ptrace.h, arch_atomic_sequence()): where the sequence at a
 * load-exclusive ends and every exit a native run of it can stop at.  A
 * step trap between the two clears the exclusive monitor, so a stepped
 * store-exclusive always fails: the same problem, and the same answer, as
 * POWER's larx/stcx. (arch/ppc64le/atomic.c).  In every build, so that its
 * unit tests run on any host.
 */
#include <string.h>

#include "arch/arch_decode.h"
#include "arch/arch_ptrace.h"
#include "arch/arm64/arm64.h"
#include "arch/arm64/driver/arm64_excl.h"

/* The exclusive family's encoding is shared with the driver's trap. */
static bool is_exclusive(uint32_t w, bool load)
{
	return arm64_excl_is(w, load);
}

bool arm64_is_load_exclusive(uint32_t w)
{
	return is_exclusive(w, true);
}

bool arm64_is_store_exclusive(uint32_t w)
{
	return is_exclusive(w, false);
}

/* Instructions a sequence may have after its load-exclusive (GDB's limit). */
#define ATOMIC_SEQ_MAX 16

bool arm64_may_start_atomic(const uint8_t *code, size_t len)
{
	return len >= 4 && arm64_is_load_exclusive(arm64_word(code));
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

int arm64_atomic_sequence(const uint8_t *code, size_t avail, uint64_t pc,
			  struct arch_atomic_seq *seq)
{
	struct {
		unsigned index;
		uint64_t target;
	} branches[ATOMIC_SEQ_MAX];
	unsigned nr_branches = 0, end = 0;
	uint64_t stxr;

	if (!arm64_may_start_atomic(code, avail))
		return 0;
	memset(seq, 0, sizeof(*seq));
	seq->start = pc;
	seq->insn_len = 4;
	/* [Xn|SP], no offset: register 31 is sp, which arch_atomic_reserved() reads as such. */
	seq->addr_regs[0] = (int)(arm64_word(code) >> 5 & 31);
	seq->addr_regs[1] = -1;
	for (unsigned i = 1; i <= ATOMIC_SEQ_MAX; i++) {
		uint32_t w;
		struct arch_insn in;

		if (4 * (i + 1) > avail)
			return -1;
		w = arm64_word(code + 4 * i);
		if (arm64_is_store_exclusive(w)) {
			end = i;
			seq->status_reg = (int)(w >> 16 & 31);
			break;
		}
		if (arm64_is_load_exclusive(w))
			return -1;
		memset(&in, 0, sizeof(in));
		arm64_classify_word(w, pc + 4 * i, &in);
		if (in.cls == ARCH_INSN_OTHER)
			continue;
		if ((in.cls != ARCH_INSN_COND && in.cls != ARCH_INSN_JUMP) ||
		    !(in.flags & ARCH_INSN_HAS_TARGET))
			return -1;	/* an indirect branch, a call, svc, a trap */
		branches[nr_branches].index = i;
		branches[nr_branches++].target = in.target;
	}
	if (!end)
		return -1;
	stxr = pc + 4 * end;
	if (add_exit(seq, stxr + 4, end + 1, true) < 0)
		return -1;
	for (unsigned b = 0; b < nr_branches; b++) {
		/* A branch back into the sequence would run a part of it twice. */
		if (branches[b].target >= pc && branches[b].target <= stxr)
			return -1;
		if (add_exit(seq, branches[b].target, branches[b].index + 1, false) < 0)
			return -1;
	}
	return 1;
}
