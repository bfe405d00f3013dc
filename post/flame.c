// SPDX-License-Identifier: GPL-2.0
/* The merged call tree of flame graphs, from every thread's tree (flame.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "post/flame.h"
#include "util/log.h"
#include "util/row_index.h"

struct flame {
	struct flow_report *r;
	struct flame_node *nodes;
	uint32_t nr, size;
	struct row_index index;	  /* nodes by (parent, fn), the root's children too */
	char **labels;		  /* the prefixes' names */
	size_t nr_labels;
	uint32_t *stack;	  /* while walking a thread: the node at each depth */
	size_t stack_size;
	uint32_t base;		  /* the thread's node under which its tree goes */
	unsigned max_depth;
	bool oom;
};

static uint64_t key_hash(uint32_t parent, uint32_t fn)
{
	return row_index_hash((uint64_t)parent << 32 | fn);
}

static uint64_t node_hash(const void *ctx, uint32_t i)
{
	const struct flame *fl = ctx;

	return key_hash(fl->nodes[i].parent, fl->nodes[i].fn);
}

static uint32_t node_add(struct flame *fl, uint32_t parent, uint32_t fn, const char *name)
{
	struct flame_node *n;

	if (fl->nr == fl->size) {
		uint32_t size = fl->size ? 2 * fl->size : 1024;
		struct flame_node *more = realloc(fl->nodes, size * sizeof(*more));

		if (!more) {
			fl->oom = true;
			return 0;
		}
		fl->nodes = more;
		fl->size = size;
	}
	n = &fl->nodes[fl->nr];
	*n = (struct flame_node){
		.name = name, .fn = fn, .parent = parent, .first_child = FLAME_NONE,
		.next_sibling = FLAME_NONE,
		.depth = parent && parent != FLAME_NONE ? fl->nodes[parent].depth + 1 : 0,
	};
	if (parent != FLAME_NONE) {
		n->next_sibling = fl->nodes[parent].first_child;
		fl->nodes[parent].first_child = fl->nr;
	}
	return fl->nr++;
}

/* The child of parent for function fn, made on first use. */
static uint32_t node_child(struct flame *fl, uint32_t parent, uint32_t fn)
{
	struct row_index *x = &fl->index;
	size_t k;
	uint32_t n;

	/* node 0, the root, is no one's child */
	if (!row_index_reserve(x, 1, fl->nr, 1024, node_hash, fl)) {
		fl->oom = true;
		return 0;
	}
	for (k = row_index_home(x, key_hash(parent, fn)); x->slot[k]; k = row_index_next(x, k)) {
		const struct flame_node *c = &fl->nodes[x->slot[k] - 1];

		if (c->parent == parent && c->fn == fn)
			return x->slot[k] - 1;
	}
	n = node_add(fl, parent, fn, cf_func(fl->r->cf, fn)->name);
	if (!fl->oom)
		x->slot[k] = n + 1;
	return n;
}

/* The node of a thread's command, process or thread under the root. */
static uint32_t prefix_node(struct flame *fl, enum flame_prefix prefix, uint32_t pid,
			    uint32_t tid)
{
	const char *comm = trace_comm(session_trace(fl->r->s), tid);
	char buf[64], **more;

	if (!comm)
		comm = "?";
	if (prefix == FLAME_PREFIX_COMM)
		snprintf(buf, sizeof(buf), "%s", comm);
	else if (prefix == FLAME_PREFIX_PID)
		snprintf(buf, sizeof(buf), "%s-%u", comm, pid);
	else
		snprintf(buf, sizeof(buf), "%s-%u/%u", comm, pid, tid);
	for (uint32_t c = fl->nodes[0].first_child; c != FLAME_NONE; c = fl->nodes[c].next_sibling)
		if (fl->nodes[c].fn == CF_NO_FN && !strcmp(fl->nodes[c].name, buf))
			return c;
	more = realloc(fl->labels, (fl->nr_labels + 1) * sizeof(*more));
	if (!more || !(more[fl->nr_labels] = strdup(buf))) {
		if (more)
			fl->labels = more;
		fl->oom = true;
		return 0;
	}
	fl->labels = more;
	return node_add(fl, 0, CF_NO_FN, fl->labels[fl->nr_labels++]);
}

static int arc_node_cmp(const void *a, const void *b, void *ctx)
{
	(void)ctx;
	return *(const uint32_t *)a < *(const uint32_t *)b ? -1 : 1;
}

/* A thread's call path: its node in the flame tree, with its steps when selected. */
static int visit_arc(void *ctx, uint32_t node, unsigned depth, const uint32_t *path,
		     int selected)
{
	struct flame *fl = ctx;
	const struct arc_node *n = arcs_node(fl->r->arcs, node);
	uint32_t parent, child;

	(void)path;
	if (depth >= fl->stack_size) {
		size_t size = fl->stack_size ? 2 * fl->stack_size : 256;
		uint32_t *more = realloc(fl->stack, size * sizeof(*more));

		if (!more) {
			fl->oom = true;
			return ARC_WALK_SKIP;
		}
		fl->stack = more;
		fl->stack_size = size;
	}
	parent = depth ? fl->stack[depth - 1] : fl->base;
	child = node_child(fl, parent, n->fn);
	if (fl->oom)
		return ARC_WALK_SKIP;
	fl->stack[depth] = child;
	selected = selected || fr_selected(fl->r, n->fn);
	if (selected)
		fl->nodes[child].self += n->base;
	return selected;
}

static int child_cmp(const void *pa, const void *pb, void *ctx)
{
	const struct flame *fl = ctx;
	const struct flame_node *a = &fl->nodes[*(const uint32_t *)pa];
	const struct flame_node *b = &fl->nodes[*(const uint32_t *)pb];

	if (a->parent != b->parent)
		return a->parent < b->parent ? -1 : 1;
	return strcmp(a->name, b->name) ?: (a->fn > b->fn) - (a->fn < b->fn);
}

/* Totals (children come after their parents), and children relinked in name order. */
static int finish(struct flame *fl)
{
	uint32_t *order = malloc((fl->nr + 1) * sizeof(*order));

	if (!order)
		return -1;
	for (uint32_t i = 0; i < fl->nr; i++)
		fl->nodes[i].total = fl->nodes[i].self;
	for (uint32_t i = fl->nr; i-- > 1;)
		fl->nodes[fl->nodes[i].parent].total += fl->nodes[i].total;
	for (uint32_t i = 0; i + 1 < fl->nr; i++)
		order[i] = i + 1;
	qsort_r(order, fl->nr - 1, sizeof(*order), child_cmp, fl);
	for (uint32_t i = 0; i < fl->nr; i++)
		fl->nodes[i].first_child = FLAME_NONE;
	for (uint32_t i = fl->nr - 1; i-- > 0;) {
		struct flame_node *n = &fl->nodes[order[i]];

		n->next_sibling = fl->nodes[n->parent].first_child;
		fl->nodes[n->parent].first_child = order[i];
		if (n->total && n->depth + 1 > fl->max_depth)
			fl->max_depth = n->depth + 1;
	}
	free(order);
	return 0;
}

struct flame *flame_new(struct flow_report *r, enum flame_prefix prefix)
{
	struct flame *fl = calloc(1, sizeof(*fl));
	const struct arcs *a = r->arcs;

	if (!fl)
		goto oom;
	fl->r = r;
	node_add(fl, FLAME_NONE, CF_NO_FN, "");
	for (size_t i = 0; i < arcs_nr_threads(a) && !fl->oom; i++) {
		uint32_t pid, tid, root = arcs_thread_root(a, i, &pid, &tid);

		fl->base = prefix == FLAME_PREFIX_NONE ? 0 : prefix_node(fl, prefix, pid, tid);
		if (!fl->oom && arcs_walk(a, root, arc_node_cmp, visit_arc, fl) < 0)
			fl->oom = true;
	}
	if (!fl->oom && !finish(fl))
		return fl;
oom:
	pr_err("out of memory merging the call trees");
	flame_free(fl);
	return NULL;
}

void flame_free(struct flame *fl)
{
	if (!fl)
		return;
	for (size_t i = 0; i < fl->nr_labels; i++)
		free(fl->labels[i]);
	free(fl->labels);
	free(fl->nodes);
	row_index_free(&fl->index);
	free(fl->stack);
	free(fl);
}

const struct flame_node *flame_node(const struct flame *fl, uint32_t i)
{
	return &fl->nodes[i];
}

uint32_t flame_nr_nodes(const struct flame *fl)
{
	return fl->nr;
}

unsigned flame_depth(const struct flame *fl)
{
	return fl->max_depth;
}

int flame_walk(const struct flame *fl,
	       bool (*visit)(void *ctx, const struct flame_node *n, const uint32_t *path),
	       void *ctx)
{
	uint32_t *path = malloc((fl->max_depth + 1) * sizeof(*path));
	uint32_t n = fl->nodes[0].first_child;

	if (!path) {
		pr_err("out of memory walking the call tree");
		return -1;
	}
	while (n != FLAME_NONE) {
		const struct flame_node *node = &fl->nodes[n];
		bool down = false;

		if (node->total) {
			path[node->depth] = n;
			down = visit(ctx, node, path);
		}
		if (down && node->first_child != FLAME_NONE) {
			n = node->first_child;
			continue;
		}
		/* the next sibling, else the nearest ancestor's next sibling */
		while (n != FLAME_NONE && fl->nodes[n].next_sibling == FLAME_NONE)
			n = fl->nodes[n].parent ? fl->nodes[n].parent : FLAME_NONE;
		if (n != FLAME_NONE)
			n = fl->nodes[n].next_sibling;
	}
	free(path);
	return 0;
}
