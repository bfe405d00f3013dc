// SPDX-License-Identifier: GPL-2.0
/* Shared options and the engine pass of post's call-flow reports (arcflow.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "arcflow.h"
#include "demangle.h"
#include "log.h"

/*
 * --symbol matches a function's shown name or its other form (mangled or
 * demangled), which takes demangling: decided once per function, since
 * flow and steps ask for every line.
 */
struct af_symbol_memo {
	uint8_t *verdict;	  /* per function: 0 undecided, 1 no, 2 yes */
	size_t size;
};

const char af_filter_help[] =
	"  --pid PID        only this process's threads\n"
	"  --tid TID        only this thread\n"
	"  --module NAME    only functions of this module (short name or path)\n"
	"  --symbol NAME    only this function (C++: demangled or mangled name)\n"
	"  --ring RING      only user or kernel functions (user, kernel, all: default)\n";

int af_parse_u64(const char *cmd, const char *opt, const char *arg, uint64_t *v)
{
	char *end;

	errno = 0;
	if (!*arg || *arg == '-') {
		pr_err("%s: %s '%s' is not a non-negative number", cmd, opt, arg);
		return -1;
	}
	*v = strtoull(arg, &end, 0);
	if (errno || *end) {
		pr_err("%s: %s '%s' is not a non-negative number", cmd, opt, arg);
		return -1;
	}
	return 0;
}

int af_window_option(const char *cmd, int argc, char **argv, int *i, uint64_t *from,
		      uint64_t *to)
{
	const char *v;
	int r;

	if ((r = report_opt_value(argc, argv, i, "--from", &v)))
		return r < 0 || af_parse_u64(cmd, "--from", v, from) < 0 ? -1 : 1;
	if ((r = report_opt_value(argc, argv, i, "--to", &v)))
		return r < 0 || af_parse_u64(cmd, "--to", v, to) < 0 ? -1 : 1;
	return 0;
}

int af_window_check(const char *cmd, uint64_t from, uint64_t to)
{
	if (from <= to)
		return 0;
	pr_err("%s: --from %" PRIu64 " is after --to %" PRIu64, cmd, from, to);
	return -1;
}

int af_common_option(int argc, char **argv, int *i, struct post_opts *opts,
		     struct af_filter *f)
{
	const char *v;
	int r = post_common_option(argc, argv, i, opts);

	if (r)
		return r;
	if ((r = report_opt_value(argc, argv, i, "--pid", &v)))
		return r < 0 || report_parse_u32("--pid", v, &f->pid) < 0 ? -1 : 1;
	if ((r = report_opt_value(argc, argv, i, "--tid", &v)))
		return r < 0 || report_parse_u32("--tid", v, &f->tid) < 0 ? -1 : 1;
	if ((r = report_opt_value(argc, argv, i, "--module", &v))) {
		f->module = v;
		return r;
	}
	if ((r = report_opt_value(argc, argv, i, "--symbol", &v))) {
		f->symbol = v;
		return r;
	}
	if ((r = report_opt_value(argc, argv, i, "--ring", &v))) {
		if (r < 0)
			return r;
		if (!strcmp(v, "all") || !strcmp(v, "user") || !strcmp(v, "kernel")) {
			f->ring = !strcmp(v, "all") ? AF_RING_ALL :
				  !strcmp(v, "user") ? AF_RING_USER : AF_RING_KERNEL;
			return r;
		}
		pr_err("--ring '%s' is not one of user, kernel, all", v);
		return -1;
	}
	return 0;
}

int af_open(struct af_session *s, const struct post_opts *opts, bool want_arcs)
{
	struct sym_options so = { 0 };
	struct cf_source src;

	s->trace = trace_open_flags(opts->input, opts->force ? TRACE_OPEN_FORCE : 0);
	if (!s->trace)
		return EXIT_RUNTIME;
	so.trace_dir = trace_dir(s->trace);
	so.vmlinux = opts->vmlinux;
	so.debug_dir = opts->debug_dir;
	so.no_demangle = opts->no_demangle;
	s->sym = sym_session_new(&so);
	if (!s->sym) {
		pr_err("cannot set up symbol resolution for %s", trace_dir(s->trace));
		return EXIT_RUNTIME;
	}
	/* Without the memo (no memory) every question is decided anew. */
	if (s->filter.symbol)
		s->symbol_memo = calloc(1, sizeof(*s->symbol_memo));
	s->sites = cf_sites_new(s->sym);
	if (!s->sites)
		return EXIT_RUNTIME;
	cf_sites_source(s->sites, &src);
	s->cf = cf_new(&src);
	/* block traces hold one step per run of instructions: the engine expands them */
	cf_set_block_mode(s->cf, !strcmp(trace_info(s->trace)->mode, "block"));
	if (want_arcs) {
		s->arcs = arcs_new(s->cf);
		if (!s->arcs)
			return EXIT_RUNTIME;
	}
	return 0;
}

static bool event_selected(const struct af_session *s, const struct trace_event *ev)
{
	if (ev->kind == TEV_TASK)
		return true;	/* address spaces and thread lifetimes: always */
	if (s->filter.pid && ev->pid != s->filter.pid)
		return false;
	if (s->filter.tid && ev->tid != s->filter.tid)
		return false;
	return true;
}

int af_run(struct af_session *s)
{
	struct trace_iter *it = trace_iter_new(s->trace);
	uint64_t expect = trace_info(s->trace)->totals.steps, n = 0;
	bool progress = log_is_tty();
	struct trace_event ev;
	struct cf_stats st;
	int r;

	if (!it)
		return EXIT_RUNTIME;
	while ((r = trace_next(it, &ev)) == 1) {
		if (!event_selected(s, &ev))
			continue;
		cf_event(s->cf, &ev);
		if (s->on_event)
			s->on_event(s->event_ctx, &ev);
		if (progress && ev.kind == TEV_STEP && !(++n & ((1u << 20) - 1)))
			fprintf(stderr, "\r%s: call flow: %" PRIu64 " steps%s%.0f%%", log_progname,
				n, expect ? ", " : "",
				expect ? 100.0 * (double)n / (double)expect : 0.0);
	}
	if (progress && n >= (1u << 20))
		fprintf(stderr, "\r\033[K");
	trace_iter_free(it);
	cf_finish(s->cf);
	cf_get_stats(s->cf, &st);
	pr_dbg("call flow: %" PRIu64 " steps, %" PRIu64 " threads, max depth %u, %" PRIu64
	       " unmatched returns, %" PRIu64 " async entries, %" PRIu64 " gaps",
	       st.steps, st.threads, st.max_depth, st.unmatched, st.async, st.gaps);
	if (s->arcs && log_verbose >= 1)
		arcs_check(s->arcs);
	return r < 0 ? EXIT_RUNTIME : 0;
}

void af_close(struct af_session *s)
{
	if (s->symbol_memo)
		free(s->symbol_memo->verdict);
	free(s->symbol_memo);
	arcs_free(s->arcs);
	cf_free(s->cf);
	cf_sites_free(s->sites);
	if (s->sym)
		sym_session_free(s->sym);
	if (s->trace)
		trace_close(s->trace);
	memset(s, 0, sizeof(*s));
}

static bool module_matches(const struct cf_func *f, const char *m)
{
	const char *slash;

	if (!strcmp(f->module, m) || !strcmp(f->module_path, m))
		return true;
	slash = strrchr(f->module_path, '/');
	return slash && !strcmp(slash + 1, m);
}

static bool symbol_selected(const struct af_session *s, uint32_t fn, const char *name)
{
	struct af_symbol_memo *m = s->symbol_memo;

	if (m && fn >= m->size) {
		size_t nsize = m->size ? 2 * m->size : 256;
		uint8_t *n;

		while (nsize <= fn)
			nsize *= 2;
		n = realloc(m->verdict, nsize);
		if (n) {
			memset(n + m->size, 0, nsize - m->size);
			m->verdict = n;
			m->size = nsize;
		}
	}
	if (!m || fn >= m->size)
		return demangle_name_matches(name, s->filter.symbol);
	if (!m->verdict[fn])
		m->verdict[fn] = demangle_name_matches(name, s->filter.symbol) ? 2 : 1;
	return m->verdict[fn] == 2;
}

bool af_fn_selected(const struct af_session *s, uint32_t fn)
{
	const struct cf_func *f;

	if (fn == CF_NO_FN)
		return !s->filter.module && !s->filter.symbol && !s->filter.ring;
	f = cf_func(s->cf, fn);
	if (s->filter.ring && f->ring != (s->filter.ring == AF_RING_KERNEL))
		return false;
	if (s->filter.module && !module_matches(f, s->filter.module))
		return false;
	if (s->filter.symbol && !symbol_selected(s, fn, f->name))
		return false;
	return true;
}

int af_finish_output(FILE *f, const char *what)
{
	if (fflush(f) != 0 || ferror(f)) {
		pr_err("cannot write %s: %s", what, strerror(errno));
		return EXIT_RUNTIME;
	}
	return 0;
}

void af_print_header(FILE *f, const struct af_session *s, const char *report)
{
	const struct trace_info *ti = trace_info(s->trace);

	fprintf(f, "# %s of trace %s\n", report, trace_dir(s->trace));
	if (ti->argv && ti->argv[0]) {
		fprintf(f, "# command:");
		for (char **a = ti->argv; *a; a++)
			fprintf(f, " %s", *a);
		fputc('\n', f);
	}
	if (s->filter.pid || s->filter.tid || s->filter.module || s->filter.symbol) {
		fprintf(f, "# filter:");
		if (s->filter.pid)
			fprintf(f, " pid %u", s->filter.pid);
		if (s->filter.tid)
			fprintf(f, " tid %u", s->filter.tid);
		if (s->filter.module)
			fprintf(f, " module %s", s->filter.module);
		if (s->filter.symbol)
			fprintf(f, " symbol %s", s->filter.symbol);
		fputc('\n', f);
	}
}

struct sort_ctx {
	const struct af_session *s;
	enum af_order order;
};

static int fn_cmp(const void *pa, const void *pb, void *arg)
{
	const struct sort_ctx *c = arg;
	uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;
	const struct arc_fn_stats *sa = arcs_fn(c->s->arcs, a), *sb = arcs_fn(c->s->arcs, b);
	uint64_t ka = c->order == AF_BY_CUM ? sa->cum : sa->base;
	uint64_t kb = c->order == AF_BY_CUM ? sb->cum : sb->base;
	uint64_t la = c->order == AF_BY_CUM ? sa->base : sa->cum;
	uint64_t lb = c->order == AF_BY_CUM ? sb->base : sb->cum;

	if (ka != kb)
		return ka > kb ? -1 : 1;
	if (la != lb)
		return la > lb ? -1 : 1;
	return strcmp(cf_func(c->s->cf, a)->name, cf_func(c->s->cf, b)->name) ?:
	       strcmp(cf_func(c->s->cf, a)->module, cf_func(c->s->cf, b)->module);
}

uint32_t *af_sorted_functions(const struct af_session *s, enum af_order order, size_t *n)
{
	struct sort_ctx c = { s, order };
	uint32_t *fns = malloc((cf_nr_funcs(s->cf) + 1) * sizeof(*fns));

	*n = 0;
	if (!fns)
		return NULL;
	for (uint32_t f = 0; f < cf_nr_funcs(s->cf); f++) {
		const struct arc_fn_stats *st = arcs_fn(s->arcs, f);

		if ((st->cum || st->calls) && af_fn_selected(s, f))
			fns[(*n)++] = f;
	}
	qsort_r(fns, *n, sizeof(*fns), fn_cmp, &c);
	return fns;
}
