// SPDX-License-Identifier: GPL-2.0
/* The pitrace module's tables (t.profile() and others): post's reports as rows, to_pandas(). */
#include "python/pyt_internal.h"

#include <structmember.h>
#include <pthread.h>
#include <stddef.h>
#include <string.h>

/* ---- tables: post's reports as rows (the reader's ptr_table) ---- */

typedef struct {
	PyObject_HEAD
	PyObject *name;		  /* "profile", ... */
	PyObject *columns;	  /* a tuple of str */
	PyObject *rows;		  /* a list of named tuples */
} TableObject;

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
		PyObject *c = row->text & (1u << k) ? pyt_str_or_none(row->str[k]) :
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

/*
 * Table passes in progress, any trace's: the flag changes under the lock
 * (and the GIL), so that a waiter that saw it set, then let the GIL go,
 * cannot miss its end.
 */
static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t table_done = PTHREAD_COND_INITIALIZER;

static void table_busy(TraceObject *t, bool busy)
{
	pthread_mutex_lock(&table_lock);
	t->in_table = busy;
	t->table_thread = PyThread_get_thread_ident();
	if (!busy)
		pthread_cond_broadcast(&table_done);
	pthread_mutex_unlock(&table_lock);
}

/* The pass's own thread (a signal handler's Python code there) does not wait for itself. */
bool pyt_table_wait(TraceObject *t)
{
	if (!t->in_table || t->table_thread == PyThread_get_thread_ident())
		return false;
	Py_BEGIN_ALLOW_THREADS
	pthread_mutex_lock(&table_lock);
	while (t->in_table)
		pthread_cond_wait(&table_done, &table_lock);
	pthread_mutex_unlock(&table_lock);
	Py_END_ALLOW_THREADS
	return true;
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
	b.tab = PyObject_New(TableObject, &pyt_table_type);
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
	table_busy(t, true);
	err = ptr_table(t->r, &t->f, table, by, table_row, &b);
	table_busy(t, false);
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

PyObject *pyt_trace_profile(TraceObject *t, PyObject *unused)
{
	(void)unused;
	return table_make(t, "profile", NULL, "ProfileRow");
}

PyObject *pyt_trace_arcs(TraceObject *t, PyObject *unused)
{
	(void)unused;
	return table_make(t, "arcs", NULL, "ArcRow");
}

PyObject *pyt_trace_tree(TraceObject *t, PyObject *args, PyObject *kw)
{
	static const char *const keywords[] = { "merged", NULL };
	int merged = 0;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "|$p:tree", (char **)keywords, &merged))
		return NULL;
	return table_make(t, "tree", merged ? "merged" : "threads", "TreeRow");
}

PyObject *pyt_trace_counts(TraceObject *t, PyObject *args, PyObject *kw)
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

PyTypeObject pyt_table_type = {
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

