// SPDX-License-Identifier: GPL-2.0
/* Instruction counts by process, thread, module, symbol, line or instruction (see counts.h). */
#define PR_FMT "counts"
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arch/arch_decode.h"
#include "util/alloc.h"
#include "util/counts.h"
#include "util/stepcodec.h"
#include "util/filter.h"
#include "util/hashtab.h"
#include "util/log.h"
#include "util/symbols.h"
#include "util/trace_reader.h"

static const char *const by_names[COUNTS_BY_NR] = {
	[COUNTS_BY_PROCESS] = "process", [COUNTS_BY_THREAD] = "thread",
	[COUNTS_BY_MODULE] = "module", [COUNTS_BY_SYMBOL] = "symbol",
	[COUNTS_BY_LINE] = "line", [COUNTS_BY_INSN] = "insn",
};

/* Column names per report; the last one is the row's name. */
static const char *const columns[COUNTS_BY_NR][COUNTS_MAX_COLS] = {
	[COUNTS_BY_PROCESS] = { "process" },
	[COUNTS_BY_THREAD] = { "pid", "thread" },
	[COUNTS_BY_MODULE] = { "module" },
	[COUNTS_BY_SYMBOL] = { "module", "symbol" },
	[COUNTS_BY_LINE] = { "module", "line" },
	[COUNTS_BY_INSN] = { "address", "symbol", "instruction" },
};

int counts_parse_by(const char *s, enum counts_by *by)
{
	for (int i = 0; i < COUNTS_BY_NR; i++) {
		if (!strcmp(s, by_names[i])) {
			*by = (enum counts_by)i;
			return 0;
		}
	}
	return -1;
}

const char *counts_by_name(enum counts_by by)
{
	return by < COUNTS_BY_NR ? by_names[by] : "?";
}

size_t counts_columns(enum counts_by by, const char *const **names)
{
	size_t n = 0;

	*names = columns[by];
	while (n < COUNTS_MAX_COLS && columns[by][n])
		n++;
	return n;
}

struct row {
	struct counts_row out;	  /* count and columns (pointing into key) */
	uint64_t id;		  /* process and thread reports: pid or tid */
	uint32_t pid;
	char *key;		  /* the columns, each NUL-terminated, back to back */
	size_t key_len;
};

/* What finds a row: its id, or its columns' bytes (key, key_len), and their hash. */
struct row_key {
	uint64_t hash;
	uint64_t id;
	const char *bytes;
	size_t len;
};

static inline uint64_t row_key_hash(const struct row_key *k)
{
	return k->hash;
}

static inline bool row_key_eq(const struct row_key *a, const struct row_key *b)
{
	return a->hash == b->hash && a->id == b->id && a->len == b->len &&
	       (!a->len || !memcmp(a->bytes, b->bytes, a->len));
}

HASHTAB_DEFINE(row_map, struct row_key, struct row *, row_key_hash, row_key_eq)

/* One resolved (process, address): the row its steps go to, or filtered out. */
struct site {
	uint64_t pc;
	uint32_t pid;
	bool pass;		  /* inside --module */
	struct row *row;	  /* symbol-level reports; NULL for process/thread */
	uint32_t next, alt;	  /* sites that followed it (guesses: a branch has two) */
	uint32_t path[2];	  /* the paths that followed it last (index + 1, 0 none), newest first */
	uint64_t steps;		  /* counted here, not yet added to its row (sites_flush) */
};

/* A site's key in the index. */
struct site_key {
	uint64_t pc;
	uint32_t pid;
};

/*
 * The hash of (pid, pc) in the sites' index.  Not a scrambling hash on
 * purpose: neighbouring instructions get neighbouring slots, so code that
 * runs in sequence or in a loop touches few cache lines of the index; the
 * shifts fold the high bits in so that modules far apart do not collide.
 */
static inline uint64_t hash_site(uint32_t pid, uint64_t pc)
{
	return pc ^ (pc >> 17) ^ (pc >> 37) ^ ((uint64_t)pid * 0x9e3779b1u);
}

static inline uint64_t site_key_hash(const struct site_key *k)
{
	return hash_site(k->pid, k->pc);
}

static inline bool site_key_eq(const struct site_key *a, const struct site_key *b)
{
	return a->pc == b->pc && a->pid == b->pid;
}

/* A site's number in sites[] by its (pid, pc). */
HASHTAB_DEFINE(site_index, struct site_key, uint32_t, site_key_hash, site_key_eq)

/*
 * The steps that followed a site last time, as many whole ones as their
 * records take at most PATH_LEN bytes, and their sites: when the next
 * bytes of the stream are these again, they are the same steps (each
 * step's pc is the one before's plus its delta), counted as one, the
 * path's times, and added to the sites (paths_flush) before the sites are
 * moved, dropped or read.
 */
#define PATH_LEN 8
struct path {
	uint64_t bytes;		  /* the steps' records, len bytes; the rest zero */
	uint64_t mask;		  /* len bytes of ones */
	uint8_t len, steps;
	uint32_t from;		  /* the site it follows */
	uint32_t follow[2];	  /* the paths (index + 1) taken right after it, newest first: tried
				   * first (one load, not the site's and then its path's) */
	uint32_t slot[PATH_LEN];
	uint64_t times;		  /* taken whole, not yet added to its sites */
};

struct counts {
	struct counts_options o;
	struct counts_resolver r;
	bool by_id;		  /* process/thread: rows by id, no resolution needed */
	struct arch_decoder *dec; /* --by insn */

	/*
	 * The sites resolved since any address space last changed, in the order
	 * first seen (sites_drop empties them), and their index: a site is
	 * mostly found without it (site.next, site.alt), and a site's number
	 * stays while the arrays grow.
	 */
	struct site *sites;
	uint32_t nr_sites, sites_size;
	struct site_index index;
	uint32_t drops;		  /* sites_drop() calls so far */
	struct path *paths;	  /* of these sites */
	uint32_t nr_paths, paths_size;

	struct row **rows;	  /* every row, in creation order, then sorted */
	size_t nr_rows, rows_cap;
	struct row_map row_map;	  /* by id or columns */
	struct row *last_row;	  /* process/thread: consecutive steps share it */
	uint64_t last_id;

	struct counts_row *result;
	struct counts_native_row *native; /* strings owned */
	size_t nr_native;
	uint64_t total, seen, lost;
	bool failed;		  /* out of memory: a step could not be counted */
};

static uint64_t hash_bytes(const void *p, size_t len)
{
	const uint8_t *b = p;
	uint64_t h = 0xcbf29ce484222325ull;	/* FNV-1a */

	for (size_t i = 0; i < len; i++)
		h = (h ^ b[i]) * 0x100000001b3ull;
	return h;
}

struct counts *counts_new(const struct counts_options *o, const struct counts_resolver *r)
{
	struct counts *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->o = *o;
	c->r = *r;
	c->by_id = o->by == COUNTS_BY_PROCESS || o->by == COUNTS_BY_THREAD;
	c->sites_size = 1u << 13;
	c->sites = malloc(c->sites_size * sizeof(*c->sites));
	if (!c->sites || !site_index_reserve(&c->index, c->sites_size) ||
	    !row_map_reserve(&c->row_map, 512))
		goto err;
	if (o->by == COUNTS_BY_INSN) {
		c->dec = arch_decoder_new();
		if (!c->dec)
			goto err;
	}
	return c;
err:
	pr_err("cannot set up counting: out of memory");
	counts_free(c);
	return NULL;
}

void counts_free(struct counts *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->nr_rows; i++) {
		free(c->rows[i]->key);
		free(c->rows[i]);
	}
	free(c->rows);
	row_map_free(&c->row_map);
	free(c->sites);
	site_index_free(&c->index);
	free(c->paths);
	free(c->result);
	for (size_t i = 0; i < c->nr_native; i++) {
		free((char *)c->native[i].module);
		free((char *)c->native[i].symbol);
	}
	free(c->native);
	if (c->dec)
		arch_decoder_free(c->dec);
	free(c);
}

/* A new row found by k (its key bytes the row's from now on); NULL when out of memory. */
static struct row *row_add(struct counts *c, const struct row_key *k)
{
	struct row *row = calloc(1, sizeof(*row));
	struct row_map_entry *e;
	bool added;

	if (!row)
		return NULL;
	if (c->nr_rows == c->rows_cap) {
		size_t cap = c->rows_cap ? c->rows_cap * 2 : 256;
		struct row **n = realloc(c->rows, cap * sizeof(*n));

		if (!n) {
			free(row);
			return NULL;
		}
		c->rows = n;
		c->rows_cap = cap;
	}
	e = row_map_insert(&c->row_map, k, &added);
	if (!e) {
		free(row);
		return NULL;
	}
	e->val = row;
	c->rows[c->nr_rows++] = row;
	return row;
}

/* The row named by cols[0..n), created on first use. */
static struct row *row_by_cols(struct counts *c, const char *const *cols, size_t n)
{
	struct row_map_entry *e;
	struct row_key k;
	size_t len = 0;
	struct row *row;
	char *key;

	for (size_t i = 0; i < n; i++)
		len += strlen(cols[i]) + 1;
	key = malloc(len);
	if (!key)
		return NULL;
	len = 0;
	for (size_t i = 0; i < n; i++) {
		size_t l = strlen(cols[i]) + 1;

		memcpy(key + len, cols[i], l);
		len += l;
	}
	k = (struct row_key){ .hash = hash_bytes(key, len), .bytes = key, .len = len };
	e = row_map_find(&c->row_map, &k);
	if (e) {
		free(key);
		return e->val;
	}
	row = row_add(c, &k);
	if (!row) {
		free(key);
		return NULL;
	}
	row->key = key;
	row->key_len = len;
	for (size_t i = 0, off = 0; i < n; i++) {
		row->out.cols[i] = row->key + off;
		off += strlen(row->key + off) + 1;
	}
	return row;
}

/* Process and thread reports: the row of an id (names are made at the end). */
static struct row *row_by_id(struct counts *c, uint64_t id, uint32_t pid)
{
	struct row_key k = { .hash = hash_site(0, id), .id = id };
	struct row_map_entry *e;
	struct row *row;

	if (c->last_row && c->last_id == id)
		return c->last_row;
	e = row_map_find(&c->row_map, &k);
	row = e ? e->val : NULL;
	if (!row) {
		row = row_add(c, &k);
		if (!row)
			return NULL;
		row->id = id;
		row->pid = pid;
	}
	c->last_row = row;
	c->last_id = id;
	return row;
}

/*
 * "main", or where nothing names the address, "libfoo.so+0x1234" or
 * "[unknown]"; with_offset: "main+0x12".  Malloc'ed (names are never cut),
 * NULL when out of memory.
 */
static char *symbol_name(const struct sym_loc *loc, bool with_offset)
{
	const char *module = loc->module ? loc->module : "[unknown]";
	char *buf = NULL;
	int r;

	if (loc->symbol && with_offset && loc->sym_offset)
		r = asprintf(&buf, "%s+0x%" PRIx64, loc->symbol, loc->sym_offset);
	else if (loc->symbol)
		r = asprintf(&buf, "%s", loc->symbol);
	else if (loc->mod)
		r = asprintf(&buf, "%s+0x%" PRIx64, module, loc->module_offset);
	else
		r = asprintf(&buf, "%s", module);
	return r < 0 ? NULL : buf;
}

static void insn_text(struct counts *c, uint32_t pid, uint64_t pc, char *buf, size_t size)
{
	uint8_t code[ARCH_INSN_MAX_LEN];
	size_t n = c->r.read_code ? c->r.read_code(c->r.arg, pid, pc, code, sizeof(code)) : 0;

	if (!n || !arch_disasm(c->dec, code, n, pc, buf, size))
		snprintf(buf, size, "(code not available)");
}

static void resolve_site(struct counts *c, struct site *s)
{
	struct sym_loc loc;
	char addr[32], text[128], *name = NULL, *line = NULL;
	const char *module;

	memset(&loc, 0, sizeof(loc));
	c->r.resolve(c->r.arg, s->pid, s->pc, c->o.by == COUNTS_BY_LINE ? SYM_LINES : 0, &loc);
	module = loc.module ? loc.module : "[unknown]";
	s->pass = filter_module(c->o.filter, module, loc.module_path) &&
		  filter_symbol(c->o.filter, loc.symbol, loc.symbol_raw);
	s->row = NULL;
	if (!s->pass || c->by_id)
		return;
	switch (c->o.by) {
	case COUNTS_BY_MODULE:
		s->row = row_by_cols(c, (const char *[]){ module }, 1);
		break;
	case COUNTS_BY_SYMBOL:
		if ((name = symbol_name(&loc, false)))
			s->row = row_by_cols(c, (const char *[]){ module, name }, 2);
		break;
	case COUNTS_BY_LINE:
		if (loc.file && loc.line > 0 && asprintf(&line, "%s:%d", loc.file, loc.line) < 0)
			line = NULL;
		name = line ? NULL : symbol_name(&loc, false);
		if (line || name)
			s->row = row_by_cols(c, (const char *[]){ module, line ? line : name }, 2);
		break;
	case COUNTS_BY_INSN:
		snprintf(addr, sizeof(addr), "0x%" PRIx64, s->pc);
		insn_text(c, s->pid, s->pc, text, sizeof(text));
		if ((name = symbol_name(&loc, true)))
			s->row = row_by_cols(c, (const char *[]){ addr, name, text }, 3);
		break;
	default:
		break;
	}
	free(name);
	free(line);
}

/* What the paths counted, added to their sites. */
static void paths_flush(struct counts *c)
{
	for (uint32_t i = 0; i < c->nr_paths; i++) {
		struct path *p = &c->paths[i];

		if (!p->times)
			continue;
		for (int j = 0; j < p->steps; j++)
			c->sites[p->slot[j]].steps += p->times;
		p->times = 0;
	}
}

/* Every path counted and dropped (the sites' slots are about to change). */
static void paths_drop(struct counts *c)
{
	paths_flush(c);
	for (uint32_t i = 0; i < c->nr_sites; i++)
		c->sites[i].path[0] = c->sites[i].path[1] = 0;
	c->nr_paths = 0;
}

/* What the sites counted, added to their rows: before the sites are dropped, or read. */
static void sites_flush(struct counts *c)
{
	for (uint32_t i = 0; i < c->nr_sites; i++) {
		struct site *s = &c->sites[i];

		if (!s->steps)
			continue;
		if (s->pass && s->row) {
			s->row->out.count += s->steps;
			c->total += s->steps;
		} else if (s->pass) {
			if (!c->failed)
				pr_err("out of memory while counting");
			c->failed = true;
		}
		s->steps = 0;
	}
}

/* Every site of the cache dropped: addresses resolve anew from here on. */
static void sites_drop(struct counts *c)
{
	paths_drop(c);
	sites_flush(c);
	c->nr_sites = 0;
	site_index_clear(&c->index);
	c->drops++;
}

/* Room for one more site, in sites[] and the index (else the sites start over). */
static void sites_room(struct counts *c)
{
	if (c->nr_sites == c->sites_size) {
		uint32_t size = 2 * c->sites_size;
		struct site *n = size > c->sites_size ? reallocarray(c->sites, size, sizeof(*n)) : NULL;

		if (!n) {
			sites_drop(c);	/* no memory to grow: start the cache over rather than fail */
			return;
		}
		c->sites = n;
		c->sites_size = size;
	}
	if (!site_index_reserve(&c->index, site_index_count(&c->index) + 1))
		sites_drop(c);	/* its slots are kept: the next one fits */
}

/*
 * The site of (pid, pc), resolved on first sight.  Adding one may move
 * sites[] (never a site's number) or, out of memory, drop every site
 * (c->drops).
 */
static struct site *site_get(struct counts *c, uint32_t pid, uint64_t pc)
{
	struct site_key k = { pc, pid };
	struct site_index_entry *e = site_index_find(&c->index, &k);
	struct site *s;
	bool added;

	if (e)
		return &c->sites[e->val];
	sites_room(c);
	e = site_index_insert(&c->index, &k, &added);
	DASSERT(e && added);	/* sites_room() made room: the insert does not grow */
	if (!e)
		xalloc_die();
	e->val = c->nr_sites;
	s = &c->sites[c->nr_sites++];
	*s = (struct site){ .pc = pc, .pid = pid };
	resolve_site(c, s);
	return s;
}

static void count_steps(struct counts *c, uint32_t pid, uint32_t tid, uint64_t pc, bool has_pc,
			uint64_t n)
{
	struct row *row = NULL;

	if (!filter_thread(c->o.filter, pid, tid))
		return;
	if (has_pc && (!c->by_id || filter_on_functions(c->o.filter))) {
		struct site *s = site_get(c, pid, pc);

		if (!s->pass)
			return;
		row = s->row;
	} else if (!has_pc && !c->by_id) {
		/* count-only records carry no address */
		if (filter_on_functions(c->o.filter))
			return;
		row = c->o.by == COUNTS_BY_INSN
			? row_by_cols(c, (const char *[]){ "-", "[counted]", "[counted]" }, 3)
		      : c->o.by == COUNTS_BY_MODULE
			? row_by_cols(c, (const char *[]){ "[counted]" }, 1)
			: row_by_cols(c, (const char *[]){ "[counted]", "[counted]" }, 2);
	}
	if (c->by_id)
		row = row_by_id(c, c->o.by == COUNTS_BY_PROCESS ? pid : tid, pid);
	if (!row) {
		if (!c->failed)
			pr_err("out of memory while counting");
		c->failed = true;
		return;
	}
	row->out.count += n;
	c->total += n;
}

/* The first len (1..8) bytes at p, the rest zero: eight are readable there (STEP_BYTES_SLACK). */
static inline uint64_t load_bytes(const uint8_t *p, uint64_t mask)
{
	uint64_t w;

	memcpy(&w, p, sizeof(w));
	return w & mask;
}

static inline uint64_t bytes_mask(unsigned len)
{
	return len >= 8 ? ~0ull : (1ull << (8 * len)) - 1;
}

/*
 * from's newest path from now on: the steps at b (len bytes, steps of
 * them), at the sites of slot (counted one by one this time); its older
 * one, the one it had before (or a new one).
 */
static void path_set(struct counts *c, uint32_t from_site, const uint8_t *b, unsigned len,
		     unsigned steps, const uint32_t *slot)
{
	struct site *from = &c->sites[from_site];
	uint32_t old = from->path[0];
	struct path *p;

	from->path[0] = from->path[1];
	from->path[1] = old;
	if (!from->path[0]) {
		if (c->nr_paths == c->paths_size) {
			uint32_t size = c->paths_size ? 2 * c->paths_size : 1024;
			struct path *np = reallocarray(c->paths, size, sizeof(*np));

			if (!np || size < c->paths_size)
				return;	/* no memory: steps go one by one */
			c->paths = np;
			c->paths_size = size;
		}
		c->paths[c->nr_paths].times = 0;
		from->path[0] = ++c->nr_paths;
	}
	p = &c->paths[from->path[0] - 1];
	if (p->times) {	/* what it counted as it was, to its sites */
		for (int j = 0; j < p->steps; j++)
			c->sites[p->slot[j]].steps += p->times;
		p->times = 0;
	}
	p->mask = bytes_mask(len);
	p->bytes = load_bytes(b, p->mask);
	p->len = (uint8_t)len;
	p->steps = (uint8_t)steps;
	p->from = from_site;
	p->follow[0] = p->follow[1] = 0;
	memcpy(p->slot, slot, steps * sizeof(*slot));
}

/* The function filter by id: each step to its row, one by one. */
static void count_bytes_by_id(struct counts *c, const struct trace_event *ev,
			      const struct step_bytes *sb)
{
	const uint8_t *b = sb->b, *end = sb->b + sb->len;
	uint64_t pc = sb->base_pc;

	for (size_t k = 0; k < sb->steps; k++) {
		b += step_next_pc(b, end, &pc);
		count_steps(c, ev->pid, ev->tid, pc, true, 1);
	}
}

/*
 * The steps of sb this pass does not count site by site, told: none
 * (filtered out), or steps by process or thread.  true: nothing is left.
 */
static bool counted_apart(struct counts *c, const struct trace_event *ev,
			  const struct step_bytes *sb)
{
	c->seen += sb->steps;
	if (!sb->steps || !filter_ring(c->o.filter, ev->ring) ||
	    !filter_thread(c->o.filter, ev->pid, ev->tid))
		return true;
	if (!c->by_id)
		return false;
	if (!filter_on_functions(c->o.filter))
		count_steps(c, ev->pid, ev->tid, ev->pc, true, sb->steps);
	else
		count_bytes_by_id(c, ev, sb);
	return true;
}

/*
 * The site of pc after site number from when neither of its guesses is:
 * found or made, and from's first guess from now on (unless that dropped
 * every site, and every path with them: *dropped).
 */
static uint32_t site_after(struct counts *c, uint32_t from, uint32_t pid, uint64_t pc,
			   bool *dropped)
{
	uint32_t drops = c->drops, nx = (uint32_t)(site_get(c, pid, pc) - c->sites);

	*dropped = c->drops != drops;
	if (!*dropped) {
		c->sites[from].alt = c->sites[from].next;
		c->sites[from].next = nx;
	}
	return nx;
}

/*
 * The steps of the next PATH_LEN bytes at *b, after site *si at *pc,
 * taken one by one (*k the steps taken of sb), each site after the one
 * before found by its guesses (site.next, site.alt) or site_after();
 * remembered as the first site's newest path when they fill the bytes.
 */
static void count_one_by_one(struct counts *c, uint32_t pid, const uint8_t **b,
			     const uint8_t *end, uint64_t *pc, uint32_t *si, size_t *k,
			     size_t steps)
{
	const uint8_t *start = *b;
	uint32_t slot[PATH_LEN], from = *si;
	bool full = false, kept = true;	  /* full: the next step would not fit */
	struct site *sites = c->sites;
	unsigned j;

	for (j = 0; j < PATH_LEN && *k < steps; j++, (*k)++) {
		uint64_t npc = *pc;
		size_t used = step_next_pc(*b, end, &npc);
		const struct site *s = &sites[*si];
		uint32_t nx;

		if ((size_t)(*b + used - start) > PATH_LEN && j) {
			full = true;
			break;
		}
		*b += used;
		*pc = npc;
		/* a guess is a site of these (sites_drop() renews them all) */
		nx = s->next;
		if (sites[nx].pc != npc || sites[nx].pid != pid) {
			nx = s->alt;
			if (sites[nx].pc != npc || sites[nx].pid != pid) {
				bool dropped;

				nx = site_after(c, *si, pid, npc, &dropped);
				kept &= !dropped;	/* every path went */
				sites = c->sites;
			}
		}
		*si = nx;
		sites[nx].steps++;
		slot[j] = nx;
	}
	if (kept && (full || j == PATH_LEN) && *b - start <= PATH_LEN)
		path_set(c, from, start, (unsigned)(*b - start), j, slot);
}

/*
 * A run of one thread's steps as they are encoded.  Code runs the same
 * way again: when the next bytes are one of the site's two paths, they
 * count as one (the path's times); else the steps are taken one by one,
 * the two sites that followed each site last tried before the index, and
 * remembered as the site's newest path.  A step is counted at its site,
 * whose steps go to its row when the sites are dropped or the rows read
 * (sites_flush).
 */
void counts_bytes(struct counts *c, const struct trace_event *ev, const struct step_bytes *sb)
{
	const uint8_t *b = sb->b, *end = sb->b + sb->len;
	uint64_t pc = sb->base_pc;
	struct path *last;	  /* the path the steps just took (si and pc are not kept then) */
	uint32_t si;
	size_t k;

	if (counted_apart(c, ev, sb))
		return;
	b += step_next_pc(b, end, &pc);
	si = (uint32_t)(site_get(c, ev->pid, pc) - c->sites);
	c->sites[si].steps++;
	last = NULL;
	for (k = 1; k < sb->steps;) {
		const struct site *s;
		struct path *p;
		uint64_t w;

		memcpy(&w, b, sizeof(w));
		if (last) {
			/* what came after it before: the same bytes from the same site */
			si = last->slot[last->steps - 1];
			for (unsigned j = 0; j < 2 && last->follow[j]; j++) {
				p = &c->paths[last->follow[j] - 1];
				if ((w & p->mask) == p->bytes && p->from == si && p->len <= end - b)
					goto take;
			}
			pc = c->sites[si].pc;
		}
		s = &c->sites[si];
		if (s->path[0]) {
			p = &c->paths[s->path[0] - 1];
			if (((w & p->mask) == p->bytes && p->len <= end - b) ||
			    (s->path[1] && (p = &c->paths[s->path[1] - 1],
					    (w & p->mask) == p->bytes && p->len <= end - b))) {
				if (last && last->follow[0] != (uint32_t)(p - c->paths) + 1) {
					last->follow[1] = last->follow[0];
					last->follow[0] = (uint32_t)(p - c->paths) + 1;
				}
				goto take;
			}
		}
		last = NULL;
		count_one_by_one(c, ev->pid, &b, end, &pc, &si, &k, sb->steps);
		continue;
take:
		p->times++;
		b += p->len;
		k += p->steps;
		last = p;
	}
}

/* Decoded steps (tests, and a session that decodes): counted as their encoding would be. */
void counts_steps(struct counts *c, const struct trace_event *ev, const uint64_t *pcs, size_t n)
{
	uint8_t *buf;
	struct step_bytes sb;

	if (!n)
		return;
	buf = step_bytes_of_pcs(pcs, n, &sb);
	if (!buf) {
		/* no memory for the encoding: one by one */
		for (size_t k = 0; k < n; k++) {
			struct trace_event e = *ev;

			e.pc = pcs[k];
			counts_event(c, &e);
		}
		return;
	}
	counts_bytes(c, ev, &sb);
	free(buf);
}

/* A native run from ev->pc: a row of its module and symbol, as the address space is now. */
static void count_native(struct counts *c, const struct trace_event *ev)
{
	struct counts_native_row *n = NULL, *v;
	const char *module, *symbol;
	struct sym_loc loc;

	if (!filter_thread(c->o.filter, ev->pid, ev->tid))
		return;
	memset(&loc, 0, sizeof(loc));
	c->r.resolve(c->r.arg, ev->pid, ev->pc, 0, &loc);
	module = loc.module ? loc.module : "[unknown]";
	symbol = loc.symbol ? loc.symbol : "[unknown]";
	/* the function filters take native runs too (--module vdso) */
	if (!filter_module(c->o.filter, module, loc.module_path) ||
	    !filter_symbol(c->o.filter, loc.symbol, loc.symbol_raw))
		return;
	for (size_t i = 0; i < c->nr_native && !n; i++)
		if (!strcmp(c->native[i].module, module) && !strcmp(c->native[i].symbol, symbol))
			n = &c->native[i];
	if (!n) {
		v = realloc(c->native, (c->nr_native + 1) * sizeof(*v));
		if (!v) {
			c->failed = true;
			return;
		}
		c->native = v;
		n = &v[c->nr_native];
		memset(n, 0, sizeof(*n));
		n->module = strdup(module);
		n->symbol = strdup(symbol);
		if (!n->module || !n->symbol) {
			free((char *)n->module);
			free((char *)n->symbol);
			c->failed = true;
			return;
		}
		c->nr_native++;
	}
	n->runs++;
	if (ev->a & PT_NATIVE_COUNTED) {
		n->counted++;
		n->count += ev->b;
	}
}

size_t counts_native(const struct counts *c, const struct counts_native_row **rows)
{
	*rows = c->native;
	return c->nr_native;
}

void counts_event(struct counts *c, const struct trace_event *ev)
{
	switch (ev->kind) {
	case TEV_STEP:
		c->seen++;
		if (!filter_ring(c->o.filter, ev->ring))
			break;
		count_steps(c, ev->pid, ev->tid, ev->pc, true, 1);
		break;
	case TEV_COUNT:
		c->seen += ev->a;
		/* count-only records don't say which ring: only in an unfiltered count */
		if (c->o.filter && c->o.filter->f.ring)
			break;
		count_steps(c, ev->pid, ev->tid, 0, false, ev->a);
		break;
	case TEV_LOST:
		c->lost += ev->a;
		break;
	case TEV_NATIVE:
		count_native(c, ev);
		break;
	case TEV_TASK:
		if (c->r.task)
			c->r.task(c->r.arg, ev->task);
		switch (ev->task->type) {
		case PT_TASK_FORK:
		case PT_TASK_EXEC:
		case PT_TASK_MMAP:
		case PT_TASK_MUNMAP:
			/* addresses may mean something else from now on */
			sites_drop(c);
			break;
		}
		break;
	default:
		break;
	}
}

static int row_cmp(const void *pa, const void *pb)
{
	const struct counts_row *a = pa, *b = pb;
	int n = 0;

	if (a->count != b->count)
		return a->count > b->count ? -1 : 1;
	while (n < COUNTS_MAX_COLS && a->cols[n])
		n++;
	/* ties: by name (the last column), then the context columns */
	for (int i = n - 1; i >= 0; i--) {
		int d = strcmp(a->cols[i] ? a->cols[i] : "", b->cols[i] ? b->cols[i] : "");

		if (d)
			return d;
	}
	return 0;
}

/* Process and thread names: "1234 (comm)", made once counting is over. */
static int name_id_rows(struct counts *c)
{
	for (size_t i = 0; i < c->nr_rows; i++) {
		struct row *row = c->rows[i];
		const char *comm = c->r.comm ? c->r.comm(c->r.arg, (uint32_t)row->id) : NULL;
		char name[64], pid[16];
		size_t len;

		if (row->key)
			continue;
		snprintf(name, sizeof(name), "%" PRIu64 " (%s)", row->id, comm ? comm : "?");
		snprintf(pid, sizeof(pid), "%u", row->pid);
		len = strlen(name) + strlen(pid) + 2;
		row->key = malloc(len);
		if (!row->key)
			return -1;
		if (c->o.by == COUNTS_BY_THREAD) {
			snprintf(row->key, len, "%s%c%s", pid, '\0', name);
			row->out.cols[0] = row->key;
			row->out.cols[1] = row->key + strlen(pid) + 1;
		} else {
			snprintf(row->key, len, "%s", name);
			row->out.cols[0] = row->key;
		}
	}
	return 0;
}

size_t counts_result(struct counts *c, const struct counts_row **rows)
{
	struct counts_row *res;

	paths_flush(c);
	sites_flush(c);
	if (c->by_id && name_id_rows(c) < 0)
		return 0;
	res = realloc(c->result, (c->nr_rows ? c->nr_rows : 1) * sizeof(*res));
	if (!res)
		return 0;
	c->result = res;
	for (size_t i = 0; i < c->nr_rows; i++)
		res[i] = c->rows[i]->out;
	qsort(res, c->nr_rows, sizeof(*res), row_cmp);
	*rows = res;
	return c->nr_rows;
}

uint64_t counts_total(struct counts *c)
{
	paths_flush(c);
	sites_flush(c);
	return c->total;
}

uint64_t counts_seen(const struct counts *c)
{
	return c->seen;
}

uint64_t counts_lost(const struct counts *c)
{
	return c->lost;
}

/* ---- the resolver over util/symbols.h ---- */

static void sym_resolve_cb(void *arg, uint32_t pid, uint64_t addr, unsigned flags,
			   struct sym_loc *loc)
{
	sym_resolve(((struct counts_sym_arg *)arg)->sym, pid, addr, flags, loc);
}

static void sym_task_cb(void *arg, const struct trace_task_rec *rec)
{
	sym_task_event(((struct counts_sym_arg *)arg)->sym, rec);
}

static size_t sym_code_cb(void *arg, uint32_t pid, uint64_t addr, uint8_t *buf, size_t len)
{
	return sym_read_code(((struct counts_sym_arg *)arg)->sym, pid, addr, buf, len);
}

static const char *sym_comm_cb(void *arg, uint32_t tid)
{
	return trace_comm(((struct counts_sym_arg *)arg)->trace, tid);
}

void counts_sym_resolver(struct counts_resolver *r, struct counts_sym_arg *arg)
{
	r->resolve = sym_resolve_cb;
	r->task = sym_task_cb;
	r->read_code = sym_code_cb;
	r->comm = sym_comm_cb;
	r->arg = arg;
}
