// SPDX-License-Identifier: GPL-2.0
/* The arc tables filled as a call-flow consumer: frames, steps and replays counted (arcs.h). */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "util/alloc.h"
#include "util/arcs_internal.h"
#include "util/hashtab.h"
#include "util/log.h"

/*
 * What walking a replay's frames added to one row (a function's, an arc's
 * or a tree node's): after one walk from a caller's node, every row it
 * touches exists and has had its first sight, so walking it again from
 * there adds the same, and the sums are added at once instead.
 */
enum { DELTA_FN, DELTA_EDGE, DELTA_NODE };
struct arcs_delta {
	uint32_t kind, idx;
	uint64_t calls, entries, base, cum;
};

#define ARCS_REPLAY_WAYS 16	  /* callers' nodes a replay keeps its sums for (threads' trees) */
struct arcs_replay {
	struct {
		uint32_t node;	  /* the caller's node + 1 (0: none), */
		uint32_t tree_gen; /* while no adopt moved nodes since */
		uint32_t nr;
		struct arcs_delta *d;
	} way[ARCS_REPLAY_WAYS];
	uint32_t victim;
};

static struct tree_thread *tree_thread(struct arcs *a, struct cf_thread *t)
{
	struct tree_thread *tt = t->user[a->slot];

	if (tt)
		return tt;
	tt = xcalloc(1, sizeof(*tt));
	tt->root = arcs_node_new(a, CF_NO_FN, ARC_NONE);
	if (a->nr_threads == a->threads_size) {
		a->threads_size = a->threads_size ? 2 * a->threads_size : 16;
		a->threads = xrealloc(a->threads, a->threads_size * sizeof(*a->threads));
		a->thread_pid = xrealloc(a->thread_pid, a->threads_size * sizeof(uint32_t));
		a->thread_tid = xrealloc(a->thread_tid, a->threads_size * sizeof(uint32_t));
	}
	a->threads[a->nr_threads] = tt;
	a->thread_pid[a->nr_threads] = t->pid;
	a->thread_tid[a->nr_threads++] = t->tid;
	t->user[a->slot] = tt;
	return tt;
}

/*
 * The frame of node goes on tt's stack; its entry counts for the arc from
 * the function from (the frame below's, or its own: see entry_caller()).
 */
static void tree_push(struct arcs *a, struct tree_thread *tt, uint32_t node, uint64_t site,
		      uint32_t from)
{
	if (tt->depth == tt->size) {
		tt->size = tt->size ? 2 * tt->size : 64;
		tt->stack = xrealloc(tt->stack, tt->size * sizeof(*tt->stack));
		tt->site = xrealloc(tt->site, tt->size * sizeof(*tt->site));
		tt->from = xrealloc(tt->from, tt->size * sizeof(*tt->from));
	}
	(void)a;
	tt->site[tt->depth] = site;
	tt->from[tt->depth] = from;
	tt->stack[tt->depth++] = node;
}

/* A frame of callee runs directly above one of caller (site: the call in caller, 0 unknown). */
static void count_entry(struct arcs *a, struct arc_edge *e, uint32_t pid, uint64_t site)
{

	if (!e->entries || (!e->entry_site && site)) {
		e->entry_site = site;
		e->entry_pid = pid;
		if (a->sight.entry)
			a->sight.entry(a->sight.ctx, a, (size_t)(e - a->edges));
	}
	e->entries++;
}

/* ---- callflow consumer ---- */

static bool counts_as_call(uint8_t kind)
{
	return kind == CF_ENTRY_CALL || kind == CF_ENTRY_TAIL || kind == CF_ENTRY_ASYNC ||
	       kind == CF_ENTRY_KERNEL;
}

/*
 * The function a frame's entry counts for (the arc the callgrind export
 * writes it on): the frame below's function (below), but a function's jump
 * to its own first instruction is its own call, as callgrind counts it and
 * as post arc credits it, not one from below.
 */
static uint32_t entry_caller(uint8_t kind, uint32_t caller_fn, uint32_t fn, uint32_t below)
{
	return kind == CF_ENTRY_TAIL && caller_fn == fn ? fn : below;
}

/*
 * Count the entries of the frames below the top that ran uncounted
 * (opened while counting was off): they count where the steps that do
 * count find them, so that every arc with costs has entries.
 */
static void catch_up(struct arcs *a, struct tree_thread *tt, uint32_t pid, uint32_t depth)
{
	for (; tt->entered < depth; tt->entered++) {
		uint32_t k = tt->entered;

		count_entry(a,
			    arcs_node_edge(a, tt->stack[k], tt->from[k], a->nodes[tt->stack[k]].fn),
			    pid, tt->site[k]);
	}
}

static void on_push(void *ctx, struct cf_thread *t, const struct cf_frame *parent,
		    const struct cf_frame *f)
{
	struct arcs *a = ctx;
	struct tree_thread *tt = tree_thread(a, t);
	uint32_t cur = tt->depth ? tt->stack[tt->depth - 1] : tt->root;
	/*
	 * A root frame gets a node of its own: a caller reconstructed below it
	 * later (adopt) takes that node as its child, which must hold this
	 * activation only.  (The merged tree joins equal roots again.)
	 */
	uint32_t node = tt->depth ? arcs_node_child(a, cur, f->fn) : arcs_node_new(a, f->fn, cur);
	/* where the frame below called: a frame that replaced another keeps its call site */
	uint64_t site = f->kind == CF_ENTRY_TAIL || f->kind == CF_ENTRY_JUMP ? tt->replaced_site :
			f->kind == CF_ENTRY_CALL || f->kind == CF_ENTRY_KERNEL ? f->call_site :
			f->kind == CF_ENTRY_ASYNC ? f->resume_from : 0;

	bool counting = cf_counting(a->cf);
	struct arc_fn_stats *fs;

	(void)parent;
	fs = arcs_fn_row(a, f->fn);
	tt->replaced_site = 0;
	tree_push(a, tt, node, site,
		  entry_caller(f->kind, f->caller_fn, f->fn,
			       tt->depth ? a->nodes[cur].fn : CF_NO_FN));
	if (!counting)
		return;
	if (counts_as_call(f->kind)) {
		struct arc_edge *e = arcs_node_edge(a, node, f->caller_fn, f->fn);

		if (!e->calls) {
			e->call_site = f->call_site;
			e->pid = t->pid;
		}
		e->calls++;
		fs->calls++;
		a->nodes[node].calls++;
	}
	catch_up(a, tt, t->pid, tt->depth);
}

static void on_adopt(void *ctx, struct cf_thread *t, const struct cf_frame *root)
{
	struct arcs *a = ctx;
	struct tree_thread *tt = tree_thread(a, t);
	uint32_t old, g;
	bool self;

	arcs_fn_row(a, root->fn);
	if (tt->depth != 1)
		return;		/* cannot happen: the engine adopts only under one frame */
	a->tree_gen++;
	old = tt->stack[0];
	arcs_node_detach(a, old);
	g = arcs_node_new(a, root->fn, tt->root);
	arcs_child_index(a, g);
	a->nodes[old].parent = g;
	a->nodes[old].next_sibling = a->nodes[g].first_child;
	a->nodes[g].first_child = old;
	arcs_child_index(a, old);	/* g's child: found by arcs_node_child from now on */
	self = tt->from[0] == a->nodes[old].fn;	/* it jumped to its own entry */
	tt->stack[0] = g;
	tt->site[0] = 0;
	tt->from[0] = CF_NO_FN;
	tt->depth = 1;
	tree_push(a, tt, old, 0, self ? a->nodes[old].fn : root->fn);
	if (!tt->entered)
		return;		/* counted when counting finds them */
	/* the oldest frame ran above the reconstructed caller, not as a root */
	if (!self) {
		arcs_edge_row(a, CF_NO_FN, a->nodes[old].fn)->entries--;
		count_entry(a, arcs_edge_row(a, root->fn, a->nodes[old].fn), t->pid, 0);
	}
	count_entry(a, arcs_edge_row(a, CF_NO_FN, root->fn), t->pid, 0);
	tt->entered = 2;
}

static void on_pop(void *ctx, struct cf_thread *t, const struct cf_frame *parent,
		   const struct cf_frame *f, const struct cf_cost *cost, enum cf_end_kind how)
{
	struct arcs *a = ctx;
	struct tree_thread *tt = tree_thread(a, t);
	struct arc_fn_stats *fs = arcs_fn_row(a, f->fn);
	struct arc_edge *e = tt->depth ? arcs_node_edge(a, tt->stack[tt->depth - 1],
							parent ? parent->fn : CF_NO_FN, f->fn) :
				arcs_edge_row(a, parent ? parent->fn : CF_NO_FN, f->fn);

	(void)how;
	fs->base += cost->self;
	fs->cum += cost->fn_cum;
	e->base += cost->self;
	/* a root arc shows what the thread's root frames added to the function's Cum */
	e->cum += parent ? cost->arc_cum : cost->fn_cum;
	if (tt->depth) {
		struct arc_node *n = &a->nodes[tt->stack[--tt->depth]];

		n->base += cost->self;
		n->cum += cost->incl;
		tt->replaced_site = how == CF_END_REPLACED ? tt->site[tt->depth] : 0;
		if (tt->entered > tt->depth)
			tt->entered = tt->depth;
	}
}

static void on_step(void *ctx, struct cf_thread *t, const struct cf_step *s)
{
	struct arcs *a = ctx;
	struct tree_thread *tt = tree_thread(a, t);
	const struct arch_insn *in = &tt->last_insn;

	/* a folded stub's step counts for the frame below: its site's row is not that one */
	uint32_t id = s->fn == s->site->fn ? s->site->id : 0;

	a->total++;
	catch_up(a, tt, t->pid, tt->depth);
	arcs_count_pc(a, t->pid, s->pc, s->fn, id, 1);
	if (tt->have_last && tt->last_fn == s->fn &&
	    (in->cls == ARCH_INSN_JUMP || in->cls == ARCH_INSN_COND) &&
	    s->pc != tt->last_pc + in->len)
		arcs_count_jump(a, t->pid, s->fn, tt->last_id, tt->last_pc, s->pc, in->cls, 1);
	tt->last_pc = s->pc;
	tt->last_fn = s->fn;
	tt->last_id = id;
	tt->last_insn = s->site->insn;
	tt->have_last = true;
}

/* Steps the engine counted in bulk: their sites' and jumps' counts come by on_tally. */
static void on_bulk(void *ctx, struct cf_thread *t, const struct cf_bulk *b)
{
	struct arcs *a = ctx;
	struct tree_thread *tt = tree_thread(a, t);

	a->total += b->n;
	catch_up(a, tt, t->pid, tt->depth);
	tt->last_pc = b->pc;
	tt->last_fn = b->site->fn;
	tt->last_id = b->site->id;
	tt->last_insn = b->site->insn;
	tt->have_last = true;
}

/*
 * A call the engine took whole, walked: each frame's push and pop as
 * on_push() and on_pop() take them, on a stack of the replay's own (its
 * frames' nodes and call sites, above the caller's node), each addition
 * also noted in a->scratch.
 */
struct replay_walk {
	struct arcs *a;
	struct cf_thread *t;
	const struct cf_replay_frame *fr;
	uint32_t node[CF_REPLAY_DEPTH_MAX + 1]; /* per depth: the frame's node ([0] the caller's) */
	uint32_t fn[CF_REPLAY_DEPTH_MAX + 1];
	uint64_t site[CF_REPLAY_DEPTH_MAX + 1];
	uint64_t replaced_site;
};

static void note_delta(struct arcs *a, uint32_t kind, uint32_t idx, uint64_t calls,
		       uint64_t entries, uint64_t base, uint64_t cum)
{
	if (a->nr_scratch == a->scratch_size) {
		a->scratch_size = a->scratch_size ? 2 * a->scratch_size : 256;
		a->scratch = xrealloc(a->scratch, a->scratch_size * sizeof(*a->scratch));
	}
	a->scratch[a->nr_scratch++] = (struct arcs_delta){ kind, idx, calls, entries, base, cum };
}

static void replay_visit(void *ctx, uint32_t k, bool push)
{
	struct replay_walk *w = ctx;
	struct arcs *a = w->a;
	const struct cf_replay_frame *f = &w->fr[k];
	unsigned d = f->depth;
	struct arc_fn_stats *fs = arcs_fn_row(a, f->fn);
	struct arc_node *n;
	struct arc_edge *e;

	if (push) {
		uint64_t site = f->kind == CF_ENTRY_TAIL || f->kind == CF_ENTRY_JUMP ?
					w->replaced_site : f->call_site;

		w->node[d] = arcs_node_child(a, w->node[d - 1], f->fn);
		w->fn[d] = f->fn;
		w->site[d] = site;
		w->replaced_site = 0;
		n = &a->nodes[w->node[d]];
		if (counts_as_call(f->kind)) {
			e = arcs_node_edge(a, w->node[d], f->caller_fn, f->fn);
			if (!e->calls) {
				e->call_site = f->call_site;
				e->pid = w->t->pid;
			}
			e->calls++;
			fs->calls++;
			n->calls++;
			note_delta(a, DELTA_EDGE, (uint32_t)(e - a->edges), 1, 0, 0, 0);
			note_delta(a, DELTA_FN, f->fn, 1, 0, 0, 0);
			note_delta(a, DELTA_NODE, w->node[d], 1, 0, 0, 0);
		}
		e = arcs_node_edge(a, w->node[d],
				   entry_caller(f->kind, f->caller_fn, f->fn, w->fn[d - 1]), f->fn);
		count_entry(a, e, w->t->pid, site);
		note_delta(a, DELTA_EDGE, (uint32_t)(e - a->edges), 0, 1, 0, 0);
		return;
	}
	e = arcs_node_edge(a, w->node[d], w->fn[d - 1], f->fn);
	n = &a->nodes[w->node[d]];
	fs->base += f->cost.self;
	fs->cum += f->cost.fn_cum;
	e->base += f->cost.self;
	e->cum += f->cost.arc_cum;
	n->base += f->cost.self;
	n->cum += f->cost.incl;
	note_delta(a, DELTA_FN, f->fn, 0, 0, f->cost.self, f->cost.fn_cum);
	note_delta(a, DELTA_EDGE, (uint32_t)(e - a->edges), 0, 0, f->cost.self, f->cost.arc_cum);
	note_delta(a, DELTA_NODE, w->node[d], 0, 0, f->cost.self, f->cost.incl);
	w->replaced_site = f->how == CF_END_REPLACED ? w->site[d] : 0;
}

/* What a delta adds to: a row (idx) of a table (kind). */
struct delta_key {
	uint32_t kind, idx;
};

static inline uint64_t delta_key_hash(const struct delta_key *k)
{
	return row_index_hash(((uint64_t)k->kind << 32) | k->idx);
}

static inline bool delta_key_eq(const struct delta_key *a, const struct delta_key *b)
{
	return a->kind == b->kind && a->idx == b->idx;
}

/* A row's index in the merged deltas. */
HASHTAB_DEFINE(delta_map, struct delta_key, uint32_t, delta_key_hash, delta_key_eq)

/* a->scratch's additions, the same row's summed: a new array (*nr), in first-seen order. */
static struct arcs_delta *deltas_merged(struct arcs *a, uint32_t *nr)
{
	struct delta_map rows = { 0 };
	uint32_t w = 0;
	struct arcs_delta *d;

	if (!delta_map_reserve(&rows, a->nr_scratch))
		xalloc_die();
	d = xrealloc(NULL, (a->nr_scratch ? a->nr_scratch : 1) * sizeof(*d));
	for (uint32_t k = 0; k < a->nr_scratch; k++) {
		const struct arcs_delta *x = &a->scratch[k];
		struct delta_map_entry *e;
		bool added;

		/* reserved: never grows, never fails */
		e = delta_map_insert(&rows, &(struct delta_key){ x->kind, x->idx }, &added);
		if (added) {
			d[w] = *x;
			e->val = w++;
			continue;
		}
		d[e->val].calls += x->calls;
		d[e->val].entries += x->entries;
		d[e->val].base += x->base;
		d[e->val].cum += x->cum;
	}
	delta_map_free(&rows);
	*nr = w;
	return d;
}

/* The sums of a walk, added again. */
static void deltas_add(struct arcs *a, const struct arcs_delta *d, uint32_t nr)
{
	for (uint32_t k = 0; k < nr; k++, d++) {
		switch (d->kind) {
		case DELTA_FN: {
			struct arc_fn_stats *f = &a->fns[d->idx];

			f->calls += d->calls;
			f->base += d->base;
			f->cum += d->cum;
			break;
		}
		case DELTA_EDGE: {
			struct arc_edge *e = &a->edges[d->idx];

			e->calls += d->calls;
			e->entries += d->entries;
			e->base += d->base;
			e->cum += d->cum;
			break;
		}
		default: {
			struct arc_node *n = &a->nodes[d->idx];

			n->calls += d->calls;
			n->base += d->base;
			n->cum += d->cum;
			break;
		}
		}
	}
}

/* A replay's sums gone (the pool's release). */
static void arcs_replay_release(void *item)
{
	struct arcs_replay *r = item;

	for (int k = 0; k < ARCS_REPLAY_WAYS; k++)
		free(r->way[k].d);
}

/*
 * A call the engine took whole: each of its frames' push and pop as
 * on_push() and on_pop() take them (their entries counted as they are
 * pushed), the steps before and in it as on_bulk() takes them (the last of
 * before is not the last step: b's is).  Walked once from a caller's node,
 * its sums are kept with the replay (words[0]) and added at once the next
 * times from there.
 */
static void on_replay(void *ctx, struct cf_thread *t, const struct cf_replay_frame *fr,
		      uint32_t nr, const struct cf_bulk *before, const struct cf_bulk *b,
		      uint32_t *words)
{
	struct arcs *a = ctx;
	struct tree_thread *tt = tree_thread(a, t);
	bool made;
	struct arcs_replay *r = replay_pool_of(&a->replays, words, &made);
	uint32_t cur, way;

	catch_up(a, tt, t->pid, tt->depth);
	cur = tt->stack[tt->depth - 1];
	for (way = 0; way < ARCS_REPLAY_WAYS; way++)
		if (r->way[way].node == cur + 1 && r->way[way].tree_gen == a->tree_gen)
			break;
	if (way < ARCS_REPLAY_WAYS) {
		deltas_add(a, r->way[way].d, r->way[way].nr);
	} else {
		struct replay_walk w;	/* no initializer: its stacks are written before read */

		w.a = a;
		w.t = t;
		w.fr = fr;
		w.replaced_site = 0;
		w.node[0] = cur;
		w.fn[0] = a->nodes[cur].fn;
		a->nr_scratch = 0;
		cf_replay_walk(fr, nr, replay_visit, &w);
		way = r->victim;
		r->victim = (way + 1) % ARCS_REPLAY_WAYS;
		free(r->way[way].d);
		r->way[way].d = deltas_merged(a, &r->way[way].nr);
		r->way[way].node = cur + 1;
		r->way[way].tree_gen = a->tree_gen;
	}
	tt->replaced_site = 0;
	a->total += b->n + (before ? before->n : 0);
	tt->last_pc = b->pc;
	tt->last_fn = b->site->fn;
	tt->last_id = b->site->id;
	tt->last_insn = b->site->insn;
	tt->have_last = true;
}

/* The replay is gone: its sums too. */
static void on_replay_drop(void *ctx, uint32_t *words)
{
	replay_pool_drop(&((struct arcs *)ctx)->replays, words);
}

static void on_tally(void *ctx, const struct cf_tally *tl)
{
	struct arcs *a = ctx;

	if (tl->steps)
		arcs_count_pc(a, tl->pid, tl->pc, tl->site->fn, tl->site->id, tl->steps);
	if (tl->jumps)
		arcs_count_jump(a, tl->pid, tl->site->fn, tl->site->id, tl->pc, tl->to,
				tl->site->insn.cls, tl->jumps);
}

/* Missing steps, another thread's: the next step's predecessor is not the last one. */
static void on_mark(void *ctx, struct cf_thread *t, enum cf_mark m, uint64_t index)
{
	struct arcs *a = ctx;

	(void)index;
	if (m == CF_MARK_GAP || m == CF_MARK_EXIT || m == CF_MARK_ASYNC)
		tree_thread(a, t)->have_last = false;
}

static const struct cf_consumer_ops arcs_ops = {
	.push = on_push, .adopt = on_adopt, .pop = on_pop, .step = on_step, .mark = on_mark,
	.bulk = on_bulk, .tally = on_tally, .replay = on_replay, .replay_drop = on_replay_drop,
};

struct arcs *arcs_new(struct callflow *cf)
{
	struct arcs *a = calloc(1, sizeof(*a));

	if (!a) {
		pr_err("out of memory for the arc tables");
		return NULL;
	}
	a->cf = cf;
	a->merged_root = ARC_NONE;
	a->replays = (struct replay_pool)REPLAY_POOL_INIT(struct arcs_replay, arcs_replay_release);
	a->slot = cf_add_consumer(cf, &arcs_ops, a);
	if (a->slot < 0) {
		pr_err("too many report builders on one call flow");
		free(a);
		return NULL;
	}
	return a;
}

void arcs_free(struct arcs *a)
{
	if (!a)
		return;
	for (size_t i = 0; i < a->nr_threads; i++) {
		free(a->threads[i]->stack);
		free(a->threads[i]->site);
		free(a->threads[i]->from);
		free(a->threads[i]);
	}
	free(a->jumps);
	row_index_free(&a->jump_index);
	free(a->threads);
	free(a->thread_pid);
	free(a->thread_tid);
	free(a->fns);
	free(a->edges);
	row_index_free(&a->edge_index);
	free(a->nodes);
	free(a->node_edge);
	row_index_free(&a->children);
	replay_pool_free(&a->replays);
	free(a->scratch);
	free(a->pcs);
	free(a->by_site);
	row_index_free(&a->pc_index);
	free(a);
}

bool arcs_entry_is_call(uint8_t kind)
{
	return counts_as_call(kind);
}

