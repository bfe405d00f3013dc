// SPDX-License-Identifier: GPL-2.0
/*
 * ppc64 larx/stcx. sequences as one unit (driver/arch_calls.h,
 * arch_step_deferred()).  Single-stepped, a sequence never completes: the
 * trap after the load-reserve clears the reservation, so the
 * store-conditional always fails and the program's loop retries forever.
 * So the trap hands a load-reserve to the task's own context (trap.c), and
 * here the sequence is emulated, from the load-reserve to its
 * store-conditional, with the kernel's instruction decoder
 * (analyse_instr(), exported; emulate_step() is not) and each instruction
 * recorded as the step it is.  The reservation becomes a compare-and-swap
 * on the word through the kernel's mapping of its page: it stores when
 * nobody changed the word since the load, as an emulator's (QEMU's)
 * store-conditional does; when another thread did, it fails like the real
 * one and the program's own loop retries, every retry recorded.
 *
 * What the emulation does not take -- a lqarx, a load or store other than
 * the pair inside the sequence, more than SEQ_MAX instructions before the
 * store-conditional, a page that cannot be made writable -- runs natively
 * from where it stands, untraced, and says so (pitrace_step_native()).
 */
#define pr_fmt(fmt) "pitrace: " fmt

#include <linux/highmem.h>
#include <linux/mm.h>
#include <linux/ptrace.h>
#include <linux/sched.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <asm/cmpxchg.h>
#include <asm/inst.h>
#include <asm/reg.h>
#include <asm/sstep.h>

#include <pitrace/format.h>

#include "arch_calls.h"
#include "ppc_atomic.h"

/* Instructions after the load-reserve, as GDB's ppc_deal_with_atomic_sequence(). */
#define SEQ_MAX 16
/* Back-to-back sequences emulated in one go (a load-reserve right after a sequence). */
#define SEQ_CHAIN_MAX 8

#define CR0_SHIFT 28
#define CR0_EQ 0x2u
#define XER_SO (1ul << 31)

struct seq {
	unsigned long start;		/* the load-reserve's address */
	unsigned long stcx;		/* its store-conditional's */
	unsigned long ea;		/* the reserved location */
	unsigned int size;		/* 1, 2, 4 or 8 bytes */
	struct page *page;
	void *kaddr;			/* the location through the kernel's mapping */
	u64 loaded;			/* what the load-reserve read */
	u64 steps;
};

/* The word at a user pc; -EFAULT when it cannot be read. */
static int fetch(unsigned long pc, u32 *insn)
{
	return get_user(*insn, (const u32 __user *)pc);
}

/* Pin the reserved location's page for writing and map it. */
static int seq_reserve(struct seq *q, unsigned long ea, unsigned int size)
{
	if ((size != 1 && size != 2 && size != 4 && size != 8) || (ea & (size - 1)))
		return -EINVAL;		/* lqarx, or an alignment interrupt to come */
	if (get_user_pages_fast(ea & PAGE_MASK, 1, FOLL_WRITE, &q->page) != 1)
		return -EFAULT;
	q->ea = ea;
	q->size = size;
	q->kaddr = kmap_local_page(q->page) + offset_in_page(ea);
	return 0;
}

static void seq_release(struct seq *q)
{
	if (!q->page)
		return;
	kunmap_local(q->kaddr);
	put_page(q->page);
	q->page = NULL;
}

static u64 seq_load(const struct seq *q)
{
	switch (q->size) {
	case 1:
		return READ_ONCE(*(u8 *)q->kaddr);
	case 2:
		return READ_ONCE(*(u16 *)q->kaddr);
	case 4:
		return READ_ONCE(*(u32 *)q->kaddr);
	default:
		return READ_ONCE(*(u64 *)q->kaddr);
	}
}

/* The store-conditional: stores when the location still holds what was loaded. */
static bool seq_store(struct seq *q, u64 val)
{
	bool stored;

	switch (q->size) {
	case 1:
		stored = cmpxchg((u8 *)q->kaddr, (u8)q->loaded, (u8)val) == (u8)q->loaded;
		break;
	case 2:
		stored = cmpxchg((u16 *)q->kaddr, (u16)q->loaded, (u16)val) == (u16)q->loaded;
		break;
	case 4:
		stored = cmpxchg((u32 *)q->kaddr, (u32)q->loaded, (u32)val) == (u32)q->loaded;
		break;
	default:
		stored = cmpxchg((u64 *)q->kaddr, q->loaded, val) == q->loaded;
		break;
	}
	if (stored)
		set_page_dirty_lock(q->page);
	return stored;
}

/* CR0 after a store-conditional: EQ when it stored, SO copied from XER. */
static void set_cr0(struct pt_regs *regs, bool stored)
{
	unsigned long cr0 = (stored ? CR0_EQ : 0) | ((regs->xer & XER_SO) ? 1 : 0);

	regs->ccr = (regs->ccr & ~(0xful << CR0_SHIFT)) | (cr0 << CR0_SHIFT);
}

/* Apply an instruction analyse_instr() fully decoded (it returned 1); next pc in *next. */
static bool apply(struct pt_regs *regs, const struct instruction_op *op, unsigned long *next)
{
	*next = regs->nip + GETLENGTH(op->type);
	switch (GETTYPE(op->type)) {
	case COMPUTE:
		if (op->type & SETREG)
			regs->gpr[op->reg] = op->val;
		if (op->type & SETCC)
			regs->ccr = op->ccval;
		if (op->type & SETXER)
			regs->xer = op->xerval;
		return true;
	case BRANCH:
		if (op->type & SETLK)
			regs->link = *next;
		if (op->type & BRTAKEN)
			*next = op->val;
		if (op->type & DECCTR)
			regs->ctr--;
		return true;
	case BARRIER:
		smp_mb();	/* the strongest of sync, lwsync, eieio */
		return true;
	case MFSPR:
		if (op->spr == SPRN_LR)
			regs->gpr[op->reg] = regs->link;
		else if (op->spr == SPRN_CTR)
			regs->gpr[op->reg] = regs->ctr;
		else if (op->spr == SPRN_XER)
			regs->gpr[op->reg] = regs->xer & 0xffffffffUL;
		else
			return false;
		return true;
	case MTSPR:
		if (op->spr == SPRN_LR)
			regs->link = op->val;
		else if (op->spr == SPRN_CTR)
			regs->ctr = op->val;
		else if (op->spr == SPRN_XER)
			regs->xer = op->val & 0xffffffffUL;
		else
			return false;
		return true;
	default:
		return false;
	}
}

/*
 * Move to next, an instruction of the sequence, and record it; false when
 * recording ended (the task is no longer traced).
 */
static bool advance(struct pt_regs *regs, struct seq *q, unsigned long next)
{
	regs_set_return_ip(regs, next);
	q->steps++;
	return pitrace_step_emulated(regs);
}

enum seq_end {
	SEQ_DONE,		/* ended as ATOMIC kind says; stepping goes on */
	SEQ_UNTRACED,		/* the task is no longer traced */
	SEQ_NATIVE,		/* not emulated from here: run natively */
};

/*
 * The sequence's store-conditional: the first within SEQ_MAX instructions
 * of the load-reserve, none when another load-reserve comes first (as GDB's
 * ppc_deal_with_atomic_sequence() finds it).
 */
static bool seq_find_stcx(struct seq *q)
{
	unsigned int i;
	u32 insn;

	for (i = 1; i <= SEQ_MAX; i++) {
		if (fetch(q->start + 4 * i, &insn) || ppc_is_larx(insn))
			return false;
		if (ppc_is_stcx(insn)) {
			q->stcx = q->start + 4 * i;
			return true;
		}
	}
	return false;
}

/* One sequence from the load-reserve at regs' pc (its step already recorded). */
static enum seq_end seq_run(struct pt_regs *regs, struct seq *q, unsigned int *kind)
{
	struct instruction_op op;
	unsigned long next;
	unsigned int n;
	u32 insn;
	int rc;

	if (fetch(regs->nip, &insn) || analyse_instr(&op, regs, ppc_inst(insn)) < 0 ||
	    GETTYPE(op.type) != LARX || !seq_find_stcx(q) ||
	    seq_reserve(q, op.ea, GETSIZE(op.type)))
		return SEQ_NATIVE;
	q->loaded = seq_load(q);
	regs->gpr[op.reg] = q->loaded;
	if (!advance(regs, q, regs->nip + 4))
		return SEQ_UNTRACED;
	for (n = 0; n < SEQ_MAX; n++) {
		if (fetch(regs->nip, &insn))
			return SEQ_NATIVE;
		rc = analyse_instr(&op, regs, ppc_inst(insn));
		if (rc < 0)
			return SEQ_NATIVE;
		if (GETTYPE(op.type) == STCX) {
			bool stored = GETSIZE(op.type) == q->size && op.ea == q->ea &&
				      seq_store(q, regs->gpr[op.reg]);

			set_cr0(regs, stored);
			*kind = stored ? PT_ATOMIC_STORED : PT_ATOMIC_FAILED;
			regs_set_return_ip(regs, regs->nip + 4);
			return SEQ_DONE;	/* the next instruction is not the sequence's */
		}
		if (rc != 1 || !apply(regs, &op, &next))
			return SEQ_NATIVE;
		/*
		 * A branch out of the sequence, past its store-conditional (a
		 * compare-and-swap that found another value: glibc's "bne 1f;
		 * stdcx.; bne- 0b; 1:" lands right after it) or back to the
		 * load-reserve (which starts again as a sequence of its own).
		 */
		if (next <= q->start || next > q->stcx) {
			regs_set_return_ip(regs, next);
			*kind = PT_ATOMIC_LEFT;
			return SEQ_DONE;
		}
		if (!advance(regs, q, next))
			return SEQ_UNTRACED;
	}
	return SEQ_NATIVE;
}

static bool at_larx(const struct pt_regs *regs)
{
	u32 insn;

	return !fetch(regs->nip, &insn) && ppc_is_larx(insn);
}

/* Emulate the sequences at regs' pc. */
static void emulate(struct pt_regs *regs)
{
	unsigned int chain, kind = PT_ATOMIC_STORED;
	struct seq q;
	enum seq_end end;

	for (chain = 0; chain < SEQ_CHAIN_MAX; chain++) {
		memset(&q, 0, sizeof(q));
		q.start = regs->nip;
		q.steps = 1;
		end = seq_run(regs, &q, &kind);
		seq_release(&q);
		if (end == SEQ_UNTRACED)
			return;
		if (end == SEQ_NATIVE) {
			pitrace_step_native(regs, q.start);
			return;
		}
		/*
		 * The record counts the sequence's instructions, as the ptrace
		 * backend's does; then the step of the one it left to, which
		 * runs stepped unless it starts another sequence.
		 */
		pitrace_step_atomic(kind, q.start, q.steps);
		if (!pitrace_step_emulated(regs) || !at_larx(regs))
			return;
	}
	pitrace_step_native(regs, regs->nip);
}

/*
 * The return to user mode from an interrupt reloads r14-r31 from the frame
 * only when a signal is pending (interrupt_exit_user_prepare_main():
 * _TIF_RESTOREALL), since the C code in between preserves them; the
 * interrupts that emulate instructions reload them themselves, the trace
 * interrupt does not.  A spurious TIF_SIGPENDING is what a signal
 * wake-up that finds nothing to deliver leaves (get_signal() clears it),
 * and it makes the emulated non-volatile registers reach user mode.
 */
#define NVGPR_FIRST 14

void arch_step_deferred(struct pt_regs *regs)
{
	unsigned long nvgprs[32 - NVGPR_FIRST];

	/* Not a big-endian task, nor one a signal handler now runs instead of the sequence. */
	if (!(regs->msr & MSR_LE) || !at_larx(regs)) {
		arch_regs_set_step(current, regs, true);
		return;
	}
	memcpy(nvgprs, &regs->gpr[NVGPR_FIRST], sizeof(nvgprs));
	emulate(regs);
	if (memcmp(nvgprs, &regs->gpr[NVGPR_FIRST], sizeof(nvgprs)))
		set_thread_flag(TIF_SIGPENDING);
}
