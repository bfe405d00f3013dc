// SPDX-License-Identifier: GPL-2.0
/*
 * post export --format chrome: Chrome/Perfetto JSON trace events, a B/E
 * pair per frame per thread, written while the engine runs.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "export.h"
#include "log.h"


struct chrome {
	struct flow_report *r;
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
	const char *name = cf_func(c->r->cf, fn)->name;

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
	if (fr_selected(c->r, f->fn))
		chrome_event(c, t, f->fn, 'B', chrome_ts(c, t, f->entry_index, f->entry_time),
			     cf_entry_kind_name(f->kind));
}

static void chrome_adopt(void *ctx, struct cf_thread *t, const struct cf_frame *root)
{
	struct chrome *c = ctx;
	const struct cf_frame *old = &t->frames[1];
	double ts = chrome_ts(c, t, t->last_index + 1, 0);

	/* The caller appears below an open frame: close it, open the caller, reopen it. */
	if (fr_selected(c->r, old->fn))
		chrome_event(c, t, old->fn, 'E', ts, "unmatched");
	if (fr_selected(c->r, root->fn))
		chrome_event(c, t, root->fn, 'B', ts, "unmatched");
	if (fr_selected(c->r, old->fn))
		chrome_event(c, t, old->fn, 'B', ts, "unmatched");
}

static void chrome_pop(void *ctx, struct cf_thread *t, const struct cf_frame *parent,
		       const struct cf_frame *f, const struct cf_cost *cost, enum cf_end_kind how)
{
	struct chrome *c = ctx;

	(void)parent;
	(void)how;
	if (fr_selected(c->r, f->fn))
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

struct chrome *export_chrome_new(struct flow_report *r, FILE *out, bool steps_clock)
{
	struct chrome *c = calloc(1, sizeof(*c));

	if (!c) {
		pr_err("out of memory for the Chrome export");
		return NULL;
	}
	c->r = r;
	c->out = out;
	c->first = true;
	c->steps_clock = steps_clock;
	c->slot = cf_add_consumer(r->cf, &chrome_ops, c);
	if (c->slot < 0) {
		pr_err("too many report builders on one call flow");
		free(c);
		return NULL;
	}
	fprintf(out, "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[");
	return c;
}

int export_chrome_finish(struct chrome *c)
{
	fprintf(c->out, "\n]}\n");
	return 0;
}

void export_chrome_free(struct chrome *c)
{
	if (!c)
		return;
	while (c->threads) {
		struct chrome_thread *next = c->threads->next;

		free(c->threads);
		c->threads = next;
	}
	free(c);
}
