// SPDX-License-Identifier: GPL-2.0
/* The call-flow engine's block expansion: a block record's steps, one by one. */
#include <string.h>

#include "util/cf_internal.h"

/* Longest run of instructions one block is expanded to (a guard against bad code). */
#define CF_BLOCK_MAX 65536

/*
 * Place the pending block of t: its instructions from its start up to the
 * taken branch to next_pc (have_next), or to the first instruction that
 * always transfers (calls, returns, jumps, system calls).
 */
void cf_expand_block(struct callflow *cf, struct cf_thread *t, bool have_next,
		     uint64_t next_pc)
{
	struct trace_event e = t->block;
	uint64_t pc = e.pc;

	if (!t->have_block)
		return;
	t->have_block = false;
	t->async_pending = t->block_async;
	t->sigreturn_pending = t->block_sigreturn;
	for (unsigned n = 0; n < CF_BLOCK_MAX; n++) {
		struct cf_site s;
		uint64_t fall;

		memset(&s, 0, sizeof(s));
		cf->src.site(cf->src.ctx, cf, e.pid, pc, e.ring, &s);
		e.pc = pc;
		cf_on_step(cf, &e);
		fall = pc + s.insn.len;
		/* Falling through onto the next block's start does not end a
		 * block: only a taken branch (or a transfer) does, so a loop
		 * entered by fall-through runs on to its back edge. */
		if (!s.insn.len)
			return;
		if (s.insn.cls == ARCH_INSN_COND && have_next &&
		    (s.insn.flags & ARCH_INSN_HAS_TARGET) && s.insn.target == next_pc)
			return;		/* taken */
		if (s.insn.cls != ARCH_INSN_OTHER && s.insn.cls != ARCH_INSN_COND)
			return;
		pc = fall;
	}
}

void cf_set_block_mode(struct callflow *cf, bool on)
{
	cf->block_mode = on;
}

void cf_on_block(struct callflow *cf, const struct trace_event *ev)
{
	struct cf_thread *t = cf_thread_get(cf, ev->pid, ev->tid);

	t->cpu = ev->cpu;
	cf_expand_block(cf, t, true, ev->pc);
	t->block = *ev;
	t->have_block = true;
	t->block_async = t->next_async;
	t->block_sigreturn = t->next_sigreturn;
	t->next_async = t->next_sigreturn = false;
}
