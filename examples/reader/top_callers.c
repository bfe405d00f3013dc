// SPDX-License-Identifier: GPL-2.0
/*
 * top_callers: calls, Base and Cum per function from a trace's calls and
 * returns only (libpitrace's reader, include/pitrace/reader.h): no step is
 * asked for, so the call-flow engine keeps its fast path.
 *
 *   cc -o top_callers top_callers.c $(pkg-config --cflags --libs libpitrace)
 *   top_callers [-n N] [-s] [-e] [-1] TRACE_DIR
 *
 * Prints "calls base cum function module" per function, most calls first;
 * -n N the first N only, -s the pass's figures on stderr.  -e prints each
 * call and return as it comes instead; -1 asks for steps too (and drops
 * them), which makes the engine take every step one at a time: the
 * calls and returns must be the same.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <pitrace/reader.h>

struct func_row {
	uint32_t id;
	uint64_t calls, base, cum;
};

struct table {
	struct func_row *rows;	  /* by function id */
	uint32_t size;
};

static struct func_row *row(struct table *t, uint32_t id)
{
	if (id >= t->size) {
		uint32_t n = t->size ? t->size : 256;

		while (n <= id)
			n *= 2;
		t->rows = realloc(t->rows, n * sizeof(*t->rows));
		if (!t->rows) {
			fprintf(stderr, "top_callers: out of memory\n");
			exit(1);
		}
		memset(t->rows + t->size, 0, (n - t->size) * sizeof(*t->rows));
		t->size = n;
	}
	t->rows[id].id = id;
	return &t->rows[id];
}

static int on_call(void *ctx, const struct ptr_call *c)
{
	if (PTR_CALL_COUNTS(c->kind))
		row(ctx, c->callee)->calls++;
	return 0;
}

static int on_return(void *ctx, const struct ptr_return *r)
{
	struct func_row *f = row(ctx, r->func);

	f->base += r->base;
	f->cum += r->fn_cum;
	return 0;
}

/* -e: every call and return, with every field but the time. */
static int print_call(void *ctx, const struct ptr_call *c)
{
	(void)ctx;
	printf("call %u %u depth %u index %" PRIu64 " %u -> %u kind %u pc %#" PRIx64
	       " target %#" PRIx64 "\n", c->pid, c->tid, c->depth, c->index, c->caller,
	       c->callee, c->kind, c->pc, c->target);
	return 0;
}

static int print_return(void *ctx, const struct ptr_return *r)
{
	(void)ctx;
	printf("ret %u %u depth %u index %" PRIu64 " %u <- %u base %" PRIu64 " cum %" PRIu64
	       " arc_cum %" PRIu64 " fn_cum %" PRIu64 " kind %u call_kind %u\n", r->pid, r->tid,
	       r->depth, r->index, r->caller, r->func, r->base, r->cum, r->arc_cum, r->fn_cum,
	       r->kind, r->call_kind);
	return 0;
}

static int drop_step(void *ctx, const struct ptr_step *s)
{
	(void)ctx;
	(void)s;
	return 0;
}

static int by_calls(const void *a, const void *b)
{
	const struct func_row *x = a, *y = b;

	if (x->calls != y->calls)
		return x->calls < y->calls ? 1 : -1;
	return x->id < y->id ? -1 : x->id > y->id;
}

static void print_stats(struct ptr_reader *r)
{
	struct ptr_pass_stats st = { .size = sizeof(st) };

	if (ptr_get_pass_stats(r, &st) == 0)
		fprintf(stderr, "pass: %" PRIu64 " steps, %" PRIu64 " one at a time, %" PRIu64
			" calls taken whole (%" PRIu64 " steps), %.3f s of CPU\n", st.steps,
			st.steps_single, st.calls_whole, st.steps_whole, st.cpu_seconds);
}

int main(int argc, char **argv)
{
	struct ptr_callbacks cb = { .size = sizeof(cb), .call = on_call, .ret = on_return };
	struct table t = { 0 };
	struct ptr_reader *r;
	long top = -1;
	int c, err, stats = 0;

	while ((c = getopt(argc, argv, "n:se1")) != -1) {
		if (c == 'n') {
			top = strtol(optarg, NULL, 10);
		} else if (c == 's') {
			stats = 1;
		} else if (c == 'e') {
			cb.call = print_call;
			cb.ret = print_return;
		} else if (c == '1') {
			cb.step = drop_step;
		} else {
			goto usage;
		}
	}
	if (optind != argc - 1)
		goto usage;
	if (ptr_version() >> 16 != PTR_VERSION_MAJOR) {
		fprintf(stderr, "top_callers: libpitrace's reader is version %u, not %u\n",
			ptr_version() >> 16, PTR_VERSION_MAJOR);
		return 1;
	}
	r = ptr_open(argv[optind], NULL, &err);
	if (!r)
		return 1;	/* the library said why */
	err = ptr_run(r, NULL, &cb, &t);
	if (err) {
		fprintf(stderr, "top_callers: %s: %s\n", argv[optind], ptr_strerror(err));
		ptr_close(r);
		return 1;
	}
	if (stats)
		print_stats(r);
	qsort(t.rows, t.size, sizeof(*t.rows), by_calls);
	for (uint32_t i = 0; i < t.size && (top < 0 || i < top); i++) {
		struct ptr_func f = { .size = sizeof(f) };

		if (!t.rows[i].calls && !t.rows[i].base && !t.rows[i].cum)
			continue;
		if (ptr_get_func(r, t.rows[i].id, &f))
			continue;
		printf("%" PRIu64 " %" PRIu64 " %" PRIu64 " %s %s\n", t.rows[i].calls,
		       t.rows[i].base, t.rows[i].cum, f.name, f.module);
	}
	free(t.rows);
	ptr_close(r);
	return 0;
usage:
	fprintf(stderr, "usage: top_callers [-n N] [-s] [-e] [-1] TRACE_DIR\n");
	return 2;
}
