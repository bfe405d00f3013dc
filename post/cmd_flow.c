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
#include <unistd.h>

#include "flowreport.h"
#include "flowtext.h"
#include "log.h"
#include "textout.h"

struct flow {
	struct flow_report *r;
	bool condensed;
	bool no_interrupts;	  /* --no-interrupts: no '~' lines */
	bool filtered;		  /* --module, --symbol or --ring */
	uint64_t lines;
	uint32_t last_tid;	  /* thread of the last line printed, 0 none */
	/* lines of calls and returns, put together here and written in large pieces
	 * (a line at a time to a terminal): what else writes to stdout flushes it */
	char *line;
	size_t line_size, fill;
	bool direct;
};

static void flow_flush(struct flow *fl)
{
	if (fl->fill)
		fwrite_unlocked(fl->line, 1, fl->fill, stdout);
	fl->fill = 0;
}

static char flow_buffer[256 << 10];	  /* stdout's buffer (it lives until exit) */

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
		flow_flush(fl);
		printf("%10" PRIu64 " %7u %5s  = thread %u (pid %u)\n", index, t->tid, "", t->tid,
		       t->pid);
	}
	fl->last_tid = t->tid;
}

/* The longest line head: "%10llu %7u %5u  " and the indentation. */
#define HEAD_MAX (3 * TEXT_U64_MAX + 5 + 2 * REPORT_INDENT_MAX)

#define LINES_SIZE (64 << 10)

/*
 * A line at step index of thread t at depth, with words bytes after its
 * head: the head ("%10llu %7u %5u  " and the indentation, without printf)
 * put in the lines' buffer, where the words go next (line_write).
 */
static char *line_start(struct flow *fl, size_t words, uint64_t index, const struct cf_thread *t,
			unsigned depth)
{
	size_t need = HEAD_MAX + 8 + words + 1;	/* 8: text_spaces_over's stores */
	char *p;

	switch_mark(fl, index, t);
	fl->lines++;
	if (fl->fill + need > fl->line_size) {
		flow_flush(fl);
		if (need > fl->line_size) {
			size_t size = need > LINES_SIZE ? need : LINES_SIZE;

			p = realloc(fl->line, size);
			if (!p) {
				pr_err("out of memory for a line of the flow");
				exit(EXIT_RUNTIME);
			}
			fl->line = p;
			fl->line_size = size;
		}
	}
	p = fl->line + fl->fill;
	p = text_u64_right_over(p, index, 10);
	*p++ = ' ';
	p = text_u64_right_over(p, t->tid, 7);
	*p++ = ' ';
	p = text_u64_right_over(p, depth, 5);
	return text_spaces_over(p, 2 + report_indent(depth));
}

/* The line whose words end at p, with its newline. */
static void line_write(struct flow *fl, char *p)
{
	*p++ = '\n';
	fl->fill = (size_t)(p - fl->line);
	if (fl->direct)
		flow_flush(fl);
}

/* A line head whose words the caller writes to stdout. */
static void line_head(struct flow *fl, uint64_t index, const struct cf_thread *t, unsigned depth)
{
	char *p = line_start(fl, 0, index, t, depth);

	fl->fill = (size_t)(p - fl->line);
	flow_flush(fl);
}

/* '>' the entry of a frame of fn (kind, from other) at step index, depth frames below it. */
static void push_line(struct flow *fl, struct cf_thread *t, unsigned depth, uint8_t kind,
		      uint32_t fn, uint32_t other, uint64_t index)
{
	char *p;

	if (fl->condensed || !in_window(fl, t, index) || !selected(fl, fn))
		return;
	p = line_start(fl, flow_text_push_room(fl->r->cf, kind, fn, other), index, t, depth);
	line_write(fl, flow_text_push_put(p, fl->r->cf, kind, fn, other));
}

/* The end of a frame of fn entered at step entry (cost, how), depth frames below it. */
static void pop_line(struct flow *fl, struct cf_thread *t, unsigned depth, uint32_t fn,
		     uint64_t entry, const struct cf_cost *cost, enum cf_end_kind how)
{
	char *p;

	if (!selected(fl, fn))
		return;
	if (fl->condensed) {
		const struct session_filter *w = session_filter(fl->r->s);

		if (!cost->incl || cost->last_index < w->from || entry > w->to ||
		    !in_window(fl, t, entry))
			return;
		fl->lines++;
		printf("%10" PRIu64 " %10" PRIu64 " %11" PRIu64 " %7u %5u  %*s%s%s\n",
		       entry, cost->last_index, cost->incl, t->tid, depth,
		       report_indent(depth), "", fn_name(fl, fn), flow_text_end_note(how));
		return;
	}
	if (!in_window(fl, t, cost->end_index))
		return;
	p = line_start(fl, flow_text_pop_room(fl->r->cf, fn), cost->end_index, t, depth);
	line_write(fl, flow_text_pop_put(p, fl->r->cf, fn, cost->incl, cost->self, how));
}

static void on_push(void *ctx, struct cf_thread *t, const struct cf_frame *parent,
		    const struct cf_frame *f)
{
	uint32_t other = f->kind == CF_ENTRY_TAIL ? f->caller_fn :
			 f->kind == CF_ENTRY_JUMP && parent ? parent->fn : CF_NO_FN;

	push_line(ctx, t, t->depth - 1, f->kind, f->fn, other, f->entry_index);
}

static void on_adopt(void *ctx, struct cf_thread *t, const struct cf_frame *root)
{
	struct flow *fl = ctx;
	uint64_t index = t->last_index + 1;

	if (fl->condensed || !in_window(fl, t, index) || !selected(fl, root->fn))
		return;
	line_head(fl, index, t, 0);
	flow_text_adopt(stdout, fl->r->cf, root->fn);
	putchar('\n');
}

static void on_pop(void *ctx, struct cf_thread *t, const struct cf_frame *parent,
		   const struct cf_frame *f, const struct cf_cost *cost, enum cf_end_kind how)
{
	(void)parent;
	pop_line(ctx, t, t->depth, f->fn, f->entry_index, cost, how);
}

/* A replay walked (cf_replay_walk): its frames' lines at their depths. */
struct flow_replay {
	struct flow *fl;
	struct cf_thread *t;
	const struct cf_replay_frame *fr;
	uint64_t first;		  /* b->first: the frames' steps count from it */
	uint32_t fn[CF_REPLAY_DEPTH_MAX + 1]; /* per depth: the frame's function ([0] the caller's) */
};

static void flow_replay_visit(void *ctx, uint32_t k, bool push)
{
	struct flow_replay *w = ctx;
	const struct cf_replay_frame *f = &w->fr[k];
	unsigned depth = w->t->depth + f->depth - 1;
	uint64_t entry = w->first + f->start;

	if (push) {
		uint32_t other = f->kind == CF_ENTRY_TAIL ? f->caller_fn :
				 f->kind == CF_ENTRY_JUMP ? w->fn[f->depth - 1] : CF_NO_FN;

		w->fn[f->depth] = f->fn;
		push_line(w->fl, w->t, depth, f->kind, f->fn, other, entry);
	} else {
		struct cf_cost cost = f->cost;

		cost.last_index += w->first;
		cost.end_index += w->first;
		pop_line(w->fl, w->t, depth, f->fn, entry, &cost, (enum cf_end_kind)f->how);
	}
}

/* A call the engine took whole: each frame's lines as on_push() and on_pop() print them. */
static void on_replay(void *ctx, struct cf_thread *t, const struct cf_replay_frame *fr, uint32_t nr,
		      const struct cf_bulk *before, const struct cf_bulk *b, uint32_t *memo)
{
	struct flow_replay w;	/* no initializer: fn[] is written before it is read */

	(void)before; (void)memo;
	w.fl = ctx;
	w.t = t;
	w.fr = fr;
	w.first = b->first;
	w.fn[0] = t->depth ? t->frames[t->depth - 1].fn : CF_NO_FN;
	cf_replay_walk(fr, nr, flow_replay_visit, &w);
}

static void on_mark(void *ctx, struct cf_thread *t, enum cf_mark m, uint64_t index)
{
	struct flow *fl = ctx;

	if (fl->condensed || !in_window(fl, t, index) || fl->filtered)
		return;
	if (m == CF_MARK_GAP || m == CF_MARK_OFF || m == CF_MARK_EXIT)
		flow_flush(fl);	/* printf's line goes after the lines held */
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

	if (fl->condensed || fl->no_interrupts || !in_window(fl, t, in->index))
		return;
	if (fl->filtered && (in->fn == CF_NO_FN || !selected(fl, in->fn)))
		return;
	line_head(fl, in->index, t, t->depth);
	flow_text_interrupt(stdout, fl->r->cf, in->async, in->fn);
	putchar('\n');
}

static const struct cf_consumer_ops flow_ops = {
	.push = on_push, .adopt = on_adopt, .pop = on_pop, .mark = on_mark,
	.interrupt = on_interrupt, .replay = on_replay,
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
		/* a line per call: to a file or a pipe in fewer writes (a terminal keeps its lines) */
		if (!isatty(STDOUT_FILENO))
			setvbuf(stdout, flow_buffer, _IOFBF, sizeof(flow_buffer));
		else
			fl.direct = true;
		output_start(&oo);
		report_header(stdout, r.s, fl.condensed ? "condensed call flow" : "call flow");
		if (fl.condensed)
			printf("#%9s %10s %11s %7s %5s  %s\n", "first", "last", "insns", "tid",
			       "depth", "function (listed when it ends)");
		else
			printf("#%9s %7s %5s  %s\n", "step", "tid", "depth", "event");
		ret = flow_report_run(&r);
		flow_flush(&fl);
	}
	if (!ret)
		ret = report_finish(stdout, "the call flow");
	flow_report_close(&r);
	free(fl.line);
	return ret;
}
