/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Sharing the single-step trap: which other in-kernel users would conflict
 * with a session (CLAIM) or a task (SELECT).  Implemented in driver/task.c,
 * with lending the step flag to uprobes around a probed instruction (the
 * arch code's calls for that are in driver/arch_calls.h); the architecture's
 * part is arch_step_users() (driver/arch_calls.h).  docs/driver.md, "Conflicts
 * detected", explains the choices.
 */
#ifndef PITRACE_DRIVER_CONFLICT_H
#define PITRACE_DRIVER_CONFLICT_H

#include <linux/types.h>

struct task_struct;

/* System-wide single-step users active now (PITRACE_STEP_USER_*): CLAIM refuses. */
u32 conflict_step_users(void);

/* The tgid of the process single-stepping t by ptrace, or 0 (under RCU). */
pid_t conflict_step_tracer(struct task_struct *t);

#endif /* PITRACE_DRIVER_CONFLICT_H */
