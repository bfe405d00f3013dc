// SPDX-License-Identifier: GPL-2.0
/* Decoded, resolved instruction sites for the call-flow engine, cached per address (cf_sites.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "util/alloc.h"
#include "util/cf_sites.h"
#include "util/hashtab.h"
#include "util/log.h"
#include "util/trace_reader.h"

/*
 * The cache: an index by (pid, pc, ring) of entries of two dense arrays in
 * the order sites were first seen.  A step mostly finds its entry without
 * the index (site_hot.next); the entry's hot part is 48 bytes (the key and
 * the engine's site), and what reports show (names, bytes, text) is apart,
 * so a program's few thousand hot sites stay in the processor's cache.
 */
struct site_key {
	uint64_t pc;
	uint32_t pid;
	uint8_t ring;
};

/* Mixed, not scrambled: a multiply and the bits it spread to the middle. */
static inline uint64_t site_key_hash(const struct site_key *k)
{
	uint64_t x = k->pc ^ ((uint64_t)k->pid << 47);

	x ^= x >> 31;
	x *= 0x9e3779b97f4a7c15ull;
	return x >> 17;
}

static inline bool site_key_eq(const struct site_key *a, const struct site_key *b)
{
	return a->pc == b->pc && a->pid == b->pid && a->ring == b->ring;
}

/* A site's entry: its index in hot[] and cold[]. */
HASHTAB_DEFINE(site_index, struct site_key, uint32_t, site_key_hash, site_key_eq)

struct site_hot {
	uint64_t pc;
	uint32_t pid;
	uint8_t ring;
	uint32_t next;		  /* the entry looked up after this one last time */
	struct cf_site site;
};

struct site_cold {
	bool have_info;
	struct cf_site_info info;
};

struct cf_sites {
	struct sym_session *sym;
	struct arch_decoder *dec;
	struct site_index index;  /* cleared when any address space changes */
	struct site_hot *hot;
	struct site_cold *cold;
	size_t used, cap;	  /* entries of this epoch; room in hot[] and cold[] */
	size_t last;		  /* the entry looked up last (valid below used) */
	uint32_t nr_ids;	  /* site ids given */
};

struct cf_sites *cf_sites_new(struct sym_session *sym)
{
	struct cf_sites *s = calloc(1, sizeof(*s));

	if (!s) {
		pr_err("out of memory for the instruction cache");
		return NULL;
	}
	s->sym = sym;
	s->dec = arch_decoder_new();
	if (!s->dec || !site_index_reserve(&s->index, 2048)) {
		if (s->dec)
			pr_err("out of memory for the instruction cache");
		cf_sites_free(s);
		return NULL;
	}
	return s;
}

void cf_sites_free(struct cf_sites *s)
{
	if (!s)
		return;
	arch_decoder_free(s->dec);
	site_index_free(&s->index);
	free(s->hot);
	free(s->cold);
	free(s);
}

static size_t make_entry(struct cf_sites *s, struct callflow *cf, uint32_t pid, uint64_t pc,
			 uint8_t ring);

static bool hot_is(const struct site_hot *h, uint32_t pid, uint64_t pc, uint8_t ring)
{
	return h->pc == pc && h->pid == pid && h->ring == ring;
}

/* The index's probe: the entry's index, or a new entry's. */
static size_t probe(struct cf_sites *s, struct callflow *cf, uint32_t pid, uint64_t pc,
		    uint8_t ring)
{
	struct site_index_entry *e;
	uint32_t gen;
	bool added;

	e = site_index_insert(&s->index, &(struct site_key){ pc, pid, ring }, &added);
	if (!e)
		xalloc_die();
	if (!added)
		return e->val;
	gen = site_index_gen(&s->index);
	e->val = (uint32_t)make_entry(s, cf, pid, pc, ring);
	DASSERT(site_index_gen(&s->index) == gen);	/* e is still the entry */
	return e->val;
}

/*
 * Find or make the entry; returns its index.  Code runs the same way
 * again: the entry that followed the last one looked up, last time, is
 * tried first, which spares the index's load; the miss is a call apart.
 */
static inline size_t lookup(struct cf_sites *s, struct callflow *cf, uint32_t pid, uint64_t pc,
			    uint8_t ring)
{
	size_t i;

	if (s->last < s->used) {
		i = s->hot[s->last].next;
		if (i < s->used && hot_is(&s->hot[i], pid, pc, ring)) {
			s->last = i;
			return i;
		}
		i = probe(s, cf, pid, pc, ring);	/* may add an entry, never forgets one */
		s->hot[s->last].next = (uint32_t)i;
	} else {
		i = probe(s, cf, pid, pc, ring);
	}
	s->last = i;
	return i;
}

/*
 * What a function is when stubs are folded (callflow.h: stubs): PLT entries
 * ("name@plt", the code of PLT sections, POWER's glink) are call stubs;
 * ld.so's lazy binding entry points pass the call on to what they resolved.
 */
static enum cf_fold fold_kind(const char *name)
{
	static const char *const stubs[] = { ".plt", ".plt.sec", ".plt.got", ".glink" };
	size_t n = strlen(name);

	if (n > 4 && !strcmp(name + n - 4, "@plt"))
		return CF_FOLD_STUB;
	for (size_t i = 0; i < sizeof(stubs) / sizeof(stubs[0]); i++)
		if (!strcmp(name, stubs[i]))
			return CF_FOLD_STUB;
	if (!strncmp(name, "__glink", 7))
		return CF_FOLD_STUB;
	if (!strncmp(name, "_dl_runtime_resolve", 19) || !strncmp(name, "_dl_runtime_profile", 19))
		return CF_FOLD_PASS;
	return CF_FOLD_NONE;
}

/* A new entry, indexed by slot k, for pc of pid in ring: resolved and decoded. */
static __attribute__((noinline)) size_t make_entry(struct cf_sites *s, struct callflow *cf,
						   uint32_t pid, uint64_t pc, uint8_t ring)
{
	size_t i = s->used++;
	struct cf_site_info *in;
	struct sym_loc loc;

	if (i == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 1024;
		s->hot = xreallocarray(s->hot, s->cap, sizeof(*s->hot));
		s->cold = xreallocarray(s->cold, s->cap, sizeof(*s->cold));
	}
	memset(&s->cold[i], 0, sizeof(s->cold[i]));
	in = &s->cold[i].info;
	sym_resolve(s->sym, pid, pc, 0, &loc);
	in->module = loc.module;
	in->module_offset = loc.module_offset;
	in->symbol = loc.symbol;
	in->symbol_raw = loc.symbol_raw;
	in->sym_offset = loc.sym_offset;
	in->sym_size = loc.sym_size;
	if (loc.symbol) {
		in->site.fn = cf_func_intern(cf, loc.module, loc.module_path, loc.symbol,
					     loc.sym_addr);
		in->site.entry = loc.entry;
		if (ring == 0)
			cf_func_set_fold(cf, in->site.fn, fold_kind(loc.symbol));
	} else {
		/* No symbol: one pseudo function per module, never an "entry". */
		size_t n = strlen(loc.module) + 3;
		char *name = xmalloc(n);

		/* "[libc.so.6]"; a module named in brackets already keeps its name ("[vdso]") */
		snprintf(name, n, loc.module[0] == '[' ? "%s" : "[%s]", loc.module);
		in->site.fn = cf_func_intern(cf, loc.module, loc.module_path, name, 0);
		free(name);
		in->site.anon = true;
	}
	cf_func_set_ring(cf, in->site.fn, ring);
	if (s->nr_ids < UINT32_MAX)
		in->site.id = ++s->nr_ids;
	in->nr_bytes = (uint8_t)sym_read_code(s->sym, pid, pc, in->bytes, sizeof(in->bytes));
	arch_decode(s->dec, in->bytes, in->nr_bytes, pc, &in->site.insn);
	memset(&s->hot[i], 0, sizeof(s->hot[i]));
	s->hot[i].pc = pc;
	s->hot[i].pid = pid;
	s->hot[i].ring = ring;
	s->hot[i].site = in->site;
	return i;
}

static void source_site(void *ctx, struct callflow *cf, uint32_t pid, uint64_t pc, uint8_t ring,
			struct cf_site *out)
{
	struct cf_sites *s = ctx;
	size_t i = lookup(s, cf, pid, pc, ring);	/* before reading hot: it may move */

	*out = s->hot[i].site;
}

/* The site at pc if its entry is made already (this epoch's), without making one. */
static bool source_peek(void *ctx, uint32_t pid, uint64_t pc, uint8_t ring, struct cf_site *out)
{
	struct cf_sites *s = ctx;
	const struct site_index_entry *e =
		site_index_find(&s->index, &(struct site_key){ pc, pid, ring });

	if (!e)
		return false;
	*out = s->hot[e->val].site;
	return true;
}

static void source_task(void *ctx, const struct trace_task_rec *rec)
{
	struct cf_sites *s = ctx;

	sym_task_event(s->sym, rec);
	switch (rec->type) {
	case PT_TASK_MMAP:
		if (!(rec->mmap.prot & PROT_EXEC))
			break;	/* data: code already seen still means the same */
		/* fall through */
	case PT_TASK_EXEC:
	case PT_TASK_MUNMAP:
		/* The same address may now hold other code: forget every entry.
		 * Clearing the index costs nothing however large the cache (a
		 * mapping record a step would otherwise clear it a step). */
		s->used = 0;
		site_index_clear(&s->index);
		break;
	default:
		break;
	}
}

void cf_sites_source(struct cf_sites *s, struct cf_source *src)
{
	src->site = source_site;
	src->task = source_task;
	src->peek = source_peek;
	src->ctx = s;
}

const struct cf_site_info *cf_sites_info(struct cf_sites *s, struct callflow *cf, uint32_t pid,
					 uint64_t pc, uint8_t ring)
{
	size_t i = lookup(s, cf, pid, pc, ring);	/* before reading cold: it may move */
	struct site_cold *e = &s->cold[i];
	struct sym_loc loc;

	if (!e->have_info) {
		sym_resolve(s->sym, pid, pc, SYM_LINES, &loc);
		e->info.file = loc.file;
		e->info.line = loc.line;
		if (e->info.nr_bytes)
			arch_disasm(s->dec, e->info.bytes, e->info.nr_bytes, pc, e->info.text,
				    sizeof(e->info.text));
		else
			snprintf(e->info.text, sizeof(e->info.text), "(unavailable)");
		e->have_info = true;
	}
	return &e->info;
}

const struct cf_site_info *cf_sites_code(struct cf_sites *s, struct callflow *cf, uint32_t pid,
					 uint64_t pc, uint8_t ring)
{
	return &s->cold[lookup(s, cf, pid, pc, ring)].info;
}
