// SPDX-License-Identifier: GPL-2.0
/*
 * A thread selection's calls, Base and Cum per function and per arc
 * (tui.h).  For all threads they are arcs' own.  For some, they are added
 * up from the selected threads' call trees, where a node holds the frames
 * of one call path, and from the threads' calls per arc:
 *   Base(f), calls(f)   the sums over f's nodes;
 *   Cum(f)              the sum over f's outermost nodes (no f above them:
 *                       recursion counted once);
 *   arc p->c            Base: the sum over c's nodes under a p node; Cum:
 *                       the same for Cum, less the Cum of the p nodes
 *                       below them (those steps are the inner p's arcs';
 *                       so a self-recursive arc has none), which is
 *                       callflow.h's definition on the tree;
 *   calls of an arc     the threads' own (a tail call's are its caller's,
 *                       as arcs credit them, not its tree parent's).
 * The tests compare them with post profile --tid and post arc --tid.
 */
#include <stdlib.h>
#include <string.h>

#include "util/log.h"
#include "post/tui.h"

/* Arcs of the derivation, found by (caller, callee). */
struct edge_table {
	struct tui_edge *e;
	size_t n, size;
	struct row_index index;
	bool oom;
};

struct edge_key {
	const struct edge_table *t;
	uint32_t caller, callee;
};

static uint64_t edge_hash_of(uint32_t caller, uint32_t callee)
{
	return row_index_hash(((uint64_t)caller << 32) | callee);
}

static bool edge_eq(const void *ctx, uint32_t row)
{
	const struct edge_key *k = ctx;

	return k->t->e[row].caller == k->caller && k->t->e[row].callee == k->callee;
}

static uint64_t edge_hash(const void *ctx, uint32_t row)
{
	const struct edge_key *k = ctx;

	return edge_hash_of(k->t->e[row].caller, k->t->e[row].callee);
}

static const struct row_index_ops edge_index = { edge_eq, edge_hash };

static struct tui_edge *edge(struct edge_table *t, uint32_t caller, uint32_t callee)
{
	static struct tui_edge scratch;
	struct edge_key k = { t, caller, callee };
	uint32_t *slot = t->oom ? NULL : row_index_find(&t->index, t->n,
							edge_hash_of(caller, callee),
							&edge_index, &k);

	if (!slot)
		goto oom;
	if (*slot)
		return &t->e[*slot - 1];
	if (t->n == t->size) {
		size_t n = t->size ? 2 * t->size : 256;
		struct tui_edge *ne = realloc(t->e, n * sizeof(*ne));

		if (!ne)
			goto oom;
		t->e = ne;
		t->size = n;
	}
	t->e[t->n] = (struct tui_edge){ .caller = caller, .callee = callee };
	*slot = (uint32_t)++t->n;
	return &t->e[t->n - 1];
oom:
	t->oom = true;
	return memset(&scratch, 0, sizeof(scratch));
}

/* The walk of one tree: the path from the top to the node, and each function's innermost node on it. */
struct walk {
	struct tui_profile *p;
	struct edge_table *t;
	const struct arcs *a;
	uint32_t *innermost;	  /* per function: depth + 1 of its innermost node on the path */
	uint32_t *path, *saved;	  /* per depth: the node, the innermost[] it hid */
	size_t size;
	bool oom;
};

static const struct arc_node *node(const struct walk *w, uint32_t n)
{
	return arcs_node(w->a, n);
}

static void visit(struct walk *w, size_t depth)
{
	const struct arc_node *n = node(w, w->path[depth]);
	uint32_t parent = depth ? node(w, w->path[depth - 1])->fn : CF_NO_FN;
	struct arc_fn_stats *st = &w->p->fn[n->fn];
	struct tui_edge *e = edge(w->t, parent, n->fn);

	st->calls += n->calls;
	st->base += n->base;
	e->base += n->base;
	e->cum += n->cum;
	if (!w->innermost[n->fn]) {
		st->cum += n->cum;
	} else {
		/* the p -> c arc below the nearest p above: these steps are this p's */
		uint32_t above = w->innermost[n->fn] - 1;

		edge(w->t, n->fn, node(w, w->path[above + 1])->fn)->cum -= n->cum;
	}
	w->saved[depth] = w->innermost[n->fn];
	w->innermost[n->fn] = (uint32_t)depth + 1;
}

static void leave(struct walk *w, size_t depth)
{
	w->innermost[node(w, w->path[depth])->fn] = w->saved[depth];
}

static bool deeper(struct walk *w, size_t depth)
{
	if (depth < w->size)
		return true;
	size_t n = w->size ? 2 * w->size : 256;
	uint32_t *np = realloc(w->path, n * sizeof(*np)), *ns;

	if (np)
		w->path = np;
	ns = np ? realloc(w->saved, n * sizeof(*ns)) : NULL;
	if (!ns)
		return false;
	w->saved = ns;
	w->size = n;
	return true;
}

/* Depth first through the tree under root, with the path in arrays: any depth. */
static bool walk_tree(struct walk *w, uint32_t root)
{
	size_t depth = 0;
	uint32_t n = node(w, root)->first_child;

	while (n != ARC_NONE) {
		if (!deeper(w, depth))
			return false;
		w->path[depth] = n;
		if (node(w, n)->fn < w->p->nr_fns)
			visit(w, depth);
		else
			w->saved[depth] = 0;	/* cannot happen: nodes are of known functions */
		if (node(w, n)->first_child != ARC_NONE) {
			n = node(w, n)->first_child;
			depth++;
			continue;
		}
		for (;;) {
			if (node(w, w->path[depth])->fn < w->p->nr_fns)
				leave(w, depth);
			n = node(w, w->path[depth])->next_sibling;
			if (n != ARC_NONE || !depth)
				break;
			depth--;
		}
	}
	return true;
}

static int derive(struct tui_data *d, struct tui_profile *p, struct edge_table *t)
{
	struct walk w = { .p = p, .t = t, .a = d->r.arcs };
	bool ok = true;

	w.innermost = calloc(p->nr_fns + 1, sizeof(*w.innermost));
	if (!w.innermost)
		return -1;
	for (size_t i = 0; i < p->nr_threads && ok; i++)
		ok = walk_tree(&w, arcs_thread_root(d->r.arcs, p->threads[i], NULL, NULL));
	for (size_t k = 0; k < d->nr_calls && ok; k++) {
		const struct tui_calls *c = &d->calls[k];
		const struct tui_thread *th = &d->threads[c->thread];

		if (tui_sel_has(p->sel, th->pid, th->tid))
			edge(t, c->caller, c->callee)->calls += c->calls;
	}
	free(w.innermost);
	free(w.path);
	free(w.saved);
	return ok && !t->oom ? 0 : -1;
}

/* ---- arcs by function ---- */

struct order_ctx {
	const struct tui_profile *p;
	const struct callflow *cf;
	bool by_caller;		  /* sorting a function's callees: name the callee */
};

static int edge_cmp(const void *pa, const void *pb, void *arg)
{
	const struct order_ctx *c = arg;
	const struct tui_edge *a = &c->p->edges[*(const uint32_t *)pa];
	const struct tui_edge *b = &c->p->edges[*(const uint32_t *)pb];
	uint32_t oa = c->by_caller ? a->callee : a->caller, ob = c->by_caller ? b->callee : b->caller;

	if (a->cum != b->cum)
		return a->cum > b->cum ? -1 : 1;
	if (a->calls != b->calls)
		return a->calls > b->calls ? -1 : 1;
	if (a->base != b->base)
		return a->base > b->base ? -1 : 1;
	if (oa == CF_NO_FN || ob == CF_NO_FN)
		return oa == ob ? 0 : oa == CF_NO_FN ? -1 : 1;
	return strcmp(cf_func(c->cf, oa)->name, cf_func(c->cf, ob)->name);
}

/* idx[start[f]..start[f+1]) the edges whose end (callee, or caller) is f, by Cum. */
static int index_edges(struct tui_data *d, struct tui_profile *p, bool by_caller, uint32_t **idx,
		       size_t **start)
{
	struct order_ctx c = { p, d->r.cf, by_caller };
	size_t *fill;

	*idx = malloc((p->nr_edges + 1) * sizeof(**idx));
	*start = calloc(p->nr_fns + 2, sizeof(**start));
	fill = calloc(p->nr_fns + 1, sizeof(*fill));
	if (!*idx || !*start || !fill) {
		free(fill);
		return -1;
	}
	for (size_t e = 0; e < p->nr_edges; e++) {
		uint32_t f = by_caller ? p->edges[e].caller : p->edges[e].callee;

		if (f < p->nr_fns)
			(*start)[f + 1]++;
	}
	for (uint32_t f = 0; f < p->nr_fns; f++)
		(*start)[f + 1] += (*start)[f];
	for (size_t e = 0; e < p->nr_edges; e++) {
		uint32_t f = by_caller ? p->edges[e].caller : p->edges[e].callee;

		if (f < p->nr_fns)
			(*idx)[(*start)[f] + fill[f]++] = (uint32_t)e;
	}
	for (uint32_t f = 0; f < p->nr_fns; f++)
		qsort_r(*idx + (*start)[f], fill[f], sizeof(**idx), edge_cmp, &c);
	free(fill);
	return 0;
}

static int take_arcs_numbers(struct tui_data *d, struct tui_profile *p, struct edge_table *t)
{
	const struct arcs *a = d->r.arcs;

	for (uint32_t f = 0; f < p->nr_fns; f++)
		p->fn[f] = *arcs_fn(a, f);
	for (size_t i = 0; i < arcs_nr_edges(a); i++) {
		const struct arc_edge *ae = arcs_edge(a, i);
		struct tui_edge *e = edge(t, ae->caller, ae->callee);

		e->calls += ae->calls;
		e->base += ae->base;
		e->cum += ae->cum;
	}
	return t->oom ? -1 : 0;
}

struct tui_profile *tui_profile_new(struct tui_data *d, struct tui_sel sel)
{
	struct tui_profile *p = calloc(1, sizeof(*p));
	struct edge_table t = { 0 };
	const struct arcs *a = d->r.arcs;
	int ret;

	if (!p)
		goto oom;
	p->sel = sel;
	p->nr_fns = d->nr_fns;
	p->merged_root = ARC_NONE;
	p->fn = calloc(p->nr_fns + 1, sizeof(*p->fn));
	p->threads = malloc((arcs_nr_threads(a) + 1) * sizeof(*p->threads));
	p->listed = malloc((p->nr_fns + 1) * sizeof(*p->listed));
	if (!p->fn || !p->threads || !p->listed)
		goto oom;
	for (size_t i = 0; i < arcs_nr_threads(a); i++) {
		uint32_t pid, tid;

		arcs_thread_root(a, i, &pid, &tid);
		if (tui_sel_has(sel, pid, tid))
			p->threads[p->nr_threads++] = i;
	}
	ret = tui_sel_all(sel) ? take_arcs_numbers(d, p, &t) : derive(d, p, &t);
	if (ret)
		goto oom;
	/* arcs that carry nothing (entered outside a window) are not shown */
	for (size_t i = 0; i < t.n; i++)
		if (t.e[i].calls || t.e[i].base || t.e[i].cum)
			t.e[p->nr_edges++] = t.e[i];
	p->edges = t.e;
	row_index_free(&t.index);
	t.e = NULL;
	for (uint32_t f = 0; f < p->nr_fns; f++) {
		const struct arc_fn_stats *st = &p->fn[f];

		p->total += st->base;
		if ((st->cum || st->calls) && tui_fn_selected(d, f)) {
			p->listed[p->nr_listed++] = f;
			p->listed_base += st->base;
		}
	}
	if (index_edges(d, p, false, &p->in, &p->in_start) ||
	    index_edges(d, p, true, &p->out, &p->out_start))
		goto oom;
	return p;
oom:
	pr_err("out of memory adding up the threads' numbers");
	free(t.e);
	row_index_free(&t.index);
	tui_profile_free(p);
	return NULL;
}

void tui_profile_free(struct tui_profile *p)
{
	if (!p)
		return;
	free(p->fn);
	free(p->edges);
	free(p->in);
	free(p->out);
	free(p->in_start);
	free(p->out_start);
	free(p->listed);
	free(p->threads);
	free(p);
}

uint32_t tui_profile_merged_root(struct tui_data *d, struct tui_profile *p)
{
	size_t slot;

	if (p->merged_root != ARC_NONE)
		return p->merged_root;
	if (tui_sel_all(p->sel))
		return p->merged_root = arcs_merged_root(d->r.arcs);
	for (size_t i = 0; i < d->nr_merged && i < sizeof(d->merged) / sizeof(d->merged[0]); i++)
		if (d->merged[i].sel.pid == p->sel.pid && d->merged[i].sel.tid == p->sel.tid)
			return p->merged_root = d->merged[i].root;
	p->merged_root = arcs_merge(d->r.arcs, p->threads, p->nr_threads);
	slot = d->nr_merged++ % (sizeof(d->merged) / sizeof(d->merged[0]));
	d->merged[slot].sel = p->sel;
	d->merged[slot].root = p->merged_root;
	return p->merged_root;
}

uint64_t tui_thread_steps(const struct tui_data *d, size_t i)
{
	const struct arcs *a = d->r.arcs;
	uint64_t sum = 0;

	for (uint32_t c = arcs_node(a, arcs_thread_root(a, i, NULL, NULL))->first_child;
	     c != ARC_NONE; c = arcs_node(a, c)->next_sibling)
		sum += arcs_node(a, c)->cum;
	return sum;
}
