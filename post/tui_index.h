/* SPDX-License-Identifier: GPL-2.0 */
/*
 * An index of a table's rows by their key, for the viewer's tables
 * (threads, calls per thread and arc, arcs of a selection): open
 * addressing over row numbers; the rows, and what their keys are, stay
 * the caller's.
 */
#ifndef POST_TUI_INDEX_H
#define POST_TUI_INDEX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct tui_index {
	uint32_t *slot;		  /* row + 1; 0: empty */
	size_t size;		  /* a power of two */
};

/* What the index asks the table: is row's key the one looked for, the hash of row's key. */
struct tui_index_ops {
	bool (*eq)(const void *ctx, uint32_t row);
	uint64_t (*hash)(const void *ctx, uint32_t row);
};

/* Spread a key's bits (keys of ids and addresses cluster). */
uint64_t tui_hash(uint64_t key);

/*
 * The slot of the row with the key whose hash is hash (ops->eq decides):
 * *slot is that row + 1, or 0 when there is none; storing the new row's
 * number + 1 there adds it.  rows: the table's rows now, so that the
 * index grows (rehashing with ops->hash) before it is half full.  NULL
 * when out of memory.
 */
uint32_t *tui_index_find(struct tui_index *x, size_t rows, uint64_t hash,
			 const struct tui_index_ops *ops, const void *ctx);

void tui_index_free(struct tui_index *x);

#endif /* POST_TUI_INDEX_H */
