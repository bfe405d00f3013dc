// SPDX-License-Identifier: GPL-2.0
/* util/hashtab: the typed open-addressing table every hash lookup in util/ uses. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/hashtab.h"
#include "tests/unit/unit.h"

/* Keys collide on purpose: 16 keys share a home, and runs wrap past the table's end. */
static inline uint64_t clustered_hash(const uint64_t *key)
{
	return *key / 16 + 0x7ffffff8u;
}

static inline bool u64_eq(const uint64_t *a, const uint64_t *b)
{
	return *a == *b;
}

HASHTAB_DEFINE(u64_map, uint64_t, uint32_t, clustered_hash, u64_eq)

static inline uint64_t str_hash(const char *const *s)
{
	return hashtab_str(*s);
}

static inline bool str_eq(const char *const *a, const char *const *b)
{
	return !strcmp(*a, *b);
}

HASHTAB_DEFINE(str_set, const char *, uint8_t, str_hash, str_eq)

/* Every key below n found with its value, none at or above it; the table under half full. */
static void check_holds(const struct u64_map *m, uint64_t n)
{
	CU_ASSERT_EQUAL(u64_map_count(m), n);
	CU_ASSERT(!m->size || (m->size & (m->size - 1)) == 0);
	CU_ASSERT(2 * n <= m->size);
	for (uint64_t k = 0; k < n + 40; k++) {
		struct u64_map_entry *e = u64_map_find(m, &k);

		if (k < n) {
			CU_ASSERT_PTR_NOT_NULL_FATAL(e);
			CU_ASSERT_EQUAL(e->key, k);
			CU_ASSERT_EQUAL(e->val, (uint32_t)(k * 3 + 1));
		} else {
			CU_ASSERT_PTR_NULL(e);
		}
	}
}

/* Growth at every size from empty to past several doublings: nothing lost, nothing doubled. */
static void test_insert_find_grow(void)
{
	static const uint64_t sizes[] = { 0, 1, 2, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65,
					  127, 128, 129, 255, 256, 257, 1000, 4095, 4096, 4097 };

	for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
		struct u64_map m = { 0 };

		for (uint64_t k = 0; k < sizes[s]; k++) {
			bool added = false;
			struct u64_map_entry *e = u64_map_insert(&m, &k, &added);

			CU_ASSERT_PTR_NOT_NULL_FATAL(e);
			CU_ASSERT(added);
			CU_ASSERT_EQUAL(e->val, 0);	/* a new entry's value is zeroed */
			e->val = (uint32_t)(k * 3 + 1);
		}
		check_holds(&m, sizes[s]);
		u64_map_free(&m);
		CU_ASSERT_EQUAL(m.size, 0);
		CU_ASSERT_PTR_NULL(u64_map_find(&m, &sizes[s]));
	}
}

/* A key inserted again is the entry it was: not added, its value kept, nothing moved. */
static void test_insert_existing(void)
{
	struct u64_map m = { 0 };
	bool added;
	uint64_t k = 42;
	uint32_t gen;

	u64_map_insert(&m, &k, &added)->val = 7;
	CU_ASSERT(added);
	gen = u64_map_gen(&m);
	CU_ASSERT_EQUAL(u64_map_insert(&m, &k, &added)->val, 7);
	CU_ASSERT(!added);
	CU_ASSERT_EQUAL(u64_map_count(&m), 1);
	CU_ASSERT_EQUAL(u64_map_gen(&m), gen);
	u64_map_free(&m);
}

/* gen says when entries moved: on growth and removal, never on a find or a found insert. */
static void test_gen_marks_moves(void)
{
	struct u64_map m = { 0 };
	uint32_t gen = u64_map_gen(&m);
	size_t size = 0, grew = 0;
	bool added;

	for (uint64_t k = 0; k < 1000; k++) {
		u64_map_insert(&m, &k, &added);
		if (m.size != size) {
			CU_ASSERT_NOT_EQUAL(u64_map_gen(&m), gen);
			size = m.size;
			grew++;
		} else {
			CU_ASSERT_EQUAL(u64_map_gen(&m), gen);
		}
		gen = u64_map_gen(&m);
		u64_map_find(&m, &k);
		CU_ASSERT_EQUAL(u64_map_gen(&m), gen);
	}
	CU_ASSERT_EQUAL(grew, 8);	/* 16 .. 2048 slots */
	u64_map_remove(&m, &(uint64_t){ 5 });
	CU_ASSERT_NOT_EQUAL(u64_map_gen(&m), gen);
	u64_map_free(&m);
}

/* reserve(n) makes room for n: inserting them then moves nothing. */
static void test_reserve(void)
{
	struct u64_map m = { 0 };
	uint32_t gen;
	bool added;

	CU_ASSERT_FATAL(u64_map_reserve(&m, 300));
	CU_ASSERT_EQUAL(m.size, 1024);
	gen = u64_map_gen(&m);
	for (uint64_t k = 0; k < 300; k++)
		u64_map_insert(&m, &k, &added)->val = (uint32_t)(k * 3 + 1);
	CU_ASSERT_EQUAL(u64_map_gen(&m), gen);
	check_holds(&m, 300);
	u64_map_free(&m);
}

/* Removals mixed with inserts, against a plain array of what is in (clustered, wrapping runs). */
static void test_remove(void)
{
	enum { N = 3000 };
	static bool in[N];
	struct u64_map m = { 0 };
	uint64_t seed = 12345;
	size_t count = 0;

	memset(in, 0, sizeof(in));
	for (int round = 0; round < 40000; round++) {
		uint64_t k;
		bool added;

		seed = seed * 6364136223846793005ull + 1442695040888963407ull;
		k = (seed >> 33) % N;
		if ((seed >> 20) & 1) {
			struct u64_map_entry *e = u64_map_insert(&m, &k, &added);

			CU_ASSERT_PTR_NOT_NULL_FATAL(e);
			CU_ASSERT_EQUAL(added, !in[k]);
			e->val = (uint32_t)(k * 3 + 1);
			count += !in[k];
			in[k] = true;
		} else {
			CU_ASSERT_EQUAL(u64_map_remove(&m, &k), in[k]);
			count -= in[k];
			in[k] = false;
		}
		if (round % 997 == 0) {
			for (uint64_t j = 0; j < N; j++) {
				struct u64_map_entry *e = u64_map_find(&m, &j);

				CU_ASSERT_EQUAL(e != NULL, in[j]);
				if (e)
					CU_ASSERT_EQUAL(e->val, (uint32_t)(j * 3 + 1));
			}
		}
	}
	CU_ASSERT_EQUAL(u64_map_count(&m), count);
	u64_map_free(&m);
}

/* Iteration visits each entry once, whatever order the keys went in; clear empties it. */
static void test_iteration(void)
{
	enum { N = 777 };
	struct u64_map a = { 0 }, b = { 0 };
	uint64_t sum_a = 0, sum_b = 0;
	size_t n_a = 0, n_b = 0;
	struct u64_map_entry *e;
	bool added;

	for (uint64_t k = 0; k < N; k++) {
		uint64_t r = N - 1 - k, odd = (k * 389) % N;	/* 389 is prime to 777 */

		u64_map_insert(&a, &r, &added);
		CU_ASSERT(added);
		u64_map_insert(&b, &odd, &added);
		CU_ASSERT(added);
	}
	for (e = NULL; (e = u64_map_next(&a, e)); n_a++)
		sum_a += e->key * e->key;
	for (e = NULL; (e = u64_map_next(&b, e)); n_b++)
		sum_b += e->key * e->key;
	CU_ASSERT_EQUAL(n_a, N);
	CU_ASSERT_EQUAL(n_b, N);
	CU_ASSERT_EQUAL(sum_a, sum_b);
	CU_ASSERT_EQUAL(sum_a, (uint64_t)(N - 1) * N * (2 * N - 1) / 6);
	u64_map_clear(&a);
	CU_ASSERT_EQUAL(u64_map_count(&a), 0);
	CU_ASSERT_PTR_NULL(u64_map_next(&a, NULL));
	CU_ASSERT_PTR_NULL(u64_map_find(&a, &(uint64_t){ 3 }));
	u64_map_free(&a);
	u64_map_free(&b);
}

/* clear() drops every entry at once; what comes after it, growth and an epoch wrap included, works. */
static void test_clear_epochs(void)
{
	struct u64_map m = { 0 };
	bool added;

	for (int round = 0; round < 3; round++) {
		for (uint64_t k = 0; k < 100; k++)
			u64_map_insert(&m, &k, &added)->val = (uint32_t)(k * 3 + 1);
		check_holds(&m, 100);
		if (round == 1)
			m.epoch = UINT32_MAX;	/* the next clear wraps the epoch */
		u64_map_clear(&m);
		CU_ASSERT_EQUAL(u64_map_count(&m), 0);
		CU_ASSERT_PTR_NULL(u64_map_next(&m, NULL));
		for (uint64_t k = 0; k < 100; k++)
			CU_ASSERT_PTR_NULL(u64_map_find(&m, &k));
	}
	CU_ASSERT_EQUAL(m.epoch, 2);	/* wrapped to 1 in round 1, then one more clear */
	/* after a clear, growth carries only the new epoch's entries */
	for (uint64_t k = 0; k < 1000; k++)
		u64_map_insert(&m, &k, &added)->val = (uint32_t)(k * 3 + 1);
	check_holds(&m, 1000);
	u64_map_free(&m);
}

/* String keys: equal strings at other addresses find the same entry. */
static void test_string_keys(void)
{
	struct str_set s = { 0 };
	char buf[32];
	bool added;

	for (int i = 0; i < 500; i++) {
		snprintf(buf, sizeof(buf), "name%d", i);
		struct str_set_entry *e = str_set_insert(&s, &(const char *){ buf }, &added);

		CU_ASSERT_FATAL(e && added);
		e->key = strdup(buf);	/* an equal key the table may keep */
	}
	for (int i = 0; i < 510; i++) {
		snprintf(buf, sizeof(buf), "name%d", i);
		struct str_set_entry *e = str_set_find(&s, &(const char *){ buf });

		CU_ASSERT_EQUAL(e != NULL, i < 500);
		if (e)
			CU_ASSERT_STRING_EQUAL(e->key, buf);
	}
	for (struct str_set_entry *e = NULL; (e = str_set_next(&s, e));)
		free((char *)e->key);
	str_set_free(&s);
}

/*
 * A position kept across inserts: NAME_at() gives the entry there while it
 * is (the key checked by the caller), and after growth moved it, another
 * entry or NULL, never a stale one; erasing by entry keeps the others.
 */
static void test_positions_and_erase(void)
{
	struct u64_map m = { 0 };
	uint32_t pos[300];
	bool added;

	for (uint64_t k = 0; k < 300; k++) {
		struct u64_map_entry *e = u64_map_insert(&m, &k, &added);

		CU_ASSERT_FATAL(e && added);
		e->val = (uint32_t)(k * 3 + 1);
		pos[k] = u64_map_index(&m, e);
		CU_ASSERT_PTR_EQUAL(u64_map_at(&m, pos[k]), e);
	}
	for (uint64_t k = 0; k < 300; k++) {
		struct u64_map_entry *e = u64_map_at(&m, pos[k]);

		/* moved by growth or not: whatever is there is a live entry of its own key */
		if (e)
			CU_ASSERT_EQUAL(e->val, (uint32_t)(e->key * 3 + 1));
		CU_ASSERT_EQUAL(u64_map_find(&m, &k)->key, k);
	}
	CU_ASSERT_PTR_NULL(u64_map_at(&m, (uint32_t)m.size));	/* out of range */
	for (uint64_t k = 0; k < 300; k += 2)
		u64_map_erase(&m, u64_map_find(&m, &k));
	for (uint64_t k = 0; k < 300; k++) {
		struct u64_map_entry *e = u64_map_find(&m, &k);

		CU_ASSERT_EQUAL(e != NULL, k % 2 == 1);
		if (e)
			CU_ASSERT_EQUAL(e->val, (uint32_t)(k * 3 + 1));
	}
	CU_ASSERT_EQUAL(u64_map_count(&m), 150);
	u64_map_free(&m);
	CU_ASSERT_PTR_NULL(u64_map_at(&m, 0));
}

static CU_TestInfo hashtab_tests[] = {
	{ "insert and find across growth thresholds", test_insert_find_grow },
	{ "an existing key is found, not added", test_insert_existing },
	{ "gen changes exactly when entries move", test_gen_marks_moves },
	{ "reserve makes room ahead", test_reserve },
	{ "remove mixed with insert", test_remove },
	{ "iteration is independent of insertion order", test_iteration },
	{ "clear drops every entry, across epoch wraps", test_clear_epochs },
	{ "string keys", test_string_keys },
	{ "positions kept across growth, erase by entry", test_positions_and_erase },
	CU_TEST_INFO_NULL,
};
UNIT_SUITE(hashtab, hashtab_tests);
