// SPDX-License-Identifier: GPL-2.0
/*
 * Functions' code, counts and jumps for annotations (annotate.h): a
 * function's instructions are read when its first step is seen, the
 * counts and taken jumps of arcs (util/arcs.h) are put on them after the
 * pass, of every process or of one.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "post/annotate.h"
#include "util/log.h"

/*
 * An instruction as the pass keeps it (what its address space tells): its
 * text is made from its bytes when its function is asked for.
 */
struct code_insn {
	uint64_t addr;		  /* ELF address */
	uint64_t target, target_off;
	const char *file, *target_sym;
	uint32_t bytes_at;	  /* its bytes: the list's bytes[bytes_at ..] */
	int line;
	uint8_t nr_bytes;	  /* 0: not available */
	uint8_t len, cls, flags;
	bool listed;
};

/* What is known of a function while the pass runs. */
struct annot_code_list {
	bool seen;		  /* its first step was seen: its code is read */
	struct code_insn *insns;  /* its code, then the addresses that ran outside it */
	size_t nr, size;
	size_t nr_listed;	  /* insns[0..nr_listed) are its code, by address */
	uint8_t *bytes;		  /* its code's bytes, then those of the others */
	size_t nr_bytes, bytes_size;
	const char *raw_name;
	uint64_t start, size_bytes;
	enum annot_code code;
};

/* An annotation built, of every process or of one: a function's are listed. */
struct annot_built {
	struct annot_fn f;
	struct annot_built *next;
};

struct annotate {
	struct flow_report *r;
	enum annot_which which;
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
	struct annot_built **built; /* by function id */
	uint32_t nr_built;
};

static bool gathered(const struct annotate *a, uint32_t fn)
{
	return a->which == ANNOT_EVERY_FUNCTION || fr_selected(a->r, fn);
}

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

static struct code_insn *code_add(struct annotate *a, struct annot_code_list *l)
{
	if (!grow((void **)&l->insns, &l->size, l->nr, sizeof(*l->insns))) {
		a->oom = true;
		return NULL;
	}
	return &l->insns[l->nr++];
}

/*
 * The instruction whose bytes are l->bytes[at .. at + avail) (avail 0: not
 * available), at process address pc (ELF address pc - bias) of pid, on
 * file:line.
 */
static void describe(struct annotate *a, struct annot_code_list *l, uint32_t pid, uint64_t pc,
		     uint64_t bias, size_t at, size_t avail, const char *file, int line,
		     struct code_insn *out)
{
	struct arch_insn insn;

	memset(out, 0, sizeof(*out));
	out->addr = pc - bias;
	out->file = file;
	out->line = line;
	out->bytes_at = (uint32_t)at;
	out->nr_bytes = (uint8_t)(avail < ARCH_INSN_MAX_LEN ? avail : ARCH_INSN_MAX_LEN);
	if (!avail)
		return;
	/* decoded at the ELF address: targets are objdump's */
	arch_decode(a->dec, l->bytes + at, out->nr_bytes, out->addr, &insn);
	out->len = insn.len;
	out->cls = insn.cls;
	out->flags = insn.flags;
	if (insn.flags & ARCH_INSN_HAS_TARGET) {
		struct sym_loc loc;

		out->target = insn.target;
		sym_resolve(session_symbols(a->r->s), pid, insn.target + bias, 0, &loc);
		out->target_sym = loc.symbol;
		out->target_off = loc.sym_offset;
	}
}

/* An address that ran outside the function's code, as the session read it when it ran. */
static void describe_ran(struct annotate *a, struct annot_code_list *l, uint32_t pid, uint64_t pc,
			 uint8_t ring)
{
	const struct cf_site_info *in =
		cf_sites_info(session_sites(a->r->s), a->r->cf, pid, pc, ring);
	size_t at = l->nr_bytes;
	struct code_insn *insn;

	if (!grow((void **)&l->bytes, &l->bytes_size, at + in->nr_bytes, 1) ||
	    !(insn = code_add(a, l))) {
		a->oom = true;
		return;
	}
	memcpy(l->bytes + at, in->bytes, in->nr_bytes);
	l->nr_bytes += in->nr_bytes;
	describe(a, l, pid, pc, pc - in->module_offset, at, in->nr_bytes, in->file, in->line, insn);
}

/* Keep what the pass keeps no bigger than it is. */
static void *fit(void *p, size_t n, size_t elem, size_t *size)
{
	void *q = realloc(p, (n ? n : 1) * elem);

	if (!q)
		return p;
	*size = n ? n : 1;
	return q;
}

/*
 * fn's whole code, read at its first step (pc in pid) while its address
 * space is current: its bytes at once, each instruction's line (not through
 * the engine's cache of sites, which keeps the addresses that ran).
 */
static void read_code(struct annotate *a, struct annot_code_list *l, uint32_t pid, uint64_t pc,
		      uint8_t ring)
{
	struct sym_session *sym = session_symbols(a->r->s);
	const struct cf_site_info *in =
		cf_sites_info(session_sites(a->r->s), a->r->cf, pid, pc, ring);
	uint64_t bias = pc - in->module_offset, start = pc - in->sym_offset, size;

	l->seen = true;
	l->raw_name = in->symbol_raw;
	if (!in->symbol || !in->sym_size) {
		l->code = ANNOT_CODE_NO_SYMBOL;
		return;
	}
	l->start = start - bias;
	l->size_bytes = in->sym_size;
	l->code = ANNOT_CODE_READ;
	size = in->sym_size;
	if (size > ANNOT_MAX_CODE) {
		size = ANNOT_MAX_CODE;
		l->code = ANNOT_CODE_TRUNCATED;
	}
	if (!grow((void **)&l->bytes, &l->bytes_size, size, 1)) {
		a->oom = true;
		return;
	}
	if (sym_read_code(sym, pid, start, l->bytes, size) < size) {
		/* no bytes to decode: only what runs can be shown */
		l->code = ANNOT_CODE_UNREADABLE;
		free(l->bytes);
		l->bytes = NULL;
		l->bytes_size = 0;
		return;
	}
	l->nr_bytes = size;
	for (size_t at = 0; at < size;) {
		struct code_insn *insn = code_add(a, l);
		struct sym_loc loc;

		if (!insn)
			break;
		sym_resolve(sym, pid, start + at, SYM_LINES, &loc);
		describe(a, l, pid, start + at, bias, at, size - at, loc.file, loc.line, insn);
		insn->listed = true;
		if (!insn->len)
			insn->len = 1;	/* (bad): on to the next byte */
		at += insn->len;
	}
	l->nr_listed = l->nr;
	l->insns = fit(l->insns, l->nr, sizeof(*l->insns), &l->size);
	l->bytes = fit(l->bytes, l->nr_bytes, 1, &l->bytes_size);
}

static int code_addr_cmp(const void *key, const void *elem)
{
	uint64_t addr = *(const uint64_t *)key, at = ((const struct code_insn *)elem)->addr;

	return addr < at ? -1 : addr > at;
}

/* Is addr one of the function's own instructions? */
static bool listed_addr(const struct annot_code_list *l, uint64_t addr)
{
	return l->nr_listed &&
	       bsearch(&addr, l->insns, l->nr_listed, sizeof(*l->insns), code_addr_cmp) != NULL;
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
	if (!gathered(a, p->fn) || !(l = code_list(a, p->fn)))
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
		describe_ran(a, l, p->pid, p->pc, ring);
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
	if (!gathered(a, j->fn))
		return;
	a->jump_addr[i].from = cf_sites_info(sites, a->r->cf, j->pid, j->from, ring)->module_offset;
	a->jump_addr[i].to = cf_sites_info(sites, a->r->cf, j->pid, j->to, ring)->module_offset;
}

struct annotate *annotate_new(struct flow_report *r, enum annot_which which)
{
	struct annotate *a = calloc(1, sizeof(*a));
	struct arcs_first_sight fs = { .pc = sight_pc, .jump = sight_jump, .ctx = a };

	if (!a || !(a->dec = arch_decoder_new())) {
		pr_err("out of memory for the annotation");
		free(a);
		return NULL;
	}
	a->r = r;
	a->which = which;
	arcs_set_first_sight(r->arcs, &fs);
	return a;
}

static void built_free(struct annot_built *b)
{
	while (b) {
		struct annot_built *next = b->next;

		free(b->f.insns);
		free(b->f.jumps);
		free(b);
		b = next;
	}
}

void annotate_free(struct annotate *a)
{
	if (!a)
		return;
	for (uint32_t f = 0; f < a->nr_fns; f++) {
		free(a->fns[f].insns);
		free(a->fns[f].bytes);
	}
	for (uint32_t f = 0; f < a->nr_built; f++)
		built_free(a->built[f]);
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

static int insn_addr_cmp(const void *key, const void *elem)
{
	uint64_t addr = *(const uint64_t *)key, at = ((const struct annot_insn *)elem)->addr;

	return addr < at ? -1 : addr > at;
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

/* The steps of f's pcs (of f->pid, or of every process together), on its instructions. */
static void put_counts(struct annotate *a, struct annot_fn *f)
{
	for (size_t i = a->pc_head[f->fn]; i != SIZE_MAX; i = a->pc_next[i]) {
		const struct arc_pc *p = arcs_pc(a->r->arcs, i);
		struct annot_insn *insn;

		if (i >= a->pc_size || a->pc_addr[i] == UINT64_MAX || (f->pid && p->pid != f->pid))
			continue;
		insn = (struct annot_insn *)annot_insn_at(f, a->pc_addr[i]);
		if (insn)
			insn->count += p->count;
	}
}

/* f's taken jumps (of f->pid, or of every process), the same jump in several processes as one. */
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

		if (i < a->jump_size && (!f->pid || j->pid == f->pid))
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

/* An instruction the pass kept, with its text. */
static void expand(struct annotate *a, const struct annot_code_list *l, const struct code_insn *c,
		   struct annot_insn *out)
{
	*out = (struct annot_insn){
		.addr = c->addr, .file = c->file, .line = c->line, .len = c->len, .cls = c->cls,
		.flags = c->flags, .listed = c->listed, .target = c->target,
		.target_sym = c->target_sym, .target_off = c->target_off,
	};
	if (!c->nr_bytes)
		snprintf(out->text, sizeof(out->text), "(unavailable)");
	else if (c->cls == ARCH_INSN_INVALID)
		snprintf(out->text, sizeof(out->text), "(bad)");
	else
		arch_disasm(a->dec, l->bytes + c->bytes_at, c->nr_bytes, c->addr, out->text,
			    sizeof(out->text));
}

static struct annot_built *build(struct annotate *a, uint32_t fn, uint32_t pid)
{
	const struct annot_code_list *l = fn < a->nr_fns ? &a->fns[fn] : NULL;
	const struct cf_func *cf = cf_func(a->r->cf, fn);
	const struct arc_fn_stats *st = arcs_fn(a->r->arcs, fn);
	struct annot_built *b = calloc(1, sizeof(*b));
	struct annot_fn *f;

	if (!b)
		return NULL;
	f = &b->f;
	*f = (struct annot_fn){
		.fn = fn, .pid = pid, .name = cf->name, .module = cf->module,
		.module_path = cf->module_path, .ring = cf->ring, .base = pid ? 0 : st->base,
		.calls = pid ? 0 : st->calls, .code = l && l->seen ? l->code : ANNOT_CODE_NO_SYMBOL,
	};
	if (l && l->raw_name && strcmp(l->raw_name, cf->name))
		f->raw_name = l->raw_name;
	if (l) {
		f->start = l->start;
		f->size = l->size_bytes;
		f->nr_insns = l->nr;
		f->insns = malloc((l->nr + 1) * sizeof(*f->insns));
		if (!f->insns) {
			built_free(b);
			return NULL;
		}
		for (size_t i = 0; i < l->nr; i++)
			expand(a, l, &l->insns[i], &f->insns[i]);
		qsort(f->insns, f->nr_insns, sizeof(*f->insns), insn_cmp);
		f->nr_insns = 0;
		for (size_t i = 0; i < l->nr; i++)
			if (!f->nr_insns || f->insns[f->nr_insns - 1].addr != f->insns[i].addr)
				f->insns[f->nr_insns++] = f->insns[i];
	}
	put_counts(a, f);
	if (put_jumps(a, f) < 0) {
		built_free(b);
		return NULL;
	}
	if (pid) {
		/* addresses outside its code that only other processes ran are not this one's */
		size_t n = 0;

		for (size_t i = 0; i < f->nr_insns; i++)
			if (f->insns[i].listed || f->insns[i].count)
				f->insns[n++] = f->insns[i];
		f->nr_insns = n;
	}
	for (size_t i = 0; pid && i < f->nr_insns; i++)
		f->base += f->insns[i].count;
	f->file = main_file(f);
	return b;
}

const struct annot_fn *annotate_fn(struct annotate *a, uint32_t fn, uint32_t pid)
{
	struct annot_built *b;

	if (!gathered(a, fn))
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
	for (b = a->built[fn]; b; b = b->next)
		if (b->f.pid == pid)
			return &b->f;
	if (!(b = build(a, fn, pid))) {
		pr_err("out of memory annotating %s", cf_func(a->r->cf, fn)->name);
		return NULL;
	}
	b->next = a->built[fn];
	a->built[fn] = b;
	return &b->f;
}
