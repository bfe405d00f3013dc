// SPDX-License-Identifier: GPL-2.0
/* libpitrace's trace reader: a report session whose consumer is the caller's callbacks. */
#include <stdlib.h>
#include <string.h>

#include <pitrace/reader.h>

#include "util/alloc.h"
#include "util/arcs.h"
#include "util/cf_sites.h"
#include "util/counts.h"
#include "util/log.h"
#include "util/session.h"

/* The frames a replay may stack above its caller, plus that caller. */
#define READER_REPLAY_FNS (CF_REPLAY_DEPTH_MAX + 1)

/* A site's instruction bytes, as a step pass tells them (reader.step_code). */
struct site_code {
	uint8_t known;		  /* filled from the site cache */
	uint8_t nr_bytes;
	uint8_t bytes[PTR_INSN_MAX_LEN];
};

/* A session's filter and the strings it points to: they live as long as it. */
struct pass_filter {
	struct session_filter f;
	char *module, *symbol;
};

static void pass_filter_free(struct pass_filter *pf)
{
	free(pf->module);
	free(pf->symbol);
	pf->module = pf->symbol = NULL;
}

struct ptr_reader {
	struct session_source src;
	char *dir, *symfs, *buildid_dir, *debug_dir, *vmlinux;
	struct session *s;	  /* the last pass's (or ptr_open's: fresh) */
	bool fresh;		  /* s has run no pass, has no filter and took no task record */
	bool in_pass;
	bool have_stats;	  /* stats: the last finished pass's, kept while another runs */
	/* the pass in progress */
	struct ptr_callbacks cb;
	void *ctx;
	int stop;		  /* what a callback returned to stop the pass */
	struct callflow *cf;
	bool fn_filter;		  /* module, symbol or ring given */
	struct pass_filter pf;	  /* s's filter */
	struct session_pass_stats pass;
	struct ptr_pass_stats stats;
	uint32_t replay_fn[READER_REPLAY_FNS]; /* a replay's frames' functions by depth */
	struct site_code *code;	  /* the pass's sites' bytes by site id */
	size_t nr_code;
	struct site_code code_no_id; /* a site without an id: filled each time */
	char text[64];		  /* ptr_resolve's disassembly */
	const char *count_cols[COUNTS_MAX_COLS + 1]; /* the counts table's column names */
	char *argv_empty[1];
};

uint32_t ptr_version(void)
{
	return PTR_VERSION_CURRENT;
}

const char *ptr_strerror(int err)
{
	switch (err) {
	case 0:
		return "success";
	case PTR_ERR_RUNTIME:
		return "the trace or its symbols could not be read";
	case PTR_ERR_USAGE:
		return "invalid argument";
	case PTR_ERR_VERSION:
		return "a struct's size is not one this library knows";
	case PTR_ERR_STATE:
		return "not possible now";
	default:
		return "unknown error";
	}
}

/*
 * A struct the caller passed in, copied into ours: its fields up to its
 * size (an older caller's), never past ours (a newer caller's extra
 * fields are ones this library does not know).  false: too short to hold
 * even its size.
 */
static bool copy_in(void *dst, size_t dst_size, const void *src)
{
	uint32_t size = *(const uint32_t *)src;

	memset(dst, 0, dst_size);
	if (size < sizeof(uint32_t))
		return false;
	memcpy(dst, src, size < dst_size ? size : dst_size);
	*(uint32_t *)dst = (uint32_t)dst_size;
	return true;
}

static char *dup_or_null(const char *s)
{
	return s ? strdup(s) : NULL;
}

static void reader_free(struct ptr_reader *r)
{
	session_close(r->s);
	free(r->dir);
	free(r->symfs);
	free(r->buildid_dir);
	free(r->debug_dir);
	free(r->vmlinux);
	pass_filter_free(&r->pf);
	free(r->code);
	free(r);
}

/*
 * A session of the trace for filter f ("reader" in its progress lines), in
 * place of the last one; that one stays when this cannot be opened (a bad
 * pattern), so that the reader still answers about the last pass.
 */
static int reader_session(struct ptr_reader *r, struct pass_filter *pf)
{
	struct session *s;
	int st;

	st = session_open(&s, &r->src, &pf->f, SESSION_WINDOW_COUNTS, "reader");
	if (st) {
		pass_filter_free(pf);
		return st == EXIT_USAGE ? PTR_ERR_USAGE : PTR_ERR_RUNTIME;
	}
	session_close(r->s);
	pass_filter_free(&r->pf);
	r->s = s;
	r->pf = *pf;
	r->cf = NULL;
	r->fresh = false;
	return 0;
}

struct ptr_reader *ptr_open(const char *dir, const struct ptr_open_options *opts, int *err)
{
	struct pass_filter none = { .f = SESSION_FILTER_INIT };
	struct ptr_open_options o;
	struct ptr_reader *r;
	int e = PTR_ERR_USAGE;

	if (!dir || (opts && !copy_in(&o, sizeof(o), opts)))
		goto fail;
	if (!opts)
		memset(&o, 0, sizeof(o));
	e = PTR_ERR_RUNTIME;
	r = calloc(1, sizeof(*r));
	if (!r)
		goto fail;
	r->dir = strdup(dir);
	r->symfs = dup_or_null(o.symfs);
	r->buildid_dir = dup_or_null(o.buildid_dir);
	r->debug_dir = dup_or_null(o.debug_dir);
	r->vmlinux = dup_or_null(o.vmlinux);
	if (!r->dir || (o.symfs && !r->symfs) || (o.buildid_dir && !r->buildid_dir) ||
	    (o.debug_dir && !r->debug_dir) || (o.vmlinux && !r->vmlinux)) {
		reader_free(r);
		goto fail;
	}
	r->src.input = r->dir;
	r->src.force = o.flags & PTR_OPEN_FORCE;
	r->src.no_demangle = o.flags & PTR_OPEN_NO_DEMANGLE;
	r->src.keep_stubs = o.flags & PTR_OPEN_KEEP_STUBS;
	r->src.follow = o.flags & PTR_OPEN_FOLLOW;
	r->src.symfs = r->symfs;
	r->src.buildid_dir = r->buildid_dir;
	r->src.debug_dir = r->debug_dir;
	r->src.vmlinux = r->vmlinux;
	r->src.threads = o.threads;
	r->src.pass_stats = &r->pass;
	e = reader_session(r, &none);
	if (e < 0) {
		reader_free(r);
		goto fail;
	}
	r->fresh = true;
	if (err)
		*err = 0;
	return r;
fail:
	if (err)
		*err = e;
	return NULL;
}

void ptr_close(struct ptr_reader *r)
{
	if (r && !r->in_pass)
		reader_free(r);
}

int ptr_get_trace_info(struct ptr_reader *r, struct ptr_trace_info *out)
{
	const struct trace_info *in;
	struct ptr_trace_info i = { .size = sizeof(i) };
	bool with_counted;
	uint32_t size;

	if (!r || !out)
		return PTR_ERR_USAGE;
	size = out->size;
	if (size < sizeof(uint32_t))
		return PTR_ERR_VERSION;
	in = trace_info(session_trace(r->s));
	i.format_version = in->version;
	i.arch = in->arch;
	i.backend = in->backend;
	i.mode = in->mode;
	i.state = in->state;
	i.argv = (const char *const *)(in->argv ? in->argv : r->argv_empty);
	i.start_ns = in->start.monotonic_ns;
	if (trace_totals(session_trace(r->s), &with_counted))
		i.steps = in->totals.steps;
	memcpy(out, &i, size < sizeof(i) ? size : sizeof(i));
	out->size = size < sizeof(i) ? size : sizeof(i);
	return 0;
}

void ptr_filter_init(struct ptr_filter *f)
{
	memset(f, 0, sizeof(*f));
	f->size = sizeof(*f);
	f->to = UINT64_MAX;
	f->time_to = UINT64_MAX;
}

/* The session's filter from the caller's (NULL: everything). */
static int pass_filter_make(struct pass_filter *pf, const struct ptr_filter *in)
{
	struct ptr_filter f;

	pf->f = (struct session_filter)SESSION_FILTER_INIT;
	pf->module = pf->symbol = NULL;
	if (!in)
		return 0;
	if (!copy_in(&f, sizeof(f), in))
		return PTR_ERR_VERSION;
	if (f.ring < PTR_RING_ALL || f.ring > PTR_RING_KERNEL)
		return PTR_ERR_USAGE;
	pf->module = dup_or_null(f.module);
	pf->symbol = dup_or_null(f.symbol);
	if ((f.module && !pf->module) || (f.symbol && !pf->symbol)) {
		pass_filter_free(pf);
		return PTR_ERR_RUNTIME;
	}
	pf->f.pid = f.pid;
	pf->f.tid = f.tid;
	pf->f.module = pf->module;
	pf->f.symbol = pf->symbol;
	pf->f.ring = f.ring;	/* enum ptr_ring is enum session_ring */
	pf->f.from = f.from;
	pf->f.to = f.to;
	pf->f.time_from = f.time_from;
	pf->f.time_to = f.time_to;
	return 0;
}

static bool filter_is_empty(const struct session_filter *f)
{
	return !f->pid && !f->tid && !f->module && !f->symbol && !f->ring && !f->from &&
	       f->to == UINT64_MAX && !f->time_from && f->time_to == UINT64_MAX;
}

/* A callback's answer: non-zero stops the pass, and nothing more is told. */
static void answer(struct ptr_reader *r, int v)
{
	if (v && !r->stop) {
		r->stop = v;
		session_stop(r->s);
	}
}

/* ---- the engine's callbacks: calls, returns, steps ---- */

static bool fn_selected(struct ptr_reader *r, uint32_t fn)
{
	return !r->fn_filter || session_fn_selected(r->s, fn);
}

static uint64_t fn_addr(struct ptr_reader *r, uint32_t fn)
{
	return fn == CF_NO_FN ? 0 : cf_func(r->cf, fn)->addr;
}

static void tell_call(struct ptr_reader *r, const struct ptr_call *c)
{
	if (!r->stop && fn_selected(r, c->callee))
		answer(r, r->cb.call(r->ctx, c));
}

static void tell_return(struct ptr_reader *r, const struct ptr_return *ret)
{
	if (!r->stop && fn_selected(r, ret->func))
		answer(r, r->cb.ret(r->ctx, ret));
}

static void on_push(void *ctx, struct cf_thread *t, const struct cf_frame *parent,
		    const struct cf_frame *f)
{
	struct ptr_reader *r = ctx;
	struct ptr_call c = {
		.size = sizeof(c), .pid = t->pid, .tid = t->tid, .depth = cf_shown_depth(t),
		.index = f->entry_index, .time_ns = f->entry_time, .caller = f->caller_fn,
		.callee = f->fn, .pc = f->call_site, .kind = f->kind,
	};

	(void)parent;
	/* outside the window the engine rebuilds the stacks and counts nothing */
	if (!r->cb.call || !cf_counting(r->cf))
		return;
	c.target = c.kind == CF_ENTRY_CALL || c.kind == CF_ENTRY_TAIL ? fn_addr(r, f->fn) : 0;
	tell_call(r, &c);
}

static void on_pop(void *ctx, struct cf_thread *t, const struct cf_frame *parent,
		   const struct cf_frame *f, const struct cf_cost *cost, enum cf_end_kind how)
{
	struct ptr_reader *r = ctx;
	struct ptr_return ret = {
		.size = sizeof(ret), .pid = t->pid, .tid = t->tid, .depth = cf_shown_depth(t) + 1,
		.index = cost->end_index, .time_ns = t->last_time, .func = f->fn,
		.caller = parent ? parent->fn : PTR_NO_FUNC, .base = cost->self,
		.cum = cost->incl, .arc_cum = parent ? cost->arc_cum : cost->fn_cum,
		.fn_cum = cost->fn_cum, .kind = how, .call_kind = f->kind,
	};

	if (r->cb.ret && cf_counting(r->cf))
		tell_return(r, &ret);
}

/* What replay_visit needs: the replay, the thread, the steps it stands for. */
struct replay_walk {
	struct ptr_reader *r;
	struct cf_thread *t;
	const struct cf_replay_frame *fr;
	const struct cf_bulk *b;
	uint32_t depth;		  /* the caller's shown depth */
};

/* One frame of a call taken whole, as on_push() and on_pop() would have told it. */
static void replay_visit(void *ctx, uint32_t k, bool push)
{
	struct replay_walk *w = ctx;
	struct ptr_reader *r = w->r;
	const struct cf_replay_frame *f = &w->fr[k];

	if (push) {
		struct ptr_call c = {
			.size = sizeof(c), .pid = w->t->pid, .tid = w->t->tid,
			.depth = w->depth + f->depth, .index = w->b->first + f->start,
			.time_ns = w->b->time_ns, .caller = f->caller_fn, .callee = f->fn,
			.pc = f->call_site, .kind = f->kind,
		};

		r->replay_fn[f->depth] = f->fn;
		if (r->cb.call) {
			c.target = c.kind == CF_ENTRY_CALL || c.kind == CF_ENTRY_TAIL ?
					   fn_addr(r, f->fn) : 0;
			tell_call(r, &c);
		}
	} else if (r->cb.ret) {
		struct ptr_return ret = {
			.size = sizeof(ret), .pid = w->t->pid, .tid = w->t->tid,
			.depth = w->depth + f->depth, .index = w->b->first + f->cost.end_index,
			.time_ns = w->b->time_ns, .func = f->fn,
			.caller = r->replay_fn[f->depth - 1], .base = f->cost.self,
			.cum = f->cost.incl, .arc_cum = f->cost.arc_cum, .fn_cum = f->cost.fn_cum,
			.kind = f->how, .call_kind = f->kind,
		};

		tell_return(r, &ret);
	}
}

/* A call the engine took whole: its frames told one by one, no step decoded. */
static void on_replay(void *ctx, struct cf_thread *t, const struct cf_replay_frame *fr,
		      uint32_t nr, const struct cf_bulk *before, const struct cf_bulk *b,
		      uint32_t *words)
{
	struct ptr_reader *r = ctx;
	struct replay_walk w = { r, t, fr, b, cf_shown_depth(t) };
	uint32_t top = cf_shown_depth(t);

	(void)before;
	(void)words;
	if (r->stop)
		return;
	r->replay_fn[0] = top ? cf_shown_frame(t, top - 1)->fn : CF_NO_FN;
	cf_replay_walk(fr, nr, replay_visit, &w);
}

static void tell_syscall(struct ptr_reader *r, struct cf_thread *t, const struct cf_step *st)
{
	struct ptr_syscall e = {
		.size = sizeof(e), .pid = t->pid, .tid = t->tid, .cpu = t->cpu,
		.index = st->index, .time_ns = st->time_ns, .pc = st->pc,
	};

	if (!r->stop)
		answer(r, r->cb.syscall(r->ctx, &e));
}

/*
 * The bytes of step st's instruction.  The site cache has them, but a
 * lookup there between two of the engine's own breaks the cache's guess
 * of the next site, costing the engine and the reader a hash probe a
 * step; so they are copied once per site, indexed by its id.
 */
static const struct site_code *step_code(struct ptr_reader *r, struct cf_thread *t,
					 const struct cf_step *st)
{
	uint32_t id = st->site->id;
	const struct cf_site_info *in;
	struct site_code *c;

	if (id < r->nr_code && r->code[id].known)
		return &r->code[id];
	in = cf_sites_code(session_sites(r->s), r->cf, t->pid, st->pc, st->ring);
	if (!id) {	/* ids ran out: the cache's entry each time */
		c = &r->code_no_id;
	} else {
		if (id >= r->nr_code) {
			size_t n = r->nr_code ? r->nr_code : 1024;

			while (n <= id)
				n *= 2;
			r->code = xreallocarray(r->code, n, sizeof(*r->code));
			memset(r->code + r->nr_code, 0, (n - r->nr_code) * sizeof(*r->code));
			r->nr_code = n;
		}
		c = &r->code[id];
	}
	c->known = 1;
	c->nr_bytes = in->nr_bytes;
	memcpy(c->bytes, in->bytes, sizeof(c->bytes));
	return c;
}

static void on_step(void *ctx, struct cf_thread *t, const struct cf_step *st)
{
	struct ptr_reader *r = ctx;
	const struct site_code *code;
	struct ptr_step s;

	if (r->stop || !fn_selected(r, st->fn))
		return;
	if (r->cb.step) {
		code = step_code(r, t, st);
		s.size = sizeof(s);
		s.pid = t->pid;
		s.tid = t->tid;
		s.cpu = t->cpu;
		s.index = st->index;
		s.time_ns = st->time_ns;
		s.pc = st->pc;
		s.kernel = st->ring;
		s.insn_class = st->site->insn.cls;
		s.len = st->site->insn.len;
		s.nr_bytes = code->nr_bytes;
		s.func = st->fn;
		memcpy(s.bytes, code->bytes, sizeof(s.bytes));
		answer(r, r->cb.step(r->ctx, &s));
	}
	if (r->cb.syscall && !st->ring && st->site->insn.cls == ARCH_INSN_SYSCALL)
		tell_syscall(r, t, st);
}

/* ---- raw events: tasks, asynchronous entries, gaps ---- */

/* A task record of a selected thread (mappings are the process's: their tid is 0). */
static bool task_selected(struct ptr_reader *r, uint32_t pid, uint32_t tid)
{
	return (!r->pf.f.pid || pid == r->pf.f.pid) && (!r->pf.f.tid || !tid || tid == r->pf.f.tid);
}

static void tell_task(struct ptr_reader *r, const struct trace_event *ev)
{
	const struct trace_task_rec *rec = ev->task;
	struct ptr_task e = {
		.size = sizeof(e), .kind = rec->type, .pid = rec->c.pid, .tid = rec->c.tid,
		.time_ns = rec->c.time_ns, .path = rec->str,
	};

	if (!r->cb.task || !task_selected(r, rec->c.pid, rec->c.tid))
		return;
	switch (rec->type) {
	case PT_TASK_FORK:
		e.ppid = rec->fork.ppid;
		e.ptid = rec->fork.ptid;
		e.thread = !!(rec->fork.flags & PT_FORK_THREAD);
		break;
	case PT_TASK_EXIT:
		e.status = rec->exit.status;
		break;
	case PT_TASK_MMAP:
		e.start = rec->mmap.start;
		e.len = rec->mmap.len;
		e.pgoff = rec->mmap.pgoff;
		e.prot = rec->mmap.prot;
		break;
	case PT_TASK_MUNMAP:
		e.start = rec->munmap.start;
		e.len = rec->munmap.len;
		break;
	case PT_TASK_EXEC:
	case PT_TASK_COMM:
		break;
	default:
		return;		/* a kind this version does not tell */
	}
	answer(r, r->cb.task(r->ctx, &e));
}

static void tell_async(struct ptr_reader *r, const struct trace_event *ev)
{
	struct ptr_async e = {
		.size = sizeof(e), .pid = ev->pid, .tid = ev->tid, .kind = (uint32_t)ev->a,
		.number = ev->b, .index = ev->index, .time_ns = ev->time_ns,
		.kernel = PT_ASYNC_RING_UNKNOWN,
	};

	if (!r->cb.async)
		return;
	if (ev->async.detail) {
		e.pc = ev->async.pc;
		e.address = ev->async.address;
		e.error = ev->async.error;
		e.kernel = ev->async.ring;
	}
	answer(r, r->cb.async(r->ctx, &e));
}

static void tell_gap(struct ptr_reader *r, const struct trace_event *ev, uint32_t kind)
{
	struct ptr_gap e = {
		.size = sizeof(e), .kind = kind, .pid = ev->pid, .tid = ev->tid,
		.index = ev->index, .time_ns = ev->time_ns,
	};

	if (!r->cb.gap)
		return;
	if (kind == PTR_GAP)
		e.reason = ev->a;
	else if (kind == PTR_GAP_LOST)
		e.count = ev->a;
	else if (kind == PTR_GAP_NATIVE) {
		e.pc = ev->pc;
		e.end = ev->end;
	}
	answer(r, r->cb.gap(r->ctx, &e));
}

static void on_event(void *ctx, const struct trace_event *ev)
{
	struct ptr_reader *r = ctx;

	if (r->stop)
		return;
	switch (ev->kind) {
	case TEV_TASK:
		if (ev->task)
			tell_task(r, ev);
		break;
	case TEV_ASYNC:
		tell_async(r, ev);
		break;
	case TEV_GAP:
		tell_gap(r, ev, PTR_GAP);
		break;
	case TEV_LOST:
		tell_gap(r, ev, PTR_GAP_LOST);
		break;
	case TEV_OFF:
		tell_gap(r, ev, PTR_GAP_OFF);
		break;
	case TEV_ON:
		tell_gap(r, ev, PTR_GAP_ON);
		break;
	case TEV_NATIVE:
		tell_gap(r, ev, PTR_GAP_NATIVE);
		break;
	default:
		break;		/* steps come from the engine */
	}
}

/* Runs of steps: the engine tells them; taking them keeps the pass in its fast mode. */
static void on_steps(void *ctx, const struct trace_event *ev, const uint64_t *pcs, size_t n)
{
	(void)ctx;
	(void)ev;
	(void)pcs;
	(void)n;
}

static void on_bytes(void *ctx, const struct trace_event *ev, const struct step_bytes *sb)
{
	(void)ctx;
	(void)ev;
	(void)sb;
}

/* ---- the pass ---- */

static const struct session_consumer_ops raw_ops = {
	.event = on_event, .steps = on_steps, .bytes = on_bytes,
};

/*
 * The engine's consumer: a pass that tells steps takes each by step()
 * (so calls and steps come in order); one that does not has replay() and
 * no step(), so the engine counts runs in bulk and takes calls whole.
 */
static const struct cf_consumer_ops each_step_ops = {
	.push = on_push, .pop = on_pop, .step = on_step,
};
static const struct cf_consumer_ops calls_ops = {
	.push = on_push, .pop = on_pop, .replay = on_replay,
};

/*
 * Run the pass's session; its figures replace the last pass's only at its
 * end, so that ptr_get_pass_stats answers about a finished pass while
 * this one runs (from a callback, or between a loop's batches).
 */
static int reader_run_session(struct ptr_reader *r)
{
	int st;

	memset(&r->pass, 0, sizeof(r->pass));
	st = session_run(r->s);
	r->stats = (struct ptr_pass_stats){
		.size = sizeof(r->stats), .steps = r->pass.steps,
		.steps_in_window = session_steps_in_window(r->s),
		.steps_single = r->pass.steps_single, .calls_whole = r->pass.calls_whole,
		.steps_whole = r->pass.steps_whole, .cpu_seconds = session_pass_cpu(r->s),
	};
	r->have_stats = true;
	return st;
}

static int reader_pass(struct ptr_reader *r)
{
	bool steps = r->cb.step || r->cb.syscall;
	int st;

	r->cf = session_callflow(r->s);
	if (!r->cf || session_add_consumer(r->s, &raw_ops, r) < 0 ||
	    cf_add_consumer(r->cf, steps ? &each_step_ops : &calls_ops, r) < 0)
		return PTR_ERR_RUNTIME;
	r->fn_filter = r->pf.f.module || r->pf.f.symbol || r->pf.f.ring;
	if (r->nr_code)		/* site ids are the pass's session's */
		memset(r->code, 0, r->nr_code * sizeof(*r->code));
	st = reader_run_session(r);
	if (st)
		return PTR_ERR_RUNTIME;
	return r->stop;
}

int ptr_run(struct ptr_reader *r, const struct ptr_filter *f, const struct ptr_callbacks *cb,
	    void *ctx)
{
	struct pass_filter pf;
	int e;

	if (!r || !cb)
		return PTR_ERR_USAGE;
	if (r->in_pass)
		return PTR_ERR_STATE;
	if (!copy_in(&r->cb, sizeof(r->cb), cb))
		return PTR_ERR_VERSION;
	e = pass_filter_make(&pf, f);
	if (e < 0)
		return e;
	if (!r->fresh || !filter_is_empty(&pf.f)) {
		e = reader_session(r, &pf);
		if (e < 0)
			return e;
	}
	r->fresh = false;
	r->ctx = ctx;
	r->stop = 0;
	r->in_pass = true;
	e = reader_pass(r);
	r->in_pass = false;
	return e;
}

int ptr_get_pass_stats(struct ptr_reader *r, struct ptr_pass_stats *out)
{
	uint32_t size;

	if (!r || !out)
		return PTR_ERR_USAGE;
	if (!r->have_stats)
		return PTR_ERR_STATE;
	size = out->size;
	if (size < sizeof(uint32_t))
		return PTR_ERR_VERSION;
	memcpy(out, &r->stats, size < sizeof(r->stats) ? size : sizeof(r->stats));
	out->size = size < sizeof(r->stats) ? size : sizeof(r->stats);
	return 0;
}

/* ---- functions and addresses ---- */

uint32_t ptr_nr_funcs(struct ptr_reader *r)
{
	return r && r->cf && !r->fresh ? cf_nr_funcs(r->cf) : 0;
}

int ptr_get_func(struct ptr_reader *r, uint32_t id, struct ptr_func *out)
{
	const struct cf_func *fn;
	struct ptr_func p = { .size = sizeof(p) };
	uint32_t size;

	if (!r || !out || id >= ptr_nr_funcs(r))
		return PTR_ERR_USAGE;
	size = out->size;
	if (size < sizeof(uint32_t))
		return PTR_ERR_VERSION;
	fn = cf_func(r->cf, id);
	p.kernel = fn->ring;
	p.native = fn->native;
	p.name = fn->name;
	p.module = fn->module;
	p.module_path = fn->module_path;
	p.addr = fn->addr;
	memcpy(out, &p, size < sizeof(p) ? size : sizeof(p));
	out->size = size < sizeof(p) ? size : sizeof(p);
	return 0;
}

/*
 * The engine ptr_resolve looks addresses up with: the pass's, or the last
 * pass's (a counts table's session has none: it is made now, its address
 * space being the pass's), or before any pass the trace's address space
 * at its end, every task record applied to ptr_open's session.  That
 * session has then taken task records: a pass opens a session of its own.
 */
static struct callflow *resolve_engine(struct ptr_reader *r)
{
	const struct trace_task_rec *recs;
	struct cf_source src;
	size_t n;

	if (!r->cf)
		r->cf = session_callflow(r->s);
	if (!r->cf || !r->fresh)
		return r->cf;
	recs = trace_tasks(session_trace(r->s));
	n = trace_nr_tasks(session_trace(r->s));
	cf_sites_source(session_sites(r->s), &src);
	for (size_t i = 0; i < n; i++)
		src.task(src.ctx, &recs[i]);
	r->fresh = false;
	return r->cf;
}

int ptr_resolve(struct ptr_reader *r, uint32_t pid, uint64_t pc, int kernel,
		struct ptr_location *out)
{
	const struct cf_site_info *in;
	struct ptr_location l = { .size = sizeof(l) };
	uint32_t size;

	if (!r || !out)
		return PTR_ERR_USAGE;
	size = out->size;
	if (size < sizeof(uint32_t))
		return PTR_ERR_VERSION;
	if (!resolve_engine(r))
		return PTR_ERR_RUNTIME;
	in = cf_sites_info(session_sites(r->s), r->cf, pid, pc, kernel ? 1 : 0);
	l.func = in->site.fn;
	l.module = in->module;
	l.module_path = cf_func(r->cf, in->site.fn)->module_path;
	l.module_offset = in->module_offset;
	l.symbol = in->symbol;
	l.symbol_offset = in->sym_offset;
	l.file = in->file;
	l.line = in->line > 0 ? (uint32_t)in->line : 0;
	l.insn_class = in->site.insn.cls;
	l.len = in->site.insn.len;
	l.nr_bytes = in->nr_bytes;
	memcpy(l.bytes, in->bytes, sizeof(l.bytes));
	/* the cache's entries move as it grows: the text is the reader's own copy */
	memcpy(r->text, in->text, sizeof(r->text));
	l.text = r->text;
	memcpy(out, &l, size < sizeof(l) ? size : sizeof(l));
	out->size = size < sizeof(l) ? size : sizeof(l);
	return 0;
}

/* ---- tables: post's reports' rows, from the engine and util/ code post uses ---- */

/* A table pass: the row callback, and the row it fills. */
struct table_pass {
	struct ptr_reader *r;
	int (*row)(void *ctx, const struct ptr_row *row);
	void *ctx;
	struct ptr_row out;
	struct arcs *arcs;	  /* profile, arcs, tree */
	bool fn_filter;
	bool merged;		  /* tree: one merged tree */
	uint32_t pid, tid;	  /* tree: the thread being told */
};

static const char *const profile_cols[] = { "function", "module", "calls", "base", "cum" };
static const char *const arcs_cols[] = { "caller", "caller_module", "callee", "callee_module",
					 "calls", "base", "cum" };
static const char *const tree_cols[] = { "pid", "tid", "depth", "function", "module",
					 "calls", "base", "cum" };

static void row_start(struct table_pass *p, const char *const *names, uint32_t n, uint32_t text)
{
	memset(&p->out, 0, sizeof(p->out));
	p->out.size = sizeof(p->out);
	p->out.names = names;
	p->out.nr_cols = n;
	p->out.text = text;
}

/* Tell the row filled; false when the caller asked to stop. */
static bool row_tell(struct table_pass *p)
{
	int v = p->row(p->ctx, &p->out);

	if (v)
		p->r->stop = v;
	return !v;
}

static const char *fn_name(struct table_pass *p, uint32_t fn)
{
	return fn == CF_NO_FN ? NULL : cf_func(p->r->cf, fn)->name;
}

static const char *fn_module(struct table_pass *p, uint32_t fn)
{
	return fn == CF_NO_FN ? NULL : cf_func(p->r->cf, fn)->module;
}

static bool table_selected(struct table_pass *p, uint32_t fn)
{
	return !p->fn_filter || (fn != CF_NO_FN && session_fn_selected(p->r->s, fn));
}

/* Descending by a, then by b. */
static int desc2(uint64_t a1, uint64_t a2, uint64_t b1, uint64_t b2)
{
	if (a1 != a2)
		return a1 > a2 ? -1 : 1;
	if (b1 != b2)
		return b1 > b2 ? -1 : 1;
	return 0;
}

static int profile_cmp(const void *pa, const void *pb, void *arg)
{
	struct table_pass *p = arg;
	uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;
	const struct arc_fn_stats *x = arcs_fn(p->arcs, a), *y = arcs_fn(p->arcs, b);
	int d = desc2(x->base, y->base, x->cum, y->cum);

	d = d ? d : strcmp(fn_name(p, a), fn_name(p, b));
	return d ? d : strcmp(fn_module(p, a), fn_module(p, b));
}

/* post profile's rows: functions that ran or were called, selected, by Base. */
static int table_profile(struct table_pass *p)
{
	uint32_t nf = cf_nr_funcs(p->r->cf), n = 0;
	uint32_t *fns = malloc((nf + 1) * sizeof(*fns));

	if (!fns)
		return PTR_ERR_RUNTIME;
	for (uint32_t f = 0; f < nf; f++) {
		const struct arc_fn_stats *st = arcs_fn(p->arcs, f);

		if ((st->cum || st->calls) && session_fn_selected(p->r->s, f))
			fns[n++] = f;
	}
	qsort_r(fns, n, sizeof(*fns), profile_cmp, p);
	for (uint32_t i = 0; i < n; i++) {
		const struct arc_fn_stats *st = arcs_fn(p->arcs, fns[i]);

		row_start(p, profile_cols, 5, 0x3);
		p->out.str[0] = fn_name(p, fns[i]);
		p->out.str[1] = fn_module(p, fns[i]);
		p->out.num[2] = st->calls;
		p->out.num[3] = st->base;
		p->out.num[4] = st->cum;
		if (!row_tell(p))
			break;
	}
	free(fns);
	return 0;
}

static int edge_cmp(const void *pa, const void *pb, void *arg)
{
	struct table_pass *p = arg;
	const struct arc_edge *x = *(const struct arc_edge *const *)pa;
	const struct arc_edge *y = *(const struct arc_edge *const *)pb;
	const char *nx, *ny;
	int d = desc2(x->cum, y->cum, x->calls, y->calls);

	if (d)
		return d;
	nx = fn_name(p, x->callee);
	ny = fn_name(p, y->callee);
	d = strcmp(nx, ny);
	if (d)
		return d;
	nx = fn_name(p, x->caller);
	ny = fn_name(p, y->caller);
	return !nx || !ny ? (nx ? 1 : ny ? -1 : 0) : strcmp(nx, ny);
}

/* post arc's arcs: every caller -> callee with a selected end, by Cum. */
static int table_arcs(struct table_pass *p)
{
	size_t ne = arcs_nr_edges(p->arcs), n = 0;
	const struct arc_edge **e = malloc((ne + 1) * sizeof(*e));

	if (!e)
		return PTR_ERR_RUNTIME;
	for (size_t i = 0; i < ne; i++) {
		const struct arc_edge *a = arcs_edge(p->arcs, i);

		if (table_selected(p, a->caller) || table_selected(p, a->callee))
			e[n++] = a;
	}
	qsort_r(e, n, sizeof(*e), edge_cmp, p);
	for (size_t i = 0; i < n; i++) {
		row_start(p, arcs_cols, 7, 0xf);
		p->out.str[0] = fn_name(p, e[i]->caller);
		p->out.str[1] = fn_module(p, e[i]->caller);
		p->out.str[2] = fn_name(p, e[i]->callee);
		p->out.str[3] = fn_module(p, e[i]->callee);
		p->out.num[4] = e[i]->calls;
		p->out.num[5] = e[i]->base;
		p->out.num[6] = e[i]->cum;
		if (!row_tell(p))
			break;
	}
	free(e);
	return 0;
}

static int node_cmp(const void *pa, const void *pb, void *arg)
{
	struct table_pass *p = arg;
	const struct arc_node *x = arcs_node(p->arcs, *(const uint32_t *)pa);
	const struct arc_node *y = arcs_node(p->arcs, *(const uint32_t *)pb);
	/* post tree's order: Cum, then the name */
	int d = desc2(x->cum, y->cum, 0, 0);

	return d ? d : strcmp(fn_name(p, x->fn), fn_name(p, y->fn));
}

/* A node's row, as post tree shows it: under a selected function, or one itself. */
static int tree_visit(void *ctx, uint32_t node, unsigned depth, const uint32_t *path, int shown)
{
	struct table_pass *p = ctx;
	const struct arc_node *n = arcs_node(p->arcs, node);

	(void)path;
	if (p->r->stop)
		return ARC_WALK_SKIP;
	shown = shown || table_selected(p, n->fn);
	if (!shown)
		return 0;
	row_start(p, tree_cols, 8, 0x18);
	p->out.num[0] = p->pid;
	p->out.num[1] = p->tid;
	p->out.num[2] = depth;
	p->out.str[3] = fn_name(p, n->fn);
	p->out.str[4] = fn_module(p, n->fn);
	p->out.num[5] = n->calls;
	p->out.num[6] = n->base;
	p->out.num[7] = n->cum;
	return row_tell(p) ? 1 : ARC_WALK_SKIP;
}

/* post tree's nodes: per thread (or merged), depth first, children by Cum. */
static int table_tree(struct table_pass *p)
{
	if (p->merged) {
		p->pid = p->tid = 0;
		return arcs_walk(p->arcs, arcs_merged_root(p->arcs), node_cmp, tree_visit, p) < 0 ?
			       PTR_ERR_RUNTIME : 0;
	}
	for (size_t i = 0; i < arcs_nr_threads(p->arcs) && !p->r->stop; i++) {
		uint32_t root = arcs_thread_root(p->arcs, i, &p->pid, &p->tid);

		if (arcs_walk(p->arcs, root, node_cmp, tree_visit, p) < 0)
			return PTR_ERR_RUNTIME;
	}
	return 0;
}

static void counts_consume(void *ctx, const struct trace_event *ev)
{
	counts_event(ctx, ev);
}

static void counts_consume_steps(void *ctx, const struct trace_event *ev, const uint64_t *pcs,
				 size_t n)
{
	counts_steps(ctx, ev, pcs, n);
}

static void counts_consume_bytes(void *ctx, const struct trace_event *ev,
				 const struct step_bytes *sb)
{
	counts_bytes(ctx, ev, sb);
}

/* post counts --by BY: a pass of util/counts.c as post counts makes it, its rows. */
static int table_counts(struct table_pass *p, enum counts_by by)
{
	static const struct session_consumer_ops ops = { .event = counts_consume,
							   .steps = counts_consume_steps,
							   .bytes = counts_consume_bytes };
	struct counts_options o = { .by = by, .filter = session_select(p->r->s) };
	struct counts_sym_arg arg = { session_symbols(p->r->s), session_trace(p->r->s) };
	const struct counts_row *rows;
	const char *const *cols;
	struct counts_resolver res;
	struct counts *c;
	size_t nc = counts_columns(by, &cols), n;
	int e = PTR_ERR_RUNTIME;

	counts_sym_resolver(&res, &arg);
	c = counts_new(&o, &res);
	if (!c || session_add_consumer(p->r->s, &ops, c) < 0 || reader_run_session(p->r))
		goto out;
	for (size_t k = 0; k < nc; k++)
		p->r->count_cols[k] = cols[k];
	p->r->count_cols[nc] = "count";
	n = counts_result(c, &rows);
	for (size_t i = 0; i < n; i++) {
		row_start(p, p->r->count_cols, (uint32_t)nc + 1, (1u << nc) - 1);
		for (size_t k = 0; k < nc; k++)
			p->out.str[k] = rows[i].cols[k];
		p->out.num[nc] = rows[i].count;
		if (!row_tell(p))
			break;
	}
	e = 0;
out:
	counts_free(c);
	return e;
}

/* The call-flow tables: arcs collected from the engine, then the rows. */
static int table_flow(struct table_pass *p, const char *table)
{
	struct ptr_reader *r = p->r;
	int e = PTR_ERR_RUNTIME;

	r->cf = session_callflow(r->s);
	p->arcs = r->cf ? arcs_new(r->cf) : NULL;
	if (!p->arcs || reader_run_session(r))
		goto out;
	p->fn_filter = r->pf.f.module || r->pf.f.symbol || r->pf.f.ring;
	if (!strcmp(table, "profile"))
		e = table_profile(p);
	else if (!strcmp(table, "arcs"))
		e = table_arcs(p);
	else
		e = table_tree(p);
out:
	arcs_free(p->arcs);
	return e;
}

int ptr_table(struct ptr_reader *r, const struct ptr_filter *f, const char *table,
	      const char *by, int (*row)(void *ctx, const struct ptr_row *row), void *ctx)
{
	struct table_pass p = { .r = r, .row = row, .ctx = ctx };
	enum counts_by cb = COUNTS_BY_SYMBOL;
	struct pass_filter pf;
	bool flow;
	int e;

	if (!r || !table || !row)
		return PTR_ERR_USAGE;
	if (r->in_pass)
		return PTR_ERR_STATE;
	flow = !strcmp(table, "profile") || !strcmp(table, "arcs") || !strcmp(table, "tree");
	if (!strcmp(table, "tree") && by) {
		if (strcmp(by, "merged") && strcmp(by, "threads"))
			return PTR_ERR_USAGE;
		p.merged = !strcmp(by, "merged");
	} else if (flow && by) {
		return PTR_ERR_USAGE;
	}
	if (!flow && (strcmp(table, "counts") || (by && counts_parse_by(by, &cb) < 0)))
		return PTR_ERR_USAGE;
	e = pass_filter_make(&pf, f);
	if (e < 0)
		return e;
	/* a table pass adds its own consumers: always a session of its own */
	e = reader_session(r, &pf);
	if (e < 0)
		return e;
	r->stop = 0;
	r->in_pass = true;
	r->cf = NULL;
	e = flow ? table_flow(&p, table) : table_counts(&p, cb);
	r->in_pass = false;
	/* the session has run: a later ptr_run opens a new one */
	r->fresh = false;
	return e < 0 ? e : r->stop;
}
