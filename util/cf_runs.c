// SPDX-License-Identifier: GPL-2.0
/* The call-flow engine's runs of straight-line code (cf_runs.h). */
#include <stdlib.h>
#include <string.h>

#include <pitrace/stepenc.h>

#include "util/alloc.h"
#include "util/cf_runs.h"
#include "util/log.h"

void cf_runs_init(struct cf_runs *rs, void (*tally)(void *ctx, const struct cf_tally *tl),
		  void *ctx)
{
	memset(rs, 0, sizeof(*rs));
	rs->max_sites = CF_RUN_MAX;
	rs->tally = tally;
	rs->tally_ctx = ctx;
}

void cf_runs_release(struct cf_runs *rs)
{
	free(rs->runs);
	free(rs->info);
	free(rs->by_id);
	free(rs->pcs);
	free(rs->sites);
	free(rs->enc);
	memset(rs, 0, sizeof(*rs));
}

/*
 * Nothing but pc + len can follow it, and nothing happens on the way (and
 * the step to pc + len is a short one: a run's steps are a byte each).
 */
static bool ordinary(const struct arch_insn *in)
{
	return in->cls == ARCH_INSN_OTHER && in->len && pt_step_is_short(in->len) &&
	       !(in->flags & (ARCH_INSN_CONDITIONAL | ARCH_INSN_REP));
}

/*
 * Room for n more pool entries: false when the pool is as large as it can
 * be, and then runs are made no more (the steps are followed one by one,
 * counted all the same).
 */
static bool pool_reserve(struct cf_runs *rs, uint32_t n)
{
	uint32_t old = rs->pool_size;

	if (rs->pool_used + n <= rs->pool_size)
		return true;
	if (rs->pool_size > UINT32_MAX / 2 - n) {
		if (!rs->full)
			pr_warn("too many runs in the call flow: the rest is followed step by step");
		rs->full = true;
		return false;
	}
	rs->pool_size = rs->pool_size ? 2 * rs->pool_size : 4096;
	while (rs->pool_used + n > rs->pool_size)
		rs->pool_size *= 2;
	rs->pcs = xreallocarray(rs->pcs, rs->pool_size, sizeof(*rs->pcs));
	/*
	 * What runs' compares read past the last one: defined, never counted.
	 * Only the new part: a run being made may have its first pc at
	 * pool_used already (cf_runs_get, then build reserves again).
	 */
	memset(rs->pcs + old, 0, (rs->pool_size - old) * sizeof(*rs->pcs));
	rs->sites = xreallocarray(rs->sites, rs->pool_size, sizeof(*rs->sites));
	rs->enc = xreallocarray(rs->enc, rs->pool_size, sizeof(*rs->enc));
	memset(rs->enc + old, 0, rs->pool_size - old);
	return true;
}

/*
 * Run r's sites from its start (the first `keep` taken from its old place),
 * as far as the source describes them: a new place at the pool's end.
 * false: no room in the pool (the run is as it was).
 */
static bool build(struct cf_runs *rs, const struct cf_source *src, uint32_t i, uint32_t old_first,
		  uint32_t keep)
{
	struct cf_run *r = &rs->runs[i];
	struct cf_run_info *ri = &rs->info[i];
	uint32_t first = rs->pool_used;
	uint32_t m = keep;

	if (!pool_reserve(rs, CF_RUN_MAX + CF_RUN_SLACK))
		return false;
	memmove(rs->pcs + first, rs->pcs + old_first, keep * sizeof(*rs->pcs));
	memmove(rs->sites + first, rs->sites + old_first, keep * sizeof(*rs->sites));
	memmove(rs->enc + first, rs->enc + old_first, keep);
	rs->enc[first] = 0;	/* a run's first step comes by a transfer: no delta of its own */
	ri->open = false;
	while (m < rs->max_sites) {
		const struct cf_site *last = &rs->sites[first + m - 1];
		uint64_t pc = rs->pcs[first + m - 1] + last->insn.len;
		struct cf_site next;

		if (!ordinary(&last->insn))
			break;
		memset(&next, 0, sizeof(next));
		if (!src->peek(src->ctx, ri->pid, pc, ri->ring, &next)) {
			ri->open = true;
			break;
		}
		if (next.fn != ri->fn || !next.id)
			break;
		rs->pcs[first + m] = pc;
		rs->sites[first + m] = next;
		rs->enc[first + m] = (uint8_t)last->insn.len;	/* a short step: 1..15 */
		m++;
	}
	r->first = first;
	r->m = (uint16_t)m;
	rs->pool_used += m;
	return true;
}

void cf_runs_tally_run(struct cf_runs *rs, uint32_t i)
{
	struct cf_run *r = &rs->runs[i];
	uint32_t last = r->first + r->m - 1, pid = rs->info[i].pid;

	for (uint32_t k = 0; k < r->m; k++) {
		uint64_t n = r->times + (k ? r->tail : 0);

		if (n)
			rs->tally(rs->tally_ctx, &(struct cf_tally){
				.pid = pid, .pc = rs->pcs[r->first + k],
				.site = &rs->sites[r->first + k], .steps = n });
	}
	for (int j = 0; j < 2; j++)
		if (r->jumps[j])
			rs->tally(rs->tally_ctx, &(struct cf_tally){
				.pid = pid, .pc = rs->pcs[last], .site = &rs->sites[last],
				.to = r->next_pc[j], .jumps = r->jumps[j] });
	r->times = r->tail = r->jumps[0] = r->jumps[1] = 0;
}

void cf_runs_tally_all(struct cf_runs *rs)
{
	for (uint32_t i = 0; i < rs->nr; i++)
		cf_runs_tally_run(rs, i);
}

/* An open run whose next site the source now describes: built again, longer. */
static void extend(struct cf_runs *rs, const struct cf_source *src, uint32_t i)
{
	struct cf_run *r = &rs->runs[i];
	const struct cf_run_info *ri = &rs->info[i];
	const struct cf_site *last = &rs->sites[r->first + r->m - 1];
	struct cf_site next;

	memset(&next, 0, sizeof(next));
	if (!src->peek(src->ctx, ri->pid, rs->pcs[r->first + r->m - 1] + last->insn.len, ri->ring,
		       &next))
		return;		  /* still not described: stays open */
	cf_runs_tally_run(rs, i); /* its counts and successors are of its old end */
	memset(r->next, 0, sizeof(r->next));
	r->known = false;
	if (!build(rs, src, i, r->first, r->m))
		rs->info[i].open = false;	/* no room to grow: it stays as long as it is */
}

int32_t cf_runs_get(struct cf_runs *rs, const struct cf_source *src, uint32_t pid, uint8_t ring,
		    uint64_t pc, const struct cf_site *x)
{
	struct cf_run *r;
	uint32_t i;

	if (!x->id || !src->peek)
		return -1;
	if (x->id < rs->by_id_size && rs->by_id[x->id]) {
		i = rs->by_id[x->id] - 1;
		if (rs->info[i].open)
			extend(rs, src, i);
		return (int32_t)i;
	}
	if (x->id >= rs->by_id_size) {
		uint32_t n = rs->by_id_size ? rs->by_id_size : 4096;

		while (n <= x->id)
			n = n > UINT32_MAX / 2 ? UINT32_MAX : 2 * n;
		if (n <= x->id)
			return -1;
		rs->by_id = xreallocarray(rs->by_id, n, sizeof(*rs->by_id));
		memset(rs->by_id + rs->by_id_size, 0, (n - rs->by_id_size) * sizeof(*rs->by_id));
		rs->by_id_size = n;
	}
	if (rs->nr == rs->size) {
		if (rs->size >= UINT32_MAX / 2)
			return -1;
		struct cf_run *runs;

		rs->size = rs->size ? 2 * rs->size : 1024;
		runs = xaligned_alloc(64, rs->size * sizeof(*runs));
		if (rs->nr)
			memcpy(runs, rs->runs, rs->nr * sizeof(*runs));
		free(rs->runs);
		rs->runs = runs;
		rs->info = xreallocarray(rs->info, rs->size, sizeof(*rs->info));
	}
	if (!pool_reserve(rs, 1 + CF_RUN_SLACK))
		return -1;
	i = rs->nr++;
	r = &rs->runs[i];
	memset(r, 0, sizeof(*r));
	rs->info[i] = (struct cf_run_info){ .pid = pid, .fn = x->fn, .ring = ring };
	rs->pcs[rs->pool_used] = pc;
	rs->sites[rs->pool_used] = *x;
	rs->enc[rs->pool_used] = 0;
	if (!build(rs, src, i, rs->pool_used, 1)) {
		rs->nr--;
		return -1;
	}
	rs->by_id[x->id] = i + 1;
	return (int32_t)i;
}
