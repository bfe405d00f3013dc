// SPDX-License-Identifier: GPL-2.0
/* post export --format folded: a line per call path with its own instructions, for flame graphs. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "export.h"
#include "log.h"

struct folded {
	struct flow_report *r;
	FILE *out;
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

/* A call path: its line when it has own steps and a selected function is on it. */
static int folded_node(void *ctx, uint32_t node, unsigned depth, const uint32_t *path,
		       int selected)
{
	struct folded *fo = ctx;
	const struct arc_node *n = arcs_node(fo->r->arcs, node);

	selected = selected || fr_selected(fo->r, n->fn);
	if (n->base && selected) {
		for (unsigned i = 0; i <= depth; i++) {
			if (i)
				fputc(';', fo->out);
			folded_frame(fo->out, cf_func(fo->r->cf, arcs_node(fo->r->arcs, path[i])->fn)->name);
		}
		fprintf(fo->out, " %" PRIu64 "\n", n->base);
	}
	return selected;
}

int export_folded(struct flow_report *r, FILE *out)
{
	struct folded fo = { .r = r, .out = out };

	return arcs_walk(r->arcs, arcs_merged_root(r->arcs), folded_child_cmp, folded_node, &fo) < 0
		       ? EXIT_RUNTIME : 0;
}
