// SPDX-License-Identifier: GPL-2.0
/* What an annotated function shows: its instructions, counts, lines, source (tui_annotate_data.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arcs.h"
#include "log.h"
#include "session.h"
#include "tui_annotate_data.h"

#define ANN_MAX_INSNS 20000	  /* instructions filled in from a function's code, at most */
#define ANN_MAX_SOURCE (64u << 20) /* source files longer than this are not read */

/* An executed address, as it was when first seen. */
struct pc_place {
	uint64_t module_offset, sym_offset;
	const char *symbol;	  /* NULL: no symbol covers it */
	const char *file;
	int line;
	uint8_t bytes[ARCH_INSN_MAX_LEN];
	uint8_t nr_bytes;
};

struct src_file {
	const char *path;
	char *data;
	char **lines;
	int n;
};

struct ann_data {
	struct session *s;
	struct arcs *a;
	struct arch_decoder *dec;
	struct pc_place *places;  /* by arcs_pc() index */
	size_t nr_places, places_size;
	struct src_file *files;
	size_t nr_files;
};

static void first_sight(void *ctx, const struct arcs *a, size_t i)
{
	struct ann_data *d = ctx;
	const struct arc_pc *p = arcs_pc(a, i);
	struct callflow *cf = arcs_callflow(a);
	const struct cf_site_info *in;
	struct pc_place *pl;

	if (i >= d->places_size) {
		size_t n = d->places_size ? 2 * d->places_size : 4096;
		struct pc_place *np;

		while (n <= i)
			n *= 2;
		np = realloc(d->places, n * sizeof(*np));
		if (!np) {
			pr_err("out of memory keeping the places of %zu addresses", i);
			exit(EXIT_RUNTIME);
		}
		memset(np + d->places_size, 0, (n - d->places_size) * sizeof(*np));
		d->places = np;
		d->places_size = n;
	}
	in = cf_sites_info(session_sites(d->s), cf, p->pid, p->pc, cf_func(cf, p->fn)->ring);
	pl = &d->places[i];
	pl->module_offset = in->module_offset;
	pl->sym_offset = in->sym_offset;
	pl->symbol = in->symbol;
	pl->file = in->file;
	pl->line = in->line;
	pl->nr_bytes = in->nr_bytes;
	memcpy(pl->bytes, in->bytes, sizeof(pl->bytes));
	if (i >= d->nr_places)
		d->nr_places = i + 1;
}

struct ann_data *ann_data_new(struct session *s, struct arcs *a)
{
	struct ann_data *d = calloc(1, sizeof(*d));
	struct arcs_first_sight fs = { .pc = first_sight };

	if (!d) {
		pr_err("out of memory for annotate");
		return NULL;
	}
	d->s = s;
	d->a = a;
	d->dec = arch_decoder_new();
	if (!d->dec) {
		free(d);
		return NULL;
	}
	fs.ctx = d;
	arcs_set_first_sight(a, &fs);
	return d;
}

void ann_data_free(struct ann_data *d)
{
	if (!d)
		return;
	for (size_t i = 0; i < d->nr_files; i++) {
		free(d->files[i].data);
		free(d->files[i].lines);
	}
	free(d->files);
	free(d->places);
	arch_decoder_free(d->dec);
	free(d);
}

/* ---- a function's instructions ---- */

/* An executed address of the function: arcs_pc() index and its counts. */
struct raw {
	size_t pc;		  /* arcs_pc() index */
	uint32_t pid;
	uint64_t addr, offset, count, jumped_in;
};

static int raw_by_addr(const void *pa, const void *pb)
{
	const struct raw *a = pa, *b = pb;

	if (a->pid != b->pid)
		return a->pid < b->pid ? -1 : 1;
	return a->addr < b->addr ? -1 : a->addr > b->addr;
}

static int raw_by_offset(const void *pa, const void *pb)
{
	const struct raw *a = pa, *b = pb;

	if (a->offset != b->offset)
		return a->offset < b->offset ? -1 : 1;
	return raw_by_addr(pa, pb);
}

static int insn_by_offset(const void *pa, const void *pb)
{
	const struct ann_insn *a = pa, *b = pb;

	return a->offset < b->offset ? -1 : a->offset > b->offset;
}

/* The executed addresses of fn, with counts of the processes taken and the jumps into each. */
static struct raw *collect(struct ann_data *d, uint32_t fn, bool (*take)(void *, uint32_t),
			   void *ctx, size_t *n)
{
	size_t k = 0, cap = 64;
	struct raw *r = malloc(cap * sizeof(*r));

	*n = 0;
	if (!r)
		return NULL;
	for (size_t i = 0; i < arcs_nr_pcs(d->a) && i < d->nr_places; i++) {
		const struct arc_pc *p = arcs_pc(d->a, i);

		if (p->fn != fn)
			continue;
		if (k == cap) {
			struct raw *nr = realloc(r, 2 * cap * sizeof(*r));

			if (!nr) {
				free(r);
				return NULL;
			}
			r = nr;
			cap *= 2;
		}
		r[k++] = (struct raw){ .pc = i, .pid = p->pid, .addr = p->pc,
				       .offset = d->places[i].module_offset,
				       .count = !take || take(ctx, p->pid) ? p->count : 0 };
	}
	qsort(r, k, sizeof(*r), raw_by_addr);
	for (size_t j = 0; j < arcs_nr_jumps(d->a); j++) {
		const struct arc_jump *jp = arcs_jump(d->a, j);
		struct raw key = { .pid = jp->pid, .addr = jp->to }, *hit;

		if (jp->fn != fn || (take && !take(ctx, jp->pid)))
			continue;
		hit = bsearch(&key, r, k, sizeof(*r), raw_by_addr);
		if (hit)
			hit->jumped_in += jp->count;
	}
	*n = k;
	return r;
}

/*
 * Is the code of the first process's executed addresses still where it
 * was (the address space at the end of the trace)?  Then the rest of the
 * function can be read from it.
 */
static const char *still_mapped(struct ann_data *d, const struct raw *r, size_t n, uint32_t pid)
{
	struct sym_session *sym = session_symbols(d->s);

	for (size_t i = 0; i < n; i++) {
		const struct pc_place *pl = &d->places[r[i].pc];
		struct sym_loc loc;

		if (r[i].pid != pid)
			continue;
		if (!pl->symbol)
			return "no symbol covers this code: only the instructions that ran are shown";
		sym_resolve(sym, pid, r[i].addr, 0, &loc);
		if (!loc.symbol || strcmp(loc.symbol, pl->symbol) ||
		    loc.module_offset != pl->module_offset)
			return "its code is no longer mapped at the end of the trace: only the "
			       "instructions that ran are shown";
	}
	return NULL;
}

static int add_insn(struct ann_function *f, size_t *cap, const struct ann_insn *in)
{
	if (f->n == *cap) {
		size_t nc = *cap ? 2 * *cap : 64;
		struct ann_insn *ni = realloc(f->insns, nc * sizeof(*ni));

		if (!ni)
			return -1;
		f->insns = ni;
		*cap = nc;
	}
	f->insns[f->n++] = *in;
	return 0;
}

/* The instructions that did not run, decoded from the function's start to its end. */
static const char *fill_in(struct ann_data *d, struct ann_function *f, size_t *cap,
			   const struct raw *first, size_t nr_ran)
{
	struct sym_session *sym = session_symbols(d->s);
	const struct pc_place *pl = &d->places[first->pc];
	uint64_t start = first->addr - pl->sym_offset, addr = start, bias = first->addr -
								      first->offset;

	for (int k = 0; k < ANN_MAX_INSNS; k++) {
		struct ann_insn in = { .pid = first->pid, .pc = addr, .offset = addr - bias };
		struct arch_insn ai;
		struct sym_loc loc;
		struct ann_insn *hit;

		sym_resolve(sym, first->pid, addr, SYM_LINES, &loc);
		if (!loc.symbol || strcmp(loc.symbol, pl->symbol) || loc.sym_offset != addr - start)
			return NULL;	/* the next function */
		in.nr_bytes = (uint8_t)sym_read_code(sym, first->pid, addr, in.bytes,
						     sizeof(in.bytes));
		if (!in.nr_bytes || arch_decode(d->dec, in.bytes, in.nr_bytes, addr, &ai) || !ai.len)
			return k ? NULL : "the code bytes are not available: only the "
					  "instructions that ran are shown";
		hit = bsearch(&in, f->insns, nr_ran, sizeof(*hit), insn_by_offset);
		if (!hit) {
			in.file = loc.file;
			in.line = loc.line;
			if (add_insn(f, cap, &in))
				return "out of memory";
		}
		addr += ai.len;
	}
	return NULL;
}

/* The file of most counted instructions (of most instructions when none counted). */
static const char *main_file(const struct ann_function *f)
{
	struct { const char *file; uint64_t w; } seen[16];
	size_t nr = 0, best = 0;

	for (size_t i = 0; i < f->n; i++) {
		const char *file = f->insns[i].file;
		size_t k;

		if (!file)
			continue;
		for (k = 0; k < nr && seen[k].file != file && strcmp(seen[k].file, file); k++)
			;
		if (k == nr) {
			if (nr == sizeof(seen) / sizeof(seen[0]))
				continue;	/* inlined from many files: the first ones */
			seen[nr++] = (typeof(seen[0])){ file, 0 };
		}
		seen[k].w += f->insns[i].count * 1000000 + 1;
	}
	for (size_t k = 1; k < nr; k++)
		if (seen[k].w > seen[best].w)
			best = k;
	return nr ? seen[best].file : NULL;
}

int ann_function_get(struct ann_data *d, uint32_t fn, bool (*take)(void *ctx, uint32_t pid),
		     void *ctx, struct ann_function *out)
{
	size_t n, cap = 0, nr_ran;
	struct raw *r = collect(d, fn, take, ctx, &n);

	memset(out, 0, sizeof(*out));
	out->fn = fn;
	if (!r)
		goto oom;
	qsort(r, n, sizeof(*r), raw_by_offset);
	for (size_t i = 0; i < n; i++) {
		const struct pc_place *pl = &d->places[r[i].pc];
		struct ann_insn in = {
			.offset = r[i].offset, .pc = r[i].addr, .pid = r[i].pid,
			.count = r[i].count, .jumped_in = r[i].jumped_in, .file = pl->file,
			.line = pl->line, .nr_bytes = pl->nr_bytes, .ran = true,
		};

		out->total += r[i].count;
		if (out->n && out->insns[out->n - 1].offset == in.offset) {
			/* the same instruction in another process */
			out->insns[out->n - 1].count += in.count;
			out->insns[out->n - 1].jumped_in += in.jumped_in;
			continue;
		}
		memcpy(in.bytes, pl->bytes, sizeof(in.bytes));
		if (add_insn(out, &cap, &in))
			goto oom;
	}
	nr_ran = out->n;
	if (n) {
		/* the lowest address of the first process seen: the function's code in it */
		const struct raw *first = &r[0];

		out->why = still_mapped(d, r, n, first->pid);
		if (!out->why)
			out->why = fill_in(d, out, &cap, first, nr_ran);
	}
	qsort(out->insns, out->n, sizeof(*out->insns), insn_by_offset);
	for (size_t i = 0; i < out->n; i++) {
		struct ann_insn *in = &out->insns[i];

		if (!in->nr_bytes || !arch_disasm(d->dec, in->bytes, in->nr_bytes, in->pc, in->text,
						  sizeof(in->text)))
			snprintf(in->text, sizeof(in->text), "(unavailable)");
	}
	out->file = main_file(out);
	free(r);
	return 0;
oom:
	free(r);
	ann_function_free(out);
	pr_err("out of memory annotating a function");
	return -1;
}

void ann_function_free(struct ann_function *f)
{
	free(f->insns);
	memset(f, 0, sizeof(*f));
}

/* ---- source files ---- */

static void load_file(struct src_file *sf)
{
	FILE *f = fopen(sf->path, "r");
	size_t size = 0, cap = 0, nl = 0;
	char *data = NULL;

	if (!f)
		return;
	for (;;) {
		if (size + 65536 + 1 > cap) {
			char *nd;

			cap = cap ? 2 * cap : 65536 * 2;
			if (cap > ANN_MAX_SOURCE || !(nd = realloc(data, cap)))
				goto fail;
			data = nd;
		}
		size_t got = fread(data + size, 1, 65536, f);

		size += got;
		if (got < 65536)
			break;
	}
	if (ferror(f))
		goto fail;
	data[size] = '\0';
	for (size_t i = 0; i < size; i++)
		nl += data[i] == '\n';
	sf->lines = malloc((nl + 2) * sizeof(*sf->lines));
	if (!sf->lines)
		goto fail;
	sf->n = 0;
	for (char *p = data; p < data + size;) {
		char *e = memchr(p, '\n', (size_t)(data + size - p));

		sf->lines[sf->n++] = p;
		if (!e)
			break;
		*e = '\0';
		p = e + 1;
	}
	sf->data = data;
	fclose(f);
	return;
fail:
	free(data);
	fclose(f);
}

static struct src_file *source(struct ann_data *d, const char *path)
{
	struct src_file *nf;

	if (!path)
		return NULL;
	for (size_t i = 0; i < d->nr_files; i++)
		if (d->files[i].path == path || !strcmp(d->files[i].path, path))
			return &d->files[i];
	nf = realloc(d->files, (d->nr_files + 1) * sizeof(*nf));
	if (!nf)
		return NULL;
	d->files = nf;
	nf = &d->files[d->nr_files++];
	memset(nf, 0, sizeof(*nf));
	nf->path = path;
	load_file(nf);
	return nf;
}

const char *ann_source_line(struct ann_data *d, const char *file, int line)
{
	struct src_file *sf = source(d, file);

	if (!sf || line < 1 || line > sf->n)
		return NULL;
	return sf->lines[line - 1];
}

int ann_source_lines(struct ann_data *d, const char *file)
{
	struct src_file *sf = source(d, file);

	return sf ? sf->n : 0;
}
