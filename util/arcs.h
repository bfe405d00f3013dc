/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Aggregation of the call flow (callflow.h) into what arc-flow reports
 * show: per function calls, Base (self) and Cum (inclusive) instructions,
 * caller->callee arcs with their share of both, per-thread call trees and
 * per-address self counts.  See callflow.h for how each number is defined;
 * the invariants the tests check:
 *   sum of Base over functions == total steps
 *   calls(f) == sum of calls over the arcs into f
 *   Cum(f) == Base(f) + sum of Cum over the arcs out of f
 *   Base(f) == sum of Base over the arcs into f (the root arc included)
 */
#ifndef PT_ARCS_H
#define PT_ARCS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/callflow.h"

struct arc_fn_stats {
	uint64_t calls, base, cum;
};

/*
 * caller -> callee; caller is CF_NO_FN for a thread's root frames (Cum: their share of the
 * callee's Cum).  calls are credited to the function that made the transfer (a tail call's
 * to the function that jumped); entries count the frames of callee that ran directly above
 * a frame of caller (the call tree's view: a tail call's or a jump's frame counts where it
 * landed, on the arc that gets its Base and Cum), so every arc with costs has entries.
 */
struct arc_edge {
	uint32_t caller, callee;
	uint64_t calls, base, cum;
	uint64_t call_site;	  /* pc of the first call seen, 0 if none */
	uint32_t pid;		  /* process of that call site */
	uint64_t entries;
	uint64_t entry_site;	  /* pc in caller of the first entry's call (0 unknown) */
	uint32_t entry_pid;	  /* process of that entry */
};

/* A call-tree node: one call path in one thread (or merged). */
struct arc_node {
	uint32_t fn;		  /* CF_NO_FN for a thread's root node */
	uint32_t parent, first_child, next_sibling; /* node indexes, ARC_NONE */
	uint64_t calls, base, cum;
};
#define ARC_NONE UINT32_MAX

/* Self steps at one address. */
struct arc_pc {
	uint32_t pid, fn;
	uint64_t pc, count;
};

struct arcs;

/* Collect from cf (registers itself as a consumer). NULL when cf has no free consumer slot. */
struct arcs *arcs_new(struct callflow *cf);
void arcs_free(struct arcs *a);

uint64_t arcs_total(const struct arcs *a);
struct callflow *arcs_callflow(const struct arcs *a);

/* Per function (index: function id; functions never entered have zeros). */
const struct arc_fn_stats *arcs_fn(const struct arcs *a, uint32_t fn);

/* All arcs, in no particular order. */
size_t arcs_nr_edges(const struct arcs *a);
const struct arc_edge *arcs_edge(const struct arcs *a, size_t i);

/* Call trees: nodes of one array; a root node per thread, in thread order. */
size_t arcs_nr_threads(const struct arcs *a);
uint32_t arcs_thread_root(const struct arcs *a, size_t i, uint32_t *pid, uint32_t *tid);
const struct arc_node *arcs_node(const struct arcs *a, uint32_t node);

/*
 * Walk the tree under root depth first, each node's children in cmp order
 * (qsort_r's comparison of node indexes, given ctx), with an explicit stack:
 * any depth.  visit gets each node below root at its depth (root's children
 * at 0), path[0..depth] the nodes from there down to it, and the flag its
 * parent's visit returned (root's children: 0); it returns ARC_WALK_SKIP to
 * leave the node's children out, else the flag they get.  0, or -1 when out
 * of memory (printed).
 */
#define ARC_WALK_SKIP (-1)
int arcs_walk(const struct arcs *a, uint32_t root, int (*cmp)(const void *, const void *, void *),
	      int (*visit)(void *ctx, uint32_t node, unsigned depth, const uint32_t *path, int flag),
	      void *ctx);

/* Merge every thread's tree into one; returns its root (valid until arcs_free). */
uint32_t arcs_merged_root(struct arcs *a);

/*
 * Merge the trees of the threads threads[0..n) (indexes as arcs_thread_root
 * takes) into a new tree; returns its root.  Every call adds nodes (valid
 * until arcs_free): callers keep the roots they need.
 */
uint32_t arcs_merge(struct arcs *a, const size_t *threads, size_t n);

/* Nodes of every tree so far (node indexes are below this). */
uint32_t arcs_nr_nodes(const struct arcs *a);

/* Does a frame entered so (enum cf_entry_kind) count as a call of its arc? */
bool arcs_entry_is_call(uint8_t kind);

/* Per-address self counts (for line-level exports). */
size_t arcs_nr_pcs(const struct arcs *a);
const struct arc_pc *arcs_pc(const struct arcs *a, size_t i);

/*
 * Taken jumps and branches inside one function: a jump or conditional
 * branch at from followed by the step at to (not its fall-through), in
 * the same function.  The branch's executions are its arc_pc count.
 */
struct arc_jump {
	uint32_t pid, fn;
	uint64_t from, to, count;
	uint8_t cls;		  /* ARCH_INSN_JUMP or ARCH_INSN_COND */
};
size_t arcs_nr_jumps(const struct arcs *a);
const struct arc_jump *arcs_jump(const struct arcs *a, size_t i);

/*
 * Optional: told when an address, a jump or an arc's entry site is first
 * seen (its index in arcs_pc(), arcs_jump(), arcs_edge()), while the
 * address space it ran in is the current one.  A report that needs source
 * lines resolves them then: after the trace, an exec may have put other
 * code at the same address.  Every member is optional.
 */
struct arcs_first_sight {
	void (*pc)(void *ctx, const struct arcs *a, size_t pc);
	void (*jump)(void *ctx, const struct arcs *a, size_t jump);
	void (*entry)(void *ctx, const struct arcs *a, size_t edge);
	void *ctx;
};
void arcs_set_first_sight(struct arcs *a, const struct arcs_first_sight *fs);

/* Check the invariants above; returns the number violated (each printed with pr_err). */
int arcs_check(const struct arcs *a);

#endif /* PT_ARCS_H */
