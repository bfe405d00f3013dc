// SPDX-License-Identifier: GPL-2.0
/*
 * post export --format folded: a line per call path with its own
 * instructions, for flame graphs ("_start;main;f 1234"), optionally
 * prefixed by the command, process or thread (flame.h).
 */
#include <inttypes.h>

#include "export.h"
#include "log.h"

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

struct folded {
	const struct flame *fl;
	FILE *out;
};

static bool folded_node(void *ctx, const struct flame_node *n, const uint32_t *path)
{
	struct folded *fo = ctx;

	if (!n->self)
		return true;
	for (unsigned i = 0; i <= n->depth; i++) {
		if (i)
			fputc(';', fo->out);
		folded_frame(fo->out, flame_node(fo->fl, path[i])->name);
	}
	fprintf(fo->out, " %" PRIu64 "\n", n->self);
	return true;
}

int export_folded(struct flow_report *r, FILE *out, enum flame_prefix prefix)
{
	struct flame *fl = flame_new(r, prefix);
	struct folded fo = { fl, out };
	int ret;

	if (!fl)
		return EXIT_RUNTIME;
	ret = flame_walk(fl, folded_node, &fo) < 0 ? EXIT_RUNTIME : 0;
	flame_free(fl);
	return ret;
}
