// SPDX-License-Identifier: GPL-2.0
/*
 * post export --format callgrind: the call flow as valgrind's callgrind
 * writes it with --dump-instr=yes --collect-jumps=yes, for
 * callgrind_annotate and KCachegrind (docs/reports.md says what each line
 * holds and how it relates to post's own reports).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "post/export.h"
#include "util/log.h"

/* Where an address was when it ran: its ELF virtual address, file and line. */
struct cg_loc {
	uint64_t vaddr;
	const char *file;	  /* NULL: not located; "??? (OBJECT)" when no line is known */
	int line;
	bool folded;		  /* a folded stub's code, counted for the caller (post --plt):
				   * placed in the caller's own file, as callgrind places it */
};

/* Locations by the arcs' indexes (grown as they come). */
struct cg_locs {
	struct cg_loc *v;
	size_t size;
};

/* Self steps at one address of a selected function. */
struct cg_pc {
	uint32_t fn, pid;
	uint64_t pc, count;
	struct cg_loc loc;
};

/* Taken jumps from one address to another inside a function, all processes together. */
struct cg_jump {
	uint32_t fn;
	uint8_t cls;
	uint64_t count;
	struct cg_loc from, to;
};

/* "??? (OBJECT)": the file of an object's code whose source is unknown. */
struct cg_nofile {
	const char *object;
	char *file;
};

struct export_cg {
	struct flow_report *r;
	FILE *out;
	bool oom;
	/* taken while the run goes on (arcs_first_sight) */
	struct cg_locs pc_loc, jump_from, jump_to, entry_site, entry_target;
	/* put together for writing */
	struct cg_pc *pcs;	  /* by function, then address */
	size_t nr_pcs;
	size_t *fn_first;	  /* per function: its first pcs[] index (nr_pcs: none) */
	const char **fn_file;	  /* per function: its file (fl=, cfi=) */
	struct cg_jump *jumps;	  /* by function, then address */
	size_t nr_jumps;
	size_t *edges;		  /* arcs_edge() indexes, by caller */
	size_t nr_edges;
	const char *cur_file;	  /* the file cost lines are in now (fl=, fi=) */
	struct cg_nofile *nofile; /* per object: the file of its code without lines */
	size_t nr_nofile;
};

/*
 * The file of code without a source line, "??? (OBJECT)", names its object,
 * so that each object's functions have a file of their own:
 * callgrind_annotate keys functions by file and name, and would merge
 * ld.so's _start with the program's under one "???".  Not the object's
 * path itself, which callgrind_annotate would read as source.
 */
static const char *cg_nofile(struct export_cg *c, const char *object)
{
	struct cg_nofile *v;
	char *file;

	for (size_t i = 0; i < c->nr_nofile; i++)
		if (c->nofile[i].object == object || !strcmp(c->nofile[i].object, object))
			return c->nofile[i].file;
	v = realloc(c->nofile, (c->nr_nofile + 1) * sizeof(*v));
	if (!v || asprintf(&file, "??? (%s)", object) < 0) {
		if (v)
			c->nofile = v;
		c->oom = true;
		return "???";
	}
	c->nofile = v;
	c->nofile[c->nr_nofile++] = (struct cg_nofile){ object, file };
	return file;
}

static const char *file_or_object(struct export_cg *c, const char *file, const struct cf_func *fn)
{
	return file && *file ? file : cg_nofile(c, fn->module_path);
}

/* ---- locations, while the address spaces are the ones the steps ran in ---- */

/* Where pc of function fn was; asked in fn's ring (the cache's entries are per ring). */
static void locate(struct export_cg *c, struct cg_locs *l, size_t i, uint32_t pid, uint64_t pc,
		   uint32_t fn)
{
	const struct cf_func *f = cf_func(c->r->cf, fn);
	const struct cf_site_info *in = cf_sites_info(session_sites(c->r->s), c->r->cf, pid, pc,
						      f->ring);

	if (i >= l->size) {
		size_t n = l->size ? 2 * l->size : 1024;
		struct cg_loc *v;

		while (n <= i)
			n *= 2;
		v = realloc(l->v, n * sizeof(*v));
		if (!v) {
			c->oom = true;
			return;
		}
		memset(v + l->size, 0, (n - l->size) * sizeof(*v));
		l->v = v;
		l->size = n;
	}
	l->v[i] = (struct cg_loc){ in->module_offset, file_or_object(c, in->file, f), in->line,
				   in->site.fn != fn };
}

static void sight_pc(void *ctx, const struct arcs *a, size_t i)
{
	struct export_cg *c = ctx;
	const struct arc_pc *p = arcs_pc(a, i);

	if (fr_selected(c->r, p->fn))
		locate(c, &c->pc_loc, i, p->pid, p->pc, p->fn);
}

static void sight_jump(void *ctx, const struct arcs *a, size_t i)
{
	struct export_cg *c = ctx;
	const struct arc_jump *j = arcs_jump(a, i);

	if (!fr_selected(c->r, j->fn))
		return;
	locate(c, &c->jump_from, i, j->pid, j->from, j->fn);
	locate(c, &c->jump_to, i, j->pid, j->to, j->fn);
}

static void sight_entry(void *ctx, const struct arcs *a, size_t i)
{
	struct export_cg *c = ctx;
	const struct arc_edge *e = arcs_edge(a, i);

	if (e->entry_site && e->caller != CF_NO_FN)
		locate(c, &c->entry_site, i, e->entry_pid, e->entry_site, e->caller);
	locate(c, &c->entry_target, i, e->entry_pid, cf_func(c->r->cf, e->callee)->addr, e->callee);
}

struct export_cg *export_callgrind_new(struct flow_report *r)
{
	struct export_cg *c = calloc(1, sizeof(*c));
	struct arcs_first_sight fs = {
		.pc = sight_pc, .jump = sight_jump, .entry = sight_entry, .ctx = c,
	};

	if (!c) {
		pr_err("out of memory for the callgrind export");
		return NULL;
	}
	c->r = r;
	arcs_set_first_sight(r->arcs, &fs);
	return c;
}

static struct cg_loc loc_at(const struct cg_locs *l, size_t i)
{
	static const struct cg_loc none = { 0, "???", 0, false };

	return i < l->size && l->v[i].file ? l->v[i] : none;
}

/* ---- putting the pieces in order ---- */

static int cg_pc_cmp(const void *pa, const void *pb)
{
	const struct cg_pc *a = pa, *b = pb;

	if (a->fn != b->fn)
		return a->fn < b->fn ? -1 : 1;
	if (a->loc.vaddr != b->loc.vaddr)
		return a->loc.vaddr < b->loc.vaddr ? -1 : 1;
	return a->pid < b->pid ? -1 : a->pid > b->pid;
}

/* A function's own file: the one most of its steps ran in (pcs[first..end) are its). */
static const char *cg_main_file(const struct cg_pc *pcs, size_t first, size_t end)
{
	enum { MAX_FILES = 16 };
	const char *files[MAX_FILES];
	uint64_t counts[MAX_FILES];
	size_t n = 0, best = 0;

	for (size_t i = first; i < end; i++) {
		size_t k = 0;

		if (pcs[i].loc.folded)
			continue;
		while (k < n && strcmp(files[k], pcs[i].loc.file))
			k++;
		if (k == n) {
			if (n == MAX_FILES)
				continue;	/* code of many inlined files: the first ones decide */
			files[n] = pcs[i].loc.file;
			counts[n++] = 0;
		}
		counts[k] += pcs[i].count;
	}
	for (size_t k = 1; k < n; k++)
		if (counts[k] > counts[best])
			best = k;
	return n ? files[best] : NULL;
}

/* A folded stub's code goes in the caller's own file (main_file), with no line. */
static void cg_place_folded(struct cg_loc *l, const char *main_file)
{
	if (l->folded && main_file) {
		l->file = main_file;
		l->line = 0;
	}
}

static int cg_collect_pcs(struct export_cg *c)
{
	struct flow_report *r = c->r;
	size_t npc = arcs_nr_pcs(r->arcs);
	uint32_t nfn = cf_nr_funcs(r->cf);

	c->pcs = calloc(npc + 1, sizeof(*c->pcs));
	c->fn_first = malloc((nfn + 1) * sizeof(*c->fn_first));
	c->fn_file = calloc(nfn + 1, sizeof(*c->fn_file));
	if (!c->pcs || !c->fn_first || !c->fn_file)
		return -1;
	for (size_t i = 0; i < npc; i++) {
		const struct arc_pc *p = arcs_pc(r->arcs, i);

		if (fr_selected(r, p->fn))
			c->pcs[c->nr_pcs++] = (struct cg_pc){
				.fn = p->fn, .pid = p->pid, .pc = p->pc, .count = p->count,
				.loc = loc_at(&c->pc_loc, i),
			};
	}
	qsort(c->pcs, c->nr_pcs, sizeof(*c->pcs), cg_pc_cmp);
	for (uint32_t f = 0; f <= nfn; f++)
		c->fn_first[f] = c->nr_pcs;
	for (size_t i = 0, end; i < c->nr_pcs; i = end) {
		for (end = i + 1; end < c->nr_pcs && c->pcs[end].fn == c->pcs[i].fn; end++)
			;
		c->fn_first[c->pcs[i].fn] = i;
		c->fn_file[c->pcs[i].fn] = cg_main_file(c->pcs, i, end);
		for (size_t k = i; k < end; k++)
			cg_place_folded(&c->pcs[k].loc, c->fn_file[c->pcs[k].fn]);
	}
	return 0;
}

static int cg_jump_cmp(const void *pa, const void *pb)
{
	const struct cg_jump *a = pa, *b = pb;

	if (a->fn != b->fn)
		return a->fn < b->fn ? -1 : 1;
	if (a->from.vaddr != b->from.vaddr)
		return a->from.vaddr < b->from.vaddr ? -1 : 1;
	return a->to.vaddr < b->to.vaddr ? -1 : a->to.vaddr > b->to.vaddr;
}

/* The selected functions' taken jumps, by address; the same jump in several processes is one. */
static int cg_collect_jumps(struct export_cg *c)
{
	const struct arcs *a = c->r->arcs;
	size_t n = 0;

	c->jumps = calloc(arcs_nr_jumps(a) + 1, sizeof(*c->jumps));
	if (!c->jumps)
		return -1;
	for (size_t i = 0; i < arcs_nr_jumps(a); i++) {
		const struct arc_jump *j = arcs_jump(a, i);

		if (fr_selected(c->r, j->fn))
			c->jumps[n++] = (struct cg_jump){
				.fn = j->fn, .cls = j->cls, .count = j->count,
				.from = loc_at(&c->jump_from, i), .to = loc_at(&c->jump_to, i),
			};
	}
	for (size_t i = 0; i < n; i++) {
		struct cg_jump *j = &c->jumps[i];

		cg_place_folded(&j->from, c->fn_file[j->fn]);
		cg_place_folded(&j->to, c->fn_file[j->fn]);
	}
	qsort(c->jumps, n, sizeof(*c->jumps), cg_jump_cmp);
	for (size_t i = 0; i < n; i++) {
		if (c->nr_jumps && !cg_jump_cmp(&c->jumps[c->nr_jumps - 1], &c->jumps[i]))
			c->jumps[c->nr_jumps - 1].count += c->jumps[i].count;
		else
			c->jumps[c->nr_jumps++] = c->jumps[i];
	}
	return 0;
}

static int cg_edge_cmp(const void *pa, const void *pb, void *arg)
{
	const struct arcs *a = arg;
	const struct arc_edge *x = arcs_edge(a, *(const size_t *)pa);
	const struct arc_edge *y = arcs_edge(a, *(const size_t *)pb);

	if (x->caller != y->caller)
		return x->caller < y->caller ? -1 : 1;
	return x->callee < y->callee ? -1 : x->callee > y->callee;
}

/* Arcs that frames entered (those with costs) out of or into selected functions, by caller. */
static int cg_collect_edges(struct export_cg *c)
{
	const struct arcs *a = c->r->arcs;

	c->edges = malloc((arcs_nr_edges(a) + 1) * sizeof(*c->edges));
	if (!c->edges)
		return -1;
	for (size_t i = 0; i < arcs_nr_edges(a); i++) {
		const struct arc_edge *e = arcs_edge(a, i);

		if (e->entries && (fr_selected(c->r, e->callee) ||
				   (e->caller != CF_NO_FN && fr_selected(c->r, e->caller))))
			c->edges[c->nr_edges++] = i;
	}
	qsort_r(c->edges, c->nr_edges, sizeof(*c->edges), cg_edge_cmp, (void *)a);
	return 0;
}

/* The first of caller's arcs in c->edges (nr_edges if none); the roots' (CF_NO_FN) sort last. */
static size_t cg_first_edge(const struct export_cg *c, uint32_t caller)
{
	size_t lo = 0, hi = c->nr_edges;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (arcs_edge(c->r->arcs, c->edges[mid])->caller < caller)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* ---- writing ---- */

/* Cost lines of another file of the function follow an fi= line. */
static void cg_file(struct export_cg *c, const char *file)
{
	if (strcmp(file, c->cur_file)) {
		c->cur_file = file;
		fprintf(c->out, "fi=%s\n", file);
	}
}

/* A function's file, for fl= and cfi=: its steps', else where it was seen (other). */
static const char *cg_fn_file(struct export_cg *c, uint32_t fn, const char *other)
{
	if (!c->fn_file[fn])
		c->fn_file[fn] = strcmp(other, "???") ? other :
							   cg_nofile(c, cf_func(c->r->cf, fn)->module_path);
	return c->fn_file[fn];
}

/* How often the branch at vaddr of fn ran (its cost lines' count, all processes). */
static uint64_t cg_executed(const struct export_cg *c, uint32_t fn, uint64_t vaddr)
{
	size_t lo = c->fn_first[fn], hi = lo;
	uint64_t n = 0;

	while (hi < c->nr_pcs && c->pcs[hi].fn == fn)
		hi++;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (c->pcs[mid].loc.vaddr < vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < c->nr_pcs && c->pcs[lo].fn == fn && c->pcs[lo].loc.vaddr == vaddr; lo++)
		n += c->pcs[lo].count;
	return n;
}

/* The taken jumps inside function fn, after its cost lines (callgrind's --collect-jumps). */
static void cg_jumps(struct export_cg *c, uint32_t fn)
{
	size_t lo = 0, hi = c->nr_jumps;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (c->jumps[mid].fn < fn)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = lo; i < c->nr_jumps && c->jumps[i].fn == fn; i++) {
		const struct cg_jump *j = &c->jumps[i];

		cg_file(c, j->from.file);
		if (strcmp(j->to.file, j->from.file))
			fprintf(c->out, "jfi=%s\n", j->to.file);
		if (j->cls == ARCH_INSN_COND)
			fprintf(c->out, "jcnd=%" PRIu64 "/%" PRIu64, j->count,
				cg_executed(c, fn, j->from.vaddr));
		else
			fprintf(c->out, "jump=%" PRIu64, j->count);
		fprintf(c->out, " %#" PRIx64 " %d\n%#" PRIx64 " %d\n", j->to.vaddr, j->to.line,
			j->from.vaddr, j->from.line);
	}
}

/*
 * One call arc: callee's frames entered above caller's, their inclusive
 * steps at the site.  A caller without cost lines (not selected) gets a
 * zero one at the site: callgrind_annotate cannot annotate a file of which
 * it has calls but no cost lines.
 */
static void cg_call(struct export_cg *c, size_t edge, bool zero_line)
{
	const struct arc_edge *e = arcs_edge(c->r->arcs, edge);
	const struct cf_func *callee = cf_func(c->r->cf, e->callee);
	struct cg_loc target = loc_at(&c->entry_target, edge);
	struct cg_loc site = loc_at(&c->entry_site, edge);

	if (e->caller != CF_NO_FN && e->entry_site)
		cg_file(c, site.file);
	else
		site.vaddr = site.line = 0;
	if (zero_line)
		fprintf(c->out, "%#" PRIx64 " %d 0\n", site.vaddr, site.line);
	fprintf(c->out, "cob=%s\ncfi=%s\ncfn=%s\ncalls=%" PRIu64 " %#" PRIx64 " %d\n",
		callee->module_path, cg_fn_file(c, e->callee, target.file), callee->name,
		e->entries, target.vaddr, target.line);
	fprintf(c->out, "%#" PRIx64 " %d %" PRIu64 "\n", site.vaddr, site.line, e->cum);
}

/*
 * A function's block: its cost lines, jumps and calls.  With --module or
 * --symbol, a function not selected that calls selected ones gets a block
 * of those calls only, so the selected functions keep their inclusive cost.
 */
static void cg_function(struct export_cg *c, uint32_t f)
{
	const struct cf_func *fn = cf_func(c->r->cf, f);
	size_t e = cg_first_edge(c, f);
	bool calls = e < c->nr_edges && arcs_edge(c->r->arcs, c->edges[e])->caller == f;
	bool selected = fr_selected(c->r, f);

	if (!calls && (!arcs_fn(c->r->arcs, f)->base || !selected))
		return;
	c->cur_file = cg_fn_file(c, f, calls ? loc_at(&c->entry_site, c->edges[e]).file :
				 cg_nofile(c, fn->module_path));
	fprintf(c->out, "\nob=%s\nfl=%s\nfn=%s\n", fn->module_path, c->cur_file, fn->name);
	for (size_t i = c->fn_first[f]; i < c->nr_pcs && c->pcs[i].fn == f; i++) {
		const struct cg_pc *p = &c->pcs[i];
		uint64_t n = p->count;

		/* the same address in several processes (forks) is one line */
		while (i + 1 < c->nr_pcs && c->pcs[i + 1].fn == f &&
		       c->pcs[i + 1].loc.vaddr == p->loc.vaddr &&
		       !strcmp(c->pcs[i + 1].loc.file, p->loc.file))
			n += c->pcs[++i].count;
		cg_file(c, p->loc.file);
		fprintf(c->out, "%#" PRIx64 " %d %" PRIu64 "\n", p->loc.vaddr, p->loc.line, n);
	}
	cg_jumps(c, f);
	for (; e < c->nr_edges && arcs_edge(c->r->arcs, c->edges[e])->caller == f; e++)
		cg_call(c, c->edges[e], !selected);
}

/*
 * callgrind_annotate and KCachegrind take a called function's inclusive
 * cost from its calls, so the frames a function ran as a thread's root
 * frame are lost when it is called elsewhere too: then a function
 * "(root)" calls every root function, with their root frames' steps.
 */
static bool cg_need_root(struct export_cg *c)
{
	uint32_t nfn = cf_nr_funcs(c->r->cf);
	uint8_t *seen = calloc(nfn + 1, 1);
	bool need = false;

	if (!seen)
		return true;
	for (size_t i = 0; i < c->nr_edges; i++) {
		const struct arc_edge *e = arcs_edge(c->r->arcs, c->edges[i]);

		if (fr_selected(c->r, e->callee))
			seen[e->callee] |= e->caller == CF_NO_FN ? 1 : 2;
	}
	for (uint32_t f = 0; f < nfn && !need; f++)
		need = seen[f] == 3;
	free(seen);
	return need;
}

static void cg_root(struct export_cg *c)
{
	c->cur_file = "???";
	fprintf(c->out, "\nob=\nfl=???\nfn=(root)\n");
	for (size_t e = cg_first_edge(c, CF_NO_FN); e < c->nr_edges; e++)
		cg_call(c, c->edges[e], false);
}

int export_callgrind_write(struct export_cg *c, FILE *out)
{
	struct flow_report *r = c->r;
	const struct trace_info *ti = trace_info(session_trace(r->s));

	c->out = out;
	if (c->oom || cg_collect_pcs(c) < 0 || cg_collect_jumps(c) < 0 ||
	    cg_collect_edges(c) < 0) {
		pr_err("out of memory writing the callgrind file");
		return EXIT_RUNTIME;
	}
	fprintf(out, "# callgrind format\nversion: 1\ncreator: pitrace post export\n");
	if (ti->argv && ti->argv[0]) {
		fprintf(out, "cmd:");
		for (char **a = ti->argv; *a; a++)
			fprintf(out, " %s", *a);
		fputc('\n', out);
	}
	fprintf(out, "positions: instr line\nevents: Ir\nsummary: %" PRIu64 "\n",
		arcs_total(r->arcs));
	for (uint32_t f = 0; f < cf_nr_funcs(r->cf); f++)
		cg_function(c, f);
	if (cg_need_root(c))
		cg_root(c);
	return 0;
}

void export_callgrind_free(struct export_cg *c)
{
	if (!c)
		return;
	free(c->pc_loc.v);
	free(c->jump_from.v);
	free(c->jump_to.v);
	free(c->entry_site.v);
	free(c->entry_target.v);
	free(c->pcs);
	free(c->fn_first);
	free(c->fn_file);
	for (size_t i = 0; i < c->nr_nofile; i++)
		free(c->nofile[i].file);
	free(c->nofile);
	free(c->jumps);
	free(c->edges);
	free(c);
}
