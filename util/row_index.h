/* SPDX-License-Identifier: GPL-2.0 */
/*
 * An index of a table's rows by their key: open addressing over row
 * numbers, linear probing, a power-of-two size kept under half full.
 * The rows, and what their keys are, stay the caller's (a table that owns
 * its keys and values is a hashtab.h one).  The arc tables,
 * the flame graph's nodes, folded stacks' deep lines and the viewer's
 * tables use it.
 *
 * A lookup that must be fast probes itself:
 *
 *	if (!row_index_reserve(&x, 0, rows, MIN, hash_of, ctx))
 *		... out of memory ...
 *	for (i = row_index_home(&x, h); x.slot[i]; i = row_index_next(&x, i))
 *		if (the key of row x.slot[i] - 1 is the one looked for)
 *			return x.slot[i] - 1;
 *	x.slot[i] = new_row + 1;
 *
 * and row_index_find() does the same with callbacks.
 */
#ifndef PT_ROW_INDEX_H
#define PT_ROW_INDEX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/hashtab.h"

struct row_index {
	uint32_t *slot;		  /* row + 1; 0: empty */
	size_t size;		  /* a power of two, or 0 before the first row */
};

/* Spread a key's bits (keys of ids and addresses cluster). */
static inline uint64_t row_index_hash(uint64_t x)
{
	return hashtab_mix64(x);
}

/* The hash of row's key, for re-indexing the rows when the index grows. */
typedef uint64_t (*row_index_hash_fn)(const void *ctx, uint32_t row);

/*
 * Room for one more row, rows being in the table now: before the index
 * would be half full it grows (to min_size first) and re-indexes rows
 * first .. rows - 1 with hash_of (rows below first are not indexed).
 * false: out of memory (the index is as it was).
 */
bool row_index_grow(struct row_index *x, size_t first, size_t rows, size_t min_size,
		    row_index_hash_fn hash_of, const void *ctx);

/* row's key's hash in *hash, or false: row is not to be indexed. */
typedef bool (*row_index_key_fn)(const void *ctx, uint32_t row, uint64_t *hash);

/*
 * The index at size slots (a power of two, more than twice the rows
 * indexed), rows 0 .. rows - 1 re-indexed in order but those key_of
 * leaves out; how many are indexed in *nr.  For a table whose index holds
 * only some rows, and whose rows' keys change (a lookup checks the key a
 * row has now).  false: out of memory (the index is as it was).
 */
bool row_index_resize(struct row_index *x, size_t size, size_t rows, row_index_key_fn key_of,
		      const void *ctx, size_t *nr);

static inline bool row_index_reserve(struct row_index *x, size_t first, size_t rows,
				     size_t min_size, row_index_hash_fn hash_of, const void *ctx)
{
	return 2 * (rows + 1) <= x->size || row_index_grow(x, first, rows, min_size, hash_of, ctx);
}

static inline size_t row_index_home(const struct row_index *x, uint64_t hash)
{
	return (size_t)hash & (x->size - 1);
}

static inline size_t row_index_next(const struct row_index *x, size_t i)
{
	return (i + 1) & (x->size - 1);
}

/* What row_index_find asks the table: is row's key the one looked for, the hash of row's key. */
struct row_index_ops {
	bool (*eq)(const void *ctx, uint32_t row);
	uint64_t (*hash)(const void *ctx, uint32_t row);
};

/*
 * The slot of the row with the key whose hash is hash (ops->eq decides):
 * *slot is that row + 1, or 0 when there is none; storing the new row's
 * number + 1 there adds it.  rows: the table's rows now, so that the
 * index grows (rehashing with ops->hash) before it is half full.  NULL
 * when out of memory.
 */
uint32_t *row_index_find(struct row_index *x, size_t rows, uint64_t hash,
			 const struct row_index_ops *ops, const void *ctx);

void row_index_free(struct row_index *x);

#endif /* PT_ROW_INDEX_H */
