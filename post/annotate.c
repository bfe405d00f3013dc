// SPDX-License-Identifier: GPL-2.0
/*
 * Functions' code, counts and jumps for annotations (annotate.h): a
 * function's instructions are read when its first step is seen, the
 * counts and taken jumps of arcs (util/arcs.h) are put on them after the
 * pass.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "annotate.h"
#include "log.h"

/* What is known of a function while the pass runs. */
struct annot_code_list {
	bool seen;		  /* its first step was seen: its code is read */
	struct annot_insn *insns; /* its code, then the addresses that ran outside it */
	size_t nr, size;
	size_t nr_listed;	  /* insns[0..nr_listed) are its code, by address */
	const char *raw_name;
	uint64_t start, size_bytes;
	enum annot_code code;
};

struct annotate {
	struct flow_report *r;
	struct arch_decoder *dec;
	bool oom;
	struct annot_code_list *fns; /* by function id */
	uint32_t nr_fns;
	uint64_t *pc_addr;	  /* by arcs_pc() index: the ELF address (UINT64_MAX: not kept) */
	size_t pc_size;
	struct { uint64_t from, to; } *jump_addr; /* by arcs_jump() index */
	size_t jump_size;
	/* after the pass: each function's arcs_pc() and arcs_jump() indexes, as lists */
	bool indexed;
	size_t *pc_head, *pc_next, *jump_head, *jump_next; /* SIZE_MAX ends a list */
	struct annot_fn **built;  /* by function id */
	uint32_t nr_built;
};

static bool grow(void **v, size_t *size, size_t need, size_t elem)
{
	size_t n = *size ? *size : 64;
	void *p;

	if (need < *size)
		return true;
	while (n <= need)
		n *= 2;
	p = realloc(*v, n * elem);
	if (!p)
		return false;
	memset((char *)p + *size * elem, 0, (n - *size) * elem);
	*v = p;
	*size = n;
	return true;
}

static struct annot_code_list *code_list(struct annotate *a, uint32_t fn)
{
	if (fn >= a->nr_fns) {
		size_t size = a->nr_fns;

		if (!grow((void **)&a->fns, &size, fn, sizeof(*a->fns))) {
			a->oom = true;
			return NULL;
		}
		a->nr_fns = (uint32_t)size;
	}
	return &a->fns[fn];
}

static struct annot_insn *code_add(struct annotate *a, struct annot_code_list *l)
{
	if (!grow((void **)&l->insns, &l->size, l->nr, sizeof(*l->insns))) {
		a->oom = true;
		return NULL;
	}
	return &l->insns[l->nr++];
}

/* The instruction at process address pc (ELF address pc - bias), as the session reads it. */
static void describe(struct annotate *a, uint32_t pid, uint64_t pc, uint64_t bias, uint8_t ring,
		     struct annot_insn *out)
{
	struct session *s = a->r->s;
	const struct cf_site_info *in = cf_sites_info(session_sites(s), a->r->cf, pid, pc, ring);
	const struct arch_insn *insn = &in->site.insn;

	memset(out, 0, sizeof(*out));
	out->addr = pc - bias;
	out->file = in->file;
	out->line = in->line;
	out->len = insn->len;
	out->cls = insn->cls;
	out->flags = insn->flags;
	if (!in->nr_bytes)
		snprintf(out->text, sizeof(out->text), "(unavailable)");
	else
		arch_disasm(a->dec, in->bytes, in->nr_bytes, out->addr, out->text,
			    sizeof(out->text));
	if (insn->flags & ARCH_INSN_HAS_TARGET) {
		struct sym_loc loc;

		out->target = insn->target - bias;
		sym_resolve(session_symbols(s), pid, insn->target, 0, &loc);
		out->target_sym = loc.symbol;
		out->target_off = loc.sym_offset;
	}
}

/* fn's whole code, read at its first step (pc in pid) while its address space is current. */
static void read_code(struct annotate *a, struct annot_code_list *l, uint32_t pid, uint64_t pc,
		      uint8_t ring)
{
	const struct cf_site_info *in =
		cf_sites_info(session_sites(a->r->s), a->r->cf, pid, pc, ring);
	uint64_t bias = pc - in->module_offset, start = pc - in->sym_offset, end;

	l->seen = true;
	l->raw_name = in->symbol_raw;
	if (!in->symbol || !in->sym_size) {
		l->code = ANNOT_CODE_NO_SYMBOL;
		return;
	}
	l->start = start - bias;
	l->size_bytes = in->sym_size;
	l->code = ANNOT_CODE_READ;
	end = start + in->sym_size;
	if (in->sym_size > ANNOT_MAX_CODE) {
		end = start + ANNOT_MAX_CODE;
		l->code = ANNOT_CODE_TRUNCATED;
	}
	for (uint64_t at = start; at < end;) {
		struct annot_insn *insn = code_add(a, l);

		if (!insn)
			return;
		describe(a, pid, at, bias, ring, insn);
		insn->listed = true;
		if (!insn->len && !strcmp(insn->text, "(unavailable)")) {
			/* no bytes to decode: only what runs can be shown */
			l->nr = 0;
			l->code = ANNOT_CODE_UNREADABLE;
			return;
		}
		if (!insn->len) {
			snprintf(insn->text, sizeof(insn->text), "(bad)");
			insn->len = 1;
		}
		at += insn->len;
	}
	l->nr_listed = l->nr;
}

static int insn_addr_cmp(const void *key, const void *elem)
{
	uint64_t addr = *(const uint64_t *)key, at = ((const struct annot_insn *)elem)->addr;

	return addr < at ? -1 : addr > at;
}

/* Is addr one of the function's own instructions? */
static bool listed_addr(const struct annot_code_list *l, uint64_t addr)
{
	return bsearch(&addr, l->insns, l->nr_listed, sizeof(*l->insns), insn_addr_cmp) != NULL;
}

static void sight_pc(void *ctx, const struct arcs *arcs, size_t i)
{
	struct annotate *a = ctx;
	const struct arc_pc *p = arcs_pc(arcs, i);
	uint8_t ring = cf_func(a->r->cf, p->fn)->ring;
	struct annot_code_list *l;
	const struct cf_site_info *in;

	if (!grow((void **)&a->pc_addr, &a->pc_size, i, sizeof(*a->pc_addr))) {
		a->oom = true;
		return;
	}
	a->pc_addr[i] = UINT64_MAX;
	if (!fr_selected(a->r, p->fn) || !(l = code_list(a, p->fn)))
		return;
	if (!l->seen)
		read_code(a, l, p->pid, p->pc, ring);
	in = cf_sites_info(session_sites(a->r->s), a->r->cf, p->pid, p->pc, ring);
	a->pc_addr[i] = in->module_offset;
	if (!listed_addr(l, in->module_offset)) {
		/*
		 * ran outside the symbol's code (no symbol, or other bytes there):
		 * one row per address seen, the same address in other processes
		 * made one when the function is built
		 */
		struct annot_insn *insn = code_add(a, l);

		if (insn)
			describe(a, p->pid, p->pc, p->pc - in->module_offset, ring, insn);
	}
}

static void sight_jump(void *ctx, const struct arcs *arcs, size_t i)
{
	struct annotate *a = ctx;
	const struct arc_jump *j = arcs_jump(arcs, i);
	uint8_t ring = cf_func(a->r->cf, j->fn)->ring;
	struct cf_sites *sites = session_sites(a->r->s);

	if (!grow((void **)&a->jump_addr, &a->jump_size, i, sizeof(*a->jump_addr))) {
		a->oom = true;
		return;
	}
	if (!fr_selected(a->r, j->fn))
		return;
	a->jump_addr[i].from = cf_sites_info(sites, a->r->cf, j->pid, j->from, ring)->module_offset;
	a->jump_addr[i].to = cf_sites_info(sites, a->r->cf, j->pid, j->to, ring)->module_offset;
}

struct annotate *annotate_new(struct flow_report *r)
{
	struct annotate *a = calloc(1, sizeof(*a));
	struct arcs_first_sight fs = { .pc = sight_pc, .jump = sight_jump, .ctx = a };

	if (!a || !(a->dec = arch_decoder_new())) {
		pr_err("out of memory for the annotation");
		free(a);
		return NULL;
	}
	a->r = r;
	arcs_set_first_sight(r->arcs, &fs);
	return a;
}

static void annot_fn_free(struct annot_fn *f)
{
	if (!f)
		return;
	free(f->insns);
	free(f->jumps);
	free(f);
}

void annotate_free(struct annotate *a)
{
	if (!a)
		return;
	for (uint32_t f = 0; f < a->nr_fns; f++)
		free(a->fns[f].insns);
	for (uint32_t f = 0; f < a->nr_built; f++)
		annot_fn_free(a->built[f]);
	free(a->fns);
	free(a->built);
	free(a->pc_head);
	free(a->pc_next);
	free(a->jump_head);
	free(a->jump_next);
	free(a->pc_addr);
	free(a->jump_addr);
	arch_decoder_free(a->dec);
	free(a);
}

static int insn_cmp(const void *pa, const void *pb)
{
	const struct annot_insn *x = pa, *y = pb;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static int jump_cmp(const void *pa, const void *pb)
{
	const struct annot_jump *x = pa, *y = pb;

	if (x->from != y->from)
		return x->from < y->from ? -1 : 1;
	return x->to < y->to ? -1 : x->to > y->to;
}

const struct annot_insn *annot_insn_at(const struct annot_fn *f, uint64_t addr)
{
	return bsearch(&addr, f->insns, f->nr_insns, sizeof(*f->insns), insn_addr_cmp);
}

/* Each function's pcs and jumps as lists, once: building a function then costs its own. */
static int index_arcs(struct annotate *a)
{
	const struct arcs *arcs = a->r->arcs;
	uint32_t nfn = cf_nr_funcs(a->r->cf);
	size_t npc = arcs_nr_pcs(arcs), njump = arcs_nr_jumps(arcs);

	a->pc_head = malloc((nfn + 1) * sizeof(size_t));
	a->jump_head = malloc((nfn + 1) * sizeof(size_t));
	a->pc_next = malloc((npc + 1) * sizeof(size_t));
	a->jump_next = malloc((njump + 1) * sizeof(size_t));
	if (!a->pc_head || !a->jump_head || !a->pc_next || !a->jump_next)
		return -1;
	memset(a->pc_head, 0xff, (nfn + 1) * sizeof(size_t));
	memset(a->jump_head, 0xff, (nfn + 1) * sizeof(size_t));
	for (size_t i = npc; i-- > 0;) {
		uint32_t fn = arcs_pc(arcs, i)->fn;

		a->pc_next[i] = a->pc_head[fn];
		a->pc_head[fn] = i;
	}
	for (size_t i = njump; i-- > 0;) {
		uint32_t fn = arcs_jump(arcs, i)->fn;

		a->jump_next[i] = a->jump_head[fn];
		a->jump_head[fn] = i;
	}
	a->indexed = true;
	return 0;
}

/* The steps of f's pcs, on its instructions (all processes together). */
static void put_counts(struct annotate *a, struct annot_fn *f)
{
	for (size_t i = a->pc_head[f->fn]; i != SIZE_MAX; i = a->pc_next[i]) {
		struct annot_insn *insn;

		if (i >= a->pc_size || a->pc_addr[i] == UINT64_MAX)
			continue;
		insn = (struct annot_insn *)annot_insn_at(f, a->pc_addr[i]);
		if (insn)
			insn->count += arcs_pc(a->r->arcs, i)->count;
	}
}

/* f's taken jumps, the same jump in several processes as one. */
static int put_jumps(struct annotate *a, struct annot_fn *f)
{
	size_t n = 0;

	for (size_t i = a->jump_head[f->fn]; i != SIZE_MAX; i = a->jump_next[i])
		n++;
	f->jumps = calloc(n + 1, sizeof(*f->jumps));
	if (!f->jumps)
		return -1;
	n = 0;
	for (size_t i = a->jump_head[f->fn]; i != SIZE_MAX; i = a->jump_next[i]) {
		const struct arc_jump *j = arcs_jump(a->r->arcs, i);

		if (i < a->jump_size)
			f->jumps[n++] = (struct annot_jump){ a->jump_addr[i].from, a->jump_addr[i].to,
							     j->count, j->cls };
	}
	qsort(f->jumps, n, sizeof(*f->jumps), jump_cmp);
	for (size_t i = 0; i < n; i++) {
		struct annot_jump *last = f->nr_jumps ? &f->jumps[f->nr_jumps - 1] : NULL;

		if (last && last->from == f->jumps[i].from && last->to == f->jumps[i].to)
			last->count += f->jumps[i].count;
		else
			f->jumps[f->nr_jumps++] = f->jumps[i];
	}
	return 0;
}

/* The file most of f's steps ran in, else the one most of its instructions are in. */
static const char *main_file(const struct annot_fn *f)
{
	enum { MAX_FILES = 16 };
	const char *files[MAX_FILES];
	uint64_t steps[MAX_FILES], insns[MAX_FILES];
	size_t n = 0, best = 0;

	for (size_t i = 0; i < f->nr_insns; i++) {
		const struct annot_insn *in = &f->insns[i];
		size_t k = 0;

		if (!in->file)
			continue;
		while (k < n && strcmp(files[k], in->file))
			k++;
		if (k == n) {
			if (n == MAX_FILES)
				continue;
			files[n] = in->file;
			steps[n] = insns[n] = 0;
			n++;
		}
		steps[k] += in->count;
		insns[k]++;
	}
	for (size_t k = 1; k < n; k++)
		if (steps[k] > steps[best] || (steps[k] == steps[best] && insns[k] > insns[best]))
			best = k;
	return n ? files[best] : NULL;
}

static struct annot_fn *build(struct annotate *a, uint32_t fn)
{
	const struct annot_code_list *l = fn < a->nr_fns ? &a->fns[fn] : NULL;
	const struct cf_func *cf = cf_func(a->r->cf, fn);
	const struct arc_fn_stats *st = arcs_fn(a->r->arcs, fn);
	struct annot_fn *f = calloc(1, sizeof(*f));

	if (!f)
		return NULL;
	*f = (struct annot_fn){
		.fn = fn, .name = cf->name, .module = cf->module, .module_path = cf->module_path,
		.ring = cf->ring, .base = st->base, .calls = st->calls,
		.code = l && l->seen ? l->code : ANNOT_CODE_NO_SYMBOL,
	};
	if (l && l->raw_name && strcmp(l->raw_name, cf->name))
		f->raw_name = l->raw_name;
	if (l) {
		f->start = l->start;
		f->size = l->size_bytes;
		f->nr_insns = l->nr;
		f->insns = malloc((l->nr + 1) * sizeof(*f->insns));
		if (!f->insns) {
			annot_fn_free(f);
			return NULL;
		}
		memcpy(f->insns, l->insns, l->nr * sizeof(*f->insns));
		qsort(f->insns, f->nr_insns, sizeof(*f->insns), insn_cmp);
		f->nr_insns = 0;
		for (size_t i = 0; i < l->nr; i++)
			if (!f->nr_insns || f->insns[f->nr_insns - 1].addr != f->insns[i].addr)
				f->insns[f->nr_insns++] = f->insns[i];
	}
	put_counts(a, f);
	if (put_jumps(a, f) < 0) {
		annot_fn_free(f);
		return NULL;
	}
	f->file = main_file(f);
	return f;
}

const struct annot_fn *annotate_fn(struct annotate *a, uint32_t fn)
{
	if (!fr_selected(a->r, fn))
		return NULL;
	if (a->oom || (!a->indexed && index_arcs(a) < 0)) {
		pr_err("out of memory reading the functions' code");
		return NULL;
	}
	if (fn >= a->nr_built) {
		size_t size = a->nr_built;

		if (!grow((void **)&a->built, &size, fn, sizeof(*a->built))) {
			pr_err("out of memory annotating %s", cf_func(a->r->cf, fn)->name);
			return NULL;
		}
		a->nr_built = (uint32_t)size;
	}
	if (!a->built[fn] && !(a->built[fn] = build(a, fn)))
		pr_err("out of memory annotating %s", cf_func(a->r->cf, fn)->name);
	return a->built[fn];
}
