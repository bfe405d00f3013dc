// SPDX-License-Identifier: GPL-2.0
/*
 * Software block steps: code whose path its bytes alone decide runs
 * natively to breakpoints at its possible successors, and is recorded
 * instruction by instruction, as single steps would have recorded it.
 *
 * Why: a single step costs two context switches and a ptrace round trip
 * (about 17 us); a run of n instructions costs one stop and a few calls
 * (writing the breakpoints, taking them out, setting pc back).  Where the
 * CPU traps on branches (PTRACE_SINGLEBLOCK) a hypervisor may drop the
 * flag, and the debug registers (an execution breakpoint per thread) may
 * be ignored too (KVM guests, Firecracker): a written breakpoint works
 * everywhere the --on breakpoints do.
 *
 * What a run holds: instructions that can only fall through
 * (arch_insn_only_falls_through: no trap, system call or repetition),
 * direct jumps and calls, followed to their targets, and at most one
 * conditional direct branch, its last, with a breakpoint at both of its
 * successors.  It ends before anything else (a return, an indirect
 * transfer), with a breakpoint there.
 *
 * Why exact: every path through a run is decided by its bytes, and no
 * instruction appears in it twice, so wherever the thread stops, its pc
 * says how far it got: the instructions before that pc in the run's order
 * ran once each, and at a breakpoint all of them did.  No breakpoint
 * covers a byte of the run's code.  The code of a run must not change
 * while it runs: runs are taken only in private mappings that are not
 * writable (a JIT's code is single-stepped), never in the vDSO, never
 * inside --on regions (their end is seen at a step), and only while no
 * other thread pitrace traces is running (none can run onto a breakpoint,
 * nor change the code); and none is let run while one is under way
 * (sblock_held): a thread resumed meanwhile (the scheduler letting its
 * parked threads go one after another, a new thread's first stop) waits,
 * parked, for the run to end.
 */
#define PR_FMT "ptrace"
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <pitrace/format.h>
#include "util/assert.h"
#include "util/log.h"
#include "pitrace/ptrace_int.h"
#include "util/trace_writer.h"

/* Shorter runs cost more than their single steps (a stop and four calls). */
#define SBLOCK_MIN_INSNS 2

/* A mapping whose code stays as decoded while a run goes through it, or NULL. */
static const struct ptm_map *stable_map(struct proc *p, uint64_t pc)
{
	const struct ptm_map *m = ptm_find(&p->maps, pc);

	if (!m || (m->prot & PROT_WRITE) || m->shared)
		return NULL;
	if (!strcmp(m->path, "[vdso]") || !strcmp(m->path, "[vsyscall]"))
		return NULL;
	return m;
}

/* Whether any traced thread but t is running (may come back while t runs). */
static bool others_running(struct engine *e, struct thread *t)
{
	for (struct thread *o = e->threads; o; o = o->next)
		if (o != t && o->running)
			return true;
	return false;
}

/* The scan that e->sblock_runner stands for, for debug builds' asserts. */
static __attribute__((unused)) struct thread *runner_scanned(struct engine *e)
{
	struct thread *found = NULL;

	for (struct thread *o = e->threads; o; o = o->next)
		if (o->sblock.active) {
			DASSERT(!found);	/* one run at a time */
			found = o;
		}
	return found;
}

bool sblock_held(struct engine *e, struct thread *t)
{
	DASSERT(e->sblock_runner == runner_scanned(e));
	return e->sblock_runner && e->sblock_runner != t;
}

/* Whether [a, a + len) holds a byte of the run's code. */
static bool covers(const struct sblock_run *b, uint64_t a, uint64_t len)
{
	for (unsigned i = 0; i < b->nr_segs; i++)
		if (a < b->segs[i].end && b->segs[i].start < a + len)
			return true;
	return false;
}

/* Whether a breakpoint can go at a: in stable code, off the run, not an --on one. */
static bool bp_fits(struct proc *p, const struct sblock_run *b, uint64_t a)
{
	const struct ptm_map *m = stable_map(p, a);

	return m && a + arch_breakpoint_len <= m->end && !covers(b, a, arch_breakpoint_len) &&
	       !(p->nr_bps && bp_find(p, a));
}

/* Append the instruction at pc, len bytes, to the run; false when it is full. */
static bool append(struct sblock_run *b, uint64_t pc, unsigned len)
{
	if (b->nr == SBLOCK_MAX_INSNS)
		return false;
	if (!b->nr_segs || b->segs[b->nr_segs - 1].end != pc) {
		if (b->nr_segs == SBLOCK_MAX_SEGS)
			return false;
		b->segs[b->nr_segs].start = pc;
		b->segs[b->nr_segs].first = b->nr;
		b->nr_segs++;
	}
	b->segs[b->nr_segs - 1].end = pc + len;
	b->pc[b->nr++] = pc;
	return true;
}

/* Take the run's last instruction off it; its address, where the run now ends. */
static uint64_t pop(struct sblock_run *b)
{
	uint64_t pc = b->pc[--b->nr];

	b->segs[b->nr_segs - 1].end = pc;
	if (b->segs[b->nr_segs - 1].start == pc)
		b->nr_segs--;
	return pc;
}

/* A transfer whose one target its bytes give: a direct jump or call. */
static bool direct_transfer(const struct arch_insn *in)
{
	return (in->cls == ARCH_INSN_JUMP || in->cls == ARCH_INSN_CALL) &&
	       (in->flags & ARCH_INSN_HAS_TARGET) &&
	       !(in->flags & (ARCH_INSN_INDIRECT | ARCH_INSN_CONDITIONAL));
}

/*
 * Build the run from pc into b: its instructions, and its breakpoints'
 * places (not yet checked).  Follows direct transfers, ends after a
 * conditional branch or before anything else it cannot follow.
 */
static void find_run(struct engine *e, struct proc *p, struct sblock_run *b, uint64_t pc)
{
	const struct ptm_map *m;
	struct arch_insn in;
	uint8_t len;

	b->nr = b->nr_segs = 0;
	b->nr_bps = 1;
	for (;;) {
		b->bp[0] = pc;
		m = stable_map(p, pc);
		/* an instruction met again, an --on breakpoint: stop there */
		if (!m || covers(b, pc, 1) || (b->nr && p->nr_bps && bp_find(p, pc)))
			return;
		len = pte_plain_len(e, p, pc);
		if (len) {
			if (pc + len > m->end || !append(b, pc, len))
				return;
			pc += len;
			continue;
		}
		if (!pte_decode(e, p, pc, &in) || pc + in.len > m->end)
			return;
		if (direct_transfer(&in)) {
			if (!append(b, pc, in.len))
				return;
			pc = in.target;
			continue;
		}
		if (in.cls == ARCH_INSN_COND && (in.flags & ARCH_INSN_HAS_TARGET) &&
		    !(in.flags & ARCH_INSN_INDIRECT) && append(b, pc, in.len)) {
			b->bp[0] = pc + in.len;
			b->bp[1] = in.target;
			b->nr_bps = in.target == pc + in.len ? 1 : 2;
		}
		return;
	}
}

/*
 * Whether two breakpoints are too close to tell apart: a trap at one must
 * not leave pc where the other is.
 */
static bool bps_too_close(const struct sblock_run *b)
{
	uint64_t lo = b->bp[0] < b->bp[1] ? b->bp[0] : b->bp[1];
	uint64_t hi = b->bp[0] ^ b->bp[1] ^ lo;

	return b->nr_bps == 2 && hi - lo < arch_breakpoint_len + arch_breakpoint_pc_adjust;
}

/* Shorten b until its breakpoints fit; false when too little is left. */
static bool fit_bps(struct proc *p, struct sblock_run *b)
{
	for (;;) {
		bool fit = !bps_too_close(b);

		for (unsigned i = 0; i < b->nr_bps; i++)
			fit = fit && bp_fits(p, b, b->bp[i]);
		if (fit)
			return b->nr >= SBLOCK_MIN_INSNS;
		if (b->nr < SBLOCK_MIN_INSNS)
			return false;
		b->bp[0] = pop(b);
		b->nr_bps = 1;
	}
}

/* Plant b's breakpoints, keeping what they hide; false (none left in) on failure. */
static bool plant(struct proc *p, struct sblock_run *b)
{
	unsigned len = arch_breakpoint_len;

	for (unsigned i = 0; i < b->nr_bps; i++) {
		if (pread(p->memfd, b->orig[i], len, (off_t)b->bp[i]) == (ssize_t)len &&
		    pwrite(p->memfd, arch_breakpoint_insn, len, (off_t)b->bp[i]) == (ssize_t)len)
			continue;
		while (i--)
			if (pwrite(p->memfd, b->orig[i], len, (off_t)b->bp[i]) != (ssize_t)len)
				pr_dbg("cannot take the breakpoint at %#llx out of %d",
				       (unsigned long long)b->bp[i], p->pid);
		return false;
	}
	return true;
}

bool sblock_begin(struct engine *e, struct thread *t)
{
	struct sblock_run *b = &t->sblock;
	struct proc *p = t->proc;

	if (!e->soft_block || !p->recorded || p->memfd < 0 || t->region_end_sp || e->detaching)
		return false;
	if (!stable_map(p, t->prev_pc) || others_running(e, t))
		return false;
	find_run(e, p, b, t->prev_pc);
	if (!fit_bps(p, b) || !plant(p, b))
		return false;
	DASSERT(!e->sblock_runner);
	b->active = true;
	e->sblock_runner = t;
	e->soft_runs++;
	return true;
}

void sblock_abandon(struct engine *e, struct thread *t)
{
	struct sblock_run *b = &t->sblock;
	unsigned len = arch_breakpoint_len;

	if (!b->active)
		return;
	DASSERT(e->sblock_runner == t);
	b->active = false;
	e->sblock_runner = NULL;
	/* fails only when the process is gone (killed during the run) */
	for (unsigned i = b->nr_bps; i-- > 0;)
		if (t->proc && t->proc->memfd >= 0 &&
		    pwrite(t->proc->memfd, b->orig[i], len, (off_t)b->bp[i]) != (ssize_t)len)
			pr_dbg("cannot take the breakpoint at %#llx out of %d",
			       (unsigned long long)b->bp[i], t->proc->pid);
}

/* The index of b's breakpoint at pc, or -1. */
static int bp_index(const struct sblock_run *b, uint64_t pc)
{
	for (unsigned i = 0; i < b->nr_bps; i++)
		if (b->bp[i] == pc)
			return (int)i;
	return -1;
}

/* How many of the run's instructions ran before the thread stood at pc; -1: off it. */
static int ran_before(const struct sblock_run *b, uint64_t pc)
{
	if (bp_index(b, pc) >= 0)
		return (int)b->nr;
	for (unsigned i = 0; i < b->nr_segs; i++) {
		unsigned last = i + 1 < b->nr_segs ? b->segs[i + 1].first : b->nr;

		if (pc < b->segs[i].start || pc >= b->segs[i].end)
			continue;
		for (unsigned k = b->segs[i].first; k < last; k++)
			if (b->pc[k] == pc)
				return (int)k;
	}
	return -1;
}

bool sblock_stopped(struct engine *e, struct thread *t, int sig, int event)
{
	struct sblock_run *b = &t->sblock;
	struct arch_stop_regs r;
	bool at_end;
	int ran;

	sblock_abandon(e, t);
	t->stepped = false;
	if (arch_read_regs(t->tid, &r) < 0)
		return false;	/* gone (SIGKILL): its exit is reported next */
	/* A breakpoint's trap leaves pc past it; nothing else can get there. */
	at_end = !event && sig == SIGTRAP && bp_index(b, r.pc - arch_breakpoint_pc_adjust) >= 0;
	if (at_end) {
		r.pc -= arch_breakpoint_pc_adjust;
		if (arch_breakpoint_pc_adjust && arch_set_pc(t->tid, r.pc) < 0)
			return false;
	}
	ran = ran_before(b, r.pc);
	if (ran < 0) {
		struct tw_stream *s = pte_stream_of(e, t);

		/* cannot happen while the code stays as decoded: say so, guess nothing */
		if (s)
			tw_gap(s, PT_GAP_UNKNOWN);
		pr_dbg("thread %d stopped at %#llx, off its run from %#llx", t->tid,
		       (unsigned long long)r.pc, (unsigned long long)b->pc[0]);
	}
	for (int i = 0; i < ran; i++)
		pte_record_step(e, t, b->pc[i]);
	e->soft_steps += ran > 0 ? (uint64_t)ran : 0;
	t->prev_pc = r.pc;
	t->prev_sp = r.sp;
	return at_end;
}
