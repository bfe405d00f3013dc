// SPDX-License-Identifier: GPL-2.0
/* An index of a table's rows by their key (row_index.h). */
#include <stdlib.h>

#include "util/row_index.h"

/* Row r at its place in slot (size slots, a power of two). */
static void place(uint32_t *slot, size_t size, uint32_t r, uint64_t hash)
{
	size_t i;

	for (i = (size_t)hash & (size - 1); slot[i]; i = (i + 1) & (size - 1))
		;
	slot[i] = r + 1;
}

static void replace_slots(struct row_index *x, uint32_t *slot, size_t size)
{
	free(x->slot);
	x->slot = slot;
	x->size = size;
}

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
	for (size_t r = first; r < rows; r++)
		place(slot, size, (uint32_t)r, hash_of(ctx, (uint32_t)r));
	replace_slots(x, slot, size);
	return true;
}

bool row_index_resize(struct row_index *x, size_t size, size_t rows, row_index_key_fn key_of,
		      const void *ctx, size_t *nr)
{
	uint32_t *slot = calloc(size, sizeof(*slot));
	uint64_t hash;

	if (!slot)
		return false;
	*nr = 0;
	for (size_t r = 0; r < rows; r++)
		if (key_of(ctx, (uint32_t)r, &hash)) {
			place(slot, size, (uint32_t)r, hash);
			++*nr;
		}
	replace_slots(x, slot, size);
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
