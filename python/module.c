// SPDX-License-Identifier: GPL-2.0
/* The pitrace Python module: libpitrace's reader (pitrace/reader.h) as Trace and event objects. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>
#include <stdbool.h>
#include <stddef.h>
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
#define EVENT_COPY(dst, src)                                                                  	do {                                                                                  		if ((src)->size == sizeof(*(dst)))                                            			*(dst) = *(src);                                                      		else                                                                          			event_copy((dst), sizeof(*(dst)), (src));                             	} while (0)

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
		"time_from", "time_to", NULL
	};
	struct ptr_open_options o = { .size = sizeof(o) };
	struct ptr_filter f;
	const char *path, *ring = NULL;
	int force = 0, no_demangle = 0, keep_plt = 0, err;
	unsigned long long from = 0, to = UINT64_MAX, time_from = 0, time_to = UINT64_MAX;
	struct ptr_reader *r;

	(void)self;
	ptr_filter_init(&f);
	if (!PyArg_ParseTupleAndKeywords(args, kw, "s|$zzzzpppIIIzzzKKKK:open", (char **)keywords,
					 &path, &o.symfs, &o.buildid_dir, &o.debug_dir,
					 &o.vmlinux, &force, &no_demangle, &keep_plt, &o.threads,
					 &f.pid, &f.tid, &f.module, &f.symbol, &ring, &from, &to,
					 &time_from, &time_to))
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
		  (keep_plt ? PTR_OPEN_KEEP_STUBS : 0);
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
	m = PyModule_Create(&module_def);
	if (!m)
		return NULL;
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
