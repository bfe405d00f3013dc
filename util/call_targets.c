// SPDX-License-Identifier: GPL-2.0
/* Where a trace's calls land, for cutting code without symbols into functions (call_targets.h). */
#define PR_FMT "symbols"
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "arch/arch_decode.h"
#include "util/call_targets.h"
#include "util/log.h"
#include "util/row_index.h"

/*
 * What the pass needs of an instruction, per (process, address): direct
 * mapped, as the restorer's (a program's hot code is a few thousand
 * addresses; a miss costs one decode).
 */
#define CT_CACHE (1u << 13)

enum {
	CT_USED = 1 << 0,
	CT_CALL = 1 << 1,	  /* a call instruction */
	CT_DIRECT = 1 << 2,	  /* with its target in the instruction */
	CT_CONDITIONAL = 1 << 3,  /* that may fall through instead (ppc64 bcl) */
	CT_NOTED = 1 << 4,	  /* this address was noted as a call's target */
};

struct ct_insn {
	uint64_t pc, target;
	uint32_t pid;
	uint8_t len, flags;
};

/* A thread's last user step: a call, when its next step is where the call went. */
struct ct_thread {
	uint32_t tid;
	struct ct_insn last;	  /* flags 0: not a call, or not followed by its target */
};

struct ct_pass {
	struct sym_session *sym;  /* a fork of the report's: its own address spaces */
	struct arch_decoder *dec;
	struct ct_insn *cache;
	struct ct_thread *threads;
	size_t nr_threads, cap_threads;
	struct row_index by_tid;
	bool oom;
};

/* Code is mostly straight: consecutive addresses, consecutive slots. */
static size_t cache_slot(uint32_t pid, uint64_t pc)
{
	return (size_t)(pc ^ (pc >> 13) ^ pid) & (CT_CACHE - 1);
}

static struct ct_insn *insn_at(struct ct_pass *p, uint32_t pid, uint64_t pc)
{
	struct ct_insn *e = &p->cache[cache_slot(pid, pc)];
	uint8_t code[ARCH_INSN_MAX_LEN];
	struct arch_insn in;
	size_t n;

	if (e->pc == pc && e->pid == pid && e->flags)
		return e;
	memset(e, 0, sizeof(*e));
	e->pc = pc;
	e->pid = pid;
	e->flags = CT_USED;
	n = sym_read_code(p->sym, pid, pc, code, sizeof(code));
	if (!n || arch_decode(p->dec, code, n, pc, &in) || in.cls != ARCH_INSN_CALL)
		return e;
	e->len = in.len;
	e->target = in.target;
	e->flags |= CT_CALL | (in.flags & ARCH_INSN_HAS_TARGET ? CT_DIRECT : 0) |
		    (in.flags & ARCH_INSN_CONDITIONAL ? CT_CONDITIONAL : 0);
	return e;
}

/*
 * Did the call at c go to pc?  As the call-flow engine decides (callflow.c,
 * transition): not when a conditional one fell through, nor when pc is not
 * a direct one's target.
 */
static bool went_to(const struct ct_insn *c, uint64_t pc)
{
	uint64_t fall = c->pc + c->len;
	bool direct = c->flags & CT_DIRECT;

	if (!(c->flags & CT_CALL))
		return false;
	if ((c->flags & CT_CONDITIONAL) && pc == fall && !(direct && c->target == fall))
		return false;
	return !direct || pc == c->target;
}

static bool tid_eq(const void *ctx, uint32_t row)
{
	const struct ct_pass *p = ctx;

	return p->threads[row].tid == p->threads[p->nr_threads].tid;
}

static uint64_t tid_hash(const void *ctx, uint32_t row)
{
	return row_index_hash(((const struct ct_pass *)ctx)->threads[row].tid);
}

static struct ct_thread *thread_of(struct ct_pass *p, uint32_t tid)
{
	static const struct row_index_ops ops = { tid_eq, tid_hash };
	uint32_t *slot;

	if (p->nr_threads + 1 >= p->cap_threads) {
		size_t ncap = p->cap_threads ? 2 * p->cap_threads : 64;
		struct ct_thread *n = reallocarray(p->threads, ncap, sizeof(*n));

		if (!n)
			return NULL;
		p->threads = n;
		p->cap_threads = ncap;
	}
	/* the key looked for sits in the row after the last */
	p->threads[p->nr_threads] = (struct ct_thread){ .tid = tid };
	slot = row_index_find(&p->by_tid, p->nr_threads, row_index_hash(tid), &ops, p);
	if (!slot)
		return NULL;
	if (!*slot)
		*slot = (uint32_t)++p->nr_threads;
	return &p->threads[*slot - 1];
}

/* A run of one thread's user steps. */
static void user_steps(struct ct_pass *p, const struct trace_event *ev, const uint64_t *pcs,
		       size_t n)
{
	struct ct_thread *t = thread_of(p, ev->tid);
	struct ct_insn last;

	if (!t) {
		p->oom = true;
		return;
	}
	last = t->last;
	for (size_t k = 0; k < n; k++) {
		struct ct_insn *e = insn_at(p, ev->pid, pcs[k]);

		if (went_to(&last, pcs[k]) && !(e->flags & CT_NOTED)) {
			e->flags |= CT_NOTED;
			if (!sym_note_call_target(p->sym, ev->pid, pcs[k]))
				p->oom = true;
		}
		last = *e;
	}
	t->last = last;
}

/* The thread's next step is not where its last one would go: it was interrupted, or lost. */
static void thread_break(struct ct_pass *p, uint32_t tid)
{
	struct ct_thread *t = thread_of(p, tid);

	if (t)
		t->last.flags = 0;
}

static void event(struct ct_pass *p, const struct trace_event *ev)
{
	const struct trace_task_rec *rec = ev->task;

	switch (ev->kind) {
	case TEV_TASK:
		sym_task_event(p->sym, rec);
		if (rec->type == PT_TASK_EXEC || rec->type == PT_TASK_MUNMAP ||
		    (rec->type == PT_TASK_MMAP && (rec->mmap.prot & PROT_EXEC)))
			memset(p->cache, 0, CT_CACHE * sizeof(*p->cache));
		thread_break(p, rec->c.tid);
		break;
	case TEV_ASYNC:
		if (!pt_async_is_info(ev->a))
			thread_break(p, ev->tid);
		break;
	case TEV_SWITCH:
		break;
	default:
		thread_break(p, ev->tid);
		break;
	}
}

int call_targets_find(struct sym_session *sym, struct trace_iter *it)
{
	struct ct_pass p = { .sym = sym_session_fork(sym) };
	struct trace_event ev;
	const uint64_t *pcs;
	size_t n;
	int r = -1;

	p.dec = arch_decoder_new();
	p.cache = calloc(CT_CACHE, sizeof(*p.cache));
	if (!p.sym || !p.dec || !p.cache)
		goto out;
	while (!p.oom && (r = trace_next_run(it, &ev, &pcs, &n)) == 1) {
		if (ev.kind != TEV_STEP)
			event(&p, &ev);
		else if (!ev.ring)
			user_steps(&p, &ev, pcs, n);
	}
	/* Damage ends the pass where it ends the report's pass (which says
	 * so): the targets before it count. */
	r = p.oom ? -1 : 0;
	if (r == 0)
		sym_split_at_call_targets(sym);
out:
	row_index_free(&p.by_tid);
	free(p.threads);
	free(p.cache);
	arch_decoder_free(p.dec);
	sym_session_free(p.sym);
	return r;
}
