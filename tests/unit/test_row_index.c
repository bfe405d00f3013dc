// SPDX-License-Identifier: GPL-2.0
/* util/row_index: an index of a table's rows by key. */
#include <stdlib.h>

#include "util/row_index.h"
#include "tests/unit/unit.h"

/* A table of keys; keys collide on purpose (hash: key / 16, so 16 keys a home). */
struct table {
	uint64_t key[4096];
	uint32_t n;
	struct row_index x;
};

static uint64_t clustered_hash(uint64_t key)
{
	return key / 16;
}

static uint64_t row_hash(const void *ctx, uint32_t row)
{
	const struct table *t = ctx;

	return clustered_hash(t->key[row]);
}

/* The row of key, added when it is not there (the lookup a hot path writes). */
static uint32_t find_or_add(struct table *t, uint64_t key, uint32_t first)
{
	size_t i;

	CU_ASSERT_FATAL(row_index_reserve(&t->x, first, t->n, 64, row_hash, t));
	for (i = row_index_home(&t->x, clustered_hash(key)); t->x.slot[i];
	     i = row_index_next(&t->x, i))
		if (t->key[t->x.slot[i] - 1] == key)
			return t->x.slot[i] - 1;
	t->key[t->n] = key;
	t->x.slot[i] = t->n + 1;
	return t->n++;
}

static void test_rows_found_and_added(void)
{
	struct table *t = calloc(1, sizeof(*t));

	CU_ASSERT_FATAL(t != NULL);
	/* 3,000 keys, 16 to a home, each added once, in order */
	for (uint32_t k = 0; k < 3000; k++)
		CU_ASSERT_EQUAL(find_or_add(t, 1000 + k, 0), k);
	CU_ASSERT_EQUAL(t->n, 3000);
	/* never half full, a power of two */
	CU_ASSERT(2 * t->n < t->x.size);
	CU_ASSERT_EQUAL(t->x.size & (t->x.size - 1), 0);
	/* every key found again as its row, after every growth */
	for (uint32_t k = 0; k < 3000; k++)
		CU_ASSERT_EQUAL(find_or_add(t, 1000 + k, 0), k);
	CU_ASSERT_EQUAL(t->n, 3000);
	row_index_free(&t->x);
	CU_ASSERT(t->x.slot == NULL && t->x.size == 0);
	free(t);
}

static void test_rows_below_first_not_indexed(void)
{
	struct table *t = calloc(1, sizeof(*t));
	uint32_t root;

	CU_ASSERT_FATAL(t != NULL);
	/* row 0 is a root no lookup may find (the flame graph's) */
	t->key[0] = 5;
	t->n = 1;
	root = 0;
	/* enough rows that the index grows (from 64) and rebuilds from row 1 */
	for (uint32_t k = 1; k < 200; k++)
		CU_ASSERT_EQUAL(find_or_add(t, 100 + k, 1), k);
	CU_ASSERT(t->x.size >= 512);
	/* key 5 is row 0's, but row 0 is not indexed: a new row */
	CU_ASSERT_NOT_EQUAL(find_or_add(t, 5, 1), root);
	CU_ASSERT_EQUAL(t->n, 201);
	row_index_free(&t->x);
	free(t);
}

/* row_index_find: the same index through callbacks (the viewer's tables). */
struct lookup {
	struct table *t;
	uint64_t key;
};

static bool lookup_eq(const void *ctx, uint32_t row)
{
	const struct lookup *l = ctx;

	return l->t->key[row] == l->key;
}

static uint64_t lookup_hash(const void *ctx, uint32_t row)
{
	const struct lookup *l = ctx;

	return row_index_hash(l->t->key[row]);
}

static void test_find_with_callbacks(void)
{
	static const struct row_index_ops ops = { lookup_eq, lookup_hash };
	struct table *t = calloc(1, sizeof(*t));

	CU_ASSERT_FATAL(t != NULL);
	for (int pass = 0; pass < 2; pass++) {
		for (uint32_t k = 0; k < 1000; k++) {
			struct lookup l = { t, (uint64_t)k << 32 };
			uint32_t *slot = row_index_find(&t->x, t->n, row_index_hash(l.key), &ops, &l);

			CU_ASSERT_FATAL(slot != NULL);
			if (pass == 0) {
				CU_ASSERT_EQUAL(*slot, 0);	/* not there yet: add it */
				t->key[t->n] = l.key;
				*slot = ++t->n;
			} else {
				CU_ASSERT_EQUAL(*slot, k + 1);	/* found: its row + 1 */
			}
		}
	}
	CU_ASSERT_EQUAL(t->n, 1000);
	row_index_free(&t->x);
	free(t);
}

static CU_TestInfo row_index_tests[] = {
	{ "rows found and added, never half full", test_rows_found_and_added },
	{ "rows below first are not indexed", test_rows_below_first_not_indexed },
	{ "find with callbacks", test_find_with_callbacks },
	CU_TEST_INFO_NULL,
};
UNIT_SUITE(row_index, row_index_tests);
