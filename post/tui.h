/* SPDX-License-Identifier: GPL-2.0 */
/*
 * post tui, an ncurses viewer of a trace: what its files share.  One pass
 * of the report session gathers everything the views show (tui_data.c:
 * the arc tables, a flow index, per-thread calls, the functions' code for
 * annotate);
 * afterwards the views only sort and page through what was built, so
 * that no key waits for the trace.  A view is a list of rows with a
 * cursor (struct tui_view); the screen, the keys every view shares and
 * the terminal's state are tui_screen.c's.  docs/tui.md describes the
 * views, keys and limits.
 */
#ifndef POST_TUI_H
#define POST_TUI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "post/annotate.h"
#include "post/flowreport.h"
#include "post/source.h"
#include "util/row_index.h"

/* ---- what the pass gathered (tui_data.c) ---- */

/* The threads the views look at (the picker's choice); 0: any. */
struct tui_sel {
	uint32_t pid, tid;
};

static inline bool tui_sel_has(struct tui_sel sel, uint32_t pid, uint32_t tid)
{
	return (!sel.pid || sel.pid == pid) && (!sel.tid || sel.tid == tid);
}

static inline bool tui_sel_all(struct tui_sel sel)
{
	return !sel.pid && !sel.tid;
}

/* One line of the call flow, as post flow prints it: 24 bytes. */
enum tui_line_kind {
	TL_PUSH,		  /* how: enum cf_entry_kind; aux: TAIL, JUMP: the other function */
	TL_ADOPT,		  /* a caller reconstructed (unmatched return) */
	TL_POP,			  /* how: enum cf_end_kind; aux: its costs[] */
	TL_GAP,			  /* steps missing */
	TL_OFF,			  /* recording switched off */
	TL_EXIT,		  /* the thread exits */
	TL_INTERRUPT,		  /* aux: its interrupts[] */
};

struct tui_line {
	uint64_t index;		  /* the step index it is at */
	uint32_t fn;		  /* CF_NO_FN for marks */
	uint32_t depth;
	uint32_t thread : 23;	  /* tui_data.threads[] */
	uint32_t kind : 3;	  /* enum tui_line_kind */
	uint32_t how : 5;
	uint32_t module : 1;	  /* TL_PUSH: the line names fn's module (report_module_shown) */
	uint32_t aux;
};

struct tui_cost {
	uint64_t incl, self;
};

struct tui_thread {
	uint32_t pid, tid;
};

/* Calls of one arc by one thread (arcs' calls, split by thread). */
struct tui_calls {
	uint32_t thread, caller, callee;
	uint64_t calls;
};

/* Default bound of the flow index: lines of 24 bytes (pops 16 more). */
#define TUI_DEFAULT_FLOW_LINES 4000000
#define TUI_MAX_FLOW_LINES 0x7fffffff	/* the flow view's rows hold line numbers in 31 bits */

struct tui_data {
	struct flow_report r;	  /* session, engine, arcs */
	int slot;		  /* our cf_thread.user[] slot */
	/* the flow index */
	struct tui_line *lines;
	size_t nr_lines, lines_size, max_lines;
	uint64_t lines_dropped;	  /* lines past max_lines */
	struct tui_cost *costs;
	size_t nr_costs, costs_size;
	struct trace_async *intr;
	size_t nr_intr, intr_size;
	/* threads as the engine met them, (pid, tid) once each */
	struct tui_thread *threads;
	size_t nr_threads, threads_size;
	struct row_index thread_index;
	/* calls per thread and arc */
	struct tui_calls *calls;
	size_t nr_calls, calls_size;
	struct row_index calls_index;
	/* the functions' code as they ran (annotate.h), and their source files */
	struct annotate *ann;
	struct source_files *sources;
	uint32_t nr_fns;	  /* functions after the pass (ids below this) */
	double load_seconds;
	/* merged trees made for selections (arcs_merge adds nodes: made once each) */
	struct {
		struct tui_sel sel;
		uint32_t root;
	} merged[16];
	size_t nr_merged;
};

/*
 * Open the session and our consumers; source_dir: where annotate looks for
 * moved sources (NULL: nowhere else).  Exit status on failure (printed).
 */
int tui_data_open(struct tui_data *d, const struct post_opts *opts,
		  const struct session_filter *filter, size_t max_lines, const char *source_dir);
/* The pass (progress on stderr); 0 or an exit status. */
int tui_data_run(struct tui_data *d);
void tui_data_close(struct tui_data *d);

/* Is fn selected by --module / --symbol / --ring? */
static inline bool tui_fn_selected(const struct tui_data *d, uint32_t fn)
{
	return fr_selected(&d->r, fn);
}

static inline const char *tui_fn_name(const struct tui_data *d, uint32_t fn)
{
	return fn == CF_NO_FN ? "(root)" : cf_func(d->r.cf, fn)->name;
}

/* ---- a selection's numbers (tui_profile.c) ---- */

struct tui_edge {
	uint32_t caller, callee;  /* caller CF_NO_FN: the threads' roots */
	uint64_t calls, base, cum;
};

/*
 * Per function and per arc, the selected threads' calls, Base and Cum:
 * arcs' own numbers for all threads, else added up from the selected
 * threads' call trees (the same numbers, as post profile --tid gives
 * them) and their calls.
 */
struct tui_profile {
	struct tui_sel sel;
	uint64_t total;		  /* steps of the selected threads (sum of Base) */
	uint64_t listed_base;	  /* Base of the functions the filters select */
	uint32_t nr_fns;
	struct arc_fn_stats *fn;  /* [nr_fns] */
	struct tui_edge *edges;
	size_t nr_edges;
	/* fn's arcs in, by Cum: edges[in[in_start[fn]] .. in[in_start[fn + 1] - 1]] */
	uint32_t *in, *out;
	size_t *in_start, *out_start;
	uint32_t *listed;	  /* functions that ran and pass the filters */
	size_t nr_listed;
	size_t *threads;	  /* arcs' thread indexes in the selection */
	size_t nr_threads;
	uint32_t merged_root;	  /* the selection's merged tree, ARC_NONE until made */
};

/* NULL when out of memory (printed). */
struct tui_profile *tui_profile_new(struct tui_data *d, struct tui_sel sel);
void tui_profile_free(struct tui_profile *p);
/* The selection's threads merged into one tree (made once). */
uint32_t tui_profile_merged_root(struct tui_data *d, struct tui_profile *p);
/* Steps of arcs' thread i (the Cum under its root). */
uint64_t tui_thread_steps(const struct tui_data *d, size_t i);

/* ---- the screen and its views (tui_screen.c) ---- */

struct tui;
struct tui_view;

/* Colours and attributes of a row. */
enum tui_heat { TUI_COLD, TUI_WARM, TUI_HOT };

struct tui_view_ops {
	const char *name;	  /* required: for the status line ("functions") */
	const char *keys;	  /* optional: the view's own keys, lines "KEY  what" for ? */
	/* required: the text of row i into buf (the cursor and heat are the screen's) */
	void (*row)(struct tui *ui, struct tui_view *v, size_t i, char *buf, size_t size,
		    enum tui_heat *heat, int *attr);
	/* optional: a key the view takes; 1 taken, 0 not (then the screen's) */
	int (*key)(struct tui *ui, struct tui_view *v, int key);
	/* optional: does row i match the search (text: the pattern, as typed)? */
	bool (*match)(struct tui *ui, struct tui_view *v, size_t i, const char *text);
	/*
	 * optional, instead of match: find the next (dir 1) or previous (-1)
	 * match after the cursor and move there; 1 found, 0 not
	 */
	int (*search)(struct tui *ui, struct tui_view *v, const char *text, int dir);
	/* optional: the function of row i, for c (callers) and a (annotate); CF_NO_FN none */
	uint32_t (*fn_at)(struct tui *ui, struct tui_view *v, size_t i);
	/* optional: the selection changed; rebuild the rows (0, or -1 out of memory) */
	int (*reselect)(struct tui *ui, struct tui_view *v);
	/* optional */
	void (*free)(struct tui_view *v);
};

/* A list of rows with a cursor: every view is one. */
struct tui_view {
	const struct tui_view_ops *ops;
	char title[512];	  /* the line above the column heading */
	char heading[512];	  /* the column heading */
	size_t nr_rows;
	size_t cur, top;	  /* the cursor's row, the first row shown */
	size_t hscroll;		  /* columns scrolled to the left */
	bool no_hscroll;	  /* Left and Right are the view's */
};

struct tui {
	struct tui_data *d;
	struct tui_profile *prof; /* of the current selection */
	struct tui_view **stack;  /* stack[0]: the functions view */
	size_t depth, stack_size;
	char message[512];	  /* for the status line until the next key */
	char search[256];	  /* the last search */
	int lines, cols;	  /* the terminal's size */
	bool colour;
	bool quit;
};

/* Open a view over the current one (its ops' reselect/free then own it); -1 out of memory. */
int tui_push(struct tui *ui, struct tui_view *v);
/* Close the view on top (the callers' key handlers may close their own view, then return). */
void tui_pop(struct tui *ui);
/* A message on the status line (until the next key). */
void tui_message(struct tui *ui, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Ask for a line on the status line; false when cancelled (Esc). */
bool tui_prompt(struct tui *ui, const char *question, char *buf, size_t size);
/* Rows of the view's body on this screen. */
int tui_body_rows(const struct tui *ui);
/* Put the cursor on row i, scrolled into view. */
void tui_view_goto(struct tui *ui, struct tui_view *v, size_t i);
/* The heat of part of total (percent thresholds of perf annotate: 5%, 0.5%). */
enum tui_heat tui_heat_of(uint64_t part, uint64_t total);
/* Does name contain text (case-insensitive)? The search of every view. */
bool tui_text_match(const char *name, const char *text);
/* Does row i's text contain text?  (A view's match for searching all it shows.) */
bool tui_row_match(struct tui *ui, struct tui_view *v, size_t i, const char *text);

/* Every view over another thread selection (the picker's Enter); 0, or -1 (said). */
int tui_select(struct tui *ui, struct tui_sel sel);

/* Run the viewer on loaded data: curses until q; 0 or an exit status. */
int tui_run(struct tui_data *d, const char *keylog);

/* ---- the views ---- */

struct tui_view *tui_functions_new(struct tui *ui);
struct tui_view *tui_callers_new(struct tui *ui, uint32_t fn);
struct tui_view *tui_tree_new(struct tui *ui, bool merged);
struct tui_view *tui_annotate_new(struct tui *ui, uint32_t fn);
struct tui_view *tui_flow_new(struct tui *ui);
struct tui_view *tui_picker_new(struct tui *ui);
struct tui_view *tui_help_new(struct tui *ui, const struct tui_view *of);

#endif /* POST_TUI_H */
