/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What post's call-flow reports (arc, tree, profile, flow, steps, export)
 * share: a report session (util/session.h) with the call-flow engine and,
 * when the report aggregates, the arc tables (util/arcs.h) attached.
 */
#ifndef POST_FLOWREPORT_H
#define POST_FLOWREPORT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "util/arcs.h"
#include "util/callflow.h"
#include "util/cf_sites.h"
#include "post/cmdline.h"
#include "post/report.h"
#include "util/session.h"

struct flow_report {
	struct session *s;
	struct callflow *cf;
	struct arcs *arcs;	  /* FR_ARCS */
	struct report_names *names; /* after flow_report_run */
	bool wide;
};

/* flow_report_open() flags. */
#define FR_ARCS (1u << 0)	  /* aggregate into arcs; the window decides what counts */

/* Open the session and the engine (with arcs if asked); exit status on failure (printed). */
int flow_report_open(struct flow_report *r, const struct post_opts *opts,
		     const struct session_filter *filter, unsigned flags, const char *what);

/* The pass (session_run), then the function names for output; 0 or an exit status. */
int flow_report_run(struct flow_report *r);

void flow_report_close(struct flow_report *r);

/* Is function fn selected by --module / --symbol / --ring? */
static inline bool fr_selected(const struct flow_report *r, uint32_t fn)
{
	return session_fn_selected(r->s, fn);
}

/* A function's name as tables show it (report.h: elided unless --wide). */
static inline const char *fr_name(const struct flow_report *r, uint32_t fn)
{
	return report_name(r->names, fn);
}

/* The keys --sort takes in the function reports. */
extern const char *const fr_sort_keys[]; /* calls, base, cum, name, addr */

/*
 * The selected functions that ran (steps or calls), in sort's order (its
 * keys, then name and module); malloc'ed, NULL if out of memory.
 */
uint32_t *fr_sorted_functions(const struct flow_report *r, const struct report_sort *sort,
			      size_t *n);

/* The comparison under fr_sorted_functions, of two functions' ids. */
int fr_fn_cmp(const struct flow_report *r, const struct report_sort *sort, uint32_t a,
	      uint32_t b);

/* Compare two numbers for a key: larger first. */
static inline int fr_desc(uint64_t a, uint64_t b)
{
	return a == b ? 0 : a > b ? -1 : 1;
}

/* Base of the selected functions (what their rows add up to). */
uint64_t fr_selected_base(const struct flow_report *r);

#endif /* POST_FLOWREPORT_H */
