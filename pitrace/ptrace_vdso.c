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
#include "log.h"
#include "ptrace_int.h"
#include "trace_writer.h"

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

	while (v->depth && v->calls[v->depth - 1].sig_depth > t->sig_depth)
		v->depth--;
	if (!v->depth)
		return NULL;
	if (v->calls[v->depth - 1].sig_depth == t->sig_depth &&
	    t->prev_sp < v->calls[v->depth - 1].end_sp)
		return &v->calls[v->depth - 1];
	return NULL;
}

/* A new call: t is at its entry, the return address on the stack or in a register. */
static struct vdso_call *new_call(struct thread *t)
{
	struct ptrace_vdso *v = &t->vdso;
	struct arch_stop_regs r;
	struct vdso_call *c;
	uint64_t ret = 0;

	if (arch_read_regs(t->tid, &r) < 0)
		return NULL;
	ret = r.ra;
	if (!ret && pread(t->proc->memfd, &ret, sizeof(ret), (off_t)r.sp) != sizeof(ret))
		return NULL;
	if (!ret || in_vdso(t->proc, ret))
		return NULL;	/* called from the vDSO itself: not an entry */
	if (v->depth == VDSO_MAX_CALLS) {
		memmove(v->calls, v->calls + 1, sizeof(v->calls[0]) * (VDSO_MAX_CALLS - 1));
		v->depth--;
	}
	c = &v->calls[v->depth++];
	c->entry = r.pc;
	c->ret = ret;
	c->end_sp = arch_frame_end_sp(&r);
	c->sig_depth = t->sig_depth;
	return c;
}

bool vdso_begin(struct engine *e, struct thread *t)
{
	struct proc *p = t->proc;
	struct vdso_call *c;

	(void)e;
	if (!arch_vdso_native || !in_vdso(p, t->prev_pc))
		return false;
	c = resumed_call(t);
	if (!c)
		c = new_call(t);
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
