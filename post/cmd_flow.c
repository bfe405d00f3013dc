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

#include "flowreport.h"
#include "arch_vectors.h"
#include "log.h"

struct flow {
	struct flow_report *r;
	bool condensed;
	bool no_interrupts;	  /* --no-interrupts: no '~' lines */
	bool filtered;		  /* --module, --symbol or --ring */
	uint64_t lines;
	uint32_t last_tid;	  /* thread of the last line printed, 0 none */
};

static const struct popt_cmd cmd = {
	.name = "flow", .synopsis = "[OPTIONS]",
	.description =
	"The call flow in the order it happened: '>' a call (or other entry), '<' its\n"
	"end with the instructions it took (incl) and its own (self), '!' an\n"
	"asynchronous entry, '?' a return to a caller from before the trace, '=' a\n"
	"thread switch, '-' steps missing or recording off, '~' an interrupt or\n"
	"exception the thread took (the flow goes on unchanged).  With --module/--symbol, only lines of such\n"
	"functions; with a window, only its lines (the costs are the calls' own).",
};

/* A line at step index (its time: the thread's last known) is inside the window. */
static bool in_window(const struct flow *fl, const struct cf_thread *t, uint64_t index)
{
	return session_in_window(fl->r->s, index, t->last_time);
}

static bool selected(const struct flow *fl, uint32_t fn)
{
	return fr_selected(fl->r, fn);
}

/* Names whole: a flow line is not a table column. */
static const char *fn_name(const struct flow *fl, uint32_t fn)
{
	return cf_func(fl->r->cf, fn)->name;
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
	printf("%10" PRIu64 " %7u %5u  %*s", index, t->tid, depth, report_indent(depth), "");
}

static void on_push(void *ctx, struct cf_thread *t, const struct cf_frame *parent,
		    const struct cf_frame *f)
{
	struct flow *fl = ctx;
	unsigned depth = t->depth - 1;

	if (fl->condensed || !in_window(fl, t, f->entry_index) || !selected(fl, f->fn))
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

	if (fl->condensed || !in_window(fl, t, index) || !selected(fl, root->fn))
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
	case CF_END_OFF:
		return ", recording off";
	default:
		return "";
	}
}

static void on_pop(void *ctx, struct cf_thread *t, const struct cf_frame *parent,
		   const struct cf_frame *f, const struct cf_cost *cost, enum cf_end_kind how)
{
	struct flow *fl = ctx;

	(void)parent;
	if (!selected(fl, f->fn))
		return;
	if (fl->condensed) {
		const struct session_filter *w = session_filter(fl->r->s);

		if (!cost->incl || cost->last_index < w->from || f->entry_index > w->to ||
		    !in_window(fl, t, f->entry_index))
			return;
		fl->lines++;
		printf("%10" PRIu64 " %10" PRIu64 " %11" PRIu64 " %7u %5u  %*s%s%s\n",
		       f->entry_index, cost->last_index, cost->incl, t->tid, t->depth,
		       report_indent(t->depth), "", fn_name(fl, f->fn), end_note(how));
		return;
	}
	if (!in_window(fl, t, cost->end_index))
		return;
	line_head(fl, cost->end_index, t, t->depth);
	printf("< %s (incl %" PRIu64 ", self %" PRIu64 "%s)\n", fn_name(fl, f->fn), cost->incl,
	       cost->self, end_note(how));
}

static void on_mark(void *ctx, struct cf_thread *t, enum cf_mark m, uint64_t index)
{
	struct flow *fl = ctx;

	if (fl->condensed || !in_window(fl, t, index) || fl->filtered)
		return;
	switch (m) {
	case CF_MARK_GAP:
		switch_mark(fl, index, t);
		fl->lines++;
		printf("%10" PRIu64 " %7u %5s  - steps missing\n", index, t->tid, "");
		break;
	case CF_MARK_OFF:
		switch_mark(fl, index, t);
		fl->lines++;
		printf("%10" PRIu64 " %7u %5s  - recording off\n", index, t->tid, "");
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

	if (fl->condensed || fl->no_interrupts || !in_window(fl, t, in->index))
		return;
	if (fl->filtered && (in->fn == CF_NO_FN || !selected(fl, in->fn)))
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
	struct session_filter f = SESSION_FILTER_INIT;
	struct flow_report r;
	struct flow fl = { .r = &r };
	struct output_opts oo = { 0 };
	const struct popt opt[] = {
		OPT_GROUP("Options"),
		OPT_FLAG(0, "condensed", &fl.condensed,
			 "one line per call: first and last step, instructions\n"
			 "(printed when the call ends)"),
		OPT_FLAG(0, "no-interrupts", &fl.no_interrupts, "no '~' lines"),
		OPT_GROUP("Output"), POST_PAGER_OPTIONS(&oo),
		POST_FILTER_OPTIONS(&f), POST_WINDOW_OPTIONS(&f), POST_TRACE_OPTIONS(opts), OPT_END
	};
	const struct popt *tables[] = { opt, NULL };
	int ret = post_parse(&cmd, argc, argv, tables, opts, &f, 0, NULL, NULL);

	if (ret)
		return POST_EXIT(ret);
	fl.filtered = f.module || f.symbol || f.ring;
	ret = flow_report_open(&r, opts, &f, 0, fl.condensed ? "condensed call flow" : "call flow");
	if (!ret && cf_add_consumer(r.cf, &flow_ops, &fl) < 0)
		ret = EXIT_RUNTIME;
	if (!ret) {
		output_start(&oo);
		report_header(stdout, r.s, fl.condensed ? "condensed call flow" : "call flow");
		if (fl.condensed)
			printf("#%9s %10s %11s %7s %5s  %s\n", "first", "last", "insns", "tid",
			       "depth", "function (listed when it ends)");
		else
			printf("#%9s %7s %5s  %s\n", "step", "tid", "depth", "event");
		ret = flow_report_run(&r);
	}
	if (!ret)
		ret = report_finish(stdout, "the call flow");
	flow_report_close(&r);
	return ret;
}
