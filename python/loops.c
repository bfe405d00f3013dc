// SPDX-License-Identifier: GPL-2.0
/* The pitrace module's loops (t.steps() and others): a pass on a thread of its own. */
#include "python/pyt_internal.h"

#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

/* ---- iteration: a pass on a thread of its own, handed over a batch at a time ---- */

/*
 * The reader tells events through callbacks (its fast path needs it).  An
 * iterator runs that pass on a thread of its own, which fills a batch of
 * ITER_BATCH events and then waits while Python takes them: the two take
 * turns, so only one thread uses the reader at a time (the reader's rule)
 * and memory stays bounded whatever the trace's length.  A batch ends
 * before each task event, so that what an event resolves (its symbol,
 * line) is resolved before a later mapping change, as in a callback.
 */
#define ITER_BATCH 1024

struct iter_event {
	uint8_t kind;		  /* enum ev_kind */
	char *path;		  /* a task's path, copied */
	union {
		uint32_t size;
		struct ptr_step step;
		struct ptr_call call;
		struct ptr_return ret;
		struct ptr_syscall sys;
		struct ptr_async as;
		struct ptr_task task;
		struct ptr_gap gap;
	} u;
};

typedef struct {
	PyObject_HEAD
	TraceObject *t;
	unsigned kinds;		  /* 1 << enum ev_kind: what it yields */
	bool started, joined;
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool producer_turn;	  /* the pass's thread holds the batch (and the reader) */
	unsigned waiters;	  /* Python threads that gave it the turn, until they run again */
	bool cancel;		  /* stop the pass (the iterator is going away) */
	bool done;		  /* the pass has ended */
	bool no_memory;		  /* a task's path could not be copied */
	int result;		  /* ptr_run's */
	size_t n, pos;		  /* events in the batch, and taken */
	struct iter_event *ev;	  /* ITER_BATCH */
	PyObject *alt[EV_KINDS];  /* a second spare event per kind (see iter_event_object) */
} IterObject;

/* The pass's thread: give the batch to Python and wait for it back; true: stop the pass. */
static bool iter_hand_over(IterObject *it)
{
	bool cancel;

	pthread_mutex_lock(&it->lock);
	it->producer_turn = false;
	pthread_cond_broadcast(&it->cond);
	while (!it->producer_turn)
		pthread_cond_wait(&it->cond, &it->lock);
	cancel = it->cancel;
	pthread_mutex_unlock(&it->lock);
	return cancel;
}

static int iter_put(IterObject *it, enum ev_kind k, const void *ev, size_t size)
{
	struct iter_event *slot;

	if (it->n == ITER_BATCH && iter_hand_over(it))
		return 1;
	slot = &it->ev[it->n++];
	slot->kind = (uint8_t)k;
	slot->path = NULL;
	pyt_event_copy(&slot->u, size, ev);
	return 0;
}

#define ITER_PUT(fn, kind, type)                                                              \
	static int fn(void *ctx, const type *ev)                                              \
	{                                                                                     \
		return iter_put(ctx, kind, ev, sizeof(*ev));                                  \
	}
ITER_PUT(iter_step, EV_STEP, struct ptr_step)
ITER_PUT(iter_call, EV_CALL, struct ptr_call)
ITER_PUT(iter_ret, EV_RET, struct ptr_return)
ITER_PUT(iter_syscall, EV_SYSCALL, struct ptr_syscall)
ITER_PUT(iter_async, EV_SIGNAL, struct ptr_async)
ITER_PUT(iter_gap, EV_GAP, struct ptr_gap)

/* A task event ends the batch before it (see above); it is told only when asked for. */
static int iter_task(void *ctx, const struct ptr_task *ev)
{
	IterObject *it = ctx;

	if (it->n && iter_hand_over(it))
		return 1;
	if (!(it->kinds & (1u << EV_TASK)))
		return 0;
	if (iter_put(it, EV_TASK, ev, sizeof(*ev)))
		return 1;
	if (ev->path) {
		it->ev[it->n - 1].path = strdup(ev->path);
		if (!it->ev[it->n - 1].path) {
			it->no_memory = true;
			return 1;
		}
	}
	return 0;
}

static void *iter_main(void *arg)
{
	IterObject *it = arg;
	struct ptr_callbacks cb = { .size = sizeof(cb) };
	sigset_t all;
	int e;

	/* Python's signal handlers run in its main thread: Ctrl-C goes there */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	cb.step = it->kinds & (1u << EV_STEP) ? iter_step : NULL;
	cb.call = it->kinds & (1u << EV_CALL) ? iter_call : NULL;
	cb.ret = it->kinds & (1u << EV_RET) ? iter_ret : NULL;
	cb.syscall = it->kinds & (1u << EV_SYSCALL) ? iter_syscall : NULL;
	cb.async = it->kinds & (1u << EV_SIGNAL) ? iter_async : NULL;
	cb.gap = it->kinds & (1u << EV_GAP) ? iter_gap : NULL;
	cb.task = iter_task;
	e = ptr_run(it->t->r, &it->t->f, &cb, it);
	pthread_mutex_lock(&it->lock);
	it->result = e;
	it->done = true;
	it->producer_turn = false;
	pthread_cond_broadcast(&it->cond);
	pthread_mutex_unlock(&it->lock);
	return NULL;
}

static void iter_free_batch(IterObject *it)
{
	for (size_t i = 0; i < it->n; i++)
		free(it->ev[i].path);
	it->n = it->pos = 0;
}

/*
 * Python's side, the GIL held: wait until the batch (and the reader) is
 * Python's; true when it had to wait.  Other Python threads run while the
 * pass's thread has its turn, and may come here: for another pass's call
 * on the trace (pyt_reader_wait) or the same loop's next().  The turn is
 * given to the pass's thread only by a thread that holds the GIL and
 * counts itself in waiters until it has the GIL back: so with no waiter
 * it is Python's turn, and once seen Python's with the GIL held, it stays
 * so until this thread releases the GIL.
 */
static bool iter_wait_turn(IterObject *it)
{
	bool waited = false, busy;

	if (!it->waiters)
		return false;
	for (;;) {
		pthread_mutex_lock(&it->lock);
		busy = it->producer_turn;
		pthread_mutex_unlock(&it->lock);
		if (!busy)
			return waited;
		waited = true;
		Py_BEGIN_ALLOW_THREADS
		pthread_mutex_lock(&it->lock);
		while (it->producer_turn)
			pthread_cond_wait(&it->cond, &it->lock);
		pthread_mutex_unlock(&it->lock);
		Py_END_ALLOW_THREADS
	}
}

/* Python's side: hand the (taken) batch back and wait for the next, the GIL released. */
static void iter_wait_batch(IterObject *it, bool cancel)
{
	iter_free_batch(it);
	it->waiters++;
	pthread_mutex_lock(&it->lock);
	if (!it->done) {
		it->cancel = cancel;
		it->producer_turn = true;
		pthread_cond_broadcast(&it->cond);
	}
	pthread_mutex_unlock(&it->lock);
	iter_wait_turn(it);
	it->waiters--;
}

/* The pass is over (or stopped): its thread joined, the trace free for another pass. */
static void iter_finish(IterObject *it)
{
	iter_wait_turn(it);
	if (!it->started || it->joined)
		return;
	while (!it->done)
		iter_wait_batch(it, true);
	/*
	 * The GIL held: the thread has only to return, and no other Python
	 * thread finishing the same loop can join it a second time.
	 */
	pthread_join(it->thread, NULL);
	it->joined = true;
	iter_free_batch(it);
	for (int k = 0; k < EV_KINDS; k++)
		Py_CLEAR(it->alt[k]);	/* their references to the trace: no cycle */
	it->t->loop = NULL;
	pyt_trace_pass_end(it->t);
}

static int iter_start(IterObject *it)
{
	TraceObject *t = it->t;

	if (!t->r) {
		PyErr_SetString(PyExc_ValueError, "pitrace: the trace is closed");
		return -1;
	}
	if (t->in_pass) {
		PyErr_SetString(PyExc_RuntimeError,
				"pitrace: another pass over this trace is in progress (an "
				"unfinished loop or run()): finish or delete it first");
		return -1;
	}
	t->in_pass = true;
	t->gen++;
	Py_CLEAR(t->names);	/* ids and names are a pass's */
	it->waiters++;
	it->producer_turn = true;
	if (pthread_create(&it->thread, NULL, iter_main, it)) {
		it->producer_turn = false;
		it->waiters--;
		t->in_pass = false;
		PyErr_SetString(PyExc_RuntimeError, "pitrace: cannot start the pass's thread");
		return -1;
	}
	it->started = true;
	t->loop = (PyObject *)it;
	/* the thread has the first turn: wait for its first batch */
	iter_wait_turn(it);
	it->waiters--;
	return 0;
}

/*
 * The batch's next event as an object.  pyt_event_get reuses the trace's
 * spare when no one kept it; but a loop's variable still holds the last
 * event when the next is made, so the loop keeps a second spare and
 * swaps: each of the two is free every other event.
 */
static PyObject *iter_event_object(IterObject *it, const struct iter_event *ev)
{
	enum ev_kind k = (enum ev_kind)ev->kind;
	PyObject **spare = &it->t->spare[k], *keep;
	EventObject *e;

	if (*spare && Py_REFCNT(*spare) > 1 && (!it->alt[k] || Py_REFCNT(it->alt[k]) == 1)) {
		keep = *spare;
		*spare = it->alt[k];
		it->alt[k] = keep;
	}
	e = pyt_event_get(it->t, k);

	if (!e)
		return NULL;
	pyt_event_copy(&e->u, sizeof(e->u), &ev->u);
	if (ev->kind == EV_TASK) {
		e->path = pyt_str_or_none(ev->path);
		if (!e->path)
			return NULL;
	}
	Py_INCREF(e);
	return (PyObject *)e;
}

static PyObject *iter_next(IterObject *it)
{
	int result;

	iter_wait_turn(it);	/* another thread's next() of this loop */
	if (it->joined)
		return NULL;
	if (!it->started && iter_start(it) < 0)
		return NULL;
	while (it->pos == it->n && !it->done)
		iter_wait_batch(it, false);
	if (it->pos < it->n)
		return iter_event_object(it, &it->ev[it->pos++]);
	result = it->result;
	iter_finish(it);
	if (it->no_memory)
		return PyErr_NoMemory();
	if (result < 0)
		return PyErr_Format(PyExc_RuntimeError, "pitrace: the pass failed: %s",
				    ptr_strerror(result));
	return NULL;		/* StopIteration */
}

static PyObject *iter_close(IterObject *it, PyObject *unused)
{
	(void)unused;
	iter_finish(it);
	it->joined = true;
	Py_RETURN_NONE;
}

static void iter_dealloc(IterObject *it)
{
	iter_finish(it);
	pthread_cond_destroy(&it->cond);
	pthread_mutex_destroy(&it->lock);
	free(it->ev);
	Py_XDECREF(it->t);
	PyObject_Free(it);
}

static PyMethodDef iter_methods[] = {
	{ "close", (PyCFunction)iter_close, METH_NOARGS,
	  "Stop the pass now (a loop left early does it too)." },
	{ NULL }
};

PyTypeObject pyt_iter_type = {
	PyVarObject_HEAD_INIT(NULL, 0).tp_name = "pitrace.Events",
	.tp_basicsize = sizeof(IterObject),
	.tp_flags = Py_TPFLAGS_DEFAULT,
	.tp_dealloc = (destructor)iter_dealloc,
	.tp_doc = "The events of one pass over a trace, in order (Trace.steps() and others).",
	.tp_iter = PyObject_SelfIter,
	.tp_iternext = (iternextfunc)iter_next,
	.tp_methods = iter_methods,
};

static PyObject *iter_new(TraceObject *t, unsigned kinds)
{
	IterObject *it;

	if (!t->r) {
		PyErr_SetString(PyExc_ValueError, "pitrace: the trace is closed");
		return NULL;
	}
	it = PyObject_New(IterObject, &pyt_iter_type);
	if (!it)
		return NULL;
	memset((char *)it + sizeof(PyObject), 0, sizeof(*it) - sizeof(PyObject));
	pthread_mutex_init(&it->lock, NULL);
	pthread_cond_init(&it->cond, NULL);
	it->ev = calloc(ITER_BATCH, sizeof(*it->ev));
	Py_INCREF(t);
	it->t = t;
	it->kinds = kinds;
	if (!it->ev) {
		Py_DECREF(it);
		return PyErr_NoMemory();
	}
	return (PyObject *)it;
}

PyObject *pyt_trace_steps(TraceObject *t, PyObject *unused)
{
	(void)unused;
	return iter_new(t, 1u << EV_STEP);
}

PyObject *pyt_trace_calls(TraceObject *t, PyObject *unused)
{
	(void)unused;
	return iter_new(t, 1u << EV_CALL);
}

PyObject *pyt_trace_returns(TraceObject *t, PyObject *unused)
{
	(void)unused;
	return iter_new(t, 1u << EV_RET);
}

/* events(kinds=None): kinds, names as run()'s keywords; None: every kind. */
PyObject *pyt_trace_events(TraceObject *t, PyObject *args, PyObject *kw)
{
	static const char *const keywords[] = { "kinds", NULL };
	PyObject *kinds = Py_None, *seq, *name;
	unsigned mask = 0;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "|O:events", (char **)keywords, &kinds))
		return NULL;
	if (kinds == Py_None)
		return iter_new(t, (1u << EV_KINDS) - 1);
	if (PyUnicode_Check(kinds))
		return PyErr_Format(PyExc_TypeError, "pitrace: events(kinds=...) takes a list of "
				    "kinds, e.g. ['call', 'ret']");
	seq = PySequence_Fast(kinds, "pitrace: events(kinds=...) takes a list of kinds");
	if (!seq)
		return NULL;
	for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(seq); i++) {
		int k;

		name = PySequence_Fast_GET_ITEM(seq, i);
		for (k = 0; k < EV_KINDS; k++)
			if (PyUnicode_Check(name) &&
			    !PyUnicode_CompareWithASCIIString(name, pyt_run_keywords[k]))
				break;
		if (k == EV_KINDS) {
			Py_DECREF(seq);
			return PyErr_Format(PyExc_ValueError, "pitrace: event kind %R: step, call, "
					    "ret, syscall, signal, task or gap", name);
		}
		mask |= 1u << k;
	}
	Py_DECREF(seq);
	return iter_new(t, mask);
}

/* After a wait another pass may have begun: look again until none has the reader. */
void pyt_reader_wait(TraceObject *t)
{
	bool waited = true;

	while (waited) {
		waited = pyt_table_wait(t);
		if (t->loop) {
			PyObject *it = Py_NewRef(t->loop);

			waited = iter_wait_turn((IterObject *)it) || waited;
			Py_DECREF(it);
		}
	}
}
