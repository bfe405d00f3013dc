// SPDX-License-Identifier: GPL-2.0
/* The call-flow engine's inference rules: what each step did to its thread's stack. */
#include <inttypes.h>
#include <string.h>

#include "util/cf_internal.h"

static void push_root(struct callflow *cf, struct cf_thread *t, const struct cf_site *site,
		      const struct trace_event *ev)
{
	struct push_args a = {
		.fn = site->fn, .caller_fn = CF_NO_FN, .from_fn = CF_NO_FN, .kind = CF_ENTRY_ROOT,
		.ring = ev->ring,
		.index = ev->index, .time = ev->time_ns,
	};

	cf_push(cf, t, &a);
}

/*
 * Recording switched on at a function's first instruction (--on SYMBOL's
 * breakpoint): the transfer there was not recorded, but entering a
 * function at its entry is a call.  Each activation is one call from the
 * root, so calls, Base and Cum are per activation.
 */
static void push_switched_on(struct callflow *cf, struct cf_thread *t, const struct cf_site *site,
			     const struct trace_event *ev)
{
	struct push_args a = {
		.fn = site->fn, .caller_fn = CF_NO_FN, .from_fn = CF_NO_FN, .kind = CF_ENTRY_CALL,
		.ring = ev->ring, .index = ev->index, .time = ev->time_ns,
	};

	cf_push(cf, t, &a);
}

/* Does a jump by from_insn into site go back to where the top frame was jumped to from? */
static bool jumps_back(struct cf_thread *t, const struct cf_site *site,
		       const struct arch_insn *from_insn)
{
	const struct cf_frame *f = top(t);

	if (f->from_fn != site->fn)
		return false;
	if (f->kind == CF_ENTRY_JUMP)
		return true;
	/* entered at its first instruction: only a direct jump goes back (not longjmp's) */
	return f->kind == CF_ENTRY_TAIL && from_insn && (from_insn->flags & ARCH_INSN_HAS_TARGET) &&
	       (from_insn->cls == ARCH_INSN_JUMP || from_insn->cls == ARCH_INSN_COND);
}

/*
 * Is part gcc's cold part of fn ("fn.cold", "fn.cold.N", in the same
 * module): code of fn's activations that gcc placed apart.
 */
static bool cold_part_of(const struct callflow *cf, uint32_t part, uint32_t fn)
{
	const struct cf_func *p = cf_func(cf, part), *f = cf_func(cf, fn);
	size_t n = strlen(f->name);
	const char *s;

	if (strncmp(p->name, f->name, n) || strncmp(p->name + n, ".cold", 5) ||
	    strcmp(p->module_path ? p->module_path : "", f->module_path ? f->module_path : ""))
		return false;
	s = p->name + n + 5;
	if (*s == '.' && s[1])
		for (s++; *s >= '0' && *s <= '9'; s++)
			;
	return !*s;
}

/*
 * A direct jump from f into its cold part (gcc, before a throw or an
 * abort): the same activation of f goes on in its cold code, as a frame
 * of the cold part above f's, which a jump back into f's body ends and a
 * return returns from with f.  Into its first instruction it is a call,
 * as callgrind counts it; into its middle a jump (no call).
 */
static void enter_cold(struct callflow *cf, struct cf_thread *t, const struct cf_site *site,
		       uint64_t from_pc, const struct trace_event *ev)
{
	struct cf_frame *f = top(t);
	struct push_args a = {
		.fn = site->fn, .caller_fn = f->fn, .from_fn = f->fn,
		.kind = site->entry ? CF_ENTRY_CALL : CF_ENTRY_JUMP,
		.ring = f->ring, .call_site = from_pc, .index = ev->index, .time = ev->time_ns,
		.cold = true,
	};

	cf_push(cf, t, &a);
}

static inline bool direct_jump(const struct arch_insn *in)
{
	return in && (in->flags & ARCH_INSN_HAS_TARGET) &&
	       (in->cls == ARCH_INSN_JUMP || in->cls == ARCH_INSN_COND);
}

/* Execution went on in another function without a call or return (by from_insn, or NULL). */
void cf_cross_into(struct callflow *cf, struct cf_thread *t, const struct cf_site *site,
		   uint64_t from_pc, const struct arch_insn *from_insn,
		   const struct trace_event *ev)
{
	int32_t k;

	if (!site->anon && direct_jump(from_insn)) {
		const struct cf_frame *f = top(t);

		if (f->cold && !site->entry && t->depth > 1 &&
		    t->frames[t->depth - 2].fn == site->fn) {
			cf_pop(cf, t, CF_END_RETURN);	/* back in its function's body */
			return;
		}
		if (f->fn != site->fn && cold_part_of(cf, site->fn, f->fn)) {
			enter_cold(cf, t, site, from_pc, ev);
			return;
		}
	}
	if (site->entry) {
		cf_replace(cf, t, site, CF_ENTRY_TAIL, from_pc, ev);
		return;
	}
	/*
	 * longjmp, exception landing pads: back into a frame further down.  But
	 * a direct jump back into the function this frame was jumped to from
	 * continues that activation: gcc's f.cold parts are entered by a jump
	 * to their first instruction (a tail call to the engine) or into their
	 * middle, and jump back into f's body while outer activations of a
	 * recursive f are still on the stack (longjmp's jump is indirect).
	 */
	k = site->anon || jumps_back(t, site, from_insn) ? -1 : cf_find_fn_below(t, site->fn);
	if (k >= 0)
		cf_unwind_to(cf, t, (uint32_t)k);
	else
		cf_replace(cf, t, site, CF_ENTRY_JUMP, from_pc, ev);
}

static void push_async(struct callflow *cf, struct cf_thread *t, const struct cf_site *prev,
		       uint64_t prev_pc, const struct cf_site *site, const struct trace_event *ev)
{
	struct cf_frame *f = top(t);
	struct push_args a = {
		.fn = site->fn, .caller_fn = f ? f->fn : CF_NO_FN, .kind = CF_ENTRY_ASYNC,
		.ring = ev->ring, .index = ev->index, .time = ev->time_ns, .resumes = true,
		/* an ASYNC record or a change of ring says what it was */
		.unexplained = !t->async_pending && ev->ring == t->ring,
	};
	unsigned cls = prev ? prev->insn.cls : ARCH_INSN_INVALID;

	if (a.unexplained && f && t->unexplained >= CF_MAX_UNEXPLAINED) {
		/* a damaged trace, most likely: bounded, taken as a jump */
		cf->stats.unexplained_capped++;
		cf->stats.unexplained_capped_user += ev->ring == 0;
		if (f->fn != site->fn)
			cf_replace(cf, t, site, CF_ENTRY_JUMP, prev ? prev_pc : 0, ev);
		return;
	}
	cf->stats.unexplained += a.unexplained;
	/* Where the interrupted frame resumes: what would have run next. */
	if (prev)
		a.resume_from = prev_pc;
	if (prev && prev->insn.len) {
		a.ret_addr = prev_pc + prev->insn.len;
		if ((prev->insn.flags & ARCH_INSN_HAS_TARGET) &&
		    (cls == ARCH_INSN_CALL || cls == ARCH_INSN_JUMP))
			a.ret_addr = prev->insn.target;
		else if ((prev->insn.flags & ARCH_INSN_HAS_TARGET) && cls == ARCH_INSN_COND)
			a.alt_ret = prev->insn.target;
		else if (prev->insn.flags & ARCH_INSN_REP)
			a.alt_ret = prev_pc;
	}
	cf->stats.async++;
	cf_emit_mark(cf, t, CF_MARK_ASYNC, ev->index);
	cf_push(cf, t, &a);
}

static void transition(struct callflow *cf, struct cf_thread *t, const struct cf_site *prev,
		       uint64_t prev_pc, uint64_t pc, const struct cf_site *site,
		       const struct trace_event *ev);

/*
 * The asynchronous frame k ends (sigreturn) and the frame below resumes at
 * pc.  The interrupted instruction's own transfer (a call whose callee had
 * not started yet, a return) happens only now: apply it.
 */
static void resume(struct callflow *cf, struct cf_thread *t, int32_t k, uint64_t pc,
		   const struct cf_site *site, const struct trace_event *ev)
{
	uint64_t from = t->frames[k].resume_from;
	uint8_t ring = k > 0 ? t->frames[k - 1].ring : t->frames[k].ring;

	cf_return_from(cf, t, k);
	t->async_pending = t->sigreturn_pending = false;
	if (!t->depth) {
		push_root(cf, t, site, ev);
	} else if (from) {
		struct cf_site prev;

		memset(&prev, 0, sizeof(prev));
		cf->src.site(cf->src.ctx, cf, t->pid, from, ring, &prev);
		cf->in_resume = true;
		transition(cf, t, &prev, from, pc, site, ev);
		cf->in_resume = false;
	} else if (top(t)->fn != site->fn) {
		cf_cross_into(cf, t, site, 0, NULL, ev);
	}
}

/*
 * A transfer no instruction explains: either a return from an asynchronous
 * entry (sigreturn) to the frame it interrupted, or a new asynchronous entry.
 */
static void unexplained(struct callflow *cf, struct cf_thread *t, const struct cf_site *prev,
			uint64_t prev_pc, uint64_t pc, const struct cf_site *site,
			const struct trace_event *ev)
{
	int32_t k = cf_find_return(t, pc, true);

	/*
	 * Resuming applies the interrupted instruction's own transfer, which
	 * explains pc unless the code there changed meanwhile: then pc is a new
	 * asynchronous entry, not a resumption of the next frame down (which
	 * would recurse once per frame).
	 */
	if (cf->in_resume) {
		push_async(cf, t, prev, prev_pc, site, ev);
		return;
	}
	if (k >= 0 && !(t->async_pending && !t->sigreturn_pending)) {
		resume(cf, t, k, pc, site, ev);
		return;
	}
	/*
	 * After a system call with no record: a sigreturn to an address we could
	 * not predict, ending the innermost handler.  But a signal record pending
	 * says a handler is entered at the call's exit (raise() in a handler):
	 * the handler below it is interrupted, not ended.
	 */
	if (t->sigreturn_pending ||
	    (!t->async_pending && prev && prev->insn.cls == ARCH_INSN_SYSCALL)) {
		k = t->top_resuming;
		if (k >= 1) {
			resume(cf, t, k, pc, site, ev);
			return;
		}
	}
	push_async(cf, t, prev, prev_pc, site, ev);
}

/* Steps are missing before this one: place it as well as the stack allows. */
static void after_gap(struct callflow *cf, struct cf_thread *t, uint64_t pc,
		      const struct cf_site *site, const struct trace_event *ev)
{
	int32_t k;

	if (top(t)->fn == site->fn)
		return;
	k = cf_find_return(t, pc, false);
	if (k >= 0) {
		cf_return_from(cf, t, k);
		if (top(t) && top(t)->fn != site->fn)
			cf_replace(cf, t, site, CF_ENTRY_JUMP, 0, ev);
		return;
	}
	k = site->anon ? -1 : cf_find_fn_below(t, site->fn);
	if (k >= 0)
		cf_unwind_to(cf, t, (uint32_t)k);
	else
		cf_replace(cf, t, site, CF_ENTRY_JUMP, 0, ev);
}

static void after_return(struct callflow *cf, struct cf_thread *t, uint64_t prev_pc, uint64_t pc,
			 const struct cf_site *site, const struct trace_event *ev)
{
	int32_t k = cf_find_return(t, pc, false);

	if (k >= 0) {
		cf_return_from(cf, t, k);
		if (!t->depth)
			push_root(cf, t, site, ev);
		else if (top(t)->fn != site->fn)
			cf_replace(cf, t, site, CF_ENTRY_JUMP, prev_pc, ev);
		return;
	}
	/* Exception unwinding returns into a landing pad of a frame further down. */
	k = site->anon ? -1 : cf_find_fn_below(t, site->fn);
	if (k >= 0) {
		cf_unwind_to(cf, t, (uint32_t)k);
		return;
	}
	if (RESUMES(top(t)) && t->depth > 1) {
		/* a signal handler returning into the restorer, which will sigreturn */
		cf_replace(cf, t, site, CF_ENTRY_JUMP, prev_pc, ev);
		return;
	}
	if (t->depth == 1) {
		cf_adopt_caller(cf, t, site, pc, ev);
		return;
	}
	cf->stats.unmatched++;
	pr_dbg2("step %" PRIu64 ": return from %s to %s at %#" PRIx64 " matches no frame",
		ev->index, cf_func(cf, top(t)->fn)->name, cf_func(cf, site->fn)->name, pc);
	cf_emit_mark(cf, t, CF_MARK_UNMATCHED, ev->index);
	cf_replace(cf, t, site, CF_ENTRY_JUMP, prev_pc, ev);
}

/* Apply the transfer from the instruction prev (at prev_pc) to the step at pc. */
static void transition(struct callflow *cf, struct cf_thread *t, const struct cf_site *prev,
		       uint64_t prev_pc, uint64_t pc, const struct cf_site *site,
		       const struct trace_event *ev)
{
	const struct arch_insn *in = &prev->insn;
	uint64_t fall = prev_pc + in->len;
	bool direct = in->flags & ARCH_INSN_HAS_TARGET;
	bool expected;

	if (t->async_pending) {
		unexplained(cf, t, prev, prev_pc, pc, site, ev);
		return;
	}
	/* A conditional call, return or indirect jump (ppc64 beqlr) that was not taken. */
	if ((in->flags & ARCH_INSN_CONDITIONAL) && pc == fall && !(direct && in->target == fall)) {
		if (top(t)->fn != site->fn)
			cf_cross_into(cf, t, site, prev_pc, in, ev);
		return;
	}
	switch (in->cls) {
	case ARCH_INSN_CALL:
		if (direct && pc != in->target) {
			unexplained(cf, t, prev, prev_pc, pc, site, ev);
		} else {
			struct push_args a = {
				.fn = site->fn, .caller_fn = top(t)->fn, .kind = CF_ENTRY_CALL,
				.ring = ev->ring, .ret_addr = fall, .call_site = prev_pc,
				.index = ev->index, .time = ev->time_ns,
			};

			cf_push(cf, t, &a);
		}
		return;
	case ARCH_INSN_RET:
		after_return(cf, t, prev_pc, pc, site, ev);
		return;
	case ARCH_INSN_INVALID:
		/* Bytes unknown: an entry is most likely a call, else guess as after a gap. */
		if (site->entry && top(t)->fn != site->fn) {
			struct push_args a = {
				.fn = site->fn, .caller_fn = top(t)->fn, .kind = CF_ENTRY_CALL,
				.ring = ev->ring, .call_site = prev_pc,
				.index = ev->index, .time = ev->time_ns,
			};

			cf_push(cf, t, &a);
		} else {
			after_gap(cf, t, pc, site, ev);
		}
		return;
	case ARCH_INSN_JUMP:
		expected = direct ? pc == in->target : true;
		break;
	case ARCH_INSN_COND:
		expected = pc == fall || (direct && pc == in->target);
		break;
	default:
		expected = pc == fall;
		break;
	}
	if (!expected && (in->flags & ARCH_INSN_REP) && pc == prev_pc)
		expected = true;	/* another iteration of a rep string instruction */
	if (!expected)
		unexplained(cf, t, prev, prev_pc, pc, site, ev);
	else if (crosses(t, site, prev_pc, in, pc))
		cf_cross_into(cf, t, site, prev_pc, in, ev);
}

/* A step of thread t (the thread of ev). */
void cf_thread_step(struct callflow *cf, struct cf_thread *t, const struct trace_event *ev)
{
	struct cf_site *site = &t->sites[t->last_slot ^ 1];
	const struct cf_site *last_site = &t->sites[t->last_slot];
	struct cf_step s;

	memset(site, 0, sizeof(*site));
	cf->in_step = true;
	cf->cur_index = ev->index;
	cf->src.site(cf->src.ctx, cf, ev->pid, ev->pc, ev->ring, site);
	if (cf->cur != t) {
		if (cf->cur)
			cf_emit_mark(cf, t, CF_MARK_SWITCH, ev->index);
		cf->cur = t;
	}
	if (!t->depth || !t->have_last) {
		cf_flush_thread(cf, t);
		if (t->switched_on && site->entry)
			push_switched_on(cf, t, site, ev);
		else
			push_root(cf, t, site, ev);
	} else if (ev->ring > t->ring) {
		/* Into the kernel: a system call nests under its site; anything else is async. */
		if (last_site->insn.cls == ARCH_INSN_SYSCALL && !t->async_pending) {
			struct push_args a = {
				.fn = site->fn, .caller_fn = top(t)->fn, .kind = CF_ENTRY_KERNEL,
				.ring = ev->ring, .ret_addr = t->last_pc + last_site->insn.len,
				.call_site = t->last_pc, .index = ev->index, .time = ev->time_ns,
				.resumes = true,
			};

			cf_push(cf, t, &a);
		} else {
			push_async(cf, t, last_site, t->last_pc, site, ev);
		}
	} else if (ev->ring < t->ring) {
		/* Back to user space: the kernel frames end, then user code goes on
		 * from its last instruction (a signal delivery shows up as async). */
		while (t->depth > 1 && top(t)->ring > ev->ring)
			cf_pop(cf, t, CF_END_RETURN);
		if (top(t)->ring > ev->ring) {
			cf_flush_thread(cf, t);
			push_root(cf, t, site, ev);
		} else if (t->have_last_user) {
			transition(cf, t, &t->last_user_site, t->last_user_pc, ev->pc, site, ev);
		} else {
			after_gap(cf, t, ev->pc, site, ev);
		}
	} else if (t->gap) {
		after_gap(cf, t, ev->pc, site, ev);
	} else if (expected_flow(t, &last_site->insn, t->last_pc, ev->pc)) {
		if (crosses(t, site, t->last_pc, &last_site->insn, ev->pc))
			cf_cross_into(cf, t, site, t->last_pc, &last_site->insn, ev);
	} else {
		transition(cf, t, last_site, t->last_pc, ev->pc, site, ev);
	}
	t->gap = t->async_pending = t->sigreturn_pending = t->switched_on = false;
	t->native_gap = false;
	if (cf->counting && !cf->in_native) {
		top(t)->self++;
		t->steps++;
		cf->stats.steps++;
		cf->stats.steps_single++;
		s.pc = ev->pc;
		s.index = ev->index;
		s.time_ns = ev->time_ns;
		s.ring = ev->ring;
		s.site = site;
		s.fn = site->fn;
		if (top(t)->hidden)	/* a folded stub's step counts for the frame below */
			s.fn = t->frames[cf_shown_below(t, (int32_t)t->depth - 1)].fn;
		for (int c = 0; c < cf->nr_cons; c++)
			if (cf->cons[c].ops->step)
				cf->cons[c].ops->step(cf->cons[c].ctx, t, &s);
	}
	/*
	 * The last user step is read only while the thread is in the kernel:
	 * while it stays in user space it is the last step, kept once when it
	 * leaves (no second copy of the site every step).
	 */
	if (ev->ring != 0 && t->ring == 0) {
		t->have_last_user = t->have_last;
		t->last_user_pc = t->last_pc;
		t->last_user_site = *last_site;
	}
	t->last_pc = ev->pc;
	t->last_slot ^= 1;
	t->last_time = ev->time_ns;
	t->last_index = ev->index;
	t->have_last = true;
	cf->in_step = false;
	t->ring = ev->ring;
}
