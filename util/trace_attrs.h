/* SPDX-License-Identifier: GPL-2.0 */
/* The header attributes every recording has, whichever backend made it. */
#ifndef PT_TRACE_ATTRS_H
#define PT_TRACE_ATTRS_H

#include <stdint.h>

struct trace_writer;

struct trace_attrs {
	const char *arch;	  /* PT_ATTR_ARCH; NULL: the machine's (uname -m) */
	const char *backend;	  /* "ptrace" | "driver" */
	const char *mode;	  /* "step" | "block" | "count" */
	uint32_t nr_cpus;
	char *const *argv;	  /* the traced command, NULL-terminated; NULL: none known */
};

/*
 * At the start of a recording: arch, backend, mode, kernel release,
 * hostname, command line, start time (now) and number of CPUs, in that
 * order.  What one backend alone knows (the driver's kernel build-id, --on
 * symbols, notes) is set after.
 */
void trace_attrs_start(struct trace_writer *tw, const struct trace_attrs *a);

/* At the end of a recording (or when a guardian marks it cut short): the stop time, now. */
void trace_attrs_stop(struct trace_writer *tw);

#endif /* PT_TRACE_ATTRS_H */
