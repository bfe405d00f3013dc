/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The call-flow engine's runs (private to callflow.c and its tests).
 *
 * A run is straight-line code as the engine met it: a site, then the
 * sites that follow it in memory while each one before is an ordinary
 * instruction (no transfer, nothing conditional or repeated) of the same
 * function, up to CF_RUN_MAX.  It is keyed by its first site's id, which
 * the source gives anew whenever what is mapped at the address may have
 * changed, so a run never goes stale: a new mapping's code has new ids.
 *
 * Runs are built only of sites the source already describes (its peek),
 * never by describing code that has not run, so the function table and
 * the sites' ids come out in the order the steps met them.  A run that
 * ended at a site not described yet is open: it is built again, longer,
 * when that site is described.
 *
 * Each run remembers, for its last instruction, the two successors the
 * engine took without anything happening but the count (the fall-through
 * and the branch's target, or an indirect jump's last target; one in
 * another function, a tail call or a jump into its middle, marked
 * CF_RUN_CROSS), and counts the steps and taken jumps it
 * stood for, to be told to the consumers (cf_tally) at the end of the
 * pass or before the run is rebuilt.  A run that ends in a call keeps its
 * callee's run in next[1] (an indirect call's last) and, in next[0], the
 * run after the call, where a return from the callee lands.
 */
#ifndef PT_CF_RUNS_H
#define PT_CF_RUNS_H

#include <stdbool.h>
#include <stdint.h>

#include "util/callflow.h"

#define CF_RUN_MAX CF_LIMIT_RUN_SITES
#define CF_RUN_SLACK 8	  /* the pool's pcs (and enc) readable past its last run */
#define CF_RUN_CROSS(k) (4u << (k))

/* What cf_steps reads and counts of a run at each pass: one cache line. */
struct cf_run {
	/* the last instruction's successors: [0] fall-through, [1] target */
	uint64_t next_pc[2];
	uint32_t next[2];	  /* run index + 1, 0 none */
	uint32_t first;		  /* its sites: pool[first .. first + m - 1] */
	uint16_t m;
	uint8_t known;		  /* every site was once stepped one by one as part of it */
	uint8_t next_jump;	  /* bit k: going to next[k] is a taken jump (arcs count it);
				   * CF_RUN_CROSS(k): next[k] is another function's */
	uint64_t times;		  /* run whole, counted in bulk, not told yet */
	uint64_t tail;		  /* sites 1..m-1 only (after a step of site 0), not told */
	uint64_t jumps[2];	  /* taken jumps to next[k] not told yet */
} __attribute__((aligned(64)));
_Static_assert(sizeof(struct cf_run) == 64, "a run is one cache line");

/* The rest of it. */
struct cf_run_info {
	uint32_t pid, fn;
	uint8_t ring;
	bool open;		  /* ended at a site the source did not describe yet */
};

struct cf_runs {
	struct cf_run *runs;
	struct cf_run_info *info;
	uint32_t nr, size;
	uint32_t *by_id;	  /* site id -> run index + 1 */
	uint32_t by_id_size;
	uint64_t *pcs;		  /* the pool: runs' pcs and sites */
	struct cf_site *sites;
	uint8_t *enc;		  /* per pool entry after a run's first: its step as the
				   * streams encode it (the delta from the entry before: the
				   * instruction's length, one short step); zero elsewhere */
	uint32_t pool_used, pool_size;
	uint32_t max_sites;	  /* a run's sites, at most (cf_limits.run_sites) */
	bool full;		  /* the pool can grow no more: no runs are made */
	void (*tally)(void *ctx, const struct cf_tally *tl);
	void *tally_ctx;
};

void cf_runs_init(struct cf_runs *rs, void (*tally)(void *ctx, const struct cf_tally *tl),
		  void *ctx);
void cf_runs_release(struct cf_runs *rs);

/*
 * The run whose first site is x, at pc of pid in ring (described by src),
 * made or made longer if need be: its index, -1 when x has no id, src no
 * peek or the pool no room (the caller steps one by one).  The pool may move.
 */
int32_t cf_runs_get(struct cf_runs *rs, const struct cf_source *src, uint32_t pid, uint8_t ring,
		    uint64_t pc, const struct cf_site *x);

/* Tell what run i's counts stood for (cf_tally) and clear them. */
void cf_runs_tally_run(struct cf_runs *rs, uint32_t i);
/* ... of every run. */
void cf_runs_tally_all(struct cf_runs *rs);

#endif /* PT_CF_RUNS_H */
