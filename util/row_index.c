// SPDX-License-Identifier: GPL-2.0
/* An index of a table's rows by their key (row_index.h). */
#include <stdlib.h>

#include "util/row_index.h"

/* row_index_reserve's growth: the index is too small for one more row. */
bool row_index_grow(struct row_index *x, size_t first, size_t rows, size_t min_size,
		    row_index_hash_fn hash_of, const void *ctx)
{
	size_t size;
	uint32_t *slot;

	size = x->size ? 2 * x->size : min_size;
	while (2 * (rows + 1) > size)
		size *= 2;
	slot = calloc(size, sizeof(*slot));
	if (!slot)
		return false;
	for (size_t r = first; r < rows; r++) {
		size_t i;

		for (i = (size_t)hash_of(ctx, (uint32_t)r) & (size - 1); slot[i];
		     i = (i + 1) & (size - 1))
			;
		slot[i] = (uint32_t)r + 1;
	}
	free(x->slot);
	x->slot = slot;
	x->size = size;
	return true;
}

uint32_t *row_index_find(struct row_index *x, size_t rows, uint64_t hash,
			 const struct row_index_ops *ops, const void *ctx)
{
	size_t i;

	if (!row_index_reserve(x, 0, rows, 256, ops->hash, ctx))
		return NULL;
	for (i = row_index_home(x, hash); x->slot[i]; i = row_index_next(x, i))
		if (ops->eq(ctx, x->slot[i] - 1))
			break;
	return &x->slot[i];
}

void row_index_free(struct row_index *x)
{
	free(x->slot);
	x->slot = NULL;
	x->size = 0;
}
