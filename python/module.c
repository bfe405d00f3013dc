// SPDX-License-Identifier: GPL-2.0
/* The pitrace Python module: libpitrace's reader (pitrace/reader.h) as Trace and event objects. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "python/module.h"

/* The event kinds a pass tells, as run()'s keywords name them. */
enum ev_kind { EV_STEP, EV_CALL, EV_RET, EV_SYSCALL, EV_SIGNAL, EV_TASK, EV_GAP, EV_KINDS };

typedef struct {
	PyObject_HEAD
	struct ptr_reader *r;
	struct ptr_filter f;
	char *module, *symbol;	  /* f's strings */
	uint64_t gen;		  /* passes begun: what an event resolved is valid for */
	bool in_pass;
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

static PyTypeObject trace_type;
static PyTypeObject *event_types[EV_KINDS];

/* ---- function names, made once a pass per function ---- */

static PyObject *str_or_none(const char *s)
{
	if (s)
		return PyUnicode_DecodeUTF8(s, (Py_ssize_t)strlen(s), "replace");
	Py_RETURN_NONE;
}

/* Function id's name (which 0) or module (which 1): a new reference. */
static PyObject *func_attr(TraceObject *t, uint32_t id, int which)
{
	struct ptr_func fn = { .size = sizeof(fn) };
	PyObject *pair, *v, *key;

	if (id == PTR_NO_FUNC)
		Py_RETURN_NONE;
	if (!t->names && !(t->names = PyDict_New()))
		return NULL;
	key = PyLong_FromUnsignedLong(id);
	if (!key)
		return NULL;
	pair = PyDict_GetItemWithError(t->names, key);
	if (!pair && !PyErr_Occurred()) {
		if (ptr_get_func(t->r, id, &fn) < 0) {
			Py_DECREF(key);
			return PyErr_Format(PyExc_ValueError, "pitrace: no function %u", id);
		}
		pair = Py_BuildValue("(NN)", str_or_none(fn.name), str_or_none(fn.module));
		if (pair && PyDict_SetItem(t->names, key, pair) < 0)
			Py_CLEAR(pair);
		Py_XDECREF(pair);	/* the dict holds it */
	}
	Py_DECREF(key);
	if (!pair)
		return NULL;
	v = PyTuple_GET_ITEM(pair, which);
	Py_INCREF(v);
	return v;
}

/* ---- events ---- */

static void event_dealloc(EventObject *e)
{
	Py_XDECREF(e->t);
	Py_XDECREF(e->path);
	PyObject_Free(e);
}

/* Where pc is (resolved on first use, again in a later pass). */
static const struct ptr_location *event_locate(EventObject *e, uint32_t pid, uint64_t pc,
					       int kernel)
{
	int err;

	if (e->have_loc && e->gen == e->t->gen)
		return &e->loc;
	e->loc.size = sizeof(e->loc);
	err = ptr_resolve(e->t->r, pid, pc, kernel, &e->loc);
	if (err < 0) {
		PyErr_Format(PyExc_RuntimeError, "pitrace: cannot resolve %#llx: %s",
			     (unsigned long long)pc, ptr_strerror(err));
		return NULL;
	}
	e->have_loc = true;
	e->gen = e->t->gen;
	return &e->loc;
}

enum loc_field { LOC_MODULE, LOC_SYMBOL, LOC_OFFSET, LOC_FILE, LOC_LINE, LOC_INSN, LOC_FUNCTION };

static PyObject *loc_get(EventObject *e, uint32_t pid, uint64_t pc, int kernel,
			 enum loc_field what)
{
	const struct ptr_location *l = event_locate(e, pid, pc, kernel);

	if (!l)
		return NULL;
	switch (what) {
	case LOC_MODULE:
		return str_or_none(l->module);
	case LOC_SYMBOL:
		return str_or_none(l->symbol);
	case LOC_OFFSET:
		return PyLong_FromUnsignedLongLong(l->symbol_offset);
	case LOC_FILE:
		return str_or_none(l->file);
	case LOC_LINE:
		if (!l->line)
			Py_RETURN_NONE;
		return PyLong_FromUnsignedLong(l->line);
	case LOC_INSN:
		return str_or_none(l->text);
	case LOC_FUNCTION:
		return func_attr(e->t, l->func, 0);
	}
	Py_RETURN_NONE;
}

#define EV(o) ((EventObject *)(o))
#define STEP_LOC(name, what)                                                                  \
	static PyObject *step_##name(PyObject *o, void *unused)                               \
	{                                                                                     \
		(void)unused;                                                                 \
		return loc_get(EV(o), EV(o)->u.step.pid, EV(o)->u.step.pc, EV(o)->u.step.kernel, \
			       what);                                                          \
	}
STEP_LOC(module, LOC_MODULE)
STEP_LOC(symbol, LOC_SYMBOL)
STEP_LOC(offset, LOC_OFFSET)
STEP_LOC(file, LOC_FILE)
STEP_LOC(line, LOC_LINE)
STEP_LOC(insn, LOC_INSN)

#define SYS_LOC(name, what)                                                                   \
	static PyObject *sys_##name(PyObject *o, void *unused)                                \
	{                                                                                     \
		(void)unused;                                                                 \
		return loc_get(EV(o), EV(o)->u.sys.pid, EV(o)->u.sys.pc, 0, what);            \
	}
SYS_LOC(module, LOC_MODULE)
SYS_LOC(symbol, LOC_SYMBOL)
SYS_LOC(offset, LOC_OFFSET)
SYS_LOC(function, LOC_FUNCTION)

#define GETTER(name, expr)                                                                    \
	static PyObject *name(PyObject *o, void *unused)                                      \
	{                                                                                     \
		EventObject *e = EV(o);                                                       \
		(void)unused;                                                                 \
		return expr;                                                                  \
	}

static const char *const insn_classes[] = { "invalid", "other", "call", "ret", "jump", "cond",
					     "syscall", "int", "kret" };
static const char *const call_kinds[] = { "root", "call", "tail", "jump", "async", "kernel",
					   "unmatched" };
static const char *const return_kinds[] = { "return", "unwind", "replaced", "flush", "off" };
static const char *const async_kinds[] = { "?", "signal", "sigreturn", "interrupt", "exception",
					    "irq" };
static const char *const task_kinds[] = { "?", "fork", "exec", "comm", "exit", "mmap", "munmap" };
static const char *const gap_kinds[] = { "?", "gap", "lost", "off", "on", "native" };

static PyObject *kind_name(const char *const *names, size_t n, unsigned k)
{
	return PyUnicode_FromString(k < n ? names[k] : "?");
}
#define KIND(names, k) kind_name(names, sizeof(names) / sizeof(names[0]), (k))

GETTER(step_time, PyLong_FromUnsignedLongLong(e->u.step.time_ns))
GETTER(step_kernel, PyBool_FromLong(e->u.step.kernel))
GETTER(step_bytes, PyBytes_FromStringAndSize((const char *)e->u.step.bytes, e->u.step.nr_bytes))
GETTER(step_class, KIND(insn_classes, e->u.step.insn_class))
GETTER(step_function, func_attr(e->t, e->u.step.func, 0))
GETTER(call_time, PyLong_FromUnsignedLongLong(e->u.call.time_ns))
GETTER(call_caller, func_attr(e->t, e->u.call.caller, 0))
GETTER(call_callee, func_attr(e->t, e->u.call.callee, 0))
GETTER(call_callee_module, func_attr(e->t, e->u.call.callee, 1))
GETTER(call_kind, KIND(call_kinds, e->u.call.kind))
GETTER(call_counts, PyBool_FromLong(PTR_CALL_COUNTS(e->u.call.kind)))
GETTER(ret_time, PyLong_FromUnsignedLongLong(e->u.ret.time_ns))
GETTER(ret_function, func_attr(e->t, e->u.ret.func, 0))
GETTER(ret_module, func_attr(e->t, e->u.ret.func, 1))
GETTER(ret_caller, func_attr(e->t, e->u.ret.caller, 0))
GETTER(ret_kind, KIND(return_kinds, e->u.ret.kind))
GETTER(ret_call_kind, KIND(call_kinds, e->u.ret.call_kind))
GETTER(sys_time, PyLong_FromUnsignedLongLong(e->u.sys.time_ns))
GETTER(as_time, PyLong_FromUnsignedLongLong(e->u.as.time_ns))
GETTER(as_kind, KIND(async_kinds, e->u.as.kind))
GETTER(as_kernel, e->u.as.kernel == 2 ? Py_NewRef(Py_None) : PyBool_FromLong(e->u.as.kernel))
GETTER(task_time, PyLong_FromUnsignedLongLong(e->u.task.time_ns))
GETTER(task_kind, KIND(task_kinds, e->u.task.kind))
GETTER(task_thread, PyBool_FromLong(e->u.task.thread))
GETTER(task_path, Py_NewRef(e->path))
GETTER(gap_time, PyLong_FromUnsignedLongLong(e->u.gap.time_ns))
GETTER(gap_kind, KIND(gap_kinds, e->u.gap.kind))

#define MEMBER(name, type, field, doc) \
	{ name, type, offsetof(EventObject, u.field), READONLY, doc }
#define U32(name, field) MEMBER(name, T_UINT, field, NULL)
#define U64(name, field) MEMBER(name, T_ULONGLONG, field, NULL)
#define GET(name, fn, doc) { name, fn, NULL, doc, NULL }

static PyMemberDef step_members[] = {
	U32("pid", step.pid), U32("tid", step.tid), U32("cpu", step.cpu),
	U64("index", step.index), U64("pc", step.pc), MEMBER("len", T_UBYTE, step.len, NULL),
	{ NULL }
};
static PyGetSetDef step_getset[] = {
	GET("time", step_time, "ns (CLOCK_MONOTONIC), 0 unknown"),
	GET("kernel", step_kernel, "a kernel step"),
	GET("bytes", step_bytes, "the instruction's bytes (b'' unavailable)"),
	GET("insn_class", step_class, "other, call, ret, jump, cond, syscall, int, kret, invalid"),
	GET("function", step_function, "the function it counts for, as the reports name it"),
	GET("module", step_module, "its module's short name"),
	GET("symbol", step_symbol, "the symbol covering pc, None without one"),
	GET("offset", step_offset, "pc's offset in symbol"),
	GET("file", step_file, "source file, None unknown"),
	GET("line", step_line, "source line, None unknown"),
	GET("insn", step_insn, "the instruction's disassembly"),
	{ NULL }
};
static PyMemberDef call_members[] = {
	U32("pid", call.pid), U32("tid", call.tid), U32("depth", call.depth),
	U64("index", call.index), U64("pc", call.pc), U64("target", call.target),
	{ NULL }
};
static PyGetSetDef call_getset[] = {
	GET("time", call_time, NULL), GET("caller", call_caller, "None for a thread's first frame"),
	GET("callee", call_callee, NULL), GET("callee_module", call_callee_module, NULL),
	GET("kind", call_kind, "root, call, tail, jump, async, kernel, unmatched"),
	GET("counts", call_counts, "the reports count it as a call"),
	{ NULL }
};
static PyMemberDef ret_members[] = {
	U32("pid", ret.pid), U32("tid", ret.tid), U32("depth", ret.depth),
	U64("index", ret.index), U64("base", ret.base), U64("cum", ret.cum),
	U64("arc_cum", ret.arc_cum), U64("fn_cum", ret.fn_cum),
	{ NULL }
};
static PyGetSetDef ret_getset[] = {
	GET("time", ret_time, NULL), GET("function", ret_function, NULL),
	GET("module", ret_module, NULL), GET("caller", ret_caller, NULL),
	GET("kind", ret_kind, "return, unwind, replaced, flush, off"),
	GET("call_kind", ret_call_kind, NULL),
	{ NULL }
};
static PyMemberDef sys_members[] = {
	U32("pid", sys.pid), U32("tid", sys.tid), U32("cpu", sys.cpu), U64("index", sys.index),
	U64("pc", sys.pc),
	{ NULL }
};
static PyGetSetDef sys_getset[] = {
	GET("time", sys_time, NULL), GET("module", sys_module, NULL),
	GET("symbol", sys_symbol, NULL), GET("offset", sys_offset, NULL),
	GET("function", sys_function, NULL),
	{ NULL }
};
static PyMemberDef as_members[] = {
	U32("pid", as.pid), U32("tid", as.tid), U64("number", as.number), U64("index", as.index),
	U64("pc", as.pc), U64("address", as.address), U64("error", as.error),
	{ NULL }
};
static PyGetSetDef as_getset[] = {
	GET("time", as_time, NULL),
	GET("kind", as_kind, "signal, sigreturn, interrupt, exception, irq"),
	GET("kernel", as_kernel, "interrupted in the kernel (None unknown)"),
	{ NULL }
};
static PyMemberDef task_members[] = {
	U32("pid", task.pid), U32("tid", task.tid), U32("ppid", task.ppid), U32("ptid", task.ptid),
	MEMBER("status", T_INT, task.status, NULL), U64("start", task.start), U64("len", task.len),
	U64("pgoff", task.pgoff), U32("prot", task.prot),
	{ NULL }
};
static PyGetSetDef task_getset[] = {
	GET("time", task_time, NULL),
	GET("kind", task_kind, "fork, exec, comm, exit, mmap, munmap"),
	GET("thread", task_thread, NULL), GET("path", task_path, NULL),
	{ NULL }
};
static PyMemberDef gap_members[] = {
	U32("pid", gap.pid), U32("tid", gap.tid), U64("index", gap.index),
	U64("reason", gap.reason), U64("count", gap.count), U64("pc", gap.pc), U64("end", gap.end),
	{ NULL }
};
static PyGetSetDef gap_getset[] = {
	GET("time", gap_time, NULL), GET("kind", gap_kind, "gap, lost, off, on, native"),
	{ NULL }
};

#define EVENT_TYPE(var, tname, doc_, members, getset)                                         \
	static PyTypeObject var = {                                                           \
		PyVarObject_HEAD_INIT(NULL, 0).tp_name = "pitrace." tname,                    \
		.tp_basicsize = sizeof(EventObject), .tp_flags = Py_TPFLAGS_DEFAULT,          \
		.tp_dealloc = (destructor)event_dealloc, .tp_doc = doc_,                      \
		.tp_members = members, .tp_getset = getset,                                   \
	}
EVENT_TYPE(step_type, "Step", "One executed instruction.", step_members, step_getset);
EVENT_TYPE(call_type, "Call", "A frame entered.", call_members, call_getset);
EVENT_TYPE(ret_type, "Return", "A frame ended: Base and Cum of its call.", ret_members,
	   ret_getset);
EVENT_TYPE(sys_type, "Syscall", "A system call instruction (user code).", sys_members,
	   sys_getset);
EVENT_TYPE(as_type, "Async", "A signal, a handler's return, an interrupt or an exception.",
	   as_members, as_getset);
EVENT_TYPE(task_type, "Task", "A task event: fork, exec, comm, exit, mmap, munmap.",
	   task_members, task_getset);
EVENT_TYPE(gap_type, "Gap", "Steps missing, or recording switched off or on.", gap_members,
	   gap_getset);

/*
 * The event object for kind k: the last one again when no one kept it
 * (most callbacks don't, and a step pass makes one per step), else a new one.
 */
static EventObject *event_get(TraceObject *t, enum ev_kind k)
{
	EventObject *e = (EventObject *)t->spare[k];

	if (e && Py_REFCNT(e) == 1) {
		e->have_loc = false;
		Py_CLEAR(e->path);
		return e;
	}
	Py_XDECREF(e);
	e = PyObject_New(EventObject, event_types[k]);
	t->spare[k] = (PyObject *)e;
	if (!e)
		return NULL;
	Py_INCREF(t);
	e->t = t;
	e->path = NULL;
	e->have_loc = false;
	e->gen = t->gen;
	return e;
}

/* Copy an event the library passed out: its fields up to the shorter of both sizes. */
static void event_copy(void *dst, size_t dst_size, const void *src)
{
	uint32_t size = *(const uint32_t *)src;

	memset(dst, 0, dst_size);
	memcpy(dst, src, size < dst_size ? size : dst_size);
}

/*
 * The same for an event of a known type: a library of this module's own
 * version passes events of our sizes, copied as a struct (a step pass
 * copies one per step, and a copy of unknown length is a rep movs).
 */
#define EVENT_COPY(dst, src)                                                       \
	do {                                                                       \
		if ((src)->size == sizeof(*(dst)))                                 \
			*(dst) = *(src);                                           \
		else                                                               \
			event_copy((dst), sizeof(*(dst)), (src));                  \
	} while (0)

/*
 * Call kind k's callback with e: non-zero stops the pass (a Python
 * exception is set).  A Python function is called through its vectorcall
 * entry, found when the pass began: no argument tuple, no lookup.
 */
static int event_call(TraceObject *t, enum ev_kind k, EventObject *e)
{
	PyObject *args[2] = { NULL, (PyObject *)e }, *r;

	if (t->vcall[k])
		r = t->vcall[k](t->cb[k], args + 1, 1 | PY_VECTORCALL_ARGUMENTS_OFFSET, NULL);
	else
		r = PyObject_CallOneArg(t->cb[k], (PyObject *)e);
	if (!r) {
		if (!PyErr_Occurred())
			PyErr_SetString(PyExc_SystemError, "pitrace: a callback failed silently");
		return 1;
	}
	Py_DECREF(r);
	return 0;
}

#define TELL(fn, kind, type, field)                                                           \
	static int fn(void *ctx, const type *ev)                                              \
	{                                                                                     \
		TraceObject *t = ctx;                                                         \
		EventObject *e = event_get(t, kind);                                          \
                                                                                              \
		if (!e)                                                                       \
			return 1;                                                             \
		EVENT_COPY(&e->u.field, ev);                                                  \
		return event_call(t, kind, e);                                                \
	}
TELL(tell_step, EV_STEP, struct ptr_step, step)
TELL(tell_call, EV_CALL, struct ptr_call, call)
TELL(tell_ret, EV_RET, struct ptr_return, ret)
TELL(tell_syscall, EV_SYSCALL, struct ptr_syscall, sys)
TELL(tell_async, EV_SIGNAL, struct ptr_async, as)
TELL(tell_gap, EV_GAP, struct ptr_gap, gap)

/* A task: its path is the reader's for the callback only, so the event keeps a copy. */
static int tell_task(void *ctx, const struct ptr_task *ev)
{
	TraceObject *t = ctx;
	EventObject *e = event_get(t, EV_TASK);

	if (!e)
		return 1;
	EVENT_COPY(&e->u.task, ev);
	e->path = str_or_none(ev->path);
	if (!e->path)
		return 1;
	return event_call(t, EV_TASK, e);
}

/* ---- Trace ---- */

static const char *const run_keywords[] = { "step", "call", "ret", "syscall", "signal", "task",
					     "gap", NULL };

static void trace_pass_end(TraceObject *t)
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

	if (!PyArg_ParseTupleAndKeywords(args, kw, "|$OOOOOOO:run", (char **)run_keywords, &fn[0],
					 &fn[1], &fn[2], &fn[3], &fn[4], &fn[5], &fn[6]))
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
					    run_keywords[k]);
		Py_INCREF(fn[k]);
		t->cb[k] = fn[k];
		t->vcall[k] = PyVectorcall_Function(fn[k]);
	}
	cb.step = t->cb[EV_STEP] ? tell_step : NULL;
	cb.call = t->cb[EV_CALL] ? tell_call : NULL;
	cb.ret = t->cb[EV_RET] ? tell_ret : NULL;
	cb.syscall = t->cb[EV_SYSCALL] ? tell_syscall : NULL;
	cb.async = t->cb[EV_SIGNAL] ? tell_async : NULL;
	cb.task = t->cb[EV_TASK] ? tell_task : NULL;
	cb.gap = t->cb[EV_GAP] ? tell_gap : NULL;
	t->in_pass = true;
	t->gen++;
	Py_CLEAR(t->names);	/* ids and names are a pass's */
	err = ptr_run(t->r, &t->f, &cb, t);
	trace_pass_end(t);
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
	err = t->r ? ptr_resolve(t->r, pid, pc, kernel, &l) : PTR_ERR_STATE;
	if (err < 0)
		return PyErr_Format(PyExc_RuntimeError, "pitrace: resolve: %s", ptr_strerror(err));
	return Py_BuildValue("{s:N,s:N,s:K,s:N,s:K,s:N,s:N,s:N,s:y#}", "module",
			     str_or_none(l.module), "module_path", str_or_none(l.module_path),
			     "module_offset", (unsigned long long)l.module_offset, "symbol",
			     str_or_none(l.symbol), "offset", (unsigned long long)l.symbol_offset,
			     "file", str_or_none(l.file), "line",
			     l.line ? PyLong_FromUnsignedLong(l.line) : Py_NewRef(Py_None),
			     "insn", str_or_none(l.text), "bytes", (const char *)l.bytes,
			     (Py_ssize_t)l.nr_bytes);
}

static PyObject *trace_info(TraceObject *t, PyObject *unused)
{
	struct ptr_trace_info i = { .size = sizeof(i) };
	PyObject *argv;

	(void)unused;
	if (!t->r || ptr_get_trace_info(t->r, &i) < 0)
		return PyErr_Format(PyExc_RuntimeError, "pitrace: no trace information");
	argv = PyList_New(0);
	for (size_t n = 0; argv && i.argv && i.argv[n]; n++) {
		PyObject *a = str_or_none(i.argv[n]);

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
			     i.format_version, "arch", str_or_none(i.arch), "backend",
			     str_or_none(i.backend), "mode", str_or_none(i.mode), "state",
			     str_or_none(i.state), "argv", argv, "start_ns",
			     (unsigned long long)i.start_ns, "steps", (unsigned long long)i.steps);
}

static PyObject *trace_stats(TraceObject *t, PyObject *unused)
{
	struct ptr_pass_stats s = { .size = sizeof(s) };

	(void)unused;
	if (!t->r || ptr_get_pass_stats(t->r, &s) < 0)
		return PyErr_Format(PyExc_RuntimeError, "pitrace: no pass has run");
	return Py_BuildValue("{s:K,s:K,s:K,s:K,s:K,s:d}", "steps", (unsigned long long)s.steps,
			     "steps_in_window", (unsigned long long)s.steps_in_window,
			     "steps_single", (unsigned long long)s.steps_single, "calls_whole",
			     (unsigned long long)s.calls_whole, "steps_whole",
			     (unsigned long long)s.steps_whole, "cpu_seconds", s.cpu_seconds);
}

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
	bool producer_turn;	  /* the pass's thread holds the batch */
	bool cancel;		  /* stop the pass (the iterator is going away) */
	bool done;		  /* the pass has ended */
	bool no_memory;		  /* a task's path could not be copied */
	int result;		  /* ptr_run's */
	size_t n, pos;		  /* events in the batch, and taken */
	struct iter_event *ev;	  /* ITER_BATCH */
	PyObject *alt[EV_KINDS];  /* a second spare event per kind (see iter_event_object) */
} IterObject;

static PyTypeObject iter_type;

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
	event_copy(&slot->u, size, ev);
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

/* Python's side: hand the (taken) batch back and wait for the next, the GIL released. */
static void iter_wait_batch(IterObject *it, bool cancel)
{
	iter_free_batch(it);
	Py_BEGIN_ALLOW_THREADS
	pthread_mutex_lock(&it->lock);
	if (!it->done) {
		it->cancel = cancel;
		it->producer_turn = true;
		pthread_cond_broadcast(&it->cond);
		while (it->producer_turn)
			pthread_cond_wait(&it->cond, &it->lock);
	}
	pthread_mutex_unlock(&it->lock);
	Py_END_ALLOW_THREADS
}

/* The pass is over (or stopped): its thread joined, the trace free for another pass. */
static void iter_finish(IterObject *it)
{
	if (!it->started || it->joined)
		return;
	while (!it->done)
		iter_wait_batch(it, true);
	Py_BEGIN_ALLOW_THREADS
	pthread_join(it->thread, NULL);
	Py_END_ALLOW_THREADS
	it->joined = true;
	iter_free_batch(it);
	for (int k = 0; k < EV_KINDS; k++)
		Py_CLEAR(it->alt[k]);	/* their references to the trace: no cycle */
	trace_pass_end(it->t);
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
	it->producer_turn = true;
	if (pthread_create(&it->thread, NULL, iter_main, it)) {
		t->in_pass = false;
		PyErr_SetString(PyExc_RuntimeError, "pitrace: cannot start the pass's thread");
		return -1;
	}
	it->started = true;
	/* the thread has the first turn: wait for its first batch */
	Py_BEGIN_ALLOW_THREADS
	pthread_mutex_lock(&it->lock);
	while (it->producer_turn)
		pthread_cond_wait(&it->cond, &it->lock);
	pthread_mutex_unlock(&it->lock);
	Py_END_ALLOW_THREADS
	return 0;
}

/*
 * The batch's next event as an object.  event_get reuses the trace's
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
	e = event_get(it->t, k);

	if (!e)
		return NULL;
	event_copy(&e->u, sizeof(e->u), &ev->u);
	if (ev->kind == EV_TASK) {
		e->path = str_or_none(ev->path);
		if (!e->path)
			return NULL;
	}
	Py_INCREF(e);
	return (PyObject *)e;
}

static PyObject *iter_next(IterObject *it)
{
	int result;

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

static PyTypeObject iter_type = {
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
	it = PyObject_New(IterObject, &iter_type);
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

static PyObject *trace_steps(TraceObject *t, PyObject *unused)
{
	(void)unused;
	return iter_new(t, 1u << EV_STEP);
}

static PyObject *trace_calls(TraceObject *t, PyObject *unused)
{
	(void)unused;
	return iter_new(t, 1u << EV_CALL);
}

static PyObject *trace_returns(TraceObject *t, PyObject *unused)
{
	(void)unused;
	return iter_new(t, 1u << EV_RET);
}

/* events(kinds=None): kinds, names as run()'s keywords; None: every kind. */
static PyObject *trace_events(TraceObject *t, PyObject *args, PyObject *kw)
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
			    !PyUnicode_CompareWithASCIIString(name, run_keywords[k]))
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

/* ---- tables: post's reports as rows (the reader's ptr_table) ---- */

typedef struct {
	PyObject_HEAD
	PyObject *name;		  /* "profile", ... */
	PyObject *columns;	  /* a tuple of str */
	PyObject *rows;		  /* a list of named tuples */
} TableObject;

static PyTypeObject table_type;

/* A named tuple type per table (and counts' by), made once. */
static PyObject *row_type(const char *tname, const struct ptr_row *row, PyObject **columns)
{
	static PyObject *types;
	PyObject *cls, *collections, *make, *args, *kw;

	*columns = PyTuple_New(row->nr_cols);
	if (!*columns)
		return NULL;
	for (uint32_t k = 0; k < row->nr_cols; k++)
		PyTuple_SET_ITEM(*columns, k, PyUnicode_FromString(row->names[k]));
	if (!types && !(types = PyDict_New()))
		return NULL;
	cls = PyDict_GetItemString(types, tname);
	if (cls)
		return cls;
	collections = PyImport_ImportModule("collections");
	if (!collections)
		return NULL;
	make = PyObject_GetAttrString(collections, "namedtuple");
	Py_DECREF(collections);
	args = Py_BuildValue("(sO)", tname, *columns);
	kw = Py_BuildValue("{s:s}", "module", "pitrace");
	cls = make && args && kw ? PyObject_Call(make, args, kw) : NULL;
	Py_XDECREF(make);
	Py_XDECREF(args);
	Py_XDECREF(kw);
	if (!cls)
		return NULL;
	if (PyDict_SetItemString(types, tname, cls) < 0) {
		Py_DECREF(cls);
		return NULL;
	}
	Py_DECREF(cls);		/* the dict holds it */
	return cls;
}

struct table_build {
	TableObject *tab;
	const char *tname;	  /* the rows' type name */
	PyObject *cls;
};

static int table_row(void *ctx, const struct ptr_row *row)
{
	struct table_build *b = ctx;
	PyObject *v, *r;

	if (!b->cls && !(b->cls = row_type(b->tname, row, &b->tab->columns)))
		return 1;
	v = PyTuple_New(row->nr_cols);
	if (!v)
		return 1;
	for (uint32_t k = 0; k < row->nr_cols; k++) {
		PyObject *c = row->text & (1u << k) ? str_or_none(row->str[k]) :
						      PyLong_FromUnsignedLongLong(row->num[k]);

		if (!c) {
			Py_DECREF(v);
			return 1;
		}
		PyTuple_SET_ITEM(v, k, c);
	}
	r = PyObject_Call(b->cls, v, NULL);
	Py_DECREF(v);
	if (!r || PyList_Append(b->tab->rows, r) < 0) {
		Py_XDECREF(r);
		return 1;
	}
	Py_DECREF(r);
	return 0;
}

/* The columns of a table with no rows: a row told with none. */
static const char *const *empty_columns(const char *table, const char *by, size_t *n);

static PyObject *table_make(TraceObject *t, const char *table, const char *by, const char *tname)
{
	struct table_build b = { .tname = tname };
	int err;

	if (!t->r) {
		PyErr_SetString(PyExc_ValueError, "pitrace: the trace is closed");
		return NULL;
	}
	if (t->in_pass) {
		PyErr_SetString(PyExc_RuntimeError,
				"pitrace: another pass over this trace is in progress (an "
				"unfinished loop or run()): finish or delete it first");
		return NULL;
	}
	b.tab = PyObject_New(TableObject, &table_type);
	if (!b.tab)
		return NULL;
	b.tab->name = PyUnicode_FromString(table);
	b.tab->columns = NULL;
	b.tab->rows = PyList_New(0);
	if (!b.tab->name || !b.tab->rows) {
		Py_DECREF(b.tab);
		return NULL;
	}
	t->in_pass = true;
	t->gen++;
	Py_CLEAR(t->names);
	err = ptr_table(t->r, &t->f, table, by, table_row, &b);
	t->in_pass = false;
	if (err > 0 && PyErr_Occurred()) {
		Py_DECREF(b.tab);
		return NULL;
	}
	if (err < 0) {
		Py_DECREF(b.tab);
		return PyErr_Format(PyExc_RuntimeError, "pitrace: the %s table failed: %s", table,
				    ptr_strerror(err));
	}
	if (!b.tab->columns) {
		size_t n;
		const char *const *names = empty_columns(table, by, &n);

		b.tab->columns = PyTuple_New((Py_ssize_t)n);
		for (size_t k = 0; b.tab->columns && k < n; k++)
			PyTuple_SET_ITEM(b.tab->columns, k, PyUnicode_FromString(names[k]));
		if (!b.tab->columns) {
			Py_DECREF(b.tab);
			return NULL;
		}
	}
	return (PyObject *)b.tab;
}

/* The columns ptr_table names (reader.h), for a table without rows. */
static const char *const *empty_columns(const char *table, const char *by, size_t *n)
{
	static const char *const profile[] = { "function", "module", "calls", "base", "cum" };
	static const char *const arcs[] = { "caller", "caller_module", "callee", "callee_module",
					    "calls", "base", "cum" };
	static const char *const tree[] = { "pid", "tid", "depth", "function", "module", "calls",
					    "base", "cum" };
	static const struct {
		const char *by;
		const char *cols[4];
		size_t n;
	} counts[] = {
		{ "process", { "process", "count" }, 2 },
		{ "thread", { "pid", "thread", "count" }, 3 },
		{ "module", { "module", "count" }, 2 },
		{ "symbol", { "module", "symbol", "count" }, 3 },
		{ "line", { "module", "line", "count" }, 3 },
		{ "insn", { "address", "symbol", "instruction", "count" }, 4 },
	};

	if (!strcmp(table, "profile")) {
		*n = 5;
		return profile;
	}
	if (!strcmp(table, "arcs")) {
		*n = 7;
		return arcs;
	}
	if (!strcmp(table, "tree")) {
		*n = 8;
		return tree;
	}
	for (size_t i = 0; i < sizeof(counts) / sizeof(counts[0]); i++) {
		if (!strcmp(by, counts[i].by)) {
			*n = counts[i].n;
			return counts[i].cols;
		}
	}
	*n = 0;
	return profile;
}

static PyObject *trace_profile(TraceObject *t, PyObject *unused)
{
	(void)unused;
	return table_make(t, "profile", NULL, "ProfileRow");
}

static PyObject *trace_arcs(TraceObject *t, PyObject *unused)
{
	(void)unused;
	return table_make(t, "arcs", NULL, "ArcRow");
}

static PyObject *trace_tree(TraceObject *t, PyObject *args, PyObject *kw)
{
	static const char *const keywords[] = { "merged", NULL };
	int merged = 0;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "|$p:tree", (char **)keywords, &merged))
		return NULL;
	return table_make(t, "tree", merged ? "merged" : "threads", "TreeRow");
}

static PyObject *trace_counts(TraceObject *t, PyObject *args, PyObject *kw)
{
	static const char *const keywords[] = { "by", NULL };
	static const char *const bys[] = { "process", "thread", "module", "symbol", "line",
					   "insn" };
	static const char *const tnames[] = { "ProcessCount", "ThreadCount", "ModuleCount",
					      "SymbolCount", "LineCount", "InsnCount" };
	const char *by = "symbol";

	if (!PyArg_ParseTupleAndKeywords(args, kw, "|s:counts", (char **)keywords, &by))
		return NULL;
	for (size_t i = 0; i < sizeof(bys) / sizeof(bys[0]); i++)
		if (!strcmp(by, bys[i]))
			return table_make(t, "counts", by, tnames[i]);
	return PyErr_Format(PyExc_ValueError, "pitrace: counts(by='%s'): process, thread, module, "
			    "symbol, line or insn", by);
}

static void table_dealloc(TableObject *tab)
{
	Py_XDECREF(tab->name);
	Py_XDECREF(tab->columns);
	Py_XDECREF(tab->rows);
	PyObject_Free(tab);
}

static Py_ssize_t table_len(TableObject *tab)
{
	return PyList_GET_SIZE(tab->rows);
}

static PyObject *table_item(TableObject *tab, Py_ssize_t i)
{
	PyObject *r = PyList_GetItem(tab->rows, i);

	if (!r) {
		PyErr_SetString(PyExc_IndexError, "pitrace: table index out of range");
		return NULL;
	}
	Py_INCREF(r);
	return r;
}

static PyObject *table_iter(TableObject *tab)
{
	return PyObject_GetIter(tab->rows);
}

static PyObject *table_repr(TableObject *tab)
{
	return PyUnicode_FromFormat("<pitrace.Table %U: %zd rows, columns %R>", tab->name,
				    PyList_GET_SIZE(tab->rows), tab->columns);
}

/* A pandas.DataFrame of the rows, or ImportError when pandas is not there. */
static PyObject *table_to_pandas(TableObject *tab, PyObject *unused)
{
	PyObject *pandas, *cols, *df;

	(void)unused;
	pandas = PyImport_ImportModule("pandas");
	if (!pandas) {
		if (!PyErr_ExceptionMatches(PyExc_ImportError))
			return NULL;
		PyErr_Clear();
		PyErr_SetString(PyExc_ImportError,
				"pandas is not installed: apt install python3-pandas");
		return NULL;
	}
	cols = PySequence_List(tab->columns);
	df = cols ? PyObject_CallMethod(pandas, "DataFrame", "OsO", tab->rows, NULL, cols) : NULL;
	Py_XDECREF(cols);
	Py_DECREF(pandas);
	return df;
}

/* t[i] and t[a:b] as the list of rows has them */
static PyObject *table_subscript(TableObject *tab, PyObject *key)
{
	return PyObject_GetItem(tab->rows, key);
}

static PySequenceMethods table_seq = {
	.sq_length = (lenfunc)table_len,
	.sq_item = (ssizeargfunc)table_item,
};

static PyMappingMethods table_map = {
	.mp_length = (lenfunc)table_len,
	.mp_subscript = (binaryfunc)table_subscript,
};

static PyMemberDef table_members[] = {
	{ "name", T_OBJECT, offsetof(TableObject, name), READONLY, "the report" },
	{ "columns", T_OBJECT, offsetof(TableObject, columns), READONLY, "the columns' names" },
	{ NULL }
};

static PyMethodDef table_methods[] = {
	{ "to_pandas", (PyCFunction)table_to_pandas, METH_NOARGS,
	  "The rows as a pandas.DataFrame (ImportError without pandas)." },
	{ NULL }
};

static PyTypeObject table_type = {
	PyVarObject_HEAD_INIT(NULL, 0).tp_name = "pitrace.Table",
	.tp_basicsize = sizeof(TableObject),
	.tp_flags = Py_TPFLAGS_DEFAULT,
	.tp_dealloc = (destructor)table_dealloc,
	.tp_doc = "A report's rows (named tuples), as post's report has them.",
	.tp_as_sequence = &table_seq,
	.tp_as_mapping = &table_map,
	.tp_iter = (getiterfunc)table_iter,
	.tp_repr = (reprfunc)table_repr,
	.tp_members = table_members,
	.tp_methods = table_methods,
};

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
	trace_pass_end(t);
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
	{ "stats", (PyCFunction)trace_stats, METH_NOARGS, "How the last pass went." },
	{ "close", (PyCFunction)trace_close, METH_NOARGS, "Close the trace." },
	{ "steps", (PyCFunction)trace_steps, METH_NOARGS,
	  "steps(): an iterator over every step (pitrace.Step), in order." },
	{ "calls", (PyCFunction)trace_calls, METH_NOARGS,
	  "calls(): an iterator over every frame entered (pitrace.Call), in order." },
	{ "returns", (PyCFunction)trace_returns, METH_NOARGS,
	  "returns(): an iterator over every frame ended (pitrace.Return), in order." },
	{ "events", (PyCFunction)(void (*)(void))trace_events, METH_VARARGS | METH_KEYWORDS,
	  "events(kinds=None): an iterator over the events of the kinds named (step, call,\n"
	  "ret, syscall, signal, task, gap; None: all), in order; each event's type says its kind." },
	{ "profile", (PyCFunction)trace_profile, METH_NOARGS,
	  "profile(): post profile's rows: function, module, calls, base, cum." },
	{ "counts", (PyCFunction)(void (*)(void))trace_counts, METH_VARARGS | METH_KEYWORDS,
	  "counts(by='symbol'): post counts --by BY's rows (process, thread, module, symbol,\n"
	  "line, insn): its columns, then count." },
	{ "arcs", (PyCFunction)trace_arcs, METH_NOARGS,
	  "arcs(): post arc's arcs: caller, caller_module, callee, callee_module, calls, base, cum." },
	{ "tree", (PyCFunction)(void (*)(void))trace_tree, METH_VARARGS | METH_KEYWORDS,
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
	static PyTypeObject *const types[] = { &trace_type, &step_type, &call_type, &ret_type,
					       &sys_type, &as_type, &task_type, &gap_type };
	PyObject *m;

	event_types[EV_STEP] = &step_type;
	event_types[EV_CALL] = &call_type;
	event_types[EV_RET] = &ret_type;
	event_types[EV_SYSCALL] = &sys_type;
	event_types[EV_SIGNAL] = &as_type;
	event_types[EV_TASK] = &task_type;
	event_types[EV_GAP] = &gap_type;
	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++)
		if (PyType_Ready(types[i]) < 0)
			return NULL;
	if (PyType_Ready(&iter_type) < 0 || PyType_Ready(&table_type) < 0)
		return NULL;
	m = PyModule_Create(&module_def);
	if (!m)
		return NULL;
	Py_INCREF(&table_type);
	Py_INCREF(&iter_type);
	if (PyModule_AddObject(m, "Table", (PyObject *)&table_type) < 0 ||
	    PyModule_AddObject(m, "Events", (PyObject *)&iter_type) < 0) {
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
