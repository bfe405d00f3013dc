/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel-mode stepping's state in each traced thread: struct pt_task
 * (driver/internal.h) holds one, driver/kernel.c runs it.  A header of its
 * own so that internal.h need not include kernel.h, whose source includes
 * internal.h.
 */
#ifndef PITRACE_DRIVER_KSTATE_H
#define PITRACE_DRIVER_KSTATE_H

#include <linux/types.h>

/* Per traced thread; touched only from the thread's own context. */
struct pt_kstate {
	u8 state;			/* KSTEP_* */
	bool pinned;			/* holds a module reference until its syscall exits */
	u16 skipped;			/* steps in the ftrace trampoline before the body */
	unsigned long expect_ip;	/* first instruction of the syscall function's body */
	unsigned long entry_sp;		/* stack pointer at its entry: above it, it has returned */
	u64 steps;			/* kernel steps of this system call */
};

enum {
	KSTEP_IDLE = 0,			/* not stepping the kernel */
	KSTEP_STARTING,			/* TF set at the syscall function's ftrace site */
	KSTEP_STEPPING,			/* recording the syscall's kernel instructions */
};

#endif /* PITRACE_DRIVER_KSTATE_H */
