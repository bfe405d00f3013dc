// SPDX-License-Identifier: GPL-2.0
/* post script: run a Python script's callbacks over a trace's events (the pitrace module). */
#ifdef HAVE_PYTHON
#include "python/module.h"
#endif
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "post/cmdline.h"
#include "post/post.h"
#include "util/log.h"

static const struct popt_cmd cmd = {
	.name = "script", .synopsis = "[OPTIONS] FILE.py [ARGS...]",
	.description =
	"Run FILE.py (sys.argv: FILE.py ARGS...) in the system's Python 3, then\n"
	"one pass over the trace that calls the functions it defines: begin(),\n"
	"step(s), call(c), ret(r), syscall(e), signal(e), task(e), gap(e), end().\n"
	"A callback it does not define costs nothing: without step() and\n"
	"syscall() the engine counts runs of steps and known calls whole.  The\n"
	"filters and the window apply as in the reports; pitrace.trace is the\n"
	"trace (resolve(), info(), stats()).  docs/scripting.md has the events'\n"
	"attributes and examples/scripts/ has scripts.  --follow reads a trace\n"
	"still being recorded as it is written and ends with the recording.",
	.epilog = "Exit status: 0; 1 when the trace cannot be read, the script raises\n"
		  "(its traceback on stderr) or, with --follow, the recorder died\n"
		  "before it finished the trace; 2 on a usage error; 130 on Ctrl-C.",
	.stop_at_args = true,
};

#ifdef HAVE_PYTHON

/* The callbacks a pass takes, in pitrace.Trace.run()'s keyword names. */
static const char *const pass_callbacks[] = { "step", "call", "ret", "syscall", "signal",
					      "task", "gap" };

/*
 * A Python error: its traceback on stderr and the exit status, 130 for
 * Ctrl-C (KeyboardInterrupt) with one line instead of a traceback.
 */
static int script_error(const char *script)
{
	if (PyErr_ExceptionMatches(PyExc_KeyboardInterrupt)) {
		PyErr_Clear();
		pr_err("script: %s interrupted", script);
		return 130;
	}
	if (PyErr_ExceptionMatches(PyExc_BrokenPipeError)) {
		/* the reader of our output (head, a pager) had enough: not the script's
		 * error; what Python still holds to flush goes nowhere */
		int fd = open("/dev/null", O_WRONLY);

		PyErr_Clear();
		if (fd >= 0) {
			dup2(fd, STDOUT_FILENO);
			close(fd);
		}
		return 0;
	}
	if (PyErr_ExceptionMatches(PyExc_SystemExit)) {
		PyObject *type, *value, *tb, *code;
		long status = 1;

		PyErr_Fetch(&type, &value, &tb);
		PyErr_NormalizeException(&type, &value, &tb);
		code = value && PyObject_HasAttrString(value, "code") ?
			       PyObject_GetAttrString(value, "code") : NULL;
		if (code == Py_None || !code)
			status = 0;
		else if (PyLong_Check(code))
			status = PyLong_AsLong(code);
		else	/* sys.exit("message"), as python3 says it */
			PyObject_Print(code, stderr, Py_PRINT_RAW), fputc('\n', stderr);
		Py_XDECREF(code);
		Py_XDECREF(type);
		Py_XDECREF(value);
		Py_XDECREF(tb);
		PyErr_Clear();
		return (int)(status & 0xff);
	}
	PyErr_Print();
	return EXIT_RUNTIME;
}

/* The system's Python with the pitrace module built in, sys.argv = argv. */
static int script_python_init(int argc, char **argv)
{
	PyConfig config;
	PyStatus st;

	if (PyImport_AppendInittab("pitrace", PyInit_pitrace) < 0) {
		pr_err("script: cannot register the pitrace module");
		return -1;
	}
	PyConfig_InitPythonConfig(&config);
	config.parse_argv = 0;
	/* Ctrl-C: KeyboardInterrupt in the script's code, which ends the pass */
	config.install_signal_handlers = 1;
	st = PyConfig_SetBytesArgv(&config, argc, argv);
	if (!PyStatus_Exception(st))
		st = Py_InitializeFromConfig(&config);
	PyConfig_Clear(&config);
	if (PyStatus_Exception(st)) {
		pr_err("script: cannot start Python: %s", st.err_msg ? st.err_msg : "?");
		return -1;
	}
	return 0;
}

/* Run the script's top level in __main__ (its directory first on sys.path): its globals. */
static PyObject *script_load(const char *script)
{
	PyObject *main_mod, *globals, *dir, *path, *file, *r;
	char *copy = strdup(script);
	FILE *fp;

	fp = fopen(script, "r");
	if (!fp || !copy) {
		pr_err("script: cannot open %s: %s", script, strerror(errno));
		free(copy);
		if (fp)
			fclose(fp);
		return NULL;
	}
	main_mod = PyImport_AddModule("__main__");	/* borrowed */
	globals = main_mod ? PyModule_GetDict(main_mod) : NULL;
	dir = PyUnicode_DecodeFSDefault(dirname(copy));
	path = PySys_GetObject("path");			/* borrowed */
	file = PyUnicode_DecodeFSDefault(script);
	free(copy);
	if (!globals || !dir || !path || PyList_Insert(path, 0, dir) < 0 || !file ||
	    PyDict_SetItemString(globals, "__file__", file) < 0) {
		Py_XDECREF(dir);
		Py_XDECREF(file);
		fclose(fp);
		return NULL;
	}
	Py_DECREF(dir);
	Py_DECREF(file);
	r = PyRun_FileEx(fp, script, Py_file_input, globals, globals, 1);
	if (!r)
		return NULL;
	Py_DECREF(r);
	return globals;
}

/* globals' function name, called with no arguments if it defines it: 0, or -1 (error set). */
static int script_call_opt(PyObject *globals, const char *name)
{
	PyObject *fn = PyDict_GetItemString(globals, name), *r;

	if (!fn)
		return 0;
	r = PyObject_CallNoArgs(fn);
	Py_XDECREF(r);
	return r ? 0 : -1;
}

/* trace.run() with the callbacks the script defines: 0, or -1 (error set). */
static int script_pass(PyObject *globals, PyObject *trace)
{
	PyObject *kw = PyDict_New(), *args = PyTuple_New(0), *run = NULL, *r = NULL;

	for (size_t i = 0; kw && i < sizeof(pass_callbacks) / sizeof(pass_callbacks[0]); i++) {
		PyObject *fn = PyDict_GetItemString(globals, pass_callbacks[i]);

		if (fn && PyCallable_Check(fn) &&
		    PyDict_SetItemString(kw, pass_callbacks[i], fn) < 0)
			Py_CLEAR(kw);
	}
	if (kw && args)
		run = PyObject_GetAttrString(trace, "run");
	if (run)
		r = PyObject_Call(run, args, kw);
	Py_XDECREF(run);
	Py_XDECREF(kw);
	Py_XDECREF(args);
	Py_XDECREF(r);
	return r ? 0 : -1;
}

/* The trace, open, as pitrace.trace: a new reference, or NULL (error said or set). */
static PyObject *script_trace(const struct post_opts *opts, const struct session_filter *sf,
			      bool follow, struct ptr_reader **reader)
{
	struct ptr_open_options o = {
		.size = sizeof(o), .symfs = opts->symfs, .buildid_dir = opts->buildid_dir,
		.debug_dir = opts->debug_dir, .vmlinux = opts->vmlinux, .threads = opts->threads,
		.flags = (opts->force ? PTR_OPEN_FORCE : 0) |
			 (opts->no_demangle ? PTR_OPEN_NO_DEMANGLE : 0) |
			 (opts->plt == 1 ? PTR_OPEN_KEEP_STUBS : 0) |
			 (follow ? PTR_OPEN_FOLLOW : 0),
	};
	struct ptr_filter f = {
		.size = sizeof(f), .pid = sf->pid, .tid = sf->tid, .ring = sf->ring,
		.module = sf->module, .symbol = sf->symbol, .from = sf->from, .to = sf->to,
		.time_from = sf->time_from, .time_to = sf->time_to,
	};
	struct ptr_reader *r = ptr_open(opts->input, &o, NULL);
	PyObject *trace, *mod;

	if (!r)
		return NULL;	/* ptr_open said why */
	trace = pitrace_py_trace(r, &f);
	*reader = r;	/* the trace owns it */
	mod = trace ? PyImport_ImportModule("pitrace") : NULL;
	if (mod && PyModule_AddObjectRef(mod, "trace", trace) < 0)
		Py_CLEAR(trace);
	Py_XDECREF(mod);
	if (!mod)
		Py_CLEAR(trace);
	return trace;
}

/*
 * --follow: the recording ended without its recorder finishing the trace
 * (the reader said so in one line when it found out).
 */
static bool recorder_died(struct ptr_reader *r)
{
	struct ptr_trace_info in = { .size = sizeof(in) };

	return ptr_get_trace_info(r, &in) == 0 && !strcmp(in.state, "recording");
}

static int script_run(int argc, char **argv, const struct post_opts *opts,
		      const struct session_filter *f, bool follow)
{
	PyObject *globals, *trace = NULL;
	struct ptr_reader *reader = NULL;
	int ret = 0;

	if (script_python_init(argc, argv) < 0)
		return EXIT_RUNTIME;
	globals = script_load(argv[0]);
	if (!globals) {
		ret = PyErr_Occurred() ? script_error(argv[0]) : EXIT_RUNTIME;
		goto out;
	}
	trace = script_trace(opts, f, follow, &reader);
	if (!trace) {
		ret = PyErr_Occurred() ? script_error(argv[0]) : EXIT_RUNTIME;
		goto out;
	}
	if (script_call_opt(globals, "begin") < 0 || script_pass(globals, trace) < 0 ||
	    script_call_opt(globals, "end") < 0)
		ret = script_error(argv[0]);
	else if (follow && recorder_died(reader))
		ret = EXIT_RUNTIME;	/* end() saw what there was */
out:
	Py_XDECREF(trace);
	if (Py_FinalizeEx() < 0 && !ret)
		ret = EXIT_RUNTIME;	/* the script's output could not be flushed */
	return ret;
}

#endif /* HAVE_PYTHON */

int cmd_script(int argc, char **argv, struct post_opts *opts)
{
	struct session_filter f = SESSION_FILTER_INIT;
	bool follow = false;
	const struct popt opt[] = {
		OPT_FLAG(0, "follow", &follow, "a trace still being recorded: read it as it is\n"
			 "written, end with the recording"),
		POST_FILTER_OPTIONS(&f), POST_WINDOW_OPTIONS(&f), POST_TRACE_OPTIONS(opts), OPT_END
	};
	const struct popt *tables[] = { opt, NULL };
	char **args;
	int nargs, ret = post_parse(&cmd, argc, argv, tables, opts, &f, INT_MAX, &args, &nargs);

	if (ret)
		return POST_EXIT(ret);
	if (!nargs) {
		pr_err("script: no script given (see 'post script --help')");
		return EXIT_USAGE;
	}
#ifdef HAVE_PYTHON
	return script_run(nargs, args, opts, &f, follow);
#else
	pr_err("script: this post was built without Python (python3-dev)");
	return EXIT_RUNTIME;
#endif /* HAVE_PYTHON */
}
