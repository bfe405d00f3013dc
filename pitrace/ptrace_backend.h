/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The ptrace backend, as `pitrace record` and `pitrace attach` call it
 * (ptrace_setup.c; its engine is ptrace_engine.c, its insides
 * ptrace_int.h): single-steps every thread of the traced processes and
 * writes each executed user-mode instruction's address, task and module
 * records into a trace directory.
 */
#ifndef PITRACE_PTRACE_BACKEND_H
#define PITRACE_PTRACE_BACKEND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct ptrace_opts {
	const char *out_dir;	  /* trace directory */
	bool block;		  /* --mode block: PTRACE_SINGLEBLOCK */
	bool soft_block;	  /* record: code its bytes decide natively (default; not --single-step) */
	bool follow_fork;	  /* also trace child processes */
	bool compress;		  /* zstd step streams */
	bool shared;		  /* --shared: the trace readable by every user */
	bool pin;		  /* tracer and tracees on one CPU (default) */
	bool aslr;		  /* record: keep the command's address randomization */
	char **on_syms;		  /* --on SYMBOL: record only inside these functions */
	size_t nr_on_syms;
	uint64_t max_steps;	  /* --max-steps: detach after this many steps, 0 never */
	uint64_t duration_ns;	  /* --duration: detach after this long, 0 never */
};

/*
 * Run argv (searched in PATH) under the tracer from its first instruction
 * after execve to its end, or to a limit (max_steps, duration_ns): then
 * every thread is let go and the command runs on untraced to its end,
 * which pitrace waits for.  Returns pitrace's exit status: the command's
 * (128+N when killed by signal N), 127/126 when it cannot be run, or
 * EXIT_RUNTIME when the trace could not be written.
 */
int ptrace_record(const struct ptrace_opts *o, char **argv);

/*
 * Trace the running processes pids (every thread) until they all exit,
 * pitrace gets SIGINT/SIGTERM or a limit (max_steps, duration_ns) is
 * reached, then detach and leave them running.
 * Returns 0, or EXIT_RUNTIME when a process cannot be traced (message
 * printed) or the trace could not be written.
 */
int ptrace_attach(const struct ptrace_opts *o, const pid_t *pids, size_t nr_pids);

struct popt;
/*
 * --on's option callback for record and attach (o->value: the struct
 * ptrace_opts, whose on_syms has room for every argument): the patterns
 * checked as post's filters check them, then kept.  0, or -1 after one line.
 */
int ptrace_on_cb(const struct popt *o, const char *arg, const char *cmd);

#endif /* PITRACE_PTRACE_BACKEND_H */
