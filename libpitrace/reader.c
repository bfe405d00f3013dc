// SPDX-License-Identifier: GPL-2.0
/* libpitrace's trace reader: a report session whose consumer is the caller's callbacks. */
#include <stdlib.h>
#include <string.h>

#include <pitrace/reader.h>

#include "util/alloc.h"
#include "util/cf_sites.h"
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
	bool fresh;		  /* s has run no pass and has no filter */
	bool in_pass;
	bool have_stats;
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
	r->have_stats = false;
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
	memset(&r->pass, 0, sizeof(r->pass));
	st = session_run(r->s);
	r->stats = (struct ptr_pass_stats){
		.size = sizeof(r->stats), .steps = r->pass.steps,
		.steps_in_window = session_steps_in_window(r->s),
		.steps_single = r->pass.steps_single, .calls_whole = r->pass.calls_whole,
		.steps_whole = r->pass.steps_whole, .cpu_seconds = session_pass_cpu(r->s),
	};
	r->have_stats = true;
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

int ptr_resolve(struct ptr_reader *r, uint32_t pid, uint64_t pc, int kernel,
		struct ptr_location *out)
{
	const struct cf_site_info *in;
	struct ptr_location l = { .size = sizeof(l) };
	uint32_t size;

	if (!r || !out)
		return PTR_ERR_USAGE;
	if (r->fresh || !r->cf)
		return PTR_ERR_STATE;
	size = out->size;
	if (size < sizeof(uint32_t))
		return PTR_ERR_VERSION;
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
