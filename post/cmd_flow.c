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

#include "util/alloc.h"
#include "post/flowreport.h"
#include "post/flowtext.h"
#include "util/log.h"
#include "post/textout.h"
#include "util/replay_pool.h"

#define FLOW_DEPTHS 128		  /* depths whose heads' tails are kept */
#define FLOW_DEPTH_TEXT (6 + 2 + 2 * FLOW_DEPTHS + 16) /* 16: copied by 16 */

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
	/* the lines of calls taken whole, put together once a replay (flow_replay_text) */
	struct replay_pool replays;
	/*
	 * Line heads: the last step written (its ten columns: a line's step is
	 * never less than the one before's, and seldom far), and the thread's
	 * column and the depth's (with the indentation) as they were written last.
	 */
	char step_text[10];
	uint64_t step;		  /* with step_ok */
	bool step_ok;
	char tid_text[8];	  /* " %7u" of tid_of */
	uint32_t tid_of;
	char (*depth_text)[FLOW_DEPTH_TEXT]; /* per depth below FLOW_DEPTHS: " %5u  " and the
				   * indentation, depth_len[depth] long (0: not yet) */
	uint8_t depth_len[FLOW_DEPTHS];
};

/*
 * A replay's lines but their heads: each at step b->first + rel, depth
 * frames above the caller's depth, its words text[off .. off + len).  A
 * replay's frames, their order and their costs are the same every time.
 */
struct flow_replay_line {
	uint32_t rel, off, len;
	uint16_t depth;
};

struct flow_replay_text {
	struct flow_replay_line *lines;
	uint32_t nr;
	char *text;
};

/* A replay's lines gone (the pool's release). */
static void flow_replay_release(void *item)
{
	struct flow_replay_text *m = item;

	free(m->lines);
	free(m->text);
}

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

/* The longest line head: "%10llu %7u %5u  " and the indentation (and 16 for copies by 16). */
#define HEAD_MAX (3 * TEXT_U64_MAX + 5 + 2 * REPORT_INDENT_MAX + 16)

#define LINES_SIZE (64 << 10)

/*
 * step's ten columns ("%10llu") at p, and kept in fl->step_text: the last
 * one's, copied before it changes (a copy of bytes just stored would wait
 * for them), plus the difference when it is a few steps more (a digit or
 * two change, the carry aside), else anew; false when step needs more than
 * ten (nothing written).
 */
static bool step_text(struct flow *fl, char *p, uint64_t step)
{
	char *d = fl->step_text;

	if (step > 9999999999ull)
		return false;
	if (fl->step_ok && step >= fl->step && step - fl->step < 1000) {
		uint64_t add = step - fl->step;
		int k = 9;

		memcpy(p, d, 10);
		for (unsigned carry = 0; add || carry; k--, add /= 10) {
			unsigned v = (d[k] == ' ' ? 0 : (unsigned)(d[k] - '0')) +
				     (unsigned)(add % 10) + carry;

			carry = v >= 10;
			p[k] = d[k] = (char)('0' + v % 10);
		}
	} else {
		memset(d, ' ', 10);
		text_u64_back(d + 10, step);
		memcpy(p, d, 10);
	}
	fl->step = step;
	fl->step_ok = true;
	return true;
}

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

			p = xrealloc(fl->line, size);
			fl->line = p;
			fl->line_size = size;
		}
	}
	p = fl->line + fl->fill;
	if (step_text(fl, p, index)) {
		p += 10;
	} else {
		p = text_u64_right_over(p, index, 10);
	}
	if (fl->tid_of != t->tid || !fl->tid_text[0]) {
		fl->tid_text[0] = ' ';
		text_u64_right_over(fl->tid_text + 1, t->tid, 7);
		fl->tid_of = t->tid;
	}
	memcpy(p, fl->tid_text, 8);
	p += 8;
	if (depth < FLOW_DEPTHS && fl->depth_text) {
		if (!fl->depth_len[depth]) {
			char *q = fl->depth_text[depth];

			*q++ = ' ';
			q = text_u64_right_over(q, depth, 5);
			q = text_spaces_over(q, 2 + report_indent(depth));
			fl->depth_len[depth] = (uint8_t)(q - fl->depth_text[depth]);
		}
		/* by stores of 16 (both have the room): a copy of a few bytes, no rep movs */
		for (unsigned k = 0; k < fl->depth_len[depth]; k += 16)
			memcpy(p + k, fl->depth_text[depth] + k, 16);
		return p + fl->depth_len[depth];
	}
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

/*
 * '>' the entry of a frame of fn (kind, from other) at step index, depth
 * frames below it, the top one of function below (CF_NO_FN: none).
 */
static void push_line(struct flow *fl, struct cf_thread *t, unsigned depth, uint8_t kind,
		      uint32_t fn, uint32_t other, uint32_t below, uint64_t index)
{
	bool module = report_module_shown(fl->r->cf, fn, below);
	char *p;

	if (fl->condensed || !in_window(fl, t, index) || !selected(fl, fn))
		return;
	p = line_start(fl, flow_text_push_room(fl->r->cf, kind, fn, other, module), index, t,
		       depth);
	line_write(fl, flow_text_push_put(p, fl->r->cf, kind, fn, other, module));
}

/*
 * The end of a frame of fn entered at step entry (cost, how), depth frames
 * below it, the top one of function below (--condensed names the module
 * as an entry line does).
 */
static void pop_line(struct flow *fl, struct cf_thread *t, unsigned depth, uint32_t fn,
		     uint32_t below, uint64_t entry, const struct cf_cost *cost,
		     enum cf_end_kind how)
{
	char mt[REPORT_MODULE_TAG_SIZE];
	bool module;
	char *p;

	if (!selected(fl, fn))
		return;
	if (fl->condensed) {
		const struct session_filter *w = session_filter(fl->r->s);

		/* a call that ran natively took no step: shown all the same */
		if ((!cost->incl && !cf_func(fl->r->cf, fn)->native) ||
		    cost->last_index < w->from || entry > w->to ||
		    !in_window(fl, t, entry))
			return;
		fl->lines++;
		module = report_module_shown(fl->r->cf, fn, below);
		printf("%10" PRIu64 " %10" PRIu64 " %11" PRIu64 " %7u %5u  %*s%s%s%s%s\n",
		       entry, cost->incl ? cost->last_index : entry, cost->incl, t->tid, depth,
		       report_indent(depth), "", fn_name(fl, fn),
		       report_module_tag(module ? cf_func(fl->r->cf, fn)->module : NULL, mt,
					 sizeof(mt)),
		       flow_text_end_note(how), report_native_mark(fl->r->cf, fn));
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
	/* A jump's frame replaced the function that jumped, not the one below. */
	uint32_t other = f->kind == CF_ENTRY_TAIL ? f->caller_fn :
			 f->kind == CF_ENTRY_JUMP ? f->from_fn : CF_NO_FN;

	push_line(ctx, t, cf_shown_depth(t) - 1, f->kind, f->fn, other,
		  parent ? parent->fn : CF_NO_FN, f->entry_index);
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
	pop_line(ctx, t, cf_shown_depth(t), f->fn, parent ? parent->fn : CF_NO_FN, f->entry_index,
		 cost, how);
}

/* A replay walked (cf_replay_walk): its frames' lines at their depths, or put together into m. */
struct flow_replay {
	struct flow *fl;
	struct cf_thread *t;
	const struct cf_replay_frame *fr;
	uint64_t first;		  /* b->first: the frames' steps count from it */
	/* per depth: the frame's function ([0] the caller's) */
	uint32_t fn[CF_REPLAY_DEPTH_MAX + 1];
	struct flow_replay_text *m; /* not NULL: the lines go here, not out */
	size_t text_size;
};

/* A line's words into w->m, at step rel of the replay, depth frames above its caller. */
static void replay_line(struct flow_replay *w, uint32_t rel, unsigned depth, size_t room,
		      bool push, const struct cf_replay_frame *f, uint32_t other)
{
	struct flow_replay_text *m = w->m;
	struct flow_replay_line *l;
	size_t off = 0;
	char *end;

	if (m->nr)
		off = m->lines[m->nr - 1].off + m->lines[m->nr - 1].len;
	if (off + room > w->text_size) {
		w->text_size = 2 * (off + room);
		m->text = xrealloc(m->text, w->text_size);
	}
	end = push ? flow_text_push_put(m->text + off, w->fl->r->cf, f->kind, f->fn, other,
					report_module_shown(w->fl->r->cf, f->fn,
							    w->fn[f->depth - 1])) :
		     flow_text_pop_put(m->text + off, w->fl->r->cf, f->fn, f->cost.incl,
				       f->cost.self, (enum cf_end_kind)f->how);
	l = &m->lines[m->nr++];
	*l = (struct flow_replay_line){ rel, (uint32_t)off, (uint32_t)(end - (m->text + off)),
					(uint16_t)depth };
}

static void flow_replay_visit(void *ctx, uint32_t k, bool push)
{
	struct flow_replay *w = ctx;
	const struct cf_replay_frame *f = &w->fr[k];
	unsigned depth = cf_shown_depth(w->t) + f->depth - 1;
	uint64_t entry = w->first + f->start;

	if (push) {
		/* fn[depth] is still the frame this one replaced: a replay pushes
		 * every frame above its call itself. */
		uint32_t other = f->kind == CF_ENTRY_TAIL ? f->caller_fn :
				 f->kind == CF_ENTRY_JUMP ? w->fn[f->depth] : CF_NO_FN;

		w->fn[f->depth] = f->fn;
		if (!w->m)
			push_line(w->fl, w->t, depth, f->kind, f->fn, other, w->fn[f->depth - 1],
				  entry);
		else if (selected(w->fl, f->fn))
			replay_line(w, f->start, f->depth,
				  flow_text_push_room(w->fl->r->cf, f->kind, f->fn, other, true),
				  true, f, other);
	} else if (w->m) {
		if (selected(w->fl, f->fn))
			replay_line(w, (uint32_t)f->cost.end_index, f->depth,
				  flow_text_pop_room(w->fl->r->cf, f->fn), false, f, CF_NO_FN);
	} else {
		struct cf_cost cost = f->cost;

		cost.last_index += w->first;
		cost.end_index += w->first;
		pop_line(w->fl, w->t, depth, f->fn, w->fn[f->depth - 1], entry, &cost,
			 (enum cf_end_kind)f->how);
	}
}

/* The replay's lines (words[0]: its flow_replay_text + 1), put together the first time. */
static struct flow_replay_text *flow_replay_text_of(struct flow *fl, struct cf_thread *t,
						    const struct cf_replay_frame *fr, uint32_t nr,
						    uint32_t *words)
{
	struct flow_replay w;	/* no initializer: fn[] is written before it is read */
	struct flow_replay_text *m;
	bool made;

	m = replay_pool_of(&fl->replays, words, &made);
	if (!made)
		return m;
	m->lines = xreallocarray(NULL, 2 * nr, sizeof(*m->lines));
	w.fl = fl;
	w.t = t;
	w.fr = fr;
	w.first = 0;
	w.m = m;
	w.text_size = 0;
	w.fn[0] = t->depth ? t->frames[t->depth - 1].fn : CF_NO_FN;
	cf_replay_walk(fr, nr, flow_replay_visit, &w);
	return m;
}

/*
 * A call the engine took whole: each frame's lines as on_push() and
 * on_pop() print them.  With no window (a replay is taken only then) and
 * not condensed, their words are put together once for the replay, each
 * line's head (step, thread, depth) then written to them.
 */
static void on_replay(void *ctx, struct cf_thread *t, const struct cf_replay_frame *fr, uint32_t nr,
		      const struct cf_bulk *before, const struct cf_bulk *b, uint32_t *words)
{
	struct flow *fl = ctx;
	const struct flow_replay_text *m;
	struct flow_replay w;	/* no initializer: fn[] is written before it is read */

	(void)before;
	if (!fl->condensed && !session_windowed(fl->r->s)) {
		m = flow_replay_text_of(fl, t, fr, nr, words);
		for (uint32_t k = 0; k < m->nr; k++) {
			const struct flow_replay_line *l = &m->lines[k];
			char *p = line_start(fl, l->len, b->first + l->rel, t,
					     cf_shown_depth(t) + l->depth - 1);

			memcpy(p, m->text + l->off, l->len);
			line_write(fl, p + l->len);
		}
		return;
	}
	w.fl = fl;
	w.t = t;
	w.fr = fr;
	w.first = b->first;
	w.m = NULL;
	w.fn[0] = t->depth ? t->frames[t->depth - 1].fn : CF_NO_FN;
	cf_replay_walk(fr, nr, flow_replay_visit, &w);
}

/* The replay is gone: its lines too. */
static void on_replay_drop(void *ctx, uint32_t *words)
{
	replay_pool_drop(&((struct flow *)ctx)->replays, words);
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
	line_head(fl, in->index, t, cf_shown_depth(t));
	flow_text_interrupt(stdout, fl->r->cf, in->async, in->fn);
	putchar('\n');
}

static const struct cf_consumer_ops flow_ops = {
	.push = on_push, .adopt = on_adopt, .pop = on_pop, .mark = on_mark,
	.interrupt = on_interrupt, .replay = on_replay, .replay_drop = on_replay_drop,
};

int cmd_flow(int argc, char **argv, struct post_opts *opts)
{
	struct session_filter f = SESSION_FILTER_INIT;
	struct flow_report r;
	struct flow fl = {
		.r = &r, .replays = REPLAY_POOL_INIT(struct flow_replay_text, flow_replay_release),
	};
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
	fl.depth_text = malloc(FLOW_DEPTHS * sizeof(*fl.depth_text)); /* without it: formatted */
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
	replay_pool_free(&fl.replays);
	free(fl.depth_text);
	flow_report_close(&r);
	free(fl.line);
	return ret;
}
