// SPDX-License-Identifier: GPL-2.0
/*
 * Software block steps: a run of instructions that can only fall through
 * runs natively to a breakpoint at its end, and is recorded instruction by
 * instruction, as single steps would have recorded it.
 *
 * Why: a single step costs two context switches and a ptrace round trip
 * (about 17 us); a run of n instructions costs one stop and a few calls
 * (writing the breakpoint, taking it out, setting pc back).  Where the CPU
 * traps on branches (PTRACE_SINGLEBLOCK) a hypervisor may drop the flag,
 * and the debug registers (an execution breakpoint per thread) may be
 * ignored too (KVM guests, Firecracker): a written breakpoint works
 * everywhere the --on breakpoints do.
 *
 * Why exact: the run holds only instructions that cannot branch, trap,
 * enter the kernel or repeat (arch_insn_only_falls_through), so whatever
 * stops the thread, its pc says how far it got, and every instruction
 * before it ran once.  The stop at the breakpoint means all of them ran.
 * The code of a run must not change while it runs: runs are taken only in
 * private mappings that are not writable (a JIT's code is single-stepped),
 * never in the vDSO, never inside --on regions (their end is seen at a
 * step), and only while no other thread pitrace traces is running (none
 * can run onto the breakpoint, nor change the code).
 */
#define PR_FMT "ptrace"
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <pitrace/format.h>
#include "log.h"
#include "ptrace_int.h"
#include "trace_writer.h"

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

/* The run from pc, inside m: its lengths into b, its end into *end; how many. */
static unsigned find_run(struct engine *e, struct proc *p, const struct ptm_map *m, uint64_t pc,
			 struct sblock_run *b, uint64_t *end)
{
	unsigned n = 0;

	while (n < SBLOCK_MAX_INSNS) {
		uint8_t len;

		/* an --on breakpoint inside is stepped over, not run into */
		if (n && p->nr_bps && bp_find(p, pc))
			break;
		len = pte_plain_len(e, p, pc);
		if (!len || pc + len + arch_breakpoint_len > m->end)
			break;
		b->len[n++] = len;
		pc += len;
	}
	*end = pc;
	return n;
}

bool sblock_begin(struct engine *e, struct thread *t)
{
	struct sblock_run *b = &t->sblock;
	struct proc *p = t->proc;
	const struct ptm_map *m;
	unsigned len = arch_breakpoint_len;
	unsigned n;

	if (!e->soft_block || !p->recorded || p->memfd < 0 || t->region_end_sp || e->detaching)
		return false;
	m = stable_map(p, t->prev_pc);
	if (!m || others_running(e, t))
		return false;
	n = find_run(e, p, m, t->prev_pc, b, &b->end);
	if (n < SBLOCK_MIN_INSNS)
		return false;
	b->start = t->prev_pc;
	b->nr = n;
	if (pread(p->memfd, b->orig, len, (off_t)b->end) != (ssize_t)len ||
	    pwrite(p->memfd, arch_breakpoint_insn, len, (off_t)b->end) != (ssize_t)len)
		return false;
	b->active = true;
	e->soft_runs++;
	return true;
}

void sblock_abandon(struct thread *t)
{
	struct sblock_run *b = &t->sblock;
	unsigned len = arch_breakpoint_len;

	if (!b->active)
		return;
	b->active = false;
	/* fails only when the process is gone (killed during the run) */
	if (t->proc && t->proc->memfd >= 0 &&
	    pwrite(t->proc->memfd, b->orig, len, (off_t)b->end) != (ssize_t)len)
		pr_dbg("cannot take the breakpoint at %#llx out of %d",
		       (unsigned long long)b->end, t->proc->pid);
}

/* How many of the run's instructions precede pc; -1 when pc is not on it. */
static int ran_before(const struct sblock_run *b, uint64_t pc)
{
	uint64_t at = b->start;

	for (unsigned i = 0; i < b->nr; i++) {
		if (at == pc)
			return (int)i;
		at += b->len[i];
	}
	return at == pc ? (int)b->nr : -1;
}

bool sblock_stopped(struct engine *e, struct thread *t, int sig, int event)
{
	struct sblock_run *b = &t->sblock;
	struct arch_stop_regs r;
	uint64_t pc = b->start;
	bool at_end;
	int ran;

	sblock_abandon(t);
	t->stepped = false;
	if (arch_read_regs(t->tid, &r) < 0)
		return false;	/* gone (SIGKILL): its exit is reported next */
	/* The breakpoint's trap leaves pc past it; nothing else can get there. */
	at_end = !event && sig == SIGTRAP && r.pc == b->end + arch_breakpoint_pc_adjust;
	if (at_end) {
		r.pc = b->end;
		if (arch_set_pc(t->tid, r.pc) < 0)
			return false;
	}
	ran = ran_before(b, r.pc);
	if (ran < 0) {
		struct tw_stream *s = pte_stream_of(e, t);

		/* cannot happen while the code stays as decoded: say so, guess nothing */
		if (s)
			tw_gap(s, PT_GAP_UNKNOWN);
		pr_dbg("thread %d stopped at %#llx, off its run from %#llx", t->tid,
		       (unsigned long long)r.pc, (unsigned long long)b->start);
	}
	for (int i = 0; i < ran; i++) {
		pte_record_step(e, t, pc);
		pc += b->len[i];
	}
	t->prev_pc = r.pc;
	t->prev_sp = r.sp;
	return at_end;
}
