/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Late step traps, seen in a trace whose recorder did not check for them:
 * a hypervisor that emulates an instruction (cpuid under KVM) may deliver
 * its single-step trap only after the next instruction ran too, which then
 * is missing from the trace.  Such a skip shows as a step no successor of
 * the previous instruction explains, where the skipped instruction leads;
 * the code (from the mapped files, through a symbol session of its own)
 * says which.  The trace iterator restores it (trace_iter_restore).
 */
#ifndef PT_RESTORE_H
#define PT_RESTORE_H

#include <stdint.h>

#include "util/symbols.h"

struct restorer;
struct trace_task_rec;

/* A restorer reading code through sym (fed the task records by restorer_task); NULL on failure. */
struct restorer *restorer_new(struct sym_session *sym);
/* Frees r and its symbol session (NULL is fine). */
void restorer_free(struct restorer *r);
/* A task record, in trace order: address spaces change. */
void restorer_task(struct restorer *r, const struct trace_task_rec *rec);

enum restore_verdict {
	RESTORE_NONE = 0,	  /* nothing is missing (or the code cannot say) */
	RESTORE_ONE = 1,	  /* one step is missing: *missing is its pc */
	RESTORE_GAP = 2,	  /* steps are missing, not provably one: a GAP */
};
/*
 * The user-mode step at pc of process pid came after the step at prev:
 * was a step skipped between them?
 */
enum restore_verdict restorer_check(struct restorer *r, uint32_t pid, uint64_t prev, uint64_t pc,
				    uint64_t *missing);

#endif /* PT_RESTORE_H */
