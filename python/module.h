/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The pitrace Python module (the files in python/) on libpitrace's reader:
 * built into post for 'post script', and as an extension any Python 3
 * imports.
 */
#ifndef PYTHON_MODULE_H
#define PYTHON_MODULE_H

#include <Python.h>

#include <pitrace/reader.h>

/* The module's init function (PyImport_AppendInittab's, or the extension's). */
PyMODINIT_FUNC PyInit_pitrace(void);

/*
 * A pitrace.Trace that owns reader r and passes filter f (copied) to every
 * run; a new reference, or NULL with a Python exception set.  The module
 * must have been imported.
 */
PyObject *pitrace_py_trace(struct ptr_reader *r, const struct ptr_filter *f);

#endif /* PYTHON_MODULE_H */
