/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The ptrace backend's vDSO calls, run natively from their entry to their
 * return (ptrace_vdso.c): stepped, clock_gettime's seqlock loop retries
 * for as long as each step is slower than the kernel's clock updates.
 */
#ifndef PITRACE_PTRACE_VDSO_H
#define PITRACE_PTRACE_VDSO_H

#include <stdbool.h>
#include <stdint.h>

/* Calls a thread can have under way at once: one per signal handler level. */
#define VDSO_MAX_CALLS 4

/* One vDSO call of a thread, from its entry to its return. */
struct vdso_call {
	uint64_t entry;		  /* its first instruction */
	uint64_t ret;		  /* the return address: the breakpoint it runs to */
	uint64_t end_sp;	  /* the stack pointer once it has returned */
	bool ret_in_reg;	  /* ret was read from a register: end_sp is the entry's sp */
	unsigned sig_depth;	  /* the thread's handler depth when it was made */
};

/* A thread's vDSO calls: the innermost last. */
struct ptrace_vdso {
	bool native;		  /* running to calls[depth - 1].ret (thread.atomic holds it) */
	bool failed_said;
	unsigned depth;
	struct vdso_call calls[VDSO_MAX_CALLS];
};

#endif /* PITRACE_PTRACE_VDSO_H */
