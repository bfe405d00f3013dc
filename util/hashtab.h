/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A typed hash table: open addressing, linear probing, a power-of-two
 * size grown (doubled) before it is half full.  HASHTAB_DEFINE makes the
 * table's type and its functions for one key and value type, so each user
 * gets its keys and values type-checked, with no void * at a call site:
 *
 *	static inline uint64_t pid_hash(const uint32_t *pid) { return hashtab_mix64(*pid); }
 *	static inline bool pid_eq(const uint32_t *a, const uint32_t *b) { return *a == *b; }
 *	HASHTAB_DEFINE(pid_map, uint32_t, struct space, pid_hash, pid_eq)
 *
 *	struct pid_map m = { 0 };			(an empty table)
 *	struct pid_map_entry *e = pid_map_find(&m, &pid);	NULL: not there
 *	e = pid_map_insert(&m, &pid, &added);		NULL: out of memory
 *	e->val ...; pid_map_remove(&m, &pid); pid_map_free(&m);
 *	for (e = NULL; (e = pid_map_next(&m, e));)	every entry, in no given order
 *
 * POINTERS INTO THE TABLE ARE VALID UNTIL THE NEXT INSERT, REMOVE OR CLEAR.
 * NAME_insert() may grow the table, which moves every entry,
 * NAME_remove() shifts the entries after the one removed and NAME_clear()
 * empties every slot; an entry pointer (or a pointer to its key or value)
 * kept across any of them then points at freed memory, at another entry
 * or at an empty slot.  Keep indexes or copies instead, or find the entry
 * again.  NAME_gen() changes whenever entries move or go:
 * code that must hold a pointer across an insert states it with
 * DASSERT(NAME_gen(t) == gen), which debug builds check.
 *
 * The hash is the caller's (hashtab_mix64 spreads integer keys,
 * hashtab_str hashes strings); equal keys must have equal hashes.  Only
 * the low 32 bits of the hash place an entry, so the table holds up to
 * 2^31 entries.  Every operation but growth is inline: tables on hot
 * paths cost what a hand-written one does.  NAME_clear() takes constant
 * time however large the table (a cache dropped on every mapping change):
 * a slot holds an entry only while its epoch is the table's, and clearing
 * moves the table to the next epoch.
 */
#ifndef PT_HASHTAB_H
#define PT_HASHTAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/assert.h"

#define HASHTAB_MIN_SIZE 16u

/* Spread a key's bits (ids and addresses cluster): a 64-bit finalizer. */
static inline uint64_t hashtab_mix64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ull;
	x ^= x >> 33;
	return x;
}

/*
 * A cheaper spread (one multiply fewer) for small integer keys looked up
 * at nearly every step (the call-flow engine's functions and threads),
 * where hashtab_mix64's second round shows.
 */
static inline uint64_t hashtab_mix64_short(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	return x;
}

/* A string's hash (FNV-1a). */
static inline uint64_t hashtab_str(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ull;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 0x100000001b3ull;
	return h;
}

/*
 * An entry's tag: its hash's low 32 bits.  The slot an entry belongs in is
 * tag & mask, so growth and removal need not hash again; equal tags are
 * compared before keys, which spares most key compares.
 */
static inline uint32_t hashtab_tag(uint64_t hash)
{
	return (uint32_t)hash;
}

/* Debug builds scribble over slots given up, so that a stale entry pointer reads garbage. */
static inline void hashtab_poison(void *slot, size_t bytes)
{
#ifdef PT_DEBUG
	if (slot)
		memset(slot, 0xa5, bytes);
#else
	(void)slot;
	(void)bytes;
#endif /* PT_DEBUG */
}

/* How many slots hold n entries under half full, from min (a power of two) up. */
static inline size_t hashtab_size_for(size_t n, size_t min)
{
	size_t size = min;

	while (2 * n > size)
		size *= 2;
	return size;
}

/*
 * HASHTAB_DEFINE(name, key_type, val_type, hash, eq): struct name, struct
 * name_entry { tag, epoch, key, val } and name_find, name_insert,
 * name_remove, name_erase, name_next, name_reserve, name_clear, name_free,
 * name_count, name_gen, name_index, name_at.  hash: uint64_t hash(const key_type *); eq: bool
 * eq(const key_type *, const key_type *).  Both are best static inline:
 * they are inlined into the probe loop.  A zeroed struct name is an empty
 * table.
 */
#define HASHTAB_DEFINE(name, key_type, val_type, hash, eq)                                    \
	struct name##_entry {                                                                  \
		uint32_t tag;	/* hashtab_tag(hash(&key)) */                                  \
		uint32_t epoch; /* the slot holds an entry while this is the table's epoch */ \
		key_type key;                                                                  \
		val_type val;                                                                  \
	};                                                                                     \
	struct name {                                                                          \
		struct name##_entry *slot;                                                     \
		size_t size;	/* a power of two, or 0 before the first insert */            \
		size_t count;	/* entries */                                                  \
		uint32_t epoch; /* of the entries held (0: no slots yet) */                    \
		uint32_t gen;	/* bumped whenever entries move (grow, remove, clear) */       \
	};                                                                                     \
                                                                                               \
	static inline __attribute__((unused)) size_t name##_count(const struct name *t)       \
	{                                                                                      \
		return t->count;                                                               \
	}                                                                                      \
                                                                                               \
	static inline __attribute__((unused)) uint32_t name##_gen(const struct name *t)       \
	{                                                                                      \
		return t->gen;                                                                 \
	}                                                                                      \
                                                                                               \
	/* The entry of key, NULL when there is none.  Never moves entries. */                \
	static inline struct name##_entry *name##_find(const struct name *t,                  \
						       const key_type *key)                   \
	{                                                                                      \
		uint32_t tag, epoch = t->epoch;                                                \
		size_t mask, i;                                                                \
                                                                                               \
		if (!t->count)                                                                 \
			return NULL;                                                           \
		tag = hashtab_tag(hash(key));                                                  \
		mask = t->size - 1;                                                            \
		for (i = tag & mask; t->slot[i].epoch == epoch; i = (i + 1) & mask)            \
			if (t->slot[i].tag == tag && eq(&t->slot[i].key, key))                 \
				return &t->slot[i];                                            \
		return NULL;                                                                   \
	}                                                                                      \
                                                                                               \
	/* Room for n entries in all without growing: true, or false out of memory. */        \
	static __attribute__((noinline, unused)) bool name##_reserve(struct name *t, size_t n) \
	{                                                                                      \
		size_t size = hashtab_size_for(n, t->size ? t->size : HASHTAB_MIN_SIZE);       \
		struct name##_entry *slot;                                                     \
		uint32_t epoch = t->epoch ? t->epoch : 1;                                      \
                                                                                               \
		if (size == t->size)                                                           \
			return true;                                                           \
		DASSERT(size <= (size_t)1 << 32);                                              \
		slot = calloc(size, sizeof(*slot)); /* epoch 0: empty */                       \
		if (!slot)                                                                     \
			return false;                                                          \
		for (size_t k = 0; k < t->size; k++) {                                         \
			size_t i;                                                              \
                                                                                               \
			if (t->slot[k].epoch != t->epoch)                                      \
				continue;                                                      \
			for (i = t->slot[k].tag & (size - 1); slot[i].epoch;                   \
			     i = (i + 1) & (size - 1))                                         \
				;                                                              \
			slot[i] = t->slot[k];                                                  \
			slot[i].epoch = epoch;                                                 \
		}                                                                              \
		hashtab_poison(t->slot, t->size * sizeof(*slot));                              \
		free(t->slot);                                                                 \
		t->slot = slot;                                                                \
		t->size = size;                                                                \
		t->epoch = epoch;                                                              \
		t->gen++;                                                                      \
		return true;                                                                   \
	}                                                                                      \
                                                                                               \
	/*                                                                                     \
	 * The entry of key, added (key copied, val zeroed, *added true) when there            \
	 * is none.  MAY GROW THE TABLE: every entry pointer taken before is then              \
	 * invalid.  NULL when out of memory (the table is as it was).                         \
	 */                                                                                    \
	static inline struct name##_entry *name##_insert(struct name *t, const key_type *key,  \
							 bool *added)                          \
	{                                                                                      \
		uint32_t tag = hashtab_tag(hash(key)), epoch;                                  \
		size_t mask, i;                                                                \
                                                                                               \
		if (__builtin_expect(2 * (t->count + 1) > t->size, 0) &&                       \
		    !name##_reserve(t, t->count + 1))                                          \
			return NULL;                                                           \
		mask = t->size - 1;                                                            \
		epoch = t->epoch;                                                              \
		for (i = tag & mask; t->slot[i].epoch == epoch; i = (i + 1) & mask)            \
			if (t->slot[i].tag == tag && eq(&t->slot[i].key, key)) {               \
				*added = false;                                                \
				return &t->slot[i];                                            \
			}                                                                      \
		t->slot[i].tag = tag;                                                          \
		t->slot[i].epoch = epoch;                                                      \
		t->slot[i].key = *key;                                                         \
		t->slot[i].val = (val_type){ 0 };                                              \
		t->count++;                                                                    \
		*added = true;                                                                 \
		return &t->slot[i];                                                            \
	}                                                                                      \
                                                                                               \
	/*                                                                                     \
	 * Remove the entry e (no tombstones: later entries of its run shift back into         \
	 * the hole, so entry pointers taken before are invalid).  What the entry owns         \
	 * is the caller's to free first.                                                      \
	 */                                                                                    \
	static inline __attribute__((unused)) void name##_erase(struct name *t,               \
								struct name##_entry *e)       \
	{                                                                                      \
		size_t mask, hole, i;                                                          \
                                                                                               \
		DASSERT(e >= t->slot && e < t->slot + t->size && e->epoch == t->epoch);        \
		mask = t->size - 1;                                                            \
		hole = (size_t)(e - t->slot);                                                  \
		for (i = (hole + 1) & mask; t->slot[i].epoch == t->epoch; i = (i + 1) & mask) { \
			size_t home = t->slot[i].tag & mask;                                   \
                                                                                               \
			/* it may move back when its home is not in (hole, i] */               \
			if (((i - home) & mask) >= ((i - hole) & mask)) {                      \
				t->slot[hole] = t->slot[i];                                    \
				hole = i;                                                      \
			}                                                                      \
		}                                                                              \
		t->slot[hole].epoch = 0;                                                       \
		t->count--;                                                                    \
		t->gen++;                                                                      \
	}                                                                                      \
                                                                                               \
	/* Remove key's entry (as name_erase()).  false: key was not there. */                 \
	static inline __attribute__((unused)) bool name##_remove(struct name *t,              \
								 const key_type *key)         \
	{                                                                                      \
		struct name##_entry *e = name##_find(t, key);                                  \
                                                                                               \
		if (!e)                                                                        \
			return false;                                                          \
		name##_erase(t, e);                                                            \
		return true;                                                                   \
	}                                                                                      \
                                                                                               \
	/*                                                                                     \
	 * An entry's position, and the entry at a position if one is there: a                \
	 * position kept across inserts (which may grow the table) is a guess to               \
	 * check, cheaper than a pointer that would dangle.  The caller compares the           \
	 * entry's key; NULL: the slot is out of range or empty.                               \
	 */                                                                                    \
	static inline __attribute__((unused)) uint32_t name##_index(const struct name *t,     \
								    const struct name##_entry *e) \
	{                                                                                      \
		return (uint32_t)(e - t->slot);                                                \
	}                                                                                      \
                                                                                               \
	static inline __attribute__((unused)) struct name##_entry *name##_at(                 \
		const struct name *t, uint32_t i)                                              \
	{                                                                                      \
		return i < t->size && t->slot[i].epoch == t->epoch ? &t->slot[i] : NULL;       \
	}                                                                                      \
                                                                                               \
	/* The entry after prev (NULL: the first), NULL after the last; order is no order. */ \
	static inline __attribute__((unused)) struct name##_entry *name##_next(               \
		const struct name *t, const struct name##_entry *prev)                         \
	{                                                                                      \
		for (size_t i = prev ? (size_t)(prev - t->slot) + 1 : 0; i < t->size; i++)     \
			if (t->slot[i].epoch == t->epoch)                                      \
				return &t->slot[i];                                            \
		return NULL;                                                                   \
	}                                                                                      \
                                                                                               \
	/*                                                                                     \
	 * Every entry gone, the slots kept, in constant time: the entries of the              \
	 * epoch before count as empty slots (what they own is the caller's to free).          \
	 */                                                                                    \
	static inline __attribute__((unused)) void name##_clear(struct name *t)               \
	{                                                                                      \
		t->count = 0;                                                                  \
		t->gen++;                                                                      \
		if (!t->size)                                                                  \
			return;                                                                \
		if (++t->epoch == 0) { /* wrapped: the old epochs must not come back */        \
			memset(t->slot, 0, t->size * sizeof(*t->slot));                        \
			t->epoch = 1;                                                          \
		}                                                                              \
	}                                                                                      \
                                                                                               \
	static inline __attribute__((unused)) void name##_free(struct name *t)                \
	{                                                                                      \
		free(t->slot);                                                                 \
		t->slot = NULL;                                                                \
		t->size = t->count = 0;                                                        \
		t->epoch = 0;                                                                  \
		t->gen++;                                                                      \
	}

#endif /* PT_HASHTAB_H */
