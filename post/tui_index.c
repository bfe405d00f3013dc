// SPDX-License-Identifier: GPL-2.0
/* An index of a table's rows by their key (tui_index.h). */
#include <stdlib.h>

#include "tui_index.h"

uint64_t tui_hash(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ull;
	x ^= x >> 33;
	return x;
}

static bool grow(struct tui_index *x, size_t rows, const struct tui_index_ops *ops,
		 const void *ctx)
{
	size_t size = x->size ? 2 * x->size : 256;
	uint32_t *slot = calloc(size, sizeof(*slot));

	if (!slot)
		return false;
	for (uint32_t r = 0; r < rows; r++) {
		size_t i = ops->hash(ctx, r) & (size - 1);

		while (slot[i])
			i = (i + 1) & (size - 1);
		slot[i] = r + 1;
	}
	free(x->slot);
	x->slot = slot;
	x->size = size;
	return true;
}

uint32_t *tui_index_find(struct tui_index *x, size_t rows, uint64_t hash,
			 const struct tui_index_ops *ops, const void *ctx)
{
	size_t i, mask;

	if (2 * (rows + 1) > x->size && !grow(x, rows, ops, ctx))
		return NULL;
	mask = x->size - 1;
	for (i = hash & mask; x->slot[i]; i = (i + 1) & mask)
		if (ops->eq(ctx, x->slot[i] - 1))
			break;
	return &x->slot[i];
}

void tui_index_free(struct tui_index *x)
{
	free(x->slot);
	x->slot = NULL;
	x->size = 0;
}
