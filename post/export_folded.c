// SPDX-License-Identifier: GPL-2.0
/* post export --format folded: a line per call path with its own instructions, for flame graphs. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "export.h"
#include "log.h"

/*
 * A path deeper than the line's frames: its first max_stack - 2 frames (the
 * node at path[max_stack - 3] is its head), "[...]", and its last function.
 * Equal lines are one, their steps added.
 */
struct folded_deep {
	uint32_t head, fn;
	uint64_t steps;
};

struct folded {
	struct flow_report *r;
	FILE *out;
	unsigned max_stack;
	struct folded_deep *deep; /* in first-seen order */
	size_t nr_deep, deep_size;
	uint32_t *deep_hash;	  /* index + 1, by (head, fn) */
	size_t deep_hash_size;
	uint32_t *paths;	  /* the deep lines' heads' paths, max_stack - 2 each */
	bool oom;
};

static int folded_child_cmp(const void *pa, const void *pb, void *arg)
{
	const struct folded *fo = arg;
	const struct arc_node *a = arcs_node(fo->r->arcs, *(const uint32_t *)pa);
	const struct arc_node *b = arcs_node(fo->r->arcs, *(const uint32_t *)pb);

	return strcmp(cf_func(fo->r->cf, a->fn)->name, cf_func(fo->r->cf, b->fn)->name);
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

static const char *node_name(const struct folded *fo, uint32_t node)
{
	return cf_func(fo->r->cf, arcs_node(fo->r->arcs, node)->fn)->name;
}

static uint64_t deep_key(uint32_t head, uint32_t fn)
{
	uint64_t x = ((uint64_t)head << 32 | fn) * 0x9e3779b97f4a7c15ull;

	return x ^ (x >> 29);
}

static bool deep_rehash(struct folded *fo)
{
	size_t size = fo->deep_hash_size ? 2 * fo->deep_hash_size : 256;
	uint32_t *h = calloc(size, sizeof(*h));

	if (!h)
		return false;
	free(fo->deep_hash);
	fo->deep_hash = h;
	fo->deep_hash_size = size;
	for (size_t k = 0; k < fo->nr_deep; k++) {
		size_t i = deep_key(fo->deep[k].head, fo->deep[k].fn) & (size - 1);

		while (h[i])
			i = (i + 1) & (size - 1);
		h[i] = (uint32_t)k + 1;
	}
	return true;
}

/* Add a deep path's steps to its line (path: from the top down to the head). */
static void deep_add(struct folded *fo, const uint32_t *path, uint32_t fn, uint64_t steps)
{
	unsigned head_frames = fo->max_stack - 2;
	uint32_t head = path[head_frames - 1];
	struct folded_deep *d;
	size_t i, mask;

	if (2 * (fo->nr_deep + 1) > fo->deep_hash_size && !deep_rehash(fo)) {
		fo->oom = true;
		return;
	}
	mask = fo->deep_hash_size - 1;
	for (i = deep_key(head, fn) & mask; fo->deep_hash[i]; i = (i + 1) & mask) {
		d = &fo->deep[fo->deep_hash[i] - 1];
		if (d->head == head && d->fn == fn) {
			d->steps += steps;
			return;
		}
	}
	if (fo->nr_deep == fo->deep_size) {
		size_t size = fo->deep_size ? 2 * fo->deep_size : 64;
		struct folded_deep *nd = realloc(fo->deep, size * sizeof(*nd));
		uint32_t *np = nd ? realloc(fo->paths, size * head_frames * sizeof(*np)) : NULL;

		if (nd)
			fo->deep = nd;
		if (!np) {
			fo->oom = true;
			return;
		}
		fo->paths = np;
		fo->deep_size = size;
	}
	memcpy(fo->paths + fo->nr_deep * head_frames, path, head_frames * sizeof(*path));
	fo->deep[fo->nr_deep] = (struct folded_deep){ head, fn, steps };
	fo->deep_hash[i] = (uint32_t)++fo->nr_deep;
}

/* A call path: its line when it has own steps and a selected function is on it. */
static int folded_node(void *ctx, uint32_t node, unsigned depth, const uint32_t *path,
		       int selected)
{
	struct folded *fo = ctx;
	const struct arc_node *n = arcs_node(fo->r->arcs, node);

	selected = selected || fr_selected(fo->r, n->fn);
	if (!n->base || !selected)
		return selected;
	if (depth >= fo->max_stack) {
		deep_add(fo, path, n->fn, n->base);
		return selected;
	}
	for (unsigned i = 0; i <= depth; i++) {
		if (i)
			fputc(';', fo->out);
		folded_frame(fo->out, node_name(fo, path[i]));
	}
	fprintf(fo->out, " %" PRIu64 "\n", n->base);
	return selected;
}

int export_folded(struct flow_report *r, FILE *out, unsigned max_stack)
{
	struct folded fo = { .r = r, .out = out, .max_stack = max_stack < 3 ? 3 : max_stack };
	int ret = arcs_walk(r->arcs, arcs_merged_root(r->arcs), folded_child_cmp, folded_node, &fo);

	for (size_t k = 0; !ret && k < fo.nr_deep; k++) {
		const uint32_t *path = fo.paths + k * (fo.max_stack - 2);

		for (unsigned i = 0; i < fo.max_stack - 2; i++) {
			folded_frame(out, node_name(&fo, path[i]));
			fputc(';', out);
		}
		fputs("[...];", out);
		folded_frame(out, cf_func(r->cf, fo.deep[k].fn)->name);
		fprintf(out, " %" PRIu64 "\n", fo.deep[k].steps);
	}
	if (fo.oom)
		pr_err("out of memory writing folded stacks");
	free(fo.deep);
	free(fo.deep_hash);
	free(fo.paths);
	return ret < 0 || fo.oom ? EXIT_RUNTIME : 0;
}
