/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Opening a trace for reading its steps: the decoder, symbol and vector
 * rules then follow the trace's ARCH attribute (arch/arch.h), whatever
 * architecture post runs on.  A trace of an architecture this build does
 * not know is refused; with TRACE_OPEN_FORCE it is read with the native
 * rules, with a warning.  (The trace reader itself knows no architecture,
 * so that small writers and readers link it alone.)
 */
#ifndef PT_TRACE_ARCH_H
#define PT_TRACE_ARCH_H

#include "util/trace_reader.h"

/* trace_open_flags(), then the trace's architecture selected; NULL when
 * either fails (said in one line). */
struct trace *trace_open_arch(const char *dir, unsigned flags);

#endif /* PT_TRACE_ARCH_H */
