/* SPDX-License-Identifier: GPL-2.0 */
/* The formats of post export, one file each (export_*.c), over one pass of the call flow. */
#ifndef POST_EXPORT_H
#define POST_EXPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "post/flame.h"
#include "post/flowreport.h"

/*
 * callgrind format (callgrind_annotate, KCachegrind): _new before the run
 * (it notes where each address is while its address space is current),
 * _write after it (0 or EXIT_RUNTIME, printed).
 */
struct export_cg;
struct export_cg *export_callgrind_new(struct flow_report *r);
int export_callgrind_write(struct export_cg *c, FILE *out);
void export_callgrind_free(struct export_cg *c);

/*
 * Call paths deeper than this many frames are cut in the flame-graph
 * exports (post export --max-stack), so that their output stays linear in
 * the call tree's size at any depth.
 */
#define EXPORT_STACK_DEFAULT 512
#define EXPORT_MIN_STACK 3

/*
 * Folded stacks, after the run; 0 or EXIT_RUNTIME (printed).  A line holds
 * at most max_stack frames: a deeper path's are its first max_stack - 2,
 * "[...]" and its last, and equal such lines are one, their steps added.
 */
int export_folded(struct flow_report *r, FILE *out, enum flame_prefix prefix,
		  unsigned max_stack);

/*
 * A flame graph as a self-contained interactive SVG (export_svg.c), after
 * the run; title names it.  At most max_stack levels are drawn: a deeper
 * path's frames end at its ancestor of that level, whose width still
 * holds them.  0 or EXIT_RUNTIME (printed).
 */
int export_svg(struct flow_report *r, FILE *out, enum flame_prefix prefix, const char *title,
	       unsigned max_stack);

/*
 * Chrome/Perfetto JSON, written while the engine runs: _new before the run
 * (it writes the head), _finish after it.  steps_clock: one microsecond a
 * step instead of the trace's time.  Events are held in a buffer: _free
 * writes what it still holds (a failed run's) to out, so it comes before
 * out is closed.
 */
struct chrome;
struct chrome *export_chrome_new(struct flow_report *r, FILE *out, bool steps_clock);
int export_chrome_finish(struct chrome *c);
void export_chrome_free(struct chrome *c);

#endif /* POST_EXPORT_H */
