/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the parts of the arc tables share (private to util/arcs_*.c): the
 * tables' state and the rows each part finds or makes in another's.
 * util/arcs_rows.c holds the rows of functions, arcs, addresses and
 * jumps, the read interface and the invariants' check; util/arcs_tree.c
 * the call trees' nodes, walked and merged; util/arcs_collect.c the
 * call-flow consumer that fills both.  util/arcs.h is the interface to
 * the rest (no util/arcs.c: it would include this header, which includes
 * arcs.h, a cycle of modules for scripts/include_cycles.py).
 */
#ifndef PT_ARCS_INTERNAL_H
#define PT_ARCS_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "arch/arch_decode.h"
#include "util/arcs.h"
#include "util/replay_pool.h"
#include "util/row_index.h"

/* What a site's id finds without a hash. */
struct arc_by_site {
	uint32_t pc;		  /* index + 1 in pcs */
	uint32_t jump;		  /* index + 1 in jumps of the last jump taken from it */
};

/* Per thread: the tree node of every frame on its stack, and its last step. */
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

struct arcs_delta;

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
	struct row_index children; /* nodes by (parent, fn): arcs_node_child's children */
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
	uint32_t tree_gen;	  /* adopts so far: each may change what arcs_node_child finds */
	struct replay_pool replays; /* what walking each replay added (struct arcs_replay) */
	struct arcs_delta *scratch; /* a walk's additions, before they are merged */
	uint32_t nr_scratch, scratch_size;
};

/* ---- rows of functions, arcs, addresses and jumps (arcs_rows.c) ---- */

/* fn's row, made (zeroed) if there is none yet. */
struct arc_fn_stats *arcs_fn_row(struct arcs *a, uint32_t fn);

/* The arc (caller, callee), made if there is none yet. */
struct arc_edge *arcs_edge_row(struct arcs *a, uint32_t caller, uint32_t callee);

/* The arc (caller, callee) as node's frames look it up: node's last one tried first. */
struct arc_edge *arcs_node_edge(struct arcs *a, uint32_t node, uint32_t caller, uint32_t callee);

/* n steps of the site at pc (n > 1: counted in bulk, the entry made by a step before) */
void arcs_count_pc(struct arcs *a, uint32_t pid, uint64_t pc, uint32_t fn, uint32_t id,
		   uint64_t n);

/* A jump taken from the site numbered from_id (0 none) at from to to. */
void arcs_count_jump(struct arcs *a, uint32_t pid, uint32_t fn, uint32_t from_id, uint64_t from,
		     uint64_t to, uint8_t cls, uint64_t n);

/* ---- call-tree nodes (arcs_tree.c) ---- */

/* A new node of fn, parent's newest child (parent ARC_NONE: a root); not in the index yet. */
uint32_t arcs_node_new(struct arcs *a, uint32_t fn, uint32_t parent);

/* Put node under parent in the index (after arcs_node_new or a move). */
void arcs_child_index(struct arcs *a, uint32_t node);

/* parent's child of function fn, made if there is none. */
uint32_t arcs_node_child(struct arcs *a, uint32_t parent, uint32_t fn);

/* Take node n out of its parent's list of children (its parent and its index row stay: a move). */
void arcs_node_detach(struct arcs *a, uint32_t n);

#endif /* PT_ARCS_INTERNAL_H */
