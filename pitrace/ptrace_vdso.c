// SPDX-License-Identifier: GPL-2.0
/*
 * vDSO calls run natively from their entry to their return, so that no
 * retry loop in them (clock_gettime's seqlock) spins because it is stepped.
 *
 * Why natively and not as system calls (rr's way): the program's code is
 * not changed (only a breakpoint at the return address while the call
 * runs, as for larx/stcx. sequences, ptrace_atomic.h), and what runs is
 * what the program runs.  Its instruction count is unknown (no PMU is
 * asked): the trace says so in a NATIVE record, and the reports show the
 * call as a row of its own.
 */
#define PR_FMT "ptrace"
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <pitrace/format.h>
#include "util/log.h"
#include "pitrace/ptrace_int.h"
#include "util/trace_writer.h"

static bool in_vdso(const struct proc *p, uint64_t pc)
{
	for (size_t i = 0; i < p->maps.n; i++) {
		const struct ptm_map *m = &p->maps.v[i];

		if (pc >= m->start && pc < m->end)
			return m->path && !strcmp(m->path, "[vdso]");
	}
	return false;
}

/*
 * The call t is back in after a signal handler returned (or a stop that
 * was no signal's): the innermost one made at this handler depth, whose
 * frame is still on the stack.  Calls made at deeper levels whose handler
 * never returned (a longjmp out) are forgotten.
 */
static struct vdso_call *resumed_call(struct thread *t)
{
	struct ptrace_vdso *v = &t->vdso;
	struct vdso_call *c;

	while (v->depth && v->calls[v->depth - 1].sig_depth > t->sig_depth)
		v->depth--;
	if (!v->depth)
		return NULL;
	c = &v->calls[v->depth - 1];
	/* With the return address in a register the call starts at its end sp (arch_ptrace.h). */
	if (c->sig_depth == t->sig_depth &&
	    (t->prev_sp < c->end_sp || (c->ret_in_reg && t->prev_sp == c->end_sp)))
		return c;
	return NULL;
}

/*
 * Whether t, stepped into the vDSO, came by a call (arch_vdso_call): not
 * where POWER's kernel enters a signal handler through its trampoline.
 */
static bool entered_by_call(struct thread *t, const struct arch_stop_regs *r)
{
	uint8_t code[ARCH_INSN_MAX_LEN];
	ssize_t n = 0;

	if (t->step_from)
		n = pread(t->proc->memfd, code, sizeof(code), (off_t)t->step_from);
	return arch_vdso_call(r, t->step_from, code, n > 0 ? (size_t)n : 0);
}

/* A new call: t is at its entry (regs r), to return to ret. */
static struct vdso_call *new_call(struct thread *t, const struct arch_stop_regs *r, uint64_t ret)
{
	struct ptrace_vdso *v = &t->vdso;
	struct vdso_call *c;

	if (v->depth == VDSO_MAX_CALLS) {
		memmove(v->calls, v->calls + 1, sizeof(v->calls[0]) * (VDSO_MAX_CALLS - 1));
		v->depth--;
	}
	c = &v->calls[v->depth++];
	c->entry = r->pc;
	c->ret = ret;
	c->end_sp = arch_frame_end_sp(r);
	c->ret_in_reg = r->ra != 0;
	c->sig_depth = t->sig_depth;
	return c;
}

/*
 * Whether the vDSO code t is about to run belongs to a call: one it goes
 * on with, or one it enters (*c NULL when that cannot run natively).
 * False for code no call runs (POWER's signal trampoline) and for calls
 * from the vDSO itself.
 */
static bool find_call(struct thread *t, struct vdso_call **c)
{
	struct arch_stop_regs r;
	uint64_t ret;

	*c = resumed_call(t);
	if (*c)
		return true;
	if (arch_read_regs(t->tid, &r) < 0)
		return true;
	if (!entered_by_call(t, &r))
		return false;
	/* The return address: in a register (ppc64's LR), else on the stack. */
	ret = r.ra;
	if (!ret && pread(t->proc->memfd, &ret, sizeof(ret), (off_t)r.sp) != sizeof(ret))
		return true;
	if (!ret || in_vdso(t->proc, ret))
		return false;
	*c = new_call(t, &r, ret);
	return true;
}

bool vdso_begin(struct engine *e, struct thread *t)
{
	struct proc *p = t->proc;
	struct vdso_call *c;

	(void)e;
	if (!in_vdso(p, t->prev_pc) || !find_call(t, &c))
		return false;
	if (!c || ptrace_atomic_run_to(&t->atomic, p->memfd, c->entry, c->ret) < 0) {
		if (!t->vdso.failed_said)
			fprintf(stderr, "pitrace: the vDSO code at %#llx cannot run natively: "
					"it is single-stepped\n",
				(unsigned long long)t->prev_pc);
		t->vdso.failed_said = true;
		return false;
	}
	p->atomic_runs = true;	/* other threads may run into its breakpoint */
	t->vdso.native = true;
	return true;
}

bool vdso_stopped(struct engine *e, struct thread *t, int sig, int event)
{
	struct ptrace_vdso *v = &t->vdso;
	struct vdso_call *c = &v->calls[v->depth - 1];
	struct arch_stop_regs r;
	struct tw_stream *s;
	bool returned;

	v->native = false;
	ptrace_atomic_cancel(&t->atomic, t->proc->memfd);
	if (arch_read_regs(t->tid, &r) < 0)
		r.pc = r.sp = 0;
	returned = !event && sig == SIGTRAP && r.pc - arch_breakpoint_pc_adjust == c->ret;
	if (returned) {
		r.pc = c->ret;
		arch_set_pc(t->tid, r.pc);	/* before the breakpoint, taken out */
	}
	s = pte_stream_of(e, t);
	if (s)
		tw_native(s, PT_NATIVE_VDSO, c->entry, r.pc, returned ? PT_NATIVE_RETURNED : 0, 0);
	if (returned)
		v->depth--;
	else
		c->entry = r.pc;	/* it goes on from here */
	t->prev_pc = r.pc;
	t->prev_sp = r.sp;
	return returned;
}
