/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The calls a trace makes into code that no symbol or FDE covers: a pass
 * over every thread's steps that notes where they land, so that such code
 * is cut into functions at them (symbols.h: sym_on_uncovered) before any
 * report attributes a step to it.
 */
#ifndef PT_CALL_TARGETS_H
#define PT_CALL_TARGETS_H

#include "util/symbols.h"
#include "util/trace_reader.h"

/*
 * Read it to the end (what it gives is the pass's: restored steps
 * included), note each call target of user code in sym's modules and cut
 * them there, also when damage ends the reading early (the report's own
 * pass says what it is).  0, or -1 when out of memory.
 */
int call_targets_find(struct sym_session *sym, struct trace_iter *it);

#endif /* PT_CALL_TARGETS_H */
