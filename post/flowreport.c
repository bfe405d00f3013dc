// SPDX-License-Identifier: GPL-2.0
/* The session, engine and arcs under post's call-flow reports (flowreport.h). */
#include <stdlib.h>
#include <string.h>

#include "post/flowreport.h"
#include "util/log.h"

int flow_report_open(struct flow_report *r, const struct post_opts *opts,
		     const struct session_filter *filter, unsigned flags, const char *what)
{
	struct session_source src = post_source(opts);
	int ret;

	memset(r, 0, sizeof(*r));
	ret = session_open(&r->s, &src, filter, flags & FR_ARCS ? SESSION_WINDOW_COUNTS : 0, what);
	if (ret)
		return ret;
	r->cf = session_callflow(r->s);
	if (!r->cf) {
		pr_err("out of memory for the call-flow engine");
		return EXIT_RUNTIME;
	}
	if (flags & FR_ARCS) {
		r->arcs = arcs_new(r->cf);
		if (!r->arcs)
			return EXIT_RUNTIME;
	}
	return 0;
}

int flow_report_run(struct flow_report *r)
{
	int ret = session_run(r->s);

	if (ret)
		return ret;
	if (r->arcs && log_verbose >= 1)
		arcs_check(r->arcs);
	r->names = report_names_new(r->cf, r->wide);
	if (!r->names) {
		pr_err("out of memory naming functions");
		return EXIT_RUNTIME;
	}
	return 0;
}

void flow_report_close(struct flow_report *r)
{
	report_names_free(r->names);
	arcs_free(r->arcs);
	session_close(r->s);	/* frees the engine */
	memset(r, 0, sizeof(*r));
}

const char *const fr_sort_keys[] = { "calls", "base", "cum", "name", "addr", NULL };

int fr_fn_cmp(const struct flow_report *r, const struct report_sort *sort, uint32_t a,
	      uint32_t b)
{
	const struct arc_fn_stats *sa = arcs_fn(r->arcs, a), *sb = arcs_fn(r->arcs, b);
	const struct cf_func *fa = cf_func(r->cf, a), *fb = cf_func(r->cf, b);

	for (int k = 0; k < sort->n; k++) {
		int d = 0;

		switch (sort->key[k]) {
		case RK_CALLS:
			d = fr_desc(sa->calls, sb->calls);
			break;
		case RK_BASE:
			d = fr_desc(sa->base, sb->base);
			break;
		case RK_CUM:
			d = fr_desc(sa->cum, sb->cum);
			break;
		case RK_NAME:
			d = strcmp(fa->name, fb->name);
			break;
		case RK_ADDR:
			d = fa->addr == fb->addr ? 0 : fa->addr < fb->addr ? -1 : 1;
			break;
		}
		if (d)
			return d;
	}
	return strcmp(fa->name, fb->name) ?: strcmp(fa->module, fb->module);
}

struct sort_ctx {
	const struct flow_report *r;
	const struct report_sort *sort;
};

static int fn_cmp(const void *pa, const void *pb, void *arg)
{
	const struct sort_ctx *c = arg;

	return fr_fn_cmp(c->r, c->sort, *(const uint32_t *)pa, *(const uint32_t *)pb);
}

uint32_t *fr_sorted_functions(const struct flow_report *r, const struct report_sort *sort,
			      size_t *n)
{
	struct sort_ctx c = { r, sort };
	uint32_t *fns = malloc((cf_nr_funcs(r->cf) + 1) * sizeof(*fns));

	*n = 0;
	if (!fns)
		return NULL;
	for (uint32_t f = 0; f < cf_nr_funcs(r->cf); f++) {
		const struct arc_fn_stats *st = arcs_fn(r->arcs, f);

		if ((st->cum || st->calls) && fr_selected(r, f))
			fns[(*n)++] = f;
	}
	qsort_r(fns, *n, sizeof(*fns), fn_cmp, &c);
	return fns;
}

uint64_t fr_selected_base(const struct flow_report *r)
{
	uint64_t sum = 0;

	for (uint32_t f = 0; f < cf_nr_funcs(r->cf); f++)
		if (fr_selected(r, f))
			sum += arcs_fn(r->arcs, f)->base;
	return sum;
}
