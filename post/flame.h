/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The call tree of flame graphs: every thread's tree (util/arcs.h) merged
 * call path by call path, optionally under one node per command, process
 * or thread (so that the _start stacks of several processes stay apart),
 * each node with its own steps and its total; children in name order, as
 * flame graphs draw them.  post export's folded stacks and SVG flame graph
 * are written from it.
 */
#ifndef POST_FLAME_H
#define POST_FLAME_H

#include <stdint.h>

#include "post/flowreport.h"

enum flame_prefix {
	FLAME_PREFIX_NONE,
	FLAME_PREFIX_COMM,	  /* "comm": threads of one name together */
	FLAME_PREFIX_PID,	  /* "comm-PID": each process */
	FLAME_PREFIX_TID,	  /* "comm-PID/TID": each thread */
};

#define FLAME_NONE UINT32_MAX

struct flame_node {
	const char *name;	  /* the function's, or the prefix's */
	uint32_t fn;		  /* the engine's function; CF_NO_FN for the root and prefixes */
	uint32_t parent, first_child, next_sibling; /* FLAME_NONE: none; children by name */
	unsigned depth;		  /* the root's children: 0 */
	uint64_t self;		  /* steps of its own (of selected functions' paths) */
	uint64_t total;		  /* self and its children's totals */
};

struct flame;

/*
 * From the arcs after the pass: the paths with a selected function on
 * them (--module, --symbol, --ring), as post export --format folded
 * always wrote them.  NULL when out of memory (printed).
 */
struct flame *flame_new(struct flow_report *r, enum flame_prefix prefix);
void flame_free(struct flame *fl);

/* Node 0 is the root: no name, its total every step the tree holds. */
const struct flame_node *flame_node(const struct flame *fl, uint32_t i);
uint32_t flame_nr_nodes(const struct flame *fl);
/* The deepest node's depth + 1 (0: an empty tree). */
unsigned flame_depth(const struct flame *fl);

/*
 * Every node below the root in depth-first order, children by name, with
 * an explicit stack (any depth): visit gets the node and the path from
 * the root's child down to it (path[0..node->depth]); it returns false
 * to leave the node's children out.  0, or -1 out of memory (printed).
 */
int flame_walk(const struct flame *fl,
	       bool (*visit)(void *ctx, const struct flame_node *n, const uint32_t *path),
	       void *ctx);

#endif /* POST_FLAME_H */
