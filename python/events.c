// SPDX-License-Identifier: GPL-2.0
/* The pitrace module's event objects (Step, Call, ...): their attributes, and run()'s callbacks. */
#include "python/pyt_internal.h"

#include <structmember.h>
#include <stddef.h>
#include <string.h>

/* ---- function names, made once a pass per function ---- */

PyObject *pyt_str_or_none(const char *s)
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
	pyt_reader_wait(t);	/* first: nothing below lets another thread in */
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
		pair = Py_BuildValue("(NN)", pyt_str_or_none(fn.name), pyt_str_or_none(fn.module));
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

	if (!e->t->r) {		/* loc's strings were the reader's */
		PyErr_SetString(PyExc_ValueError, "pitrace: the trace is closed");
		return NULL;
	}
	if (e->have_loc && e->gen == e->t->gen)
		return &e->loc;
	pyt_reader_wait(e->t);
	e->loc.size = sizeof(e->loc);
	err = ptr_resolve(e->t->r, pid, pc, kernel, &e->loc);
	if (err < 0) {
		char where[24];	/* PyErr_Format knows no %llx */

		snprintf(where, sizeof(where), "%#llx", (unsigned long long)pc);
		PyErr_Format(PyExc_RuntimeError, "pitrace: cannot resolve %s: %s", where,
			     ptr_strerror(err));
		return NULL;
	}
	if (e->loc.text) {
		snprintf(e->text, sizeof(e->text), "%s", e->loc.text);
		e->loc.text = e->text;
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
		return pyt_str_or_none(l->module);
	case LOC_SYMBOL:
		return pyt_str_or_none(l->symbol);
	case LOC_OFFSET:
		return PyLong_FromUnsignedLongLong(l->symbol_offset);
	case LOC_FILE:
		return pyt_str_or_none(l->file);
	case LOC_LINE:
		if (!l->line)
			Py_RETURN_NONE;
		return PyLong_FromUnsignedLong(l->line);
	case LOC_INSN:
		return pyt_str_or_none(l->text);
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
		return loc_get(EV(o), EV(o)->u.step.pid, EV(o)->u.step.pc,                    \
			       EV(o)->u.step.kernel, what);                                   \
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

PyTypeObject *const pyt_event_types[EV_KINDS] = {
	[EV_STEP] = &step_type, [EV_CALL] = &call_type,	  [EV_RET] = &ret_type,
	[EV_SYSCALL] = &sys_type, [EV_SIGNAL] = &as_type, [EV_TASK] = &task_type,
	[EV_GAP] = &gap_type,
};

/*
 * The event object for kind k: the last one again when no one kept it
 * (most callbacks don't, and a step pass makes one per step), else a new one.
 */
EventObject *pyt_event_get(TraceObject *t, enum ev_kind k)
{
	EventObject *e = (EventObject *)t->spare[k];

	if (e && Py_REFCNT(e) == 1) {
		e->have_loc = false;
		Py_CLEAR(e->path);
		return e;
	}
	Py_XDECREF(e);
	e = PyObject_New(EventObject, pyt_event_types[k]);
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
void pyt_event_copy(void *dst, size_t dst_size, const void *src)
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
			pyt_event_copy((dst), sizeof(*(dst)), (src));              \
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
		EventObject *e = pyt_event_get(t, kind);                                      \
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
	EventObject *e = pyt_event_get(t, EV_TASK);

	if (!e)
		return 1;
	EVENT_COPY(&e->u.task, ev);
	e->path = pyt_str_or_none(ev->path);
	if (!e->path)
		return 1;
	return event_call(t, EV_TASK, e);
}


void pyt_event_callbacks(const TraceObject *t, struct ptr_callbacks *cb)
{
	cb->step = t->cb[EV_STEP] ? tell_step : NULL;
	cb->call = t->cb[EV_CALL] ? tell_call : NULL;
	cb->ret = t->cb[EV_RET] ? tell_ret : NULL;
	cb->syscall = t->cb[EV_SYSCALL] ? tell_syscall : NULL;
	cb->async = t->cb[EV_SIGNAL] ? tell_async : NULL;
	cb->task = t->cb[EV_TASK] ? tell_task : NULL;
	cb->gap = t->cb[EV_GAP] ? tell_gap : NULL;
}
