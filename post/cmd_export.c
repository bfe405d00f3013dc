// SPDX-License-Identifier: GPL-2.0
/*
 * post export: the call flow in formats other tools read: callgrind
 * (callgrind_annotate, KCachegrind), folded stacks (flame graphs) and
 * Chrome/Perfetto JSON trace events.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "arcflow.h"
#include "export.h"
#include "log.h"

enum export_format { EXPORT_CALLGRIND, EXPORT_FOLDED, EXPORT_CHROME };

static void usage(FILE *f)
{
	fprintf(f, "usage: post export --format FORMAT -o FILE [OPTIONS]\n\n"
		   "Formats:\n"
		   "  callgrind   self instructions per instruction and source line, calls= arcs\n"
		   "              with their inclusive instructions, jumps (callgrind_annotate,\n"
		   "              KCachegrind)\n"
		   "  folded      one line per call stack with its self instructions\n"
		   "              (\"_start;main;f 1234\", for flame-graph tools)\n"
		   "  chrome      Chrome/Perfetto JSON trace events: a B/E pair per call per\n"
		   "              thread, timestamps from the trace's clock (--clock time,\n"
		   "              the default) or one microsecond a step (--clock steps)\n"
		   "Options:\n"
		   "  -i DIR           trace directory (default pitrace.data)\n"
		   "  -o FILE          output file ('-' for standard output)\n"
		   "  --clock C        chrome: time (default) or steps\n"
		   "%s", af_filter_help);
}

/* ---- folded stacks ---- */

struct folded {
	struct af_session *s;
	FILE *out;
	uint32_t *path;
	size_t depth, size;
};

static int folded_child_cmp(const void *pa, const void *pb, void *arg)
{
	struct folded *fo = arg;
	const struct arc_node *a = arcs_node(fo->s->arcs, *(const uint32_t *)pa);
	const struct arc_node *b = arcs_node(fo->s->arcs, *(const uint32_t *)pb);

	return strcmp(cf_func(fo->s->cf, a->fn)->name, cf_func(fo->s->cf, b->fn)->name);
}

/*
 * One frame of a folded line.  Readers split a line at its last space (the
 * count after it) and the stack at ';', so demangled names keep their
 * spaces and commas ("f(int, char)"), but a ';' in a name (never made by
 * the demangler; possible in assembly labels) is written as ':'.
 */
static void folded_frame(FILE *out, const char *name)
{
	for (const char *p = name; *p; p++)
		fputc(*p == ';' ? ':' : *p, out);
}

static int folded_node(struct folded *fo, uint32_t node, bool selected)
{
	const struct arcs *a = fo->s->arcs;
	const struct arc_node *n = arcs_node(a, node);
	uint32_t *kids;
	size_t nk = 0;

	if (n->fn != CF_NO_FN) {
		if (fo->depth == fo->size) {
			fo->size = fo->size ? 2 * fo->size : 64;
			fo->path = realloc(fo->path, fo->size * sizeof(*fo->path));
			if (!fo->path)
				return -1;
		}
		fo->path[fo->depth++] = n->fn;
		selected = selected || af_fn_selected(fo->s, n->fn);
		if (n->base && selected) {
			for (size_t i = 0; i < fo->depth; i++) {
				if (i)
					fputc(';', fo->out);
				folded_frame(fo->out, cf_func(fo->s->cf, fo->path[i])->name);
			}
			fprintf(fo->out, " %" PRIu64 "\n", n->base);
		}
	}
	for (uint32_t c = n->first_child; c != ARC_NONE; c = arcs_node(a, c)->next_sibling)
		nk++;
	kids = malloc((nk + 1) * sizeof(*kids));
	if (!kids)
		return -1;
	nk = 0;
	for (uint32_t c = n->first_child; c != ARC_NONE; c = arcs_node(a, c)->next_sibling)
		kids[nk++] = c;
	qsort_r(kids, nk, sizeof(*kids), folded_child_cmp, fo);
	for (size_t k = 0; k < nk; k++)
		if (folded_node(fo, kids[k], selected) < 0) {
			free(kids);
			return -1;
		}
	free(kids);
	if (n->fn != CF_NO_FN)
		fo->depth--;
	return 0;
}

static int export_folded(struct af_session *s, FILE *out)
{
	struct folded fo = { .s = s, .out = out };
	bool all = !s->filter.module && !s->filter.symbol;
	int r = folded_node(&fo, arcs_merged_root(s->arcs), all);

	free(fo.path);
	if (r < 0) {
		pr_err("out of memory writing folded stacks");
		return EXIT_RUNTIME;
	}
	return 0;
}

/* ---- Chrome trace events (streamed while the engine runs) ---- */

struct chrome {
	struct af_session *s;
	FILE *out;
	bool first;
	bool steps_clock;	  /* ts = step index; else the trace's time */
	int slot;		  /* our cf_thread.user[] slot */
	struct chrome_thread *threads; /* all of them, to free */
};

/*
 * A thread's clock: the trace gives times now and then (TIME, SWITCH
 * records); steps between get 1 ns each, and a thread's timestamps never go
 * backwards, so its B/E events stay in order.
 */
struct chrome_thread {
	uint64_t time_ns, time_index;
	double last_us;
	struct chrome_thread *next;
};

static struct chrome_thread *chrome_thread(struct chrome *c, struct cf_thread *t)
{
	struct chrome_thread *ct = t->user[c->slot];

	if (!ct) {
		ct = calloc(1, sizeof(*ct));
		if (!ct) {
			pr_err("out of memory writing Chrome events");
			exit(EXIT_RUNTIME);
		}
		ct->next = c->threads;
		c->threads = ct;
		t->user[c->slot] = ct;
	}
	return ct;
}

/* The timestamp (us) of the step with this index; time_ns is its time if known (else 0). */
static double chrome_ts(struct chrome *c, struct cf_thread *t, uint64_t index, uint64_t time_ns)
{
	struct chrome_thread *ct;
	double us;

	if (c->steps_clock)
		return (double)index;
	ct = chrome_thread(c, t);
	if (time_ns && time_ns != ct->time_ns) {
		ct->time_ns = time_ns;
		ct->time_index = index;
	}
	us = (double)ct->time_ns / 1000.0 + (double)(index - ct->time_index) / 1000.0;
	if (us < ct->last_us)
		us = ct->last_us;
	ct->last_us = us;
	return us;
}

static void chrome_event(struct chrome *c, const struct cf_thread *t, uint32_t fn, char ph,
			 double ts, const char *cat)
{
	const char *name = cf_func(c->s->cf, fn)->name;

	fprintf(c->out, "%s\n{\"name\":\"", c->first ? "" : ",");
	c->first = false;
	/* JSON string escaping: symbol names are plain, but be safe */
	for (const char *p = name; *p; p++) {
		if (*p == '"' || *p == '\\')
			fprintf(c->out, "\\%c", *p);
		else if ((unsigned char)*p < 0x20)
			fprintf(c->out, "\\u%04x", *p);
		else
			fputc(*p, c->out);
	}
	fprintf(c->out, "\",\"cat\":\"%s\",\"ph\":\"%c\",\"pid\":%u,\"tid\":%u,\"ts\":%.3f}",
		cat, ph, t->pid, t->tid, ts);
}

static void chrome_push(void *ctx, struct cf_thread *t, const struct cf_frame *parent,
			const struct cf_frame *f)
{
	struct chrome *c = ctx;

	(void)parent;
	if (af_fn_selected(c->s, f->fn))
		chrome_event(c, t, f->fn, 'B', chrome_ts(c, t, f->entry_index, f->entry_time),
			     cf_entry_kind_name(f->kind));
}

static void chrome_adopt(void *ctx, struct cf_thread *t, const struct cf_frame *root)
{
	struct chrome *c = ctx;
	const struct cf_frame *old = &t->frames[1];
	double ts = chrome_ts(c, t, t->last_index + 1, 0);

	/* The caller appears below an open frame: close it, open the caller, reopen it. */
	if (af_fn_selected(c->s, old->fn))
		chrome_event(c, t, old->fn, 'E', ts, "unmatched");
	if (af_fn_selected(c->s, root->fn))
		chrome_event(c, t, root->fn, 'B', ts, "unmatched");
	if (af_fn_selected(c->s, old->fn))
		chrome_event(c, t, old->fn, 'B', ts, "unmatched");
}

static void chrome_pop(void *ctx, struct cf_thread *t, const struct cf_frame *parent,
		       const struct cf_frame *f, const struct cf_cost *cost, enum cf_end_kind how)
{
	struct chrome *c = ctx;

	(void)parent;
	(void)how;
	if (af_fn_selected(c->s, f->fn))
		chrome_event(c, t, f->fn, 'E', chrome_ts(c, t, cost->end_index, 0),
			     cf_entry_kind_name(f->kind));
}

/* Every step may bring a newer time. */
static void chrome_step(void *ctx, struct cf_thread *t, const struct cf_step *st)
{
	struct chrome *c = ctx;

	if (!c->steps_clock && st->time_ns)
		chrome_ts(c, t, st->index, st->time_ns);
}

static const struct cf_consumer_ops chrome_ops = {
	.push = chrome_push, .adopt = chrome_adopt, .pop = chrome_pop, .step = chrome_step,
};

int cmd_export(int argc, char **argv, struct post_opts *opts)
{
	struct af_session s = { 0 };
	struct chrome chrome = { .s = &s, .first = true };
	struct export_cg *cg = NULL;
	enum export_format fmt = EXPORT_CALLGRIND;
	const char *format = NULL, *path = NULL, *clock = "time";
	FILE *out = NULL;
	int ret;

	for (int i = 1; i < argc; i++) {
		int r = af_common_option(argc, argv, &i, opts, &s.filter);

		if (r < 0)
			return EXIT_USAGE;
		if (r)
			continue;
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			usage(stdout);
			return 0;
		}
		if ((r = report_opt_value(argc, argv, &i, "--clock", &clock))) {
			if (r < 0)
				return EXIT_USAGE;
			if (strcmp(clock, "time") && strcmp(clock, "steps")) {
				pr_err("export: --clock '%s' is not one of time, steps", clock);
				return EXIT_USAGE;
			}
			continue;
		}
		if ((r = report_opt_value(argc, argv, &i, "--format", &format))) {
			if (r < 0)
				return EXIT_USAGE;
			continue;
		}
		if ((r = report_opt_value(argc, argv, &i, "-o", &path)) ||
		    (r = report_opt_value(argc, argv, &i, "--output", &path))) {
			if (r < 0)
				return EXIT_USAGE;
			continue;
		}
		pr_err("export: unknown option '%s' (see 'post export --help')", argv[i]);
		return EXIT_USAGE;
	}
	if (!format || !path) {
		pr_err("export: needs --format callgrind|folded|chrome and -o FILE");
		return EXIT_USAGE;
	}
	if (!strcmp(format, "callgrind")) {
		fmt = EXPORT_CALLGRIND;
	} else if (!strcmp(format, "folded")) {
		fmt = EXPORT_FOLDED;
	} else if (!strcmp(format, "chrome")) {
		fmt = EXPORT_CHROME;
	} else {
		pr_err("export: --format '%s' is not one of callgrind, folded, chrome", format);
		return EXIT_USAGE;
	}
	ret = af_open(&s, opts, fmt != EXPORT_CHROME);
	if (ret)
		goto out;
	if (fmt == EXPORT_CALLGRIND && !(cg = export_callgrind_new(&s))) {
		ret = EXIT_RUNTIME;
		goto out;
	}
	out = strcmp(path, "-") ? fopen(path, "w") : stdout;
	if (!out) {
		pr_err("export: cannot create '%s': %s", path, strerror(errno));
		ret = EXIT_RUNTIME;
		goto out;
	}
	chrome.out = out;
	chrome.steps_clock = !strcmp(clock, "steps");
	if (fmt == EXPORT_CHROME) {
		chrome.slot = cf_add_consumer(s.cf, &chrome_ops, &chrome);
		fprintf(out, "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[");
	}
	ret = af_run(&s);
	if (ret)
		goto out;
	if (fmt == EXPORT_CALLGRIND)
		ret = export_callgrind_write(cg, out);
	else if (fmt == EXPORT_FOLDED)
		ret = export_folded(&s, out);
	else
		fprintf(out, "\n]}\n");
	if (!ret)
		ret = af_finish_output(out, path);
out:
	if (out && out != stdout && fclose(out) != 0 && !ret) {
		pr_err("export: cannot write '%s': %s", path, strerror(errno));
		ret = EXIT_RUNTIME;
	}
	export_callgrind_free(cg);
	af_close(&s);
	while (chrome.threads) {
		struct chrome_thread *next = chrome.threads->next;

		free(chrome.threads);
		chrome.threads = next;
	}
	return ret;
}
