// SPDX-License-Identifier: GPL-2.0
/* The arc tables' rows of functions, arcs, addresses and jumps, read and checked (arcs.h). */
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "util/alloc.h"
#include "util/arcs_internal.h"
#include "util/log.h"

/* Room in an index for one more row (row_index_reserve), or the end. */
static inline void reserve(struct row_index *x, size_t rows, size_t min_size,
			   row_index_hash_fn hash_of, const void *ctx)
{
	if (!row_index_reserve(x, 0, rows, min_size, hash_of, ctx))
		xalloc_die();
}

struct arc_fn_stats *arcs_fn_row(struct arcs *a, uint32_t fn)
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

struct arc_edge *arcs_edge_row(struct arcs *a, uint32_t caller, uint32_t callee)
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
struct arc_edge *arcs_node_edge(struct arcs *a, uint32_t node, uint32_t caller, uint32_t callee)
{
	uint32_t k = a->node_edge[node];
	struct arc_edge *e;

	if (k && a->edges[k - 1].caller == caller && a->edges[k - 1].callee == callee)
		return &a->edges[k - 1];
	e = arcs_edge_row(a, caller, callee);
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

void arcs_count_pc(struct arcs *a, uint32_t pid, uint64_t pc, uint32_t fn, uint32_t id,
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

void arcs_count_jump(struct arcs *a, uint32_t pid, uint32_t fn, uint32_t from_id, uint64_t from,
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
