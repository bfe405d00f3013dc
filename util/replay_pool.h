/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What a report builder keeps per replay (a call the engine takes whole,
 * callflow.h: cf_consumer_ops.replay), in one pool: an item per replay,
 * found by the replay's words[0] (its index + 1), made the first time it
 * is taken and released when the engine drops the replay (replay_drop),
 * its slot then reused.  arcs keeps its sums per caller's node here,
 * flow its lines.
 *
 *	struct replay_pool p = REPLAY_POOL_INIT(struct sums, sums_release);
 *	struct sums *s = replay_pool_of(&p, words, &made);	made: zeroed, new
 *	replay_pool_drop(&p, words);	from replay_drop
 *	replay_pool_free(&p);
 *
 * Items move when the pool grows: a pointer is good until the next
 * replay_pool_of().
 */
#ifndef PT_REPLAY_POOL_H
#define PT_REPLAY_POOL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct replay_pool {
	size_t elem;		  /* an item's bytes */
	void (*release)(void *item); /* what an item owns freed (an item zeroed owns nothing) */
	char *items;
	uint32_t *next_free;	  /* per item: the next free one + 1 (0 none) */
	uint32_t nr, size;	  /* items made, room */
	uint32_t free;		  /* the first free item + 1 (0 none) */
};

#define REPLAY_POOL_INIT(type, release_fn) { .elem = sizeof(type), .release = (release_fn) }

/* The item of the replay whose words these are, made (zeroed, *made true) if it has none. */
void *replay_pool_of(struct replay_pool *p, uint32_t *words, bool *made);
/* The replay is gone: its item released and free (words[0] cleared). */
void replay_pool_drop(struct replay_pool *p, uint32_t *words);
/* Every item released, the pool's memory freed. */
void replay_pool_free(struct replay_pool *p);

#endif /* PT_REPLAY_POOL_H */
