/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the pitrace module's files share (module.c, events.c, loops.c,
 * tables.c): the Trace and event objects, and each file's entry points.
 * Private to python/; post and the extension see python/module.h only.
 */
#ifndef PYTHON_INTERNAL_H
#define PYTHON_INTERNAL_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdbool.h>
#include <stdint.h>

#include <pitrace/reader.h>

/* The event kinds a pass tells, as run()'s keywords name them. */
enum ev_kind { EV_STEP, EV_CALL, EV_RET, EV_SYSCALL, EV_SIGNAL, EV_TASK, EV_GAP, EV_KINDS };

typedef struct {
	PyObject_HEAD
	struct ptr_reader *r;
	struct ptr_filter f;
	char *module, *symbol;	  /* f's strings */
	uint64_t gen;		  /* passes begun: what an event resolved is valid for */
	bool in_pass;
	bool in_table;		  /* a table pass runs (tables.c's lock): other threads wait */
	unsigned long table_thread; /* the thread that runs it */
	PyObject *loop;		  /* the loop whose pass runs, NULL none (borrowed: it holds t) */
	PyObject *names;	  /* this pass's function names by id (None: not made yet) */
	PyObject *cb[EV_KINDS];	  /* this pass's callbacks */
	vectorcallfunc vcall[EV_KINDS]; /* their vectorcall entries (NULL: none) */
	PyObject *spare[EV_KINDS]; /* the last event of each kind, reused when no one kept it */
} TraceObject;

typedef struct {
	PyObject_HEAD
	TraceObject *t;
	uint64_t gen;		  /* t's pass that loc is of */
	bool have_loc;
	struct ptr_location loc;
	char text[64];		  /* loc's disassembly: the reader's is overwritten by the next */
	PyObject *path;		  /* a task's path, copied: the reader's lives for the callback */
	union {
		struct ptr_step step;
		struct ptr_call call;
		struct ptr_return ret;
		struct ptr_syscall sys;
		struct ptr_async as;
		struct ptr_task task;
		struct ptr_gap gap;
	} u;
} EventObject;

/* The names below are the module's own: not exported from the extension. */
#pragma GCC visibility push(hidden)

/* ---- module.c: the Trace ---- */

/* run()'s keywords, by enum ev_kind: events(kinds=...) takes the same names. */
extern const char *const pyt_run_keywords[];

/* A pass is over: its callbacks and spare events dropped, the trace free for the next. */
void pyt_trace_pass_end(TraceObject *t);

/* ---- events.c: the event types, and run()'s callbacks ---- */

/* The event types by enum ev_kind (PyType_Ready'd by the module's init). */
extern PyTypeObject *const pyt_event_types[EV_KINDS];

/* s as a str (undecodable bytes replaced), None for NULL: a new reference. */
PyObject *pyt_str_or_none(const char *s);

/* The event object for kind k: t's spare one when no one kept it, else a new one. */
EventObject *pyt_event_get(TraceObject *t, enum ev_kind k);

/* Copy an event the library passed out: its fields up to the shorter of both sizes. */
void pyt_event_copy(void *dst, size_t dst_size, const void *src);

/* The reader's callbacks for t's pass: one for each kind t->cb has. */
void pyt_event_callbacks(const TraceObject *t, struct ptr_callbacks *cb);

/* ---- loops.c: t.steps(), t.calls(), t.returns(), t.events() ---- */

extern PyTypeObject pyt_iter_type;
PyObject *pyt_trace_steps(TraceObject *t, PyObject *unused);
PyObject *pyt_trace_calls(TraceObject *t, PyObject *unused);
PyObject *pyt_trace_returns(TraceObject *t, PyObject *unused);
PyObject *pyt_trace_events(TraceObject *t, PyObject *args, PyObject *kw);

/*
 * Before this thread uses t's reader: a loop's pass runs on a thread of
 * its own while the loop waits for a batch, so another Python thread
 * waits here (the GIL released) until the batch is handed over; and
 * until a table pass another thread runs is over (pyt_table_wait).
 */
void pyt_reader_wait(TraceObject *t);

/* ---- tables.c: t.profile(), t.counts(), t.arcs(), t.tree() ---- */

extern PyTypeObject pyt_table_type;
PyObject *pyt_trace_profile(TraceObject *t, PyObject *unused);
PyObject *pyt_trace_arcs(TraceObject *t, PyObject *unused);
PyObject *pyt_trace_tree(TraceObject *t, PyObject *args, PyObject *kw);
PyObject *pyt_trace_counts(TraceObject *t, PyObject *args, PyObject *kw);

/*
 * A table pass holds the GIL but lets other Python threads in while it
 * makes its rows: one of them waits here (the GIL released) until the
 * pass is over; true when it had to wait.
 */
bool pyt_table_wait(TraceObject *t);

#pragma GCC visibility pop

#endif /* PYTHON_INTERNAL_H */
