// SPDX-License-Identifier: GPL-2.0
/* The pitrace module: its init, pitrace.open() and the Trace type on libpitrace's reader. */
#include "python/pyt_internal.h"

#include <stdlib.h>
#include <string.h>

#include "python/module.h"

static PyTypeObject trace_type;

/* ---- Trace ---- */

const char *const pyt_run_keywords[] = { "step", "call", "ret", "syscall", "signal", "task",
					     "gap", NULL };

void pyt_trace_pass_end(TraceObject *t)
{
	for (int k = 0; k < EV_KINDS; k++) {
		Py_CLEAR(t->cb[k]);
		t->vcall[k] = NULL;
		Py_CLEAR(t->spare[k]);	/* the events' references to t: no cycle */
	}
	t->in_pass = false;
}

static PyObject *trace_run(TraceObject *t, PyObject *args, PyObject *kw)
{
	struct ptr_callbacks cb = { .size = sizeof(cb) };
	PyObject *fn[EV_KINDS] = { NULL };
	int err;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "|$OOOOOOO:run", (char **)pyt_run_keywords,
					 &fn[0], &fn[1], &fn[2], &fn[3], &fn[4], &fn[5], &fn[6]))
		return NULL;
	if (!t->r) {
		PyErr_SetString(PyExc_ValueError, "pitrace: the trace is closed");
		return NULL;
	}
	if (t->in_pass) {
		PyErr_SetString(PyExc_RuntimeError, "pitrace: run() inside a pass of this trace");
		return NULL;
	}
	for (int k = 0; k < EV_KINDS; k++) {
		if (!fn[k] || fn[k] == Py_None)
			continue;	/* the reader's callback stays NULL: it costs nothing */
		if (!PyCallable_Check(fn[k]))
			return PyErr_Format(PyExc_TypeError, "pitrace: run(%s=...) is not callable",
					    pyt_run_keywords[k]);
		Py_INCREF(fn[k]);
		t->cb[k] = fn[k];
		t->vcall[k] = PyVectorcall_Function(fn[k]);
	}
	pyt_event_callbacks(t, &cb);
	t->in_pass = true;
	t->gen++;
	Py_CLEAR(t->names);	/* ids and names are a pass's */
	err = ptr_run(t->r, &t->f, &cb, t);
	pyt_trace_pass_end(t);
	if (err > 0 && PyErr_Occurred())
		return NULL;
	if (err < 0)
		return PyErr_Format(PyExc_RuntimeError, "pitrace: the pass failed: %s",
				    ptr_strerror(err));
	Py_RETURN_NONE;
}

static PyObject *trace_resolve(TraceObject *t, PyObject *args, PyObject *kw)
{
	static const char *const keywords[] = { "pc", "pid", "kernel", NULL };
	unsigned long long pc;
	unsigned int pid = 0;
	int kernel = 0, err;
	struct ptr_location l = { .size = sizeof(l) };

	if (!PyArg_ParseTupleAndKeywords(args, kw, "K|Ip:resolve", (char **)keywords, &pc, &pid,
					 &kernel))
		return NULL;
	pyt_reader_wait(t);
	err = t->r ? ptr_resolve(t->r, pid, pc, kernel, &l) : PTR_ERR_STATE;
	if (err < 0)
		return PyErr_Format(PyExc_RuntimeError, "pitrace: resolve: %s", ptr_strerror(err));
	return Py_BuildValue("{s:N,s:N,s:K,s:N,s:K,s:N,s:N,s:N,s:y#}", "module",
			     pyt_str_or_none(l.module), "module_path",
			     pyt_str_or_none(l.module_path), "module_offset",
			     (unsigned long long)l.module_offset, "symbol",
			     pyt_str_or_none(l.symbol), "offset",
			     (unsigned long long)l.symbol_offset, "file", pyt_str_or_none(l.file),
			     "line", l.line ? PyLong_FromUnsignedLong(l.line) : Py_NewRef(Py_None),
			     "insn", pyt_str_or_none(l.text), "bytes", (const char *)l.bytes,
			     (Py_ssize_t)l.nr_bytes);
}

static PyObject *trace_info(TraceObject *t, PyObject *unused)
{
	struct ptr_trace_info i = { .size = sizeof(i) };
	PyObject *argv;

	(void)unused;
	pyt_reader_wait(t);
	if (!t->r || ptr_get_trace_info(t->r, &i) < 0)
		return PyErr_Format(PyExc_RuntimeError, "pitrace: no trace information");
	argv = PyList_New(0);
	for (size_t n = 0; argv && i.argv && i.argv[n]; n++) {
		PyObject *a = pyt_str_or_none(i.argv[n]);

		if (!a || PyList_Append(argv, a) < 0) {
			Py_XDECREF(a);
			Py_CLEAR(argv);
		} else {
			Py_DECREF(a);
		}
	}
	if (!argv)
		return NULL;
	return Py_BuildValue("{s:i,s:N,s:N,s:N,s:N,s:N,s:K,s:K}", "format_version",
			     i.format_version, "arch", pyt_str_or_none(i.arch), "backend",
			     pyt_str_or_none(i.backend), "mode", pyt_str_or_none(i.mode), "state",
			     pyt_str_or_none(i.state), "argv", argv, "start_ns",
			     (unsigned long long)i.start_ns, "steps", (unsigned long long)i.steps);
}

static PyObject *trace_stats(TraceObject *t, PyObject *unused)
{
	struct ptr_pass_stats s = { .size = sizeof(s) };

	(void)unused;
	pyt_reader_wait(t);
	if (!t->r || ptr_get_pass_stats(t->r, &s) < 0)
		return PyErr_Format(PyExc_RuntimeError, "pitrace: no pass has finished yet");
	return Py_BuildValue("{s:K,s:K,s:K,s:K,s:K,s:d}", "steps", (unsigned long long)s.steps,
			     "steps_in_window", (unsigned long long)s.steps_in_window,
			     "steps_single", (unsigned long long)s.steps_single, "calls_whole",
			     (unsigned long long)s.calls_whole, "steps_whole",
			     (unsigned long long)s.steps_whole, "cpu_seconds", s.cpu_seconds);
}


static void trace_free_reader(TraceObject *t)
{
	ptr_close(t->r);
	t->r = NULL;
	free(t->module);
	free(t->symbol);
	t->module = t->symbol = NULL;
}

static PyObject *trace_close(TraceObject *t, PyObject *unused)
{
	(void)unused;
	if (t->in_pass) {
		PyErr_SetString(PyExc_RuntimeError, "pitrace: close() inside a pass");
		return NULL;
	}
	trace_free_reader(t);
	Py_RETURN_NONE;
}

static PyObject *trace_enter(PyObject *t, PyObject *unused)
{
	(void)unused;
	Py_INCREF(t);
	return t;
}

static PyObject *trace_exit(TraceObject *t, PyObject *args)
{
	(void)args;
	return trace_close(t, NULL);
}

static void trace_dealloc(TraceObject *t)
{
	pyt_trace_pass_end(t);
	Py_CLEAR(t->names);
	trace_free_reader(t);
	Py_TYPE(t)->tp_free((PyObject *)t);
}

static PyMethodDef trace_methods[] = {
	{ "run", (PyCFunction)(void (*)(void))trace_run, METH_VARARGS | METH_KEYWORDS,
	  "run(step=, call=, ret=, syscall=, signal=, task=, gap=): one pass over the trace,\n"
	  "calling each callback given with each event of its kind, in order." },
	{ "resolve", (PyCFunction)(void (*)(void))trace_resolve, METH_VARARGS | METH_KEYWORDS,
	  "resolve(pc, pid=0, kernel=False): module, symbol, offset, file, line, insn of pc." },
	{ "info", (PyCFunction)trace_info, METH_NOARGS, "The trace's header." },
	{ "stats", (PyCFunction)trace_stats, METH_NOARGS, "How the last pass that ended went." },
	{ "close", (PyCFunction)trace_close, METH_NOARGS, "Close the trace." },
	{ "steps", (PyCFunction)pyt_trace_steps, METH_NOARGS,
	  "steps(): an iterator over every step (pitrace.Step), in order." },
	{ "calls", (PyCFunction)pyt_trace_calls, METH_NOARGS,
	  "calls(): an iterator over every frame entered (pitrace.Call), in order." },
	{ "returns", (PyCFunction)pyt_trace_returns, METH_NOARGS,
	  "returns(): an iterator over every frame ended (pitrace.Return), in order." },
	{ "events", (PyCFunction)(void (*)(void))pyt_trace_events, METH_VARARGS | METH_KEYWORDS,
	  "events(kinds=None): an iterator over the events of the kinds named (step, call,\n"
	  "ret, syscall, signal, task, gap; None: all), in order; each event's type says its kind." },
	{ "profile", (PyCFunction)pyt_trace_profile, METH_NOARGS,
	  "profile(): post profile's rows: function, module, calls, base, cum." },
	{ "counts", (PyCFunction)(void (*)(void))pyt_trace_counts, METH_VARARGS | METH_KEYWORDS,
	  "counts(by='symbol'): post counts --by BY's rows (process, thread, module, symbol,\n"
	  "line, insn): its columns, then count." },
	{ "arcs", (PyCFunction)pyt_trace_arcs, METH_NOARGS,
	  "arcs(): post arc's arcs: caller, caller_module, callee, callee_module, calls, base, cum." },
	{ "tree", (PyCFunction)(void (*)(void))pyt_trace_tree, METH_VARARGS | METH_KEYWORDS,
	  "tree(merged=False): post tree's nodes, depth first: pid, tid, depth, function,\n"
	  "module, calls, base, cum." },
	{ "__enter__", trace_enter, METH_NOARGS, NULL },
	{ "__exit__", (PyCFunction)trace_exit, METH_VARARGS, NULL },
	{ NULL }
};

static PyTypeObject trace_type = {
	PyVarObject_HEAD_INIT(NULL, 0).tp_name = "pitrace.Trace",
	.tp_basicsize = sizeof(TraceObject),
	.tp_flags = Py_TPFLAGS_DEFAULT,
	.tp_dealloc = (destructor)trace_dealloc,
	.tp_doc = "A trace directory open for reading (pitrace.open).",
	.tp_methods = trace_methods,
};

/* A Trace of r (which it owns) with filter f: strings copied. */
static PyObject *trace_new(struct ptr_reader *r, const struct ptr_filter *f)
{
	TraceObject *t = PyObject_New(TraceObject, &trace_type);

	if (!t) {
		ptr_close(r);
		return NULL;
	}
	memset((char *)t + sizeof(PyObject), 0, sizeof(*t) - sizeof(PyObject));
	t->r = r;
	t->f = *f;
	t->module = f->module ? strdup(f->module) : NULL;
	t->symbol = f->symbol ? strdup(f->symbol) : NULL;
	t->f.module = t->module;
	t->f.symbol = t->symbol;
	if ((f->module && !t->module) || (f->symbol && !t->symbol)) {
		Py_DECREF(t);
		return PyErr_NoMemory();
	}
	return (PyObject *)t;
}

PyObject *pitrace_py_trace(struct ptr_reader *r, const struct ptr_filter *f)
{
	return trace_new(r, f);
}

/* ---- module functions ---- */

static int ring_of(const char *ring)
{
	if (!ring || !strcmp(ring, "all"))
		return PTR_RING_ALL;
	if (!strcmp(ring, "user"))
		return PTR_RING_USER;
	if (!strcmp(ring, "kernel"))
		return PTR_RING_KERNEL;
	return -1;
}

static PyObject *py_open(PyObject *self, PyObject *args, PyObject *kw)
{
	static const char *const keywords[] = {
		"path", "symfs", "buildid_dir", "debug_dir", "vmlinux", "force", "no_demangle",
		"keep_plt", "threads", "pid", "tid", "module", "symbol", "ring", "from_", "to",
		"time_from", "time_to", "follow", NULL
	};
	struct ptr_open_options o = { .size = sizeof(o) };
	struct ptr_filter f;
	const char *path, *ring = NULL;
	int force = 0, no_demangle = 0, keep_plt = 0, follow = 0, err;
	unsigned long long from = 0, to = UINT64_MAX, time_from = 0, time_to = UINT64_MAX;
	struct ptr_reader *r;

	(void)self;
	ptr_filter_init(&f);
	if (!PyArg_ParseTupleAndKeywords(args, kw, "s|$zzzzpppIIIzzzKKKKp:open", (char **)keywords,
					 &path, &o.symfs, &o.buildid_dir, &o.debug_dir,
					 &o.vmlinux, &force, &no_demangle, &keep_plt, &o.threads,
					 &f.pid, &f.tid, &f.module, &f.symbol, &ring, &from, &to,
					 &time_from, &time_to, &follow))
		return NULL;
	f.ring = ring_of(ring);
	if (f.ring < 0)
		return PyErr_Format(PyExc_ValueError, "pitrace: ring '%s': all, user or kernel",
				    ring);
	if (from > to || time_from > time_to)
		return PyErr_Format(PyExc_ValueError, "pitrace: the window ends before it starts");
	f.from = from;
	f.to = to;
	f.time_from = time_from;
	f.time_to = time_to;
	o.flags = (force ? PTR_OPEN_FORCE : 0) | (no_demangle ? PTR_OPEN_NO_DEMANGLE : 0) |
		  (keep_plt ? PTR_OPEN_KEEP_STUBS : 0) | (follow ? PTR_OPEN_FOLLOW : 0);
	Py_BEGIN_ALLOW_THREADS
	r = ptr_open(path, &o, &err);
	Py_END_ALLOW_THREADS
	if (!r)
		return PyErr_Format(PyExc_OSError, "pitrace: cannot open trace %s: %s", path,
				    ptr_strerror(err));
	return trace_new(r, &f);
}

static PyObject *py_version(PyObject *self, PyObject *unused)
{
	uint32_t v = ptr_version();

	(void)self;
	(void)unused;
	return Py_BuildValue("(II)", v >> 16, v & 0xffff);
}

static PyMethodDef module_methods[] = {
	{ "open", (PyCFunction)(void (*)(void))py_open, METH_VARARGS | METH_KEYWORDS,
	  "open(path, *, symfs=None, buildid_dir=None, debug_dir=None, vmlinux=None,\n"
	  "     force=False, no_demangle=False, keep_plt=False, threads=0, pid=0, tid=0,\n"
	  "     module=None, symbol=None, ring='all', from_=0, to=2**64-1, time_from=0,\n"
	  "     time_to=2**64-1): a Trace of the trace directory path." },
	{ "version", py_version, METH_NOARGS, "The reader library's (major, minor)." },
	{ NULL }
};

static struct PyModuleDef module_def = {
	PyModuleDef_HEAD_INIT, .m_name = "pitrace",
	.m_doc = "Read pitrace traces: steps, calls, returns, system calls, signals, tasks, gaps.",
	.m_size = -1, .m_methods = module_methods,
};

PyMODINIT_FUNC PyInit_pitrace(void)
{
	PyTypeObject *types[1 + EV_KINDS] = { &trace_type };
	PyObject *m;

	memcpy(types + 1, pyt_event_types, sizeof(pyt_event_types));
	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++)
		if (PyType_Ready(types[i]) < 0)
			return NULL;
	if (PyType_Ready(&pyt_iter_type) < 0 || PyType_Ready(&pyt_table_type) < 0)
		return NULL;
	m = PyModule_Create(&module_def);
	if (!m)
		return NULL;
	Py_INCREF(&pyt_table_type);
	Py_INCREF(&pyt_iter_type);
	if (PyModule_AddObject(m, "Table", (PyObject *)&pyt_table_type) < 0 ||
	    PyModule_AddObject(m, "Events", (PyObject *)&pyt_iter_type) < 0) {
		Py_DECREF(m);
		return NULL;
	}
	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
		Py_INCREF(types[i]);
		if (PyModule_AddObject(m, strrchr(types[i]->tp_name, '.') + 1,
				       (PyObject *)types[i]) < 0) {
			Py_DECREF(types[i]);
			Py_DECREF(m);
			return NULL;
		}
	}
	return m;
}
