// SPDX-License-Identifier: GPL-2.0
/* The per-replay pool of report builders (util/replay_pool.h): made, found, dropped, reused. */
#include <stdlib.h>

#include "util/replay_pool.h"
#include "tests/unit/unit.h"

struct item {
	uint64_t value;
	int *owned;		  /* what the item owns: released with it */
};

static int released;

static void item_release(void *p)
{
	struct item *it = p;

	released += it->owned != NULL;
	free(it->owned);
}

/*
 * A replay's words find its item; a dropped replay's item is released
 * and its slot taken by the next new one, zeroed; items outlive the
 * pool's growth; freeing the pool releases what is left, once.
 */
static void test_pool(void)
{
	struct replay_pool p = REPLAY_POOL_INIT(struct item, item_release);
	static uint32_t words[300][4];
	struct item *it;
	bool made;

	released = 0;
	for (uint32_t k = 0; k < 300; k++) {
		it = replay_pool_of(&p, words[k], &made);
		CU_ASSERT(made && it->value == 0 && words[k][0] == k + 1);
		it->value = k;
		it->owned = malloc(sizeof(int));
	}
	for (uint32_t k = 0; k < 300; k++) {	/* found again, after the pool grew */
		it = replay_pool_of(&p, words[k], &made);
		CU_ASSERT(!made && it->value == k);
	}
	replay_pool_drop(&p, words[7]);
	replay_pool_drop(&p, words[7]);		/* dropped already: nothing */
	replay_pool_drop(&p, words[200]);
	CU_ASSERT_EQUAL(released, 2);
	CU_ASSERT_EQUAL(words[7][0], 0);
	it = replay_pool_of(&p, words[7], &made);	/* the slot freed last, zeroed */
	CU_ASSERT(made && words[7][0] == 201 && it->value == 0 && !it->owned);
	it = replay_pool_of(&p, words[200], &made);
	CU_ASSERT(made && words[200][0] == 8);
	CU_ASSERT_EQUAL(p.nr, 300);
	replay_pool_free(&p);
	CU_ASSERT_EQUAL(released, 300);
	CU_ASSERT(p.items == NULL && p.nr == 0);
}

static CU_TestInfo tests[] = {
	{ "items by replay: made, found, dropped, reused", test_pool },
	CU_TEST_INFO_NULL,
};

UNIT_SUITE(replay_pool, tests)
