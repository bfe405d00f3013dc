/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Sharing the single-step trap: which other in-kernel users would conflict
 * with a session (CLAIM) or a task (SELECT), and lending TF to uprobes
 * around a probed instruction.  Implemented in driver/task.c; the
 * architecture's part is driver/arch_conflict.h.  docs/driver.md,
 * "Conflicts detected", explains the choices.
 */
#ifndef PITRACE_DRIVER_CONFLICT_H
#define PITRACE_DRIVER_CONFLICT_H

#include <linux/types.h>

struct pt_regs;
struct task_struct;

/* System-wide single-step users active now (PITRACE_STEP_USER_*): CLAIM refuses. */
u32 conflict_step_users(void);

/* The tgid of the process single-stepping t by ptrace, or 0 (under RCU). */
pid_t conflict_step_tracer(struct task_struct *t);

/*
 * uprobes hit in a traced task (arch code, from its breakpoint exception,
 * interrupts off): bp_pc is the probed instruction.  uprobes single-steps
 * a copy of it with TF, or emulates it, and when it finds TF already set it
 * takes it for a debugger's and sends SIGTRAP.  So the task's TF is lent to
 * uprobes (cleared here) and set again by the task's work once uprobes is
 * done with the instruction.
 */
void conflict_uprobe_break(struct pt_regs *regs, unsigned long bp_pc);

/*
 * A user-mode single-step trap, before uprobes sees it (arch code,
 * interrupts off): when it ends uprobes' step of a lent task's
 * instruction, the task's work is queued to take TF back after uprobes'
 * fix-up.
 */
void conflict_uprobe_step(void);

#endif /* PITRACE_DRIVER_CONFLICT_H */
