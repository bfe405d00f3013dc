// SPDX-License-Identifier: GPL-2.0
/* Decoded, resolved instruction sites for the call-flow engine, cached per address (cf_sites.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "cf_sites.h"
#include "log.h"
#include "trace_reader.h"

struct site_entry {
	uint32_t pid;
	uint32_t epoch;		  /* valid while equal to the cache's epoch */
	uint64_t pc;
	uint8_t ring;
	bool used, have_info;
	struct cf_site_info info;
};

struct cf_sites {
	struct sym_session *sym;
	struct arch_decoder *dec;
	struct site_entry *tab;
	size_t size, used;
	uint32_t epoch;
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
	s->size = 4096;
	s->tab = calloc(s->size, sizeof(*s->tab));
	s->epoch = 1;
	if (!s->dec || !s->tab) {
		if (!s->tab)
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
	free(s->tab);
	free(s);
}

static size_t slot_of(const struct cf_sites *s, uint32_t pid, uint64_t pc)
{
	uint64_t x = pc ^ ((uint64_t)pid << 47);

	x ^= x >> 31;
	x *= 0x9e3779b97f4a7c15ull;
	return (x >> 17) & (s->size - 1);
}

static void grow(struct cf_sites *s)
{
	struct site_entry *old = s->tab;
	size_t old_size = s->size;

	s->size *= 2;
	s->tab = calloc(s->size, sizeof(*s->tab));
	if (!s->tab) {
		pr_err("out of memory for the instruction cache");
		exit(EXIT_RUNTIME);
	}
	s->used = 0;
	for (size_t i = 0; i < old_size; i++) {
		size_t k;

		if (!old[i].used || old[i].epoch != s->epoch)
			continue;
		k = slot_of(s, old[i].pid, old[i].pc);
		while (s->tab[k].used)
			k = (k + 1) & (s->size - 1);
		s->tab[k] = old[i];
		s->used++;
	}
	free(old);
}

static struct site_entry *make_entry(struct cf_sites *s, struct callflow *cf, uint32_t pid,
				     uint64_t pc, uint8_t ring, size_t k);

/*
 * Find or make the entry; returns it with site filled.  The hit, every step
 * but a site's first, is kept small (the miss is a call apart).
 */
static inline struct site_entry *lookup(struct cf_sites *s, struct callflow *cf, uint32_t pid,
					uint64_t pc, uint8_t ring)
{
	size_t k;

	if (2 * (s->used + 1) > s->size)
		grow(s);
	for (k = slot_of(s, pid, pc); s->tab[k].used; k = (k + 1) & (s->size - 1)) {
		struct site_entry *e = &s->tab[k];

		if (e->epoch != s->epoch)
			break;	/* stale: reuse the slot */
		if (e->pid == pid && e->pc == pc && e->ring == ring)
			return e;
	}
	return make_entry(s, cf, pid, pc, ring, k);
}

/* A new entry in slot k for pc of pid in ring: resolved and decoded. */
static __attribute__((noinline)) struct site_entry *make_entry(struct cf_sites *s,
								struct callflow *cf, uint32_t pid,
								uint64_t pc, uint8_t ring, size_t k)
{
	struct site_entry *e = &s->tab[k];
	struct sym_loc loc;

	if (!e->used)
		s->used++;
	memset(e, 0, sizeof(*e));
	e->used = true;
	e->epoch = s->epoch;
	e->pid = pid;
	e->pc = pc;
	e->ring = ring;
	sym_resolve(s->sym, pid, pc, 0, &loc);
	e->info.module = loc.module;
	e->info.module_offset = loc.module_offset;
	e->info.symbol = loc.symbol;
	e->info.symbol_raw = loc.symbol_raw;
	e->info.sym_offset = loc.sym_offset;
	e->info.sym_size = loc.sym_size;
	if (loc.symbol) {
		e->info.site.fn = cf_func_intern(cf, loc.module, loc.module_path, loc.symbol,
						 loc.sym_addr);
		e->info.site.entry = loc.entry;
	} else {
		/* No symbol: one pseudo function per module, never an "entry". */
		size_t n = strlen(loc.module) + 3;
		char *name = malloc(n);

		if (!name) {
			pr_err("out of memory naming code without symbols");
			exit(EXIT_RUNTIME);
		}
		snprintf(name, n, "[%s]", loc.module);
		e->info.site.fn = cf_func_intern(cf, loc.module, loc.module_path, name, 0);
		free(name);
		e->info.site.anon = true;
	}
	cf_func_set_ring(cf, e->info.site.fn, ring);
	if (s->nr_ids < UINT32_MAX)
		e->info.site.id = ++s->nr_ids;
	e->info.nr_bytes = (uint8_t)sym_read_code(s->sym, pid, pc, e->info.bytes,
						  sizeof(e->info.bytes));
	arch_decode(s->dec, e->info.bytes, e->info.nr_bytes, pc, &e->info.site.insn);
	return e;
}

static void source_site(void *ctx, struct callflow *cf, uint32_t pid, uint64_t pc, uint8_t ring,
			struct cf_site *out)
{
	*out = lookup(ctx, cf, pid, pc, ring)->info.site;
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
		/* the same address may now hold other code: forget every entry */
		s->epoch++;
		s->used = 0;
		memset(s->tab, 0, s->size * sizeof(*s->tab));
		break;
	default:
		break;
	}
}

void cf_sites_source(struct cf_sites *s, struct cf_source *src)
{
	src->site = source_site;
	src->task = source_task;
	src->ctx = s;
}

const struct cf_site_info *cf_sites_info(struct cf_sites *s, struct callflow *cf, uint32_t pid,
					 uint64_t pc, uint8_t ring)
{
	struct site_entry *e = lookup(s, cf, pid, pc, ring);
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
