// SPDX-License-Identifier: GPL-2.0
/* post tree: the call tree per thread (or merged): depth, calls, Base and Cum per call path. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "flowreport.h"
#include "log.h"

static const struct popt_cmd cmd = {
	.name = "tree", .synopsis = "[OPTIONS]",
	.description =
	"The call tree of each thread: one line per call path with its depth, calls,\n"
	"Base (self) and Cum (inclusive) instructions, children by Cum.  With\n"
	"--module/--symbol, only the subtrees rooted at such functions.",
};

struct tree_opts {
	bool merged;
	double prune;		  /* hide subtrees under this % of the total */
};

struct tree_print {
	const struct flow_report *r;
	const struct arcs *a;
	uint64_t total;
	double prune;
	uint64_t pruned;	  /* subtrees hidden by --prune */
};

static int child_cmp(const void *pa, const void *pb, void *arg)
{
	const struct tree_print *p = arg;
	const struct arc_node *a = arcs_node(p->a, *(const uint32_t *)pa);
	const struct arc_node *b = arcs_node(p->a, *(const uint32_t *)pb);

	if (a->cum != b->cum)
		return a->cum > b->cum ? -1 : 1;
	return strcmp(cf_func(p->r->cf, a->fn)->name, cf_func(p->r->cf, b->fn)->name);
}

/* A node: its line, unless pruned (then not its subtree either); flag: a selected function is above. */
static int print_node(void *ctx, uint32_t node, unsigned depth, const uint32_t *path, int shown)
{
	struct tree_print *p = ctx;
	const struct arc_node *n = arcs_node(p->a, node);

	(void)path;
	if (p->prune > 0 && 100.0 * (double)n->cum < p->prune * (double)p->total) {
		p->pruned++;
		return ARC_WALK_SKIP;
	}
	shown = shown || fr_selected(p->r, n->fn);
	if (shown)
		printf("%7u %11" PRIu64 " %11" PRIu64 " %11" PRIu64 " %6.2f%%  %*s%s\n", depth,
		       n->calls, n->base, n->cum, report_percent(n->cum, p->total),
		       (int)(2 * depth), "", fr_name(p->r, n->fn));
	return shown;
}

static int print_tree(struct tree_print *p, uint32_t root)
{
	return arcs_walk(p->a, root, child_cmp, print_node, p);
}

static int print_report(struct flow_report *r, const struct tree_opts *o)
{
	struct tree_print p = { .r = r, .a = r->arcs, .total = arcs_total(r->arcs),
				.prune = o->prune };
	int ret = 0;

	report_header(stdout, r->s, o->merged ? "merged call tree" : "call tree");
	report_total(stdout, r->s, p.total, fr_selected_base(r));
	if (o->merged) {
		printf("#\n# all threads\n#%6s %11s %11s %11s %7s  %s\n", "depth", "calls", "base",
		       "cum", "cum%", "function");
		ret = print_tree(&p, arcs_merged_root(r->arcs));
	} else {
		for (size_t i = 0; i < arcs_nr_threads(r->arcs) && !ret; i++) {
			uint32_t pid, tid, root = arcs_thread_root(r->arcs, i, &pid, &tid);

			printf("#\n# thread %u (pid %u)\n#%6s %11s %11s %11s %7s  %s\n", tid, pid,
			       "depth", "calls", "base", "cum", "cum%", "function");
			ret = print_tree(&p, root);
		}
	}
	if (ret < 0)
		return EXIT_RUNTIME;
	if (p.pruned)
		printf("# %" PRIu64 " subtrees under %g%% pruned\n", p.pruned, o->prune);
	return report_finish(stdout, "the call tree");
}

int cmd_tree(int argc, char **argv, struct post_opts *opts)
{
	struct session_filter f = SESSION_FILTER_INIT;
	struct report_out out = { 0 };
	struct tree_opts o = { 0 };
	const struct popt opt[] = {
		OPT_GROUP("Options"),
		OPT_FLAG(0, "merged", &o.merged, "one tree for all threads"),
		OPT_PERCENT(0, "prune", &o.prune, "PCT", "hide subtrees under PCT% of all steps"),
		OPT_FLAG(0, "wide", &out.wide, "names whole (long ones are elided in the middle)"),
		POST_FILTER_OPTIONS(&f), POST_WINDOW_OPTIONS(&f), POST_TRACE_OPTIONS(opts), OPT_END
	};
	const struct popt *tables[] = { opt, NULL };
	struct flow_report r;
	int ret = post_parse(&cmd, argc, argv, tables, opts, &f, 0, NULL, NULL);

	if (ret)
		return POST_EXIT(ret);
	ret = flow_report_open(&r, opts, &f, FR_ARCS, "call tree");
	r.wide = out.wide;
	if (!ret)
		ret = flow_report_run(&r);
	if (!ret)
		ret = print_report(&r, &o);
	flow_report_close(&r);
	return ret;
}
