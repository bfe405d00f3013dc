/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The ptrace backend's load-reserve/store-conditional sequences (ppc64
 * lwarx..stwcx.): they cannot be single-stepped (each trap clears the
 * reservation, the store never succeeds), so a thread about to start one
 * runs it natively to breakpoints planted at its exits (arch_ptrace.h,
 * arch_atomic_sequence()), and the exit it stops at says which
 * instructions ran.  One pass at a time: a failed store-conditional goes
 * back to the load-reserve stepped, and the next pass runs natively again,
 * so every retry is counted.
 */
#ifndef PITRACE_PTRACE_ATOMIC_H
#define PITRACE_PTRACE_ATOMIC_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "arch/arch_ptrace.h"

/* One thread's sequence in progress. */
struct ptrace_atomic {
	bool active;		  /* running natively, its exits planted */
	struct arch_atomic_seq seq;
	uint8_t saved[ARCH_ATOMIC_MAX_EXITS][ARCH_BREAKPOINT_MAX];
	unsigned nr_planted;
};

/*
 * A thread of the process behind memfd is about to run the instruction at
 * pc.  1: pc starts a sequence, now in a->seq; 0: none starts there; -1:
 * one does that cannot run as a unit (step it; said once on stderr).
 */
int ptrace_atomic_find(struct ptrace_atomic *a, int memfd, uint64_t pc);

/* A private writable mapping of a process, [lo, hi); lo == hi: none known. */
struct ptrace_private_range {
	uint64_t lo, hi;
};

/*
 * Make the page of addr, the word a sequence's load-reserve reserves,
 * present and writable in process pid (memfd its /proc/PID/mem) before the
 * native run, as the driver pins it for writing: a store-conditional that
 * faults (the copy-on-write of a page not written yet) loses the
 * reservation on the fault's return, and the program retries.  The word is
 * written back with what it holds, so the caller makes sure nothing else
 * can write it meanwhile (no other thread of pid running); only in a
 * private writable mapping (no other process shares it), which *cache
 * remembers (clear it when the mappings change).  0, or -1 when not done.
 */
int ptrace_atomic_populate(int memfd, pid_t pid, uint64_t addr,
			   struct ptrace_private_range *cache);

/*
 * Plant breakpoints at the exits of the sequence ptrace_atomic_find() found:
 * 0 (resume the thread natively), or -1 with none planted (step it).
 */
int ptrace_atomic_plant(struct ptrace_atomic *a, int memfd);

/*
 * The thread (tid) stopped at pc while a was active: the breakpoints are
 * taken out.  *steps: instructions the sequence ran (from seq.start, in
 * order); *kind: the ATOMIC record to write (PT_ATOMIC_*), or -1 for none
 * (stopped inside the sequence, by a signal: it will run again).  Returns
 * true when pc is one of its exits.
 */
bool ptrace_atomic_end(struct ptrace_atomic *a, int memfd, pid_t tid, uint64_t pc,
		       unsigned *steps, int *kind);

/*
 * Other code run natively the same way (ptrace_vdso.c): one breakpoint, at
 * stop, for a run from start; 0, or -1 when it cannot be planted.  The
 * engine treats it as a sequence (other threads wait, or run on past it).
 */
int ptrace_atomic_run_to(struct ptrace_atomic *a, int memfd, uint64_t start, uint64_t stop);
/* Take out whatever a planted, without recording anything. */
void ptrace_atomic_cancel(struct ptrace_atomic *a, int memfd);

/* Whether a holds a breakpoint at pc (another thread must not run it). */
bool ptrace_atomic_holds(const struct ptrace_atomic *a, uint64_t pc);

#endif /* PITRACE_PTRACE_ATOMIC_H */
