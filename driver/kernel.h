/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel-mode stepping (PITRACE_CFG_KERNEL): a traced task's system calls
 * are single-stepped from the syscall function's entry to its return.
 * docs/kernel-mode.md has the design; driver/kernel.c the common logic;
 * driver/arch_kernel.h what it needs from the architecture.
 */
#ifndef PITRACE_DRIVER_KERNEL_H
#define PITRACE_DRIVER_KERNEL_H

#include <linux/types.h>

struct pt_regs;
struct pt_session;

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

#define PT_KERNEL_STEP_LIMIT_DEFAULT 10000000ull

/* Session start/end (pt_session_mutex held). */
int kernel_session_start(struct pt_session *s);
void kernel_session_stop(struct pt_session *s);
/* Module unload: detach what stays attached after the first kernel session. */
void kernel_module_exit(void);
/* kallsyms_lookup_name() (not exported; process context): 0 when name or it is not found. */
unsigned long kernel_lookup_name(const char *name);
/*
 * A single-step trap taken in kernel mode (interrupts off, #DB context).
 * True when it is ours (stepped or leaked TF): consumed, no one else sees it.
 */
bool pitrace_kernel_step_trap(struct pt_regs *regs);

#endif /* PITRACE_DRIVER_KERNEL_H */
