// SPDX-License-Identifier: GPL-2.0
/* What report builders keep per replay, in one pool with a free chain (replay_pool.h). */
#include <stdlib.h>
#include <string.h>

#include "util/alloc.h"
#include "util/assert.h"
#include "util/replay_pool.h"

static inline void *item_at(const struct replay_pool *p, uint32_t i)
{
	return p->items + (size_t)i * p->elem;
}

void *replay_pool_of(struct replay_pool *p, uint32_t *words, bool *made)
{
	uint32_t i;

	*made = false;
	if (words[0]) {
		DASSERT(words[0] <= p->nr);
		return item_at(p, words[0] - 1);
	}
	if (p->free) {
		i = p->free - 1;
		p->free = p->next_free[i];
	} else {
		if (p->nr == p->size) {
			p->size = p->size ? 2 * p->size : 64;
			p->items = xreallocarray(p->items, p->size, p->elem);
			p->next_free = xreallocarray(p->next_free, p->size, sizeof(*p->next_free));
		}
		i = p->nr++;
	}
	memset(item_at(p, i), 0, p->elem);
	p->next_free[i] = 0;
	words[0] = i + 1;
	*made = true;
	return item_at(p, i);
}

void replay_pool_drop(struct replay_pool *p, uint32_t *words)
{
	uint32_t i;

	if (!words[0])
		return;
	i = words[0] - 1;
	DASSERT(i < p->nr);
	if (p->release)
		p->release(item_at(p, i));
	memset(item_at(p, i), 0, p->elem);
	p->next_free[i] = p->free;
	p->free = i + 1;
	words[0] = 0;
}

void replay_pool_free(struct replay_pool *p)
{
	for (uint32_t i = 0; p->release && i < p->nr; i++)
		p->release(item_at(p, i));	/* a free item is zeroed: it owns nothing */
	free(p->items);
	free(p->next_free);
	p->items = NULL;
	p->next_free = NULL;
	p->nr = p->size = p->free = 0;
}
