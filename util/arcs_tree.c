// SPDX-License-Identifier: GPL-2.0
/* Call-tree nodes of the arc tables: made, found by (parent, function), walked, merged (arcs.h). */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "util/alloc.h"
#include "util/arcs_internal.h"
#include "util/log.h"

uint32_t arcs_node_new(struct arcs *a, uint32_t fn, uint32_t parent)
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

void arcs_child_index(struct arcs *a, uint32_t node)
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
uint32_t arcs_node_child(struct arcs *a, uint32_t parent, uint32_t fn)
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
	c = arcs_node_new(a, fn, parent);
	arcs_child_index(a, c);
	return c;
}

void arcs_node_detach(struct arcs *a, uint32_t n)
{
	uint32_t *p = &a->nodes[a->nodes[n].parent].first_child;

	while (*p != n)
		p = &a->nodes[*p].next_sibling;
	*p = a->nodes[n].next_sibling;
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
			uint32_t d = arcs_node_child(a, p.dst, a->nodes[c].fn);

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
	uint32_t root = arcs_node_new(a, CF_NO_FN, ARC_NONE);

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
	root = arcs_node_new(a, CF_NO_FN, ARC_NONE);
	for (size_t i = 0; i < a->nr_threads; i++)
		merge_into(a, root, a->threads[i]->root);
	a->merged_root = root;
	return root;
}

uint32_t arcs_nr_nodes(const struct arcs *a)
{
	return a->nr_nodes;
}

