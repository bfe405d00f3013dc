/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What post's call-flow reports (arc, tree, profile, flow, steps, export)
 * share: their filter options, and one pass of a trace through the
 * call-flow engine with the report's builders attached.
 */
#ifndef POST_ARCFLOW_H
#define POST_ARCFLOW_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "arcs.h"
#include "callflow.h"
#include "cf_sites.h"
#include "post.h"
#include "report.h"
#include "symbols.h"
#include "trace_reader.h"

/* --pid, --tid select the threads fed to the engine; --module, --symbol the functions shown. */
struct af_filter {
	uint32_t pid, tid;	  /* 0: all */
	const char *module, *symbol;
	uint8_t ring;		  /* AF_RING_*: functions of one ring only */
};

enum { AF_RING_ALL = 0, AF_RING_USER, AF_RING_KERNEL };

struct af_symbol_memo;

struct af_session {
	struct trace *trace;
	struct sym_session *sym;
	struct cf_sites *sites;
	struct callflow *cf;
	struct arcs *arcs;	  /* when asked for */
	struct af_filter filter;
	struct af_symbol_memo *symbol_memo; /* --symbol's verdict per function */
	/* optional: every event that passed the filter, after the engine saw it */
	void (*on_event)(void *ctx, const struct trace_event *ev);
	void *event_ctx;
};

/* A non-negative integer option value; -1 with a usage message. */
int af_parse_u64(const char *cmd, const char *opt, const char *arg, uint64_t *v);

/*
 * The options every call-flow report takes: the common ones (-i, -v,
 * --force) and the filters.  1 if argv[*i] was one, 0 if not, -1 on a usage
 * error (printed).
 */
int af_common_option(int argc, char **argv, int *i, struct post_opts *opts,
		     struct af_filter *f);

/* --from N / --to M, a window of step indexes: af_common_option's return
 * convention (1 taken, 0 not this option, -1 usage error printed). */
int af_window_option(const char *cmd, int argc, char **argv, int *i, uint64_t *from,
		      uint64_t *to);
/* 0 if from <= to, else -1 with a usage message. */
int af_window_check(const char *cmd, uint64_t from, uint64_t to);

/* Help text for the filters, for each command's usage. */
extern const char af_filter_help[];

/* Open the trace, symbols and engine (with arcs if want_arcs); exit status on failure. */
int af_open(struct af_session *s, const struct post_opts *opts, bool want_arcs);

/* Feed the whole trace, then cf_finish; 0, or EXIT_RUNTIME if reading failed. */
int af_run(struct af_session *s);

void af_close(struct af_session *s);

/* Is function fn selected by --module / --symbol (its shown or raw name)? */
bool af_fn_selected(const struct af_session *s, uint32_t fn);

/* Sort orders of function lists. */
enum af_order {
	AF_BY_CUM,		  /* Cum, then Base, then name */
	AF_BY_BASE,		  /* Base, then Cum, then name */
};

/* The selected functions that ran (steps or calls), sorted; malloc'ed, NULL if out of memory. */
uint32_t *af_sorted_functions(const struct af_session *s, enum af_order order, size_t *n);

/* Finish writing f (stdout or a file); 0, or EXIT_RUNTIME with a message. */
int af_finish_output(FILE *f, const char *what);

/* "# trace: DIR  command: ..." header lines shared by the reports. */
void af_print_header(FILE *f, const struct af_session *s, const char *report);

#endif /* POST_ARCFLOW_H */
