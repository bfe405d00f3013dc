/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tracepoint probes whose prototypes the compiler checks.  Tracepoints
 * are not exported, so pitrace.ko finds them by name
 * (for_each_kernel_tracepoint()) and attaches a probe through a void
 * pointer; nothing would catch a probe whose arguments differ from the
 * tracepoint's on some kernel.  So every probe is declared with
 * PT_TP_PROBE(), next to an #include of the kernel's <trace/events/NAME.h>
 * (or <asm/trace/NAME.h>) that declares the tracepoint: it passes the probe to
 * the kernel's register_trace_<name>() inside sizeof(), which is never
 * evaluated (no reference to the unexported tracepoint), but is type
 * checked: a probe of the wrong prototype is an incompatible pointer
 * type, an error in every kernel build (-Werror=incompatible-pointer-types).
 * lttng-modules checks its probes the same way.
 */
#ifndef PITRACE_DRIVER_TRACEPOINT_H
#define PITRACE_DRIVER_TRACEPOINT_H

#include <linux/tracepoint.h>

/* A probe for the tracepoint called name. */
struct pt_tp_probe {
	const char *name;
	void *func;
};

/* The probe function fn, once its prototype matched tracepoint tp's. */
#define PT_TP_CHECKED(tp, fn) \
	((void *)(fn) + 0 * sizeof(register_trace_##tp((fn), NULL)))

/* An initializer of struct pt_tp_probe for tracepoint tp and probe fn. */
#define PT_TP_PROBE(tp, fn) { .name = #tp, .func = PT_TP_CHECKED(tp, fn) }

#endif /* PITRACE_DRIVER_TRACEPOINT_H */
