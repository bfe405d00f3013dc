// SPDX-License-Identifier: GPL-2.0
/*
 * post --list WHAT: the names a trace's filters take, one a line, for shell
 * completion (completion/post): the functions of its user-space modules
 * (--symbol), the modules (--module), its processes and threads (--pid,
 * --tid).  Reads only the tasks file and the modules' symbol tables, never
 * the step streams, so it is quick on any trace.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "util/log.h"
#include "post/post.h"
#include "util/symbols.h"
#include "util/trace_arch.h"
#include "util/trace_reader.h"

struct names {
	char **v;
	size_t n, cap;
};

static void names_add(const char *name, void *arg)
{
	struct names *ns = arg;

	if (ns->n == ns->cap) {
		size_t cap = ns->cap ? ns->cap * 2 : 256;
		char **v = realloc(ns->v, cap * sizeof(*v));

		if (!v)
			return;
		ns->v = v;
		ns->cap = cap;
	}
	ns->v[ns->n] = strdup(name);
	if (ns->v[ns->n])
		ns->n++;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sorted, each name once. */
static void names_print_free(struct names *ns)
{
	qsort(ns->v, ns->n, sizeof(*ns->v), cmp_str);
	for (size_t i = 0; i < ns->n; i++) {
		if (!i || strcmp(ns->v[i], ns->v[i - 1]))
			puts(ns->v[i]);
	}
	for (size_t i = 0; i < ns->n; i++)
		free(ns->v[i]);
	free(ns->v);
}

/* A mapped file (not [vdso], [anon], ...). */
static bool is_file_mapping(const struct trace_task_rec *r)
{
	return r->type == PT_TASK_MMAP && r->str && r->str[0] == '/' && (r->mmap.prot & PROT_EXEC);
}

static void list_modules(const struct trace *t, struct names *ns, bool functions, bool raw)
{
	const struct trace_task_rec *recs = trace_tasks(t);
	struct names paths = { 0 };

	for (size_t i = 0; i < trace_nr_tasks(t); i++)
		if (is_file_mapping(&recs[i]))
			names_add(recs[i].str, &paths);
	qsort(paths.v, paths.n, sizeof(*paths.v), cmp_str);
	for (size_t i = 0; i < paths.n; i++) {
		const char *base = strrchr(paths.v[i], '/') + 1;

		if (i && !strcmp(paths.v[i], paths.v[i - 1]))
			continue;
		if (!functions)
			names_add(base, ns);
		else if (sym_file_functions(paths.v[i], raw, names_add, ns) < 0)
			pr_dbg("%s: not readable, its functions are not listed", paths.v[i]);
	}
	for (size_t i = 0; i < paths.n; i++)
		free(paths.v[i]);
	free(paths.v);
}

static void list_tasks(const struct trace *t, struct names *ns, bool threads)
{
	const struct trace_task_rec *recs = trace_tasks(t);
	char buf[16];

	for (size_t i = 0; i < trace_nr_tasks(t); i++) {
		uint32_t id = threads ? recs[i].c.tid : recs[i].c.pid;

		if (!id)
			continue;	/* a process's mapping has no thread */
		snprintf(buf, sizeof(buf), "%u", id);
		names_add(buf, ns);
	}
}

int post_list(const char *what, struct post_opts *opts)
{
	struct names ns = { 0 };
	struct trace *t;

	if (strcmp(what, "symbols") && strcmp(what, "modules") && strcmp(what, "pids") &&
	    strcmp(what, "tids")) {
		pr_err("--list: '%s' is not one of symbols, modules, pids, tids", what);
		return EXIT_USAGE;
	}
	t = trace_open_arch(opts->input, TRACE_OPEN_FORCE);
	if (!t)
		return EXIT_RUNTIME;
	if (!strcmp(what, "symbols") || !strcmp(what, "modules"))
		list_modules(t, &ns, what[0] == 's', opts->no_demangle);
	else
		list_tasks(t, &ns, what[0] == 't');
	trace_close(t);
	/* Numbers sort as strings here: the shell sorts what it shows anyway. */
	names_print_free(&ns);
	return 0;
}
