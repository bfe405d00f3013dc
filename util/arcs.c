// SPDX-License-Identifier: GPL-2.0
/* Aggregation of the call flow into functions, arcs, call trees and address counts (arcs.h). */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/alloc.h"
#include "arch/arch_decode.h"
#include "util/arcs.h"
#include "util/hashtab.h"
#include "util/log.h"
#include "util/replay_pool.h"
#include "util/row_index.h"

/* Per thread: the tree node of every frame on its stack, and its last step. */
/* What a site's id finds without a hash. */
struct arc_by_site {
	uint32_t pc;		  /* index + 1 in pcs */
	uint32_t jump;		  /* index + 1 in jumps of the last jump taken from it */
};

struct tree_thread {
	uint32_t root;
	uint32_t *stack;
	uint64_t *site;		  /* per stack slot: pc of the call in the frame below */
	uint32_t *from;		  /* per stack slot: the caller its entry counts for (below) */
	uint32_t depth, size;
	uint32_t entered;	  /* frames from the bottom whose entries are counted (counting
				   * off, cf_set_counting, frames come and go uncounted) */
	uint64_t replaced_site;	  /* site of the frame a tail call or jump just replaced */
	uint64_t last_pc;	  /* the last step, while have_last */
	uint32_t last_fn;
	uint32_t last_id;	  /* the last step's site id */
	struct arch_insn last_insn;
	bool have_last;
};

struct arcs {
	struct callflow *cf;
	int slot;		  /* our cf_thread.user[] slot */
	uint64_t total;
	struct arc_fn_stats *fns;
	uint32_t nr_fns;
	struct arc_edge *edges;
	size_t nr_edges, edges_size;
	struct row_index edge_index; /* by (caller, callee) */
	struct arc_node *nodes;
	uint32_t nr_nodes, nodes_size;
	uint32_t *node_edge;	  /* per node: the arc (+ 1) last looked up for it, 0 none */
	struct row_index children; /* nodes by (parent, fn): node_child's children */
	size_t nr_children;	  /* rows in it, some stale (their node moved since) */
	struct tree_thread **threads;
	uint32_t *thread_pid, *thread_tid;
	size_t nr_threads, threads_size;
	uint32_t merged_root;
	struct arc_pc *pcs;
	size_t nr_pcs, pcs_size;
	struct row_index pc_index; /* by (pid, pc, fn) */
	struct arc_by_site *by_site;  /* by cf_site.id, once looked up */
	size_t by_site_size;
	struct arc_jump *jumps;
	size_t nr_jumps, jumps_size;
	struct row_index jump_index; /* by (pid, from, to) */
	struct arcs_first_sight sight;
	uint32_t tree_gen;	  /* adopts so far: each may change what node_child finds */
	struct replay_pool replays; /* what walking each replay added (struct arcs_replay) */
	struct arcs_delta *scratch; /* a walk's additions, before they are merged */
	uint32_t nr_scratch, scratch_size;
};

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

/* Room in an index for one more row (row_index_reserve), or the end. */
static inline void reserve(struct row_index *x, size_t rows, size_t min_size, row_index_hash_fn hash_of,
		    const void *ctx)
{
	if (!row_index_reserve(x, 0, rows, min_size, hash_of, ctx))
		xalloc_die();
}

static struct arc_fn_stats *fn_stats(struct arcs *a, uint32_t fn)
{
	if (fn >= a->nr_fns) {
		uint32_t n = fn + 1 > 2 * a->nr_fns ? fn + 1 : 2 * a->nr_fns;

		a->fns = xrealloc(a->fns, n * sizeof(*a->fns));
		memset(a->fns + a->nr_fns, 0, (n - a->nr_fns) * sizeof(*a->fns));
		a->nr_fns = n;
	}
	return &a->fns[fn];
}

static uint64_t edge_key(uint32_t caller, uint32_t callee)
{
	return row_index_hash(((uint64_t)caller << 32) | callee);
}

static uint64_t edge_hash(const void *ctx, uint32_t e)
{
	const struct arcs *a = ctx;

	return edge_key(a->edges[e].caller, a->edges[e].callee);
}

static struct arc_edge *edge(struct arcs *a, uint32_t caller, uint32_t callee)
{
	struct row_index *x = &a->edge_index;
	struct arc_edge *e;
	size_t i;

	reserve(x, a->nr_edges, 256, edge_hash, a);
	for (i = row_index_home(x, edge_key(caller, callee)); x->slot[i]; i = row_index_next(x, i)) {
		e = &a->edges[x->slot[i] - 1];
		if (e->caller == caller && e->callee == callee)
			return e;
	}
	if (a->nr_edges == a->edges_size) {
		a->edges_size = a->edges_size ? 2 * a->edges_size : 256;
		a->edges = xrealloc(a->edges, a->edges_size * sizeof(*a->edges));
	}
	e = &a->edges[a->nr_edges];
	memset(e, 0, sizeof(*e));
	e->caller = caller;
	e->callee = callee;
	x->slot[i] = (uint32_t)++a->nr_edges;
	return e;
}

/*
 * The arc (caller, callee) as node's frames look it up: a node's
 * entries, calls and costs are nearly always of one arc, so the one it
 * found last is tried before the index.
 */
static struct arc_edge *node_edge(struct arcs *a, uint32_t node, uint32_t caller, uint32_t callee)
{
	uint32_t k = a->node_edge[node];
	struct arc_edge *e;

	if (k && a->edges[k - 1].caller == caller && a->edges[k - 1].callee == callee)
		return &a->edges[k - 1];
	e = edge(a, caller, callee);
	a->node_edge[node] = (uint32_t)(e - a->edges) + 1;
	return e;
}

static uint64_t pc_key(uint32_t pid, uint64_t pc)
{
	return row_index_hash(pc ^ ((uint64_t)pid << 48));
}

static uint64_t pc_hash(const void *ctx, uint32_t k)
{
	const struct arcs *a = ctx;

	return pc_key(a->pcs[k].pid, a->pcs[k].pc);
}

/* The site's pc entry, found by its id: one load where a hash would probe. */
static bool count_site(struct arcs *a, uint32_t id, uint64_t n)
{
	if (id < a->by_site_size && a->by_site[id].pc) {
		a->pcs[a->by_site[id].pc - 1].count += n;
		return true;
	}
	return false;
}

static void remember_site(struct arcs *a, uint32_t id, size_t pc_index)
{
	if (!id)
		return;
	if (id >= a->by_site_size) {
		size_t n = a->by_site_size ? a->by_site_size : 1024;

		while (n <= id)
			n *= 2;
		a->by_site = xrealloc(a->by_site, n * sizeof(*a->by_site));
		memset(a->by_site + a->by_site_size, 0,
		       (n - a->by_site_size) * sizeof(*a->by_site));
		a->by_site_size = n;
	}
	a->by_site[id].pc = (uint32_t)pc_index + 1;
}

/* n steps of the site at pc (n > 1: counted in bulk, the entry made by a step before) */
static void count_pc(struct arcs *a, uint32_t pid, uint64_t pc, uint32_t fn, uint32_t id,
		     uint64_t n)
{
	struct row_index *x = &a->pc_index;
	struct arc_pc *p;
	size_t i;

	if (count_site(a, id, n))
		return;
	reserve(x, a->nr_pcs, 1024, pc_hash, a);
	for (i = row_index_home(x, pc_key(pid, pc)); x->slot[i]; i = row_index_next(x, i)) {
		p = &a->pcs[x->slot[i] - 1];
		if (p->pc == pc && p->pid == pid && p->fn == fn) {
			p->count += n;
			remember_site(a, id, (size_t)(p - a->pcs));
			return;
		}
	}
	if (a->nr_pcs == a->pcs_size) {
		a->pcs_size = a->pcs_size ? 2 * a->pcs_size : 1024;
		a->pcs = xrealloc(a->pcs, a->pcs_size * sizeof(*a->pcs));
	}
	p = &a->pcs[a->nr_pcs];
	p->pid = pid;
	p->pc = pc;
	p->fn = fn;
	p->count = n;
	x->slot[i] = (uint32_t)++a->nr_pcs;
	remember_site(a, id, a->nr_pcs - 1);
	if (a->sight.pc)
		a->sight.pc(a->sight.ctx, a, a->nr_pcs - 1);
}

static uint64_t jump_key(uint32_t pid, uint64_t from, uint64_t to)
{
	return row_index_hash(from ^ row_index_hash(to) ^ ((uint64_t)pid << 48));
}

static uint64_t jump_hash(const void *ctx, uint32_t k)
{
	const struct arcs *a = ctx;
	const struct arc_jump *j = &a->jumps[k];

	return jump_key(j->pid, j->from, j->to);
}

/* A jump taken from the site numbered from_id (0 none) at from to to. */
static void count_jump(struct arcs *a, uint32_t pid, uint32_t fn, uint32_t from_id, uint64_t from,
		       uint64_t to, uint8_t cls, uint64_t n)
{
	struct arc_by_site *bs = from_id < a->by_site_size ? &a->by_site[from_id] : NULL;
	struct row_index *x = &a->jump_index;
	struct arc_jump *j;
	size_t i;

	if (bs && bs->jump) {	/* most jumps go where the site's last one went */
		j = &a->jumps[bs->jump - 1];
		if (j->to == to && j->from == from && j->pid == pid) {
			j->count += n;
			return;
		}
	}
	reserve(x, a->nr_jumps, 1024, jump_hash, a);
	for (i = row_index_home(x, jump_key(pid, from, to)); x->slot[i]; i = row_index_next(x, i)) {
		j = &a->jumps[x->slot[i] - 1];
		if (j->from == from && j->to == to && j->pid == pid) {
			j->count += n;
			if (bs && from_id)
				bs->jump = x->slot[i];
			return;
		}
	}
	if (a->nr_jumps == a->jumps_size) {
		a->jumps_size = a->jumps_size ? 2 * a->jumps_size : 256;
		a->jumps = xrealloc(a->jumps, a->jumps_size * sizeof(*a->jumps));
	}
	j = &a->jumps[a->nr_jumps];
	*j = (struct arc_jump){ .pid = pid, .fn = fn, .from = from, .to = to, .count = n,
				.cls = cls };
	x->slot[i] = (uint32_t)++a->nr_jumps;
	if (bs && from_id)
		bs->jump = x->slot[i];
	if (a->sight.jump)
		a->sight.jump(a->sight.ctx, a, a->nr_jumps - 1);
}

/* ---- call trees ---- */

static uint32_t node_new(struct arcs *a, uint32_t fn, uint32_t parent)
{
	struct arc_node *n;

	if (a->nr_nodes == a->nodes_size) {
		a->nodes_size = a->nodes_size ? 2 * a->nodes_size : 256;
		a->nodes = xrealloc(a->nodes, a->nodes_size * sizeof(*a->nodes));
		a->node_edge = xrealloc(a->node_edge, a->nodes_size * sizeof(*a->node_edge));
	}
	a->node_edge[a->nr_nodes] = 0;
	n = &a->nodes[a->nr_nodes];
	memset(n, 0, sizeof(*n));
	n->fn = fn;
	n->parent = parent;
	n->first_child = n->next_sibling = ARC_NONE;
	if (parent != ARC_NONE) {
		n->next_sibling = a->nodes[parent].first_child;
		a->nodes[parent].first_child = a->nr_nodes;
	}
	return a->nr_nodes++;
}

static uint64_t child_key(uint32_t parent, uint32_t fn)
{
	return row_index_hash(((uint64_t)parent << 32) | fn);
}

static bool child_key_of(const void *ctx, uint32_t k, uint64_t *hash)
{
	const struct arc_node *n = &((const struct arcs *)ctx)->nodes[k];

	if (n->parent == ARC_NONE)
		return false;
	*hash = child_key(n->parent, n->fn);
	return true;
}

/* Every node that has a parent in the index: a lookup checks the parent it has now. */
static void child_rehash(struct arcs *a)
{
	size_t size = a->children.size ? a->children.size * 2 : 1024;

	if (!row_index_resize(&a->children, size, a->nr_nodes, child_key_of, a, &a->nr_children))
		xalloc_die();
}

/* Put node under parent in the index (after node_new or a move). */
static void child_index(struct arcs *a, uint32_t node)
{
	struct row_index *x = &a->children;
	const struct arc_node *n = &a->nodes[node];
	size_t i;

	if (2 * (a->nr_children + 1) > x->size)
		child_rehash(a);	/* indexes every node, this one too */
	for (i = row_index_home(x, child_key(n->parent, n->fn)); x->slot[i];
	     i = row_index_next(x, i)) {
		const struct arc_node *o = &a->nodes[x->slot[i] - 1];

		/* the newest child of a function is the one found, as a scan of
		 * the children (newest first) found it */
		if (x->slot[i] == node + 1 || (o->parent == n->parent && o->fn == n->fn)) {
			x->slot[i] = node + 1;
			return;
		}
	}
	x->slot[i] = node + 1;
	a->nr_children++;
}

/*
 * parent's child of function fn, made if there is none.  A hash by
 * (parent, fn), not a scan of the children: a node can have as many
 * children as the program has functions.
 */
static uint32_t node_child(struct arcs *a, uint32_t parent, uint32_t fn)
{
	const struct row_index *x = &a->children;
	uint32_t c;

	if (x->size) {
		for (size_t i = row_index_home(x, child_key(parent, fn)); x->slot[i];
		     i = row_index_next(x, i)) {
			const struct arc_node *n = &a->nodes[x->slot[i] - 1];

			if (n->parent == parent && n->fn == fn)
				return x->slot[i] - 1;
		}
	}
	c = node_new(a, fn, parent);
	child_index(a, c);
	return c;
}

static void node_detach(struct arcs *a, uint32_t n)
{
	uint32_t *p = &a->nodes[a->nodes[n].parent].first_child;

	while (*p != n)
		p = &a->nodes[*p].next_sibling;
	*p = a->nodes[n].next_sibling;
}

static struct tree_thread *tree_thread(struct arcs *a, struct cf_thread *t)
{
	struct tree_thread *tt = t->user[a->slot];

	if (tt)
		return tt;
	tt = xcalloc(1, sizeof(*tt));
	tt->root = node_new(a, CF_NO_FN, ARC_NONE);
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

		count_entry(a, node_edge(a, tt->stack[k], tt->from[k], a->nodes[tt->stack[k]].fn),
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
	uint32_t node = tt->depth ? node_child(a, cur, f->fn) : node_new(a, f->fn, cur);
	/* where the frame below called: a frame that replaced another keeps its call site */
	uint64_t site = f->kind == CF_ENTRY_TAIL || f->kind == CF_ENTRY_JUMP ? tt->replaced_site :
			f->kind == CF_ENTRY_CALL || f->kind == CF_ENTRY_KERNEL ? f->call_site :
			f->kind == CF_ENTRY_ASYNC ? f->resume_from : 0;

	bool counting = cf_counting(a->cf);
	struct arc_fn_stats *fs;

	(void)parent;
	fs = fn_stats(a, f->fn);
	tt->replaced_site = 0;
	tree_push(a, tt, node, site,
		  entry_caller(f->kind, f->caller_fn, f->fn,
			       tt->depth ? a->nodes[cur].fn : CF_NO_FN));
	if (!counting)
		return;
	if (counts_as_call(f->kind)) {
		struct arc_edge *e = node_edge(a, node, f->caller_fn, f->fn);

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

	fn_stats(a, root->fn);
	if (tt->depth != 1)
		return;		/* cannot happen: the engine adopts only under one frame */
	a->tree_gen++;
	old = tt->stack[0];
	node_detach(a, old);
	g = node_new(a, root->fn, tt->root);
	child_index(a, g);
	a->nodes[old].parent = g;
	a->nodes[old].next_sibling = a->nodes[g].first_child;
	a->nodes[g].first_child = old;
	child_index(a, old);	/* g's child: found by node_child from now on */
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
		edge(a, CF_NO_FN, a->nodes[old].fn)->entries--;
		count_entry(a, edge(a, root->fn, a->nodes[old].fn), t->pid, 0);
	}
	count_entry(a, edge(a, CF_NO_FN, root->fn), t->pid, 0);
	tt->entered = 2;
}

static void on_pop(void *ctx, struct cf_thread *t, const struct cf_frame *parent,
		   const struct cf_frame *f, const struct cf_cost *cost, enum cf_end_kind how)
{
	struct arcs *a = ctx;
	struct tree_thread *tt = tree_thread(a, t);
	struct arc_fn_stats *fs = fn_stats(a, f->fn);
	struct arc_edge *e = tt->depth ? node_edge(a, tt->stack[tt->depth - 1],
						   parent ? parent->fn : CF_NO_FN, f->fn) :
				edge(a, parent ? parent->fn : CF_NO_FN, f->fn);

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
	count_pc(a, t->pid, s->pc, s->fn, id, 1);
	if (tt->have_last && tt->last_fn == s->fn &&
	    (in->cls == ARCH_INSN_JUMP || in->cls == ARCH_INSN_COND) &&
	    s->pc != tt->last_pc + in->len)
		count_jump(a, t->pid, s->fn, tt->last_id, tt->last_pc, s->pc, in->cls, 1);
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
	struct arc_fn_stats *fs = fn_stats(a, f->fn);
	struct arc_node *n;
	struct arc_edge *e;

	if (push) {
		uint64_t site = f->kind == CF_ENTRY_TAIL || f->kind == CF_ENTRY_JUMP ?
					w->replaced_site : f->call_site;

		w->node[d] = node_child(a, w->node[d - 1], f->fn);
		w->fn[d] = f->fn;
		w->site[d] = site;
		w->replaced_site = 0;
		n = &a->nodes[w->node[d]];
		if (counts_as_call(f->kind)) {
			e = node_edge(a, w->node[d], f->caller_fn, f->fn);
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
		e = node_edge(a, w->node[d], entry_caller(f->kind, f->caller_fn, f->fn, w->fn[d - 1]),
			      f->fn);
		count_entry(a, e, w->t->pid, site);
		note_delta(a, DELTA_EDGE, (uint32_t)(e - a->edges), 0, 1, 0, 0);
		return;
	}
	e = node_edge(a, w->node[d], w->fn[d - 1], f->fn);
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
		count_pc(a, tl->pid, tl->pc, tl->site->fn, tl->site->id, tl->steps);
	if (tl->jumps)
		count_jump(a, tl->pid, tl->site->fn, tl->site->id, tl->pc, tl->to,
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

uint64_t arcs_total(const struct arcs *a)
{
	return a->total;
}

struct callflow *arcs_callflow(const struct arcs *a)
{
	return a->cf;
}

const struct arc_fn_stats *arcs_fn(const struct arcs *a, uint32_t fn)
{
	static const struct arc_fn_stats zero;

	return fn < a->nr_fns ? &a->fns[fn] : &zero;
}

size_t arcs_nr_edges(const struct arcs *a)
{
	return a->nr_edges;
}

const struct arc_edge *arcs_edge(const struct arcs *a, size_t i)
{
	return &a->edges[i];
}

size_t arcs_nr_threads(const struct arcs *a)
{
	return a->nr_threads;
}

uint32_t arcs_thread_root(const struct arcs *a, size_t i, uint32_t *pid, uint32_t *tid)
{
	if (pid)
		*pid = a->thread_pid[i];
	if (tid)
		*tid = a->thread_tid[i];
	return a->threads[i]->root;
}

const struct arc_node *arcs_node(const struct arcs *a, uint32_t node)
{
	return &a->nodes[node];
}

/* One level of a walk: a node's sorted children and how far it got through them. */
struct walk_level {
	uint32_t *kids;
	size_t n, next;
	int flag;		  /* what its children get */
};

static uint32_t *sorted_children(const struct arcs *a, uint32_t node,
				 int (*cmp)(const void *, const void *, void *), void *ctx,
				 size_t *n, bool *oom)
{
	uint32_t *kids;
	size_t k = 0;

	*n = 0;
	for (uint32_t c = a->nodes[node].first_child; c != ARC_NONE; c = a->nodes[c].next_sibling)
		k++;
	if (!k)
		return NULL;
	kids = malloc(k * sizeof(*kids));
	if (!kids) {
		*oom = true;
		return NULL;
	}
	k = 0;
	for (uint32_t c = a->nodes[node].first_child; c != ARC_NONE; c = a->nodes[c].next_sibling)
		kids[k++] = c;
	if (cmp)
		qsort_r(kids, k, sizeof(*kids), cmp, ctx);
	*n = k;
	return kids;
}

int arcs_walk(const struct arcs *a, uint32_t root, int (*cmp)(const void *, const void *, void *),
	      int (*visit)(void *ctx, uint32_t node, unsigned depth, const uint32_t *path, int flag),
	      void *ctx)
{
	struct walk_level *lv = malloc(64 * sizeof(*lv));
	uint32_t *path = malloc(64 * sizeof(*path));
	size_t top = 1, size = 64;
	bool oom = false;

	if (!lv || !path) {
		free(lv);
		free(path);
		pr_err("out of memory walking a call tree");
		return -1;
	}
	lv[0] = (struct walk_level){ .flag = 0 };
	lv[0].kids = sorted_children(a, root, cmp, ctx, &lv[0].n, &oom);
	while (!oom && top) {
		struct walk_level *l = &lv[top - 1];
		uint32_t node;
		int flag;

		if (l->next == l->n) {
			free(l->kids);
			top--;
			continue;
		}
		node = l->kids[l->next++];
		path[top - 1] = node;
		flag = visit(ctx, node, (unsigned)(top - 1), path, l->flag);
		if (flag == ARC_WALK_SKIP || a->nodes[node].first_child == ARC_NONE)
			continue;
		if (top == size) {
			struct walk_level *nl = realloc(lv, 2 * size * sizeof(*lv));
			uint32_t *np = nl ? realloc(path, 2 * size * sizeof(*path)) : NULL;

			if (nl)
				lv = nl;
			if (!np) {
				oom = true;
				break;
			}
			path = np;
			size *= 2;
		}
		lv[top] = (struct walk_level){ .flag = flag };
		lv[top].kids = sorted_children(a, node, cmp, ctx, &lv[top].n, &oom);
		top++;
	}
	while (top)
		free(lv[--top].kids);
	free(lv);
	free(path);
	if (oom) {
		pr_err("out of memory walking a call tree");
		return -1;
	}
	return 0;
}

/* A pair of nodes to merge: src's children go under dst's children of the same function. */
struct merge_pair {
	uint32_t dst, src;
};

/*
 * Add the subtree under src (its nodes' counts) under dst, function by
 * function, with an explicit stack: trees can be as deep as the stacks.
 */
static void merge_into(struct arcs *a, uint32_t dst, uint32_t src)
{
	struct merge_pair *todo = xrealloc(NULL, 64 * sizeof(*todo));
	size_t n = 1, size = 64;

	todo[0] = (struct merge_pair){ dst, src };
	while (n) {
		struct merge_pair p = todo[--n];

		for (uint32_t c = a->nodes[p.src].first_child; c != ARC_NONE;
		     c = a->nodes[c].next_sibling) {
			uint32_t d = node_child(a, p.dst, a->nodes[c].fn);

			a->nodes[d].calls += a->nodes[c].calls;
			a->nodes[d].base += a->nodes[c].base;
			a->nodes[d].cum += a->nodes[c].cum;
			if (a->nodes[c].first_child == ARC_NONE)
				continue;
			if (n == size) {
				size *= 2;
				todo = xrealloc(todo, size * sizeof(*todo));
			}
			todo[n++] = (struct merge_pair){ d, c };
		}
	}
	free(todo);
}

uint32_t arcs_merge(struct arcs *a, const size_t *threads, size_t n)
{
	uint32_t root = node_new(a, CF_NO_FN, ARC_NONE);

	for (size_t i = 0; i < n; i++)
		if (threads[i] < a->nr_threads)
			merge_into(a, root, a->threads[threads[i]]->root);
	return root;
}

uint32_t arcs_merged_root(struct arcs *a)
{
	uint32_t root;

	if (a->merged_root != ARC_NONE)
		return a->merged_root;
	root = node_new(a, CF_NO_FN, ARC_NONE);
	for (size_t i = 0; i < a->nr_threads; i++)
		merge_into(a, root, a->threads[i]->root);
	a->merged_root = root;
	return root;
}

uint32_t arcs_nr_nodes(const struct arcs *a)
{
	return a->nr_nodes;
}

bool arcs_entry_is_call(uint8_t kind)
{
	return counts_as_call(kind);
}

size_t arcs_nr_pcs(const struct arcs *a)
{
	return a->nr_pcs;
}

const struct arc_pc *arcs_pc(const struct arcs *a, size_t i)
{
	return &a->pcs[i];
}

void arcs_set_first_sight(struct arcs *a, const struct arcs_first_sight *fs)
{
	a->sight = *fs;
}

size_t arcs_nr_jumps(const struct arcs *a)
{
	return a->nr_jumps;
}

const struct arc_jump *arcs_jump(const struct arcs *a, size_t i)
{
	return &a->jumps[i];
}

/* Every node of every tree: Cum is Base plus the children's Cum (no recursion: any depth). */
static int check_trees(const struct arcs *a)
{
	int bad = 0;

	for (uint32_t n = 0; n < a->nr_nodes; n++) {
		uint64_t sum = 0;

		if (a->nodes[n].fn == CF_NO_FN)
			continue;
		for (uint32_t c = a->nodes[n].first_child; c != ARC_NONE;
		     c = a->nodes[c].next_sibling)
			sum += a->nodes[c].cum;
		if (a->nodes[n].cum != a->nodes[n].base + sum) {
			pr_err("invariant: tree node %s: Cum %" PRIu64 " != Base %" PRIu64
			       " + children %" PRIu64, cf_func(a->cf, a->nodes[n].fn)->name,
			       a->nodes[n].cum, a->nodes[n].base, sum);
			bad++;
		}
	}
	return bad;
}

int arcs_check(const struct arcs *a)
{
	uint64_t *calls_in, *base_in, *cum_out, base_sum = 0;
	int bad = 0;

	calls_in = xcalloc(a->nr_fns + 1, sizeof(uint64_t));
	base_in = xcalloc(a->nr_fns + 1, sizeof(uint64_t));
	cum_out = xcalloc(a->nr_fns + 1, sizeof(uint64_t));
	for (size_t i = 0; i < a->nr_edges; i++) {
		const struct arc_edge *e = &a->edges[i];

		if ((e->base || e->cum) && !e->entries) {
			pr_err("invariant: arc %s -> %s has costs but no frames entered it",
			       cf_func(a->cf, e->caller)->name, cf_func(a->cf, e->callee)->name);
			bad++;
		}
		calls_in[e->callee] += e->calls;
		base_in[e->callee] += e->base;
		if (e->caller != CF_NO_FN)
			cum_out[e->caller] += e->cum;
	}
	for (uint32_t f = 0; f < a->nr_fns; f++) {
		const struct arc_fn_stats *s = &a->fns[f];
		const char *name = cf_func(a->cf, f)->name;

		base_sum += s->base;
		if (s->calls != calls_in[f]) {
			pr_err("invariant: %s: calls %" PRIu64 " != calls over its callers %"
			       PRIu64, name, s->calls, calls_in[f]);
			bad++;
		}
		if (s->base != base_in[f]) {
			pr_err("invariant: %s: Base %" PRIu64 " != Base over its callers %" PRIu64,
			       name, s->base, base_in[f]);
			bad++;
		}
		if (s->cum != s->base + cum_out[f]) {
			pr_err("invariant: %s: Cum %" PRIu64 " != Base %" PRIu64
			       " + Cum of its callees %" PRIu64, name, s->cum, s->base, cum_out[f]);
			bad++;
		}
	}
	if (base_sum != a->total) {
		pr_err("invariant: sum of Base %" PRIu64 " != total steps %" PRIu64, base_sum,
		       a->total);
		bad++;
	}
	bad += check_trees(a);
	free(calls_in);
	free(base_in);
	free(cum_out);
	return bad;
}
