// SPDX-License-Identifier: GPL-2.0
/*
 * post export --format folded: a line per call path with its own
 * instructions, for flame graphs ("_start;main;f 1234"), optionally
 * prefixed by the command, process or thread (flame.h).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "post/export.h"
#include "util/log.h"
#include "util/row_index.h"

/*
 * One frame of a folded line.  Readers split a line at its last space (the
 * count after it) and the stack at ';', so demangled names keep their
 * spaces and commas ("f(int, char)"), but a ';' in a name (never made by
 * the demangler; possible in assembly labels, or a command's name) is
 * written as ':'.
 */
static void folded_frame(FILE *out, const char *name)
{
	for (const char *p = name; *p; p++)
		fputc(*p == ';' ? ':' : *p, out);
}

/*
 * A path deeper than a line's frames: its first max_stack - 2 frames end at
 * the node head, then "[...]" and its last function fn.  Lines of the same
 * (head, fn) are one, their steps added, in first-seen order.
 */
struct folded_deep {
	uint32_t head, fn;
	uint64_t steps;
};

struct folded {
	const struct flame *fl;
	FILE *out;
	unsigned max_stack;
	struct folded_deep *deep;
	size_t nr_deep, deep_size;
	struct row_index deep_index; /* by (head, fn) */
	uint32_t *path;		  /* a deep line's head's path */
	bool oom;
};

static uint64_t deep_key(uint32_t head, uint32_t fn)
{
	return row_index_hash((uint64_t)head << 32 | fn);
}

static uint64_t deep_hash(const void *ctx, uint32_t k)
{
	const struct folded *fo = ctx;

	return deep_key(fo->deep[k].head, fo->deep[k].fn);
}

static void deep_add(struct folded *fo, uint32_t head, uint32_t fn, uint64_t steps)
{
	struct row_index *x = &fo->deep_index;
	size_t i;

	if (!row_index_reserve(x, 0, fo->nr_deep, 256, deep_hash, fo)) {
		fo->oom = true;
		return;
	}
	for (i = row_index_home(x, deep_key(head, fn)); x->slot[i]; i = row_index_next(x, i)) {
		struct folded_deep *d = &fo->deep[x->slot[i] - 1];

		if (d->head == head && d->fn == fn) {
			d->steps += steps;
			return;
		}
	}
	if (fo->nr_deep == fo->deep_size) {
		size_t size = fo->deep_size ? 2 * fo->deep_size : 64;
		struct folded_deep *more = realloc(fo->deep, size * sizeof(*more));

		if (!more) {
			fo->oom = true;
			return;
		}
		fo->deep = more;
		fo->deep_size = size;
	}
	fo->deep[fo->nr_deep] = (struct folded_deep){ head, fn, steps };
	x->slot[i] = (uint32_t)++fo->nr_deep;
}

/* The frames from the root's child down to node, as a line starts. */
static void folded_path(const struct folded *fo, uint32_t node)
{
	uint32_t depth = flame_node(fo->fl, node)->depth;

	/* up to the root's child, then printed from there down */
	for (uint32_t i = node, d = depth + 1; d-- > 0; i = flame_node(fo->fl, i)->parent)
		fo->path[d] = i;
	for (uint32_t d = 0; d <= depth; d++) {
		if (d)
			fputc(';', fo->out);
		folded_frame(fo->out, flame_node(fo->fl, fo->path[d])->name);
	}
}

static bool folded_node(void *ctx, const struct flame_node *n, const uint32_t *path)
{
	struct folded *fo = ctx;

	if (!n->self)
		return true;
	if (n->depth >= fo->max_stack) {
		deep_add(fo, path[fo->max_stack - 3], n->fn, n->self);
		return true;
	}
	for (unsigned i = 0; i <= n->depth; i++) {
		if (i)
			fputc(';', fo->out);
		folded_frame(fo->out, flame_node(fo->fl, path[i])->name);
	}
	fprintf(fo->out, " %" PRIu64 "\n", n->self);
	return true;
}

int export_folded(struct flow_report *r, FILE *out, enum flame_prefix prefix,
		  unsigned max_stack)
{
	struct flame *fl = flame_new(r, prefix);
	struct folded fo = { .fl = fl, .out = out };
	int ret;

	if (!fl)
		return EXIT_RUNTIME;
	fo.max_stack = max_stack < EXPORT_MIN_STACK ? EXPORT_MIN_STACK : max_stack;
	ret = flame_walk(fl, folded_node, &fo) < 0 ? EXIT_RUNTIME : 0;
	if (!ret && fo.nr_deep && !(fo.path = malloc(fo.max_stack * sizeof(*fo.path))))
		fo.oom = true;
	for (size_t k = 0; !ret && !fo.oom && k < fo.nr_deep; k++) {
		folded_path(&fo, fo.deep[k].head);
		fputs(";[...];", out);
		folded_frame(out, cf_func(r->cf, fo.deep[k].fn)->name);
		fprintf(out, " %" PRIu64 "\n", fo.deep[k].steps);
	}
	if (fo.nr_deep)
		pr_warn("folded: call paths deeper than %u frames are cut to their first %u, "
			"[...] and their last (--max-stack)", fo.max_stack, fo.max_stack - 2);
	if (fo.oom) {
		pr_err("out of memory writing folded stacks");
		ret = EXIT_RUNTIME;
	}
	free(fo.deep);
	row_index_free(&fo.deep_index);
	free(fo.path);
	flame_free(fl);
	return ret;
}
