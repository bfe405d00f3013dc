// SPDX-License-Identifier: GPL-2.0
/* post tree: the call tree per thread (or merged): depth, calls, Base and Cum per call path. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "arcflow.h"
#include "log.h"

struct tree_opts {
	bool merged;
	double prune;		  /* hide subtrees under this % of the total */
};

struct tree_print {
	const struct af_session *s;
	const struct arcs *a;
	uint64_t total;
	double prune;
	uint64_t pruned;	  /* subtrees hidden by --prune */
};

static void usage(FILE *f)
{
	fprintf(f, "usage: post tree [OPTIONS]\n\n"
		   "The call tree of each thread: one line per call path with its depth, calls,\n"
		   "Base (self) and Cum (inclusive) instructions.  Options:\n"
		   "  -i DIR           trace directory (default pitrace.data)\n"
		   "  --merged         one tree for all threads\n"
		   "  --prune PCT      hide subtrees under PCT%% of all steps\n"
		   "%s"
		   "With --module/--symbol, only the subtrees rooted at such functions.\n",
		   af_filter_help);
}

static int child_cmp(const void *pa, const void *pb, void *arg)
{
	const struct tree_print *p = arg;
	const struct arc_node *a = arcs_node(p->a, *(const uint32_t *)pa);
	const struct arc_node *b = arcs_node(p->a, *(const uint32_t *)pb);

	if (a->cum != b->cum)
		return a->cum > b->cum ? -1 : 1;
	return strcmp(cf_func(p->s->cf, a->fn)->name, cf_func(p->s->cf, b->fn)->name);
}

static int print_node(struct tree_print *p, uint32_t node, unsigned depth, bool shown)
{
	const struct arc_node *n = arcs_node(p->a, node);
	uint32_t *kids = NULL;
	size_t nk = 0;

	if (n->fn != CF_NO_FN) {
		if (p->prune > 0 && 100.0 * (double)n->cum < p->prune * (double)p->total) {
			p->pruned++;
			return 0;
		}
		if (!shown && af_fn_selected(p->s, n->fn))
			shown = true;
		if (shown)
			printf("%7u %11" PRIu64 " %11" PRIu64 " %11" PRIu64 " %6.2f%%  %*s%s\n",
			       depth, n->calls, n->base, n->cum,
			       p->total ? 100.0 * (double)n->cum / (double)p->total : 0.0,
			       (int)(2 * depth), "", cf_func(p->s->cf, n->fn)->name);
		depth++;
	}
	for (uint32_t c = n->first_child; c != ARC_NONE; c = arcs_node(p->a, c)->next_sibling)
		nk++;
	if (!nk)
		return 0;
	kids = malloc(nk * sizeof(*kids));
	if (!kids) {
		pr_err("out of memory printing the call tree");
		return -1;
	}
	nk = 0;
	for (uint32_t c = n->first_child; c != ARC_NONE; c = arcs_node(p->a, c)->next_sibling)
		kids[nk++] = c;
	qsort_r(kids, nk, sizeof(*kids), child_cmp, p);
	for (size_t k = 0; k < nk; k++)
		if (print_node(p, kids[k], n->fn == CF_NO_FN ? 0 : depth, shown) < 0) {
			free(kids);
			return -1;
		}
	free(kids);
	return 0;
}

static int print_report(struct af_session *s, const struct tree_opts *o)
{
	struct tree_print p = { .s = s, .a = s->arcs, .total = arcs_total(s->arcs),
				.prune = o->prune };
	int r = 0;

	af_print_header(stdout, s, o->merged ? "merged call tree" : "call tree");
	printf("# total: %" PRIu64 " steps\n", p.total);
	if (o->merged) {
		printf("#\n# all threads\n#%6s %11s %11s %11s %7s  %s\n", "depth", "calls", "base",
		       "cum", "cum%", "function");
		r = print_node(&p, arcs_merged_root(s->arcs), 0, false);
	} else {
		for (size_t i = 0; i < arcs_nr_threads(s->arcs) && !r; i++) {
			uint32_t pid, tid, root = arcs_thread_root(s->arcs, i, &pid, &tid);

			printf("#\n# thread %u (pid %u)\n#%6s %11s %11s %11s %7s  %s\n", tid, pid,
			       "depth", "calls", "base", "cum", "cum%", "function");
			r = print_node(&p, root, 0, false);
		}
	}
	if (r < 0)
		return EXIT_RUNTIME;
	if (p.pruned)
		printf("# %" PRIu64 " subtrees under %g%% pruned\n", p.pruned, o->prune);
	return af_finish_output(stdout, "the call tree");
}

int cmd_tree(int argc, char **argv, struct post_opts *opts)
{
	struct af_session s = { 0 };
	struct tree_opts o = { 0 };
	int ret;

	for (int i = 1; i < argc; i++) {
		const char *v;
		char *end;
		int r = af_common_option(argc, argv, &i, opts, &s.filter);

		if (r < 0)
			return EXIT_USAGE;
		if (r)
			continue;
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			usage(stdout);
			return 0;
		}
		if (!strcmp(argv[i], "--merged")) {
			o.merged = true;
			continue;
		}
		if ((r = report_opt_value(argc, argv, &i, "--prune", &v))) {
			if (r < 0)
				return EXIT_USAGE;
			o.prune = strtod(v, &end);
			if (end == v || *end || !(o.prune >= 0 && o.prune <= 100)) {
				pr_err("tree: --prune '%s' is not a percentage (0 to 100)", v);
				return EXIT_USAGE;
			}
			continue;
		}
		pr_err("tree: unknown option '%s' (see 'post tree --help')", argv[i]);
		return EXIT_USAGE;
	}
	ret = af_open(&s, opts, true);
	if (!ret)
		ret = af_run(&s);
	if (!ret)
		ret = print_report(&s, &o);
	af_close(&s);
	return ret;
}
