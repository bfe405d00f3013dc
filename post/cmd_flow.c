// SPDX-License-Identifier: GPL-2.0
/*
 * post flow: the chronological call flow, one line per call and return,
 * indented by depth, with thread switches, asynchronous entries,
 * interrupts, exceptions and unmatched returns marked; --condensed gives
 * one line per call.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "arcflow.h"
#include "arch_vectors.h"
#include "log.h"

struct flow {
	struct af_session *s;
	bool condensed;
	bool no_interrupts;	  /* --no-interrupts: no '~' lines */
	uint64_t from, to;	  /* window of step indexes, inclusive */
	uint64_t lines;
	uint32_t last_tid;	  /* thread of the last line printed, 0 none */
};

static void usage(FILE *f)
{
	fprintf(f, "usage: post flow [OPTIONS]\n\n"
		   "The call flow in the order it happened: '>' a call (or other entry), '<' its\n"
		   "end with the instructions it took (incl) and its own (self), '!' an\n"
		   "asynchronous entry, '?' a return to a caller from before the trace, '=' a\n"
		   "thread switch, '-' steps missing, '~' an interrupt or exception the thread\n"
		   "took (the flow goes on unchanged).  Options:\n"
		   "  -i DIR           trace directory (default pitrace.data)\n"
		   "  --from N         start at step index N\n"
		   "  --to M           stop after step index M\n"
		   "  --condensed      one line per call: first and last step, instructions\n"
		   "                   (printed when the call ends)\n"
		   "  --no-interrupts  no '~' lines\n"
		   "%s"
		   "With --module/--symbol, only lines of such functions.\n", af_filter_help);
}

static bool in_window(const struct flow *fl, uint64_t index)
{
	return index >= fl->from && index <= fl->to;
}

static const char *fn_name(const struct flow *fl, uint32_t fn)
{
	return cf_func(fl->s->cf, fn)->name;
}

/* A thread switch is shown only where the lines printed change thread. */
static void switch_mark(struct flow *fl, uint64_t index, const struct cf_thread *t)
{
	if (fl->last_tid && fl->last_tid != t->tid) {
		fl->lines++;
		printf("%10" PRIu64 " %7u %5s  = thread %u (pid %u)\n", index, t->tid, "", t->tid,
		       t->pid);
	}
	fl->last_tid = t->tid;
}

static void line_head(struct flow *fl, uint64_t index, const struct cf_thread *t, unsigned depth)
{
	switch_mark(fl, index, t);
	fl->lines++;
	printf("%10" PRIu64 " %7u %5u  %*s", index, t->tid, depth, (int)(2 * depth), "");
}

static void on_push(void *ctx, struct cf_thread *t, const struct cf_frame *parent,
		    const struct cf_frame *f)
{
	struct flow *fl = ctx;
	unsigned depth = t->depth - 1;

	if (fl->condensed || !in_window(fl, f->entry_index) || !af_fn_selected(fl->s, f->fn))
		return;
	line_head(fl, f->entry_index, t, depth);
	switch (f->kind) {
	case CF_ENTRY_ROOT:
		printf("> %s (first step of the thread)\n", fn_name(fl, f->fn));
		break;
	case CF_ENTRY_CALL:
		printf("> %s\n", fn_name(fl, f->fn));
		break;
	case CF_ENTRY_TAIL:
		printf("> %s (tail call from %s)\n", fn_name(fl, f->fn), fn_name(fl, f->caller_fn));
		break;
	case CF_ENTRY_JUMP:
		printf("> %s (jump from %s)\n", fn_name(fl, f->fn),
		       parent ? fn_name(fl, parent->fn) : "?");
		break;
	case CF_ENTRY_ASYNC:
		printf("! %s (asynchronous entry)\n", fn_name(fl, f->fn));
		break;
	case CF_ENTRY_KERNEL:
		printf("> %s (kernel)\n", fn_name(fl, f->fn));
		break;
	default:
		printf("> %s (%s)\n", fn_name(fl, f->fn), cf_entry_kind_name(f->kind));
		break;
	}
}

static void on_adopt(void *ctx, struct cf_thread *t, const struct cf_frame *root)
{
	struct flow *fl = ctx;
	uint64_t index = t->last_index + 1;

	if (fl->condensed || !in_window(fl, index) || !af_fn_selected(fl->s, root->fn))
		return;
	line_head(fl, index, t, 0);
	printf("? %s (unmatched return: its caller, from before the trace)\n",
	       fn_name(fl, root->fn));
}

static const char *end_note(enum cf_end_kind how)
{
	switch (how) {
	case CF_END_UNWIND:
		return ", unwound";
	case CF_END_REPLACED:
		return ", replaced";
	case CF_END_FLUSH:
		return ", still running at the end";
	default:
		return "";
	}
}

static void on_pop(void *ctx, struct cf_thread *t, const struct cf_frame *parent,
		   const struct cf_frame *f, const struct cf_cost *cost, enum cf_end_kind how)
{
	struct flow *fl = ctx;

	(void)parent;
	if (!af_fn_selected(fl->s, f->fn))
		return;
	if (fl->condensed) {
		if (!cost->incl || cost->last_index < fl->from || f->entry_index > fl->to)
			return;
		fl->lines++;
		printf("%10" PRIu64 " %10" PRIu64 " %11" PRIu64 " %7u %5u  %*s%s%s\n",
		       f->entry_index, cost->last_index, cost->incl, t->tid, t->depth,
		       (int)(2 * t->depth), "", fn_name(fl, f->fn), end_note(how));
		return;
	}
	if (!in_window(fl, cost->end_index))
		return;
	line_head(fl, cost->end_index, t, t->depth);
	printf("< %s (incl %" PRIu64 ", self %" PRIu64 "%s)\n", fn_name(fl, f->fn), cost->incl,
	       cost->self, end_note(how));
}

static void on_mark(void *ctx, struct cf_thread *t, enum cf_mark m, uint64_t index)
{
	struct flow *fl = ctx;

	if (fl->condensed || !in_window(fl, index) || fl->s->filter.symbol || fl->s->filter.module)
		return;
	switch (m) {
	case CF_MARK_GAP:
		switch_mark(fl, index, t);
		fl->lines++;
		printf("%10" PRIu64 " %7u %5s  - steps missing\n", index, t->tid, "");
		break;
	case CF_MARK_EXIT:
		switch_mark(fl, index, t);
		fl->lines++;
		printf("%10" PRIu64 " %7u %5s  = thread %u exits\n", index, t->tid, "", t->tid);
		break;
	default:
		break;	/* switches show before lines; ASYNC, UNMATCHED on the frames */
	}
}

/* '~' an interrupt or exception, at the depth of the code it interrupted. */
static void on_interrupt(void *ctx, struct cf_thread *t, const struct cf_interrupt *in)
{
	struct flow *fl = ctx;
	const struct trace_async *as = in->async;
	const char *name;
	char why[128];

	if (fl->condensed || fl->no_interrupts || !in_window(fl, in->index))
		return;
	if ((fl->s->filter.symbol || fl->s->filter.module) &&
	    (in->fn == CF_NO_FN || !af_fn_selected(fl->s, in->fn)))
		return;
	line_head(fl, in->index, t, t->depth);
	switch (as->kind) {
	case PT_ASYNC_EXCEPTION:
		if (arch_exception_is_page_fault(as->number) && as->detail) {
			printf("~ page fault at 0x%" PRIx64 " (%s)", as->address,
			       arch_page_fault_describe(as->error, why, sizeof(why)));
			break;
		}
		name = arch_exception_name(as->number);
		printf("~ exception %" PRIu64 "%s%s%s", as->number, name ? " (" : "",
		       name ? name : "", name ? ")" : "");
		break;
	case PT_ASYNC_INTERRUPT:
		name = arch_interrupt_name(as->number);
		printf("~ interrupt vector %" PRIu64 "%s%s%s", as->number, name ? " (" : "",
		       name ? name : "", name ? ")" : "");
		break;
	default:
		printf("~ irq %" PRIu64, as->number);
		break;
	}
	if (in->fn != CF_NO_FN)
		printf(" in %s", fn_name(fl, in->fn));
	putchar('\n');
}

static const struct cf_consumer_ops flow_ops = {
	.push = on_push, .adopt = on_adopt, .pop = on_pop, .mark = on_mark,
	.interrupt = on_interrupt,
};

int cmd_flow(int argc, char **argv, struct post_opts *opts)
{
	struct af_session s = { 0 };
	struct flow fl = { .s = &s, .to = UINT64_MAX };
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
		if (!strcmp(argv[i], "--condensed")) {
			fl.condensed = true;
			continue;
		}
		if (!strcmp(argv[i], "--no-interrupts")) {
			fl.no_interrupts = true;
			continue;
		}
		if ((r = af_window_option("flow", argc, argv, &i, &fl.from, &fl.to))) {
			if (r < 0)
				return EXIT_USAGE;
			continue;
		}
		pr_err("flow: unknown option '%s' (see 'post flow --help')", argv[i]);
		return EXIT_USAGE;
	}
	if (af_window_check("flow", fl.from, fl.to) < 0)
		return EXIT_USAGE;
	ret = af_open(&s, opts, false);
	if (!ret) {
		cf_add_consumer(s.cf, &flow_ops, &fl);
		af_print_header(stdout, &s, fl.condensed ? "condensed call flow" : "call flow");
		if (fl.condensed)
			printf("#%9s %10s %11s %7s %5s  %s\n", "first", "last", "insns", "tid",
			       "depth", "function (listed when it ends)");
		else
			printf("#%9s %7s %5s  %s\n", "step", "tid", "depth", "event");
		ret = af_run(&s);
	}
	if (!ret)
		ret = af_finish_output(stdout, "the call flow");
	af_close(&s);
	return ret;
}
