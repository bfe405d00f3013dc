// SPDX-License-Identifier: GPL-2.0
/*
 * arm64 exclusive sequences as one unit (driver/arch_calls.h,
 * arch_step_deferred()).  Single-stepped, a sequence never completes: the
 * exception return after each step clears the exclusive monitor, so the
 * store-exclusive always fails and the program's loop retries forever.  So
 * the trap hands a load-exclusive to the task's own context (trap.c), and
 * here the sequence is emulated, from the load-exclusive to its
 * store-exclusive (emul.c: the kernel exports no A64 emulator), each
 * instruction recorded as the step it is, as on POWER
 * (arch/ppc64le/driver/atomic.c).  The monitor becomes a compare-and-swap
 * on the location through the kernel's mapping of its page, 16 bytes at
 * once for a pair of doublewords: the store-exclusive stores when nobody
 * changed the location since the load, as QEMU's does; when another
 * thread did, it fails like the real one (Ws = 1) and the program's own
 * loop retries, every retry recorded.
 *
 * What the emulation does not take -- an instruction emul.c does not
 * decode, a load or store other than the pair, more than SEQ_MAX
 * instructions after the load-exclusive, a misaligned or tagged address, a
 * page that cannot be made writable, an AArch32 task -- runs natively from
 * where it stands, untraced, and says so (pitrace_step_native()).
 */
#define pr_fmt(fmt) "pitrace: " fmt

#include <linux/build_bug.h>
#include <linux/highmem.h>
#include <linux/mm.h>
#include <linux/ptrace.h>
#include <linux/sched.h>
#include <linux/stddef.h>
#include <linux/string.h>
#include <linux/thread_info.h>
#include <linux/uaccess.h>
#include <asm/cmpxchg.h>
#include <asm/debug-monitors.h>

#include <pitrace/format.h>

#include "arch_calls.h"
#include "arm64_emul.h"
#include "arm64_excl.h"

/* Instructions after the load-exclusive: GDB's limit, and the ptrace backend's. */
#define SEQ_MAX 16

struct seq {
	unsigned long start;		/* the load-exclusive's address */
	unsigned long stxr;		/* its store-exclusive's */
	unsigned long ea;		/* the location */
	struct arm64_excl load;
	unsigned int bytes;		/* the access: size, twice for a pair */
	struct page *page;
	void *kaddr;			/* the location through the kernel's mapping */
	u64 loaded[2];			/* what the load-exclusive read (doublewords) */
	bool monitor;			/* clear after a clrex: the store fails */
	u64 steps;			/* this attempt's steps, the load-exclusive's first */
};

static int fetch(unsigned long pc, u32 *insn)
{
	__le32 w;

	if (get_user(w, (const __le32 __user *)pc))
		return -EFAULT;
	*insn = le32_to_cpu(w);
	return 0;
}

static bool at_load_excl(unsigned long pc)
{
	u32 insn;

	return !fetch(pc, &insn) && arm64_excl_is_load(insn);
}

/* pt_regs as emul.c sees it: the kernel's user_pt_regs, field for field. */
static struct arm64_emul_regs *emul_regs(struct pt_regs *regs)
{
	BUILD_BUG_ON(sizeof(struct arm64_emul_regs) != sizeof(struct user_pt_regs));
	BUILD_BUG_ON(offsetof(struct user_pt_regs, sp) != offsetof(struct arm64_emul_regs, sp));
	BUILD_BUG_ON(offsetof(struct user_pt_regs, pc) != offsetof(struct arm64_emul_regs, pc));
	BUILD_BUG_ON(offsetof(struct user_pt_regs, pstate) !=
		     offsetof(struct arm64_emul_regs, pstate));
	return (struct arm64_emul_regs *)&regs->user_regs;
}

/*
 * Pin the location's page for writing and map it.  Exclusives fault on a
 * misaligned address; a tagged one (top byte set) is left to the hardware,
 * whose tag checks the kernel's mapping would skip.
 */
static int seq_map(struct seq *q, unsigned long ea)
{
	if ((ea & (q->bytes - 1)) || (ea >> 56))
		return -EINVAL;
	if (get_user_pages_fast(ea & PAGE_MASK, 1, FOLL_WRITE, &q->page) != 1) {
		q->page = NULL;
		return -EFAULT;
	}
	q->ea = ea;
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

/* The location, as doublewords (one for up to 8 bytes, its value zero-extended). */
static void seq_read(struct seq *q)
{
	smp_mb();	/* ldaxr's acquire, and more */
	switch (q->bytes) {
	case 1:
		q->loaded[0] = READ_ONCE(*(u8 *)q->kaddr);
		break;
	case 2:
		q->loaded[0] = READ_ONCE(*(u16 *)q->kaddr);
		break;
	case 4:
		q->loaded[0] = READ_ONCE(*(u32 *)q->kaddr);
		break;
	case 8:
		q->loaded[0] = READ_ONCE(*(u64 *)q->kaddr);
		break;
	default:
		q->loaded[0] = READ_ONCE(((u64 *)q->kaddr)[0]);
		q->loaded[1] = READ_ONCE(((u64 *)q->kaddr)[1]);
		break;
	}
	smp_mb();
}

/* 16 bytes compared and swapped at once (the kernel's name for it changed in 6.5). */
static bool cmpxchg_pair(u64 *p, const u64 old[2], const u64 new[2])
{
#ifdef system_has_cmpxchg128
	u128 o = (u128)old[1] << 64 | old[0], n = (u128)new[1] << 64 | new[0];

	return cmpxchg128((u128 *)p, o, n) == o;
#else
	return cmpxchg_double(p, p + 1, old[0], old[1], new[0], new[1]);
#endif
}

/* The store-exclusive: stores val when the location still holds what was loaded. */
static bool seq_store(struct seq *q, const u64 val[2])
{
	u64 old = q->loaded[0];
	bool stored;

	switch (q->bytes) {
	case 1:
		stored = cmpxchg((u8 *)q->kaddr, (u8)old, (u8)val[0]) == (u8)old;
		break;
	case 2:
		stored = cmpxchg((u16 *)q->kaddr, (u16)old, (u16)val[0]) == (u16)old;
		break;
	case 4:
		stored = cmpxchg((u32 *)q->kaddr, (u32)old, (u32)val[0]) == (u32)old;
		break;
	case 8:
		stored = cmpxchg((u64 *)q->kaddr, old, val[0]) == old;
		break;
	default:
		stored = cmpxchg_pair(q->kaddr, q->loaded, val);
		break;
	}
	if (stored)
		set_page_dirty_lock(q->page);
	return stored;
}

/* A pair of words is one doubleword in memory order: the first word at the lower address. */
union word_pair {
	u32 w[2];
	u64 d;
};

/* The load-exclusive at regs' pc, decoded in q->load: its registers loaded. */
static bool seq_load(struct arm64_emul_regs *r, struct seq *q)
{
	struct arm64_excl *e = &q->load;
	union word_pair wp;

	q->bytes = e->pair ? 2 * e->size : e->size;
	if (seq_map(q, arm64_emul_reg(r, e->rn, true)))
		return false;
	seq_read(q);
	q->monitor = true;
	if (!e->pair) {
		arm64_emul_set_reg(r, e->rt, false, q->loaded[0], true);
	} else if (e->size == 4) {
		wp.d = q->loaded[0];
		arm64_emul_set_reg(r, e->rt, false, wp.w[0], false);
		arm64_emul_set_reg(r, e->rt2, false, wp.w[1], false);
	} else {
		arm64_emul_set_reg(r, e->rt, false, q->loaded[0], true);
		arm64_emul_set_reg(r, e->rt2, false, q->loaded[1], true);
	}
	r->pc += 4;
	return true;
}

/* The store-exclusive e at regs' pc: its status register written; true when it stored. */
static bool seq_store_excl(struct arm64_emul_regs *r, struct seq *q, const struct arm64_excl *e)
{
	u64 val[2] = { arm64_emul_reg(r, e->rt, false), arm64_emul_reg(r, e->rt2, false) };
	bool stored = false;
	union word_pair wp;

	if (q->monitor && e->pair == q->load.pair && e->size == q->load.size &&
	    arm64_emul_reg(r, e->rn, true) == q->ea) {
		if (e->pair && e->size == 4) {
			wp.w[0] = val[0];
			wp.w[1] = val[1];
			val[0] = wp.d;
		}
		stored = seq_store(q, val);
	}
	arm64_emul_set_reg(r, e->rs, false, stored ? 0 : 1, false);
	r->pc += 4;
	return stored;
}

/*
 * The sequence's store-exclusive: the first within SEQ_MAX instructions of
 * the load-exclusive, none when another load-exclusive comes first (as
 * arch/arm64/atomic.c's arm64_atomic_sequence() finds it).
 */
static bool seq_find_stxr(struct seq *q)
{
	unsigned int i;
	u32 insn;

	for (i = 1; i <= SEQ_MAX; i++) {
		if (fetch(q->start + 4 * i, &insn) || arm64_excl_is_load(insn))
			return false;
		if (arm64_excl_is(insn, false)) {
			q->stxr = q->start + 4 * i;
			return true;
		}
	}
	return false;
}

enum seq_end {
	SEQ_DONE,		/* ended as its ATOMIC record says; stepping goes on */
	SEQ_UNTRACED,		/* the task is no longer traced */
	SEQ_NATIVE,		/* not emulated from here: run natively */
};

/*
 * The sequence ended at regs' pc: its ATOMIC record, after its steps as
 * the ptrace backend writes it, then the next instruction's step.  A
 * load-exclusive next (a retry's branch back, another sequence) is left to
 * its own trap, taken at once on the return to user mode (SPSR.SS clear
 * with the step flag set: a step is pending), which hands it back here.
 */
static enum seq_end seq_exit(struct pt_regs *regs, struct seq *q, unsigned int kind)
{
	pitrace_step_atomic(kind, q->start, q->steps);
	if (at_load_excl(regs->pc)) {
		set_thread_flag(TIF_SINGLESTEP);
		regs->pstate &= ~DBG_SPSR_SS;
		return SEQ_DONE;
	}
	return pitrace_step_emulated(regs) ? SEQ_DONE : SEQ_UNTRACED;
}

/* One instruction inside the sequence, not the load-exclusive. */
static enum seq_end seq_insn(struct pt_regs *regs, struct seq *q, u32 insn, bool *ended)
{
	struct arm64_emul_regs *r = emul_regs(regs);
	struct arm64_excl e;

	*ended = false;
	if (arm64_excl_decode(insn, &e)) {
		if (e.load || regs->pc != q->stxr)
			return SEQ_NATIVE;
		*ended = true;
		return seq_exit(regs, q, seq_store_excl(r, q, &e) ? PT_ATOMIC_STORED :
								      PT_ATOMIC_FAILED);
	}
	switch (arm64_emul_step(r, insn)) {
	case ARM64_EMUL_DONE:
		break;
	case ARM64_EMUL_BARRIER:
		smp_mb();
		break;
	case ARM64_EMUL_CLREX:
		q->monitor = false;
		break;
	default:
		return SEQ_NATIVE;
	}
	/*
	 * A branch out of the sequence, past its store-exclusive (a
	 * compare-and-swap that found another value) or back to or before
	 * the load-exclusive.
	 */
	if (regs->pc <= q->start || regs->pc > q->stxr) {
		*ended = true;
		return seq_exit(regs, q, PT_ATOMIC_LEFT);
	}
	return SEQ_DONE;
}

/* The sequence from the load-exclusive at regs' pc (its step already recorded). */
static enum seq_end seq_run(struct pt_regs *regs, struct seq *q)
{
	enum seq_end end;
	unsigned int n;
	bool ended;
	u32 insn;

	if (fetch(regs->pc, &insn) || !arm64_excl_decode(insn, &q->load) || !q->load.load ||
	    !seq_find_stxr(q) || !seq_load(emul_regs(regs), q))
		return SEQ_NATIVE;
	for (n = 0; n < SEQ_MAX; n++) {
		if (!pitrace_step_emulated(regs))
			return SEQ_UNTRACED;
		q->steps++;
		if (fetch(regs->pc, &insn))
			return SEQ_NATIVE;
		end = seq_insn(regs, q, insn, &ended);
		if (end != SEQ_DONE || ended)
			return end;
	}
	return SEQ_NATIVE;
}

void arch_step_deferred(struct pt_regs *regs)
{
	struct seq q = { .start = regs->pc, .steps = 1 };
	enum seq_end end;

	/* An AArch32 task's word is no A64 instruction: its ldrex runs natively, as it did. */
	if (compat_user_mode(regs)) {
		pitrace_step_native(regs, q.start);
		return;
	}
	/* Not one a signal handler now runs instead of the sequence. */
	if (!at_load_excl(regs->pc)) {
		arch_regs_set_step(current, regs, true);
		return;
	}
	end = seq_run(regs, &q);
	seq_release(&q);
	if (end == SEQ_NATIVE)
		pitrace_step_native(regs, q.start);
}
