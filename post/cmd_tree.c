// SPDX-License-Identifier: GPL-2.0
/*
 * post tree: the call tree per thread (or merged): depth, calls, Base and
 * Cum per call path; --inverted: under each function, the tree of its
 * callers, with the Base it got through each caller path.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "post/flowreport.h"
#include "util/log.h"

static const struct popt_cmd cmd = {
	.name = "tree", .synopsis = "[OPTIONS]",
	.description =
	"The call tree of each thread: one line per call path with its depth, calls,\n"
	"Base (self) and Cum (inclusive) instructions, children by Cum.  With\n"
	"--module/--symbol, only the subtrees rooted at such functions.\n"
	"--inverted: under each function (by Base) the tree of its callers, each\n"
	"line with the calls and the function's Base through that caller path.",
};

static const char *const tree_sort_keys[] = { "calls", "base", "cum", "name", NULL };

#define INVERTED_DEPTH 64	  /* callers shown above a function, at the most */

struct tree_opts {
	bool merged, inverted;
	double prune;		  /* hide subtrees under this % of the total */
	size_t top;		  /* at most this many children of a node */
	struct report_sort sort;
};

struct tree_print {
	const struct flow_report *r;
	const struct arcs *a;
	const struct tree_opts *o;
	uint64_t total;
	uint64_t pruned;	  /* subtrees hidden by --prune */
	uint64_t cut;		  /* children left out by --top */
	size_t *seen;		  /* per depth: children shown so far of the current parent */
	size_t seen_size;
	int w;			  /* number column width */
	struct tabout *tab;	  /* --format json|csv: the lines as rows there (NULL: text) */
	uint32_t pid, tid;	  /* the thread whose tree it is (0: all threads) */
};

/* Children by the sort's keys (cum by default), then name. */
static int key_cmp(const struct report_sort *s, const struct flow_report *r, uint64_t ca,
		   uint64_t cb, uint64_t ba, uint64_t bb, uint64_t ua, uint64_t ub, uint32_t fa,
		   uint32_t fb)
{
	for (int k = 0; k < s->n; k++) {
		int d = s->key[k] == RK_CALLS ? fr_desc(ca, cb) : s->key[k] == RK_BASE ? fr_desc(ba, bb) :
			s->key[k] == RK_CUM ? fr_desc(ua, ub) :
			strcmp(cf_func(r->cf, fa)->name, cf_func(r->cf, fb)->name);

		if (d)
			return d;
	}
	return strcmp(cf_func(r->cf, fa)->name, cf_func(r->cf, fb)->name);
}

static int child_cmp(const void *pa, const void *pb, void *arg)
{
	const struct tree_print *p = arg;
	const struct arc_node *a = arcs_node(p->a, *(const uint32_t *)pa);
	const struct arc_node *b = arcs_node(p->a, *(const uint32_t *)pb);

	return key_cmp(&p->o->sort, p->r, a->calls, b->calls, a->base, b->base, a->cum, b->cum,
		       a->fn, b->fn);
}

/* --top: is this the parent's next child to show (depth: the child's)? */
static bool within_top(struct tree_print *p, unsigned depth)
{
	if (depth + 2 > p->seen_size) {
		size_t n = p->seen_size ? 2 * p->seen_size : 64;
		size_t *s;

		while (n < depth + 2)
			n *= 2;
		s = realloc(p->seen, n * sizeof(*s));
		if (!s)
			return true;	/* no memory to count: show it */
		memset(s + p->seen_size, 0, (n - p->seen_size) * sizeof(*s));
		p->seen = s;
		p->seen_size = n;
	}
	p->seen[depth + 1] = 0;	  /* its own children start afresh */
	if (p->o->top && ++p->seen[depth] > p->o->top) {
		p->cut++;
		return false;
	}
	return true;
}

static const char *const tab_cols[] = { "pid", "tid", "depth", "calls", "base", "cum",
					"percent", "function", "module" };

/* A line for programs (tabout.h): the thread (null: all), the numbers, the name whole. */
static void tab_line(const struct tree_print *p, unsigned depth, uint64_t calls, uint64_t base,
		     uint64_t cum, double pct, uint32_t fn, bool with_cum)
{
	struct tabout *t = p->tab;
	const struct cf_func *f = fn == CF_NO_FN ? NULL : cf_func(p->r->cf, fn);

	tab_row_begin(t);
	if (p->tid) {
		tab_u64(t, p->pid);
		tab_u64(t, p->tid);
	} else {
		tab_null(t);
		tab_null(t);
	}
	tab_u64(t, depth);
	tab_u64(t, calls);
	tab_u64(t, base);
	if (with_cum)
		tab_u64(t, cum);
	else
		tab_null(t);
	tab_pct(t, pct);
	tab_str(t, f ? f->name : NULL);
	tab_str(t, f ? f->module : NULL);
	tab_row_end(t);
}

/* A node's line; parent: the function of the node above it (CF_NO_FN: none). */
static void print_line(const struct tree_print *p, unsigned depth, uint64_t calls, uint64_t base,
		       uint64_t cum, uint32_t fn, uint32_t parent, bool with_cum)
{
	char mt[REPORT_MODULE_TAG_SIZE];
	char a[32], b[32], c[32];
	double pct = report_percent(with_cum ? cum : base, p->total);
	bool module = report_module_shown(p->r->cf, fn, parent);

	if (p->tab) {
		tab_line(p, depth, calls, base, with_cum ? cum : 0, pct, fn, with_cum);
		return;
	}
	printf("%s%7u %*s %*s ", output_hot(pct), depth, p->w, output_num(calls, a, sizeof(a)),
	       p->w, output_num(base, b, sizeof(b)));
	if (with_cum)
		printf("%*s ", p->w, output_num(cum, c, sizeof(c)));
	printf("%6.2f%%  %*s%s%s%s%s\n", pct, report_indent(depth), "",
	       fn == CF_NO_FN ? "(root)" : fr_name(p->r, fn),
	       report_module_tag(module ? cf_func(p->r->cf, fn)->module : NULL, mt, sizeof(mt)),
	       report_native_mark(p->r->cf, fn), output_reset());
}

/* A node: its line, unless pruned (then not its subtree either); flag: a selected function is above. */
static int print_node(void *ctx, uint32_t node, unsigned depth, const uint32_t *path, int shown)
{
	struct tree_print *p = ctx;
	const struct arc_node *n = arcs_node(p->a, node);

	(void)path;
	if (p->o->prune > 0 && 100.0 * (double)n->cum < p->o->prune * (double)p->total) {
		p->pruned++;
		return ARC_WALK_SKIP;
	}
	if (!within_top(p, depth))
		return ARC_WALK_SKIP;
	shown = shown || fr_selected(p->r, n->fn);
	if (shown)
		print_line(p, depth, n->calls, n->base, n->cum, n->fn,
			   n->parent == ARC_NONE ? CF_NO_FN : arcs_node(p->a, n->parent)->fn, true);
	return shown;
}

/* ---- the inverted tree ---- */

struct inv_node {
	uint32_t fn;
	uint32_t first_child, next_sibling; /* UINT32_MAX: none */
	uint64_t calls, base;
};

struct inverted {
	struct inv_node *n;
	uint32_t nr, size;
	uint32_t *roots;	  /* per function: its root node, UINT32_MAX none */
};

static uint32_t inv_new(struct inverted *iv, uint32_t fn)
{
	if (iv->nr == iv->size) {
		uint32_t size = iv->size ? 2 * iv->size : 1024;
		struct inv_node *n = realloc(iv->n, size * sizeof(*n));

		if (!n)
			return UINT32_MAX;
		iv->n = n;
		iv->size = size;
	}
	iv->n[iv->nr] = (struct inv_node){ .fn = fn, .first_child = UINT32_MAX,
					   .next_sibling = UINT32_MAX };
	return iv->nr++;
}

static uint32_t inv_child(struct inverted *iv, uint32_t parent, uint32_t fn)
{
	uint32_t c;

	for (c = iv->n[parent].first_child; c != UINT32_MAX; c = iv->n[c].next_sibling)
		if (iv->n[c].fn == fn)
			return c;
	c = inv_new(iv, fn);
	if (c == UINT32_MAX)
		return c;
	iv->n[c].next_sibling = iv->n[parent].first_child;
	iv->n[parent].first_child = c;
	return c;
}

/*
 * Every call-tree node with own steps adds them to the path of its callers
 * under its function's root: at most INVERTED_DEPTH callers up, so the work
 * stays bounded however deep a recursion went.
 */
static int inv_build(const struct flow_report *r, struct inverted *iv)
{
	const struct arcs *a = r->arcs;
	uint32_t root = arcs_merged_root((struct arcs *)a), nfn = cf_nr_funcs(r->cf);
	uint32_t *stack = NULL;
	size_t top = 0, size = 0;

	iv->roots = malloc((nfn + 1) * sizeof(*iv->roots));
	if (!iv->roots)
		return -1;
	for (uint32_t f = 0; f <= nfn; f++)
		iv->roots[f] = UINT32_MAX;
	/* depth first over the merged tree, with a stack of nodes */
	for (uint32_t c = arcs_node(a, root)->first_child; c != ARC_NONE;
	     c = arcs_node(a, c)->next_sibling) {
		if (top == size) {
			uint32_t *s = realloc(stack, (size = size ? 2 * size : 1024) * sizeof(*s));

			if (!s)
				goto oom;
			stack = s;
		}
		stack[top++] = c;
	}
	while (top) {
		uint32_t node = stack[--top];
		const struct arc_node *n = arcs_node(a, node);

		for (uint32_t c = n->first_child; c != ARC_NONE; c = arcs_node(a, c)->next_sibling) {
			if (top == size) {
				uint32_t *s = realloc(stack, (size *= 2) * sizeof(*s));

				if (!s)
					goto oom;
				stack = s;
			}
			stack[top++] = c;
		}
		if (!n->base || !fr_selected(r, n->fn))
			continue;
		if (iv->roots[n->fn] == UINT32_MAX && (iv->roots[n->fn] = inv_new(iv, n->fn)) ==
		    UINT32_MAX)
			goto oom;
		{
			uint32_t at = iv->roots[n->fn], up = n->parent;
			unsigned d = 0;

			iv->n[at].calls += n->calls;
			iv->n[at].base += n->base;
			for (; up != ARC_NONE && arcs_node(a, up)->fn != CF_NO_FN &&
			       d < INVERTED_DEPTH; up = arcs_node(a, up)->parent, d++) {
				at = inv_child(iv, at, arcs_node(a, up)->fn);
				if (at == UINT32_MAX)
					goto oom;
				iv->n[at].calls += n->calls;
				iv->n[at].base += n->base;
			}
		}
	}
	free(stack);
	return 0;
oom:
	free(stack);
	pr_err("out of memory building the inverted tree");
	return -1;
}

struct inv_sort {
	const struct tree_print *p;
	const struct inverted *iv;
};

static int inv_cmp(const void *pa, const void *pb, void *arg)
{
	const struct inv_sort *c = arg;
	const struct inv_node *a = &c->iv->n[*(const uint32_t *)pa];
	const struct inv_node *b = &c->iv->n[*(const uint32_t *)pb];

	return key_cmp(&c->p->o->sort, c->p->r, a->calls, b->calls, a->base, b->base, a->base,
		       b->base, a->fn, b->fn);
}

/* The nodes of a list (roots, or a node's children), sorted; *n of them. */
static uint32_t *inv_sorted(const struct tree_print *p, const struct inverted *iv,
			    const uint32_t *list, uint32_t first, size_t *n)
{
	struct inv_sort c = { p, iv };
	uint32_t *v;
	size_t k = 0;

	*n = 0;
	if (list) {
		for (uint32_t f = 0; f < cf_nr_funcs(p->r->cf); f++)
			k += list[f] != UINT32_MAX;
	} else {
		for (uint32_t x = first; x != UINT32_MAX; x = iv->n[x].next_sibling)
			k++;
	}
	v = malloc((k + 1) * sizeof(*v));
	if (!v)
		return NULL;
	if (list) {
		for (uint32_t f = 0; f < cf_nr_funcs(p->r->cf); f++)
			if (list[f] != UINT32_MAX)
				v[(*n)++] = list[f];
	} else {
		for (uint32_t x = first; x != UINT32_MAX; x = iv->n[x].next_sibling)
			v[(*n)++] = x;
	}
	qsort_r(v, *n, sizeof(*v), inv_cmp, &c);
	return v;
}

struct inv_level {
	uint32_t *v;
	size_t n, next;
	uint32_t parent;	  /* the node whose children these are (levels above the first) */
};

static int print_inverted(struct tree_print *p)
{
	struct inverted iv = { 0 };
	struct inv_level *lv = NULL;
	size_t top = 0, size = 0;
	int ret = -1;

	if (inv_build(p->r, &iv) < 0)
		goto out;
	lv = malloc((size = 64) * sizeof(*lv));
	if (!lv)
		goto out;
	lv[0].v = inv_sorted(p, &iv, iv.roots, 0, &lv[0].n);
	lv[0].next = 0;
	if (!lv[0].v)
		goto out;
	top = 1;
	while (top) {
		struct inv_level *l = &lv[top - 1];
		const struct inv_node *n;
		unsigned depth = (unsigned)(top - 1);
		uint32_t x;

		if (l->next == l->n) {
			free(l->v);
			top--;
			continue;
		}
		x = l->v[l->next++];
		n = &iv.n[x];
		if (p->o->prune > 0 && 100.0 * (double)n->base < p->o->prune * (double)p->total) {
			p->pruned++;
			continue;
		}
		if (!within_top(p, depth))
			continue;
		if (!depth && !p->tab)
			printf("#\n");
		print_line(p, depth, n->calls, n->base, 0, n->fn,
			   depth ? iv.n[l->parent].fn : CF_NO_FN, false);
		if (n->first_child == UINT32_MAX)
			continue;
		if (top == size) {
			struct inv_level *s = realloc(lv, (size *= 2) * sizeof(*s));

			if (!s)
				goto out;
			lv = s;
		}
		lv[top].v = inv_sorted(p, &iv, NULL, n->first_child, &lv[top].n);
		lv[top].next = 0;
		lv[top].parent = x;
		if (!lv[top].v)
			goto out;
		top++;
	}
	ret = 0;
out:
	while (top)
		free(lv[--top].v);
	free(lv);
	free(iv.n);
	free(iv.roots);
	if (ret)
		pr_err("out of memory printing the inverted tree");
	return ret;
}

/* The tree for programs (tabout.h): the facts of the text's '#' lines, a row per line. */
static int tab_report(struct tree_print *p, const char *kind, int format)
{
	const struct flow_report *r = p->r;
	struct tabout t;
	int ret = 0;

	p->tab = &t;
	tab_start(&t, stdout, format, "tree");
	tab_fact_str(&t, "tree", kind);
	report_tab_header(&t, r->s);
	report_tab_total(&t, r->s, p->total, fr_selected_base(r));
	if (p->o->inverted)
		tab_fact_u64(&t, "inverted_depth", INVERTED_DEPTH);
	tab_rows_begin(&t, NULL, tab_cols, sizeof(tab_cols) / sizeof(tab_cols[0]));
	if (p->o->inverted) {
		ret = print_inverted(p);
	} else if (p->o->merged) {
		ret = arcs_walk(p->a, arcs_merged_root(r->arcs), child_cmp, print_node, p);
	} else {
		for (size_t i = 0; i < arcs_nr_threads(r->arcs) && !ret; i++) {
			uint32_t root = arcs_thread_root(r->arcs, i, &p->pid, &p->tid);

			if (p->seen)
				memset(p->seen, 0, p->seen_size * sizeof(*p->seen));
			ret = arcs_walk(p->a, root, child_cmp, print_node, p);
		}
	}
	tab_rows_end(&t);
	tab_fact_u64(&t, "pruned", p->pruned);
	tab_fact_u64(&t, "cut", p->cut);
	tab_end(&t);
	free(p->seen);
	if (ret < 0)
		return EXIT_RUNTIME;
	return report_finish(stdout, "the call tree");
}

static int print_report(struct flow_report *r, const struct tree_opts *o, int format)
{
	struct tree_print p = { .r = r, .a = r->arcs, .o = o, .total = arcs_total(r->arcs),
				.w = post_output.thousands ? 14 : 11 };
	int ret = 0;

	if (format != TAB_TEXT)
		return tab_report(&p, o->inverted ? "inverted" : o->merged ? "merged" : "threads",
				  format);

	report_header(stdout, r->s, o->inverted ? "inverted call tree" :
				    o->merged ? "merged call tree" : "call tree");
	report_total(stdout, r->s, p.total, fr_selected_base(r));
	if (o->inverted) {
		printf("# under each function its callers, up to %d levels; base: the function's "
		       "own steps through that path\n#%6s %*s %*s %7s  %s\n", INVERTED_DEPTH,
		       "depth", p.w, "calls", p.w, "base", "base%", "function <- callers");
		ret = print_inverted(&p);
	} else if (o->merged) {
		printf("#\n# all threads\n#%6s %*s %*s %*s %7s  %s\n", "depth", p.w, "calls", p.w,
		       "base", p.w, "cum", "cum%", "function");
		ret = arcs_walk(p.a, arcs_merged_root(r->arcs), child_cmp, print_node, &p);
	} else {
		for (size_t i = 0; i < arcs_nr_threads(r->arcs) && !ret; i++) {
			uint32_t pid, tid, root = arcs_thread_root(r->arcs, i, &pid, &tid);

			printf("#\n# thread %u (pid %u)\n#%6s %*s %*s %*s %7s  %s\n", tid, pid,
			       "depth", p.w, "calls", p.w, "base", p.w, "cum", "cum%", "function");
			if (p.seen)
				memset(p.seen, 0, p.seen_size * sizeof(*p.seen));
			ret = arcs_walk(p.a, root, child_cmp, print_node, &p);
		}
	}
	free(p.seen);
	if (ret < 0)
		return EXIT_RUNTIME;
	if (p.pruned)
		printf("# %" PRIu64 " subtrees under %g%% pruned\n", p.pruned, o->prune);
	if (p.cut)
		printf("# %" PRIu64 " subtrees past the first %zu children of their parent left out\n",
		       p.cut, o->top);
	return report_finish(stdout, "the call tree");
}

int cmd_tree(int argc, char **argv, struct post_opts *opts)
{
	struct session_filter f = SESSION_FILTER_INIT;
	struct report_out out = { 0 };
	struct tree_opts o = { .sort = { { RK_CUM }, 1 } };
	const struct popt opt[] = {
		OPT_GROUP("Options"),
		OPT_FLAG(0, "merged", &o.merged, "one tree for all threads"),
		OPT_FLAG(0, "inverted", &o.inverted,
			 "the callers' tree under each function (all threads), like perf\n"
			 "report -G or uftrace graph"),
		OPT_PERCENT(0, "prune", &o.prune, "PCT", "hide subtrees under PCT% of all steps"),
		{ .type = POPT_CALLBACK, .long_name = "sort", .value = &o.sort, .arg = "KEY[,KEY]",
		  .help = "children's order: calls, base, cum (the default; inverted: base), name",
		  .choices = tree_sort_keys, .cb = report_sort_option },
		POST_OUTPUT_OPTIONS(&out), POST_FILTER_OPTIONS(&f), POST_WINDOW_OPTIONS(&f),
		POST_TRACE_OPTIONS(opts), OPT_END
	};
	const struct popt *tables[] = { opt, NULL };
	struct flow_report r;
	int ret = post_parse(&cmd, argc, argv, tables, opts, &f, 0, NULL, NULL);

	if (ret)
		return POST_EXIT(ret);
	o.top = out.top;
	if (out.percent_limit > o.prune)
		o.prune = out.percent_limit;	/* the same thing, by perf's name */
	if (o.inverted && o.sort.n == 1 && o.sort.key[0] == RK_CUM)
		o.sort.key[0] = RK_BASE;	/* an inverted tree has no Cum */
	ret = flow_report_open(&r, opts, &f, FR_ARCS, "call tree");
	r.wide = out.wide;
	if (!ret)
		ret = flow_report_run(&r);
	if (!ret) {
		output_start(&out.o);
		ret = print_report(&r, &o, out.format);
	}
	flow_report_close(&r);
	return ret;
}
