/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Other in-kernel users of the single-step trap, as the architecture knows
 * them: one implementation per arch/<arch>/driver/trap.c.  Every function
 * is required.  Per-task users (ptrace) are asked about in driver/arch.h
 * (arch_task_stepped_by_other()); these are the system-wide ones, which
 * make a session impossible as a whole.
 */
#ifndef PITRACE_DRIVER_ARCH_CONFLICT_H
#define PITRACE_DRIVER_ARCH_CONFLICT_H

#include <linux/types.h>

/*
 * Find what arch_step_users() reads (process context, module init).  A
 * user that cannot be found is logged once and reported as absent.
 */
void arch_step_users_init(void);

/*
 * System-wide single-step users active now: PITRACE_STEP_USER_* bits
 * (include/pitrace/abi.h).  CLAIM refuses while any is set.  Cheap enough
 * for every system call of a traced task.
 */
u32 arch_step_users(void);

/*
 * Whether a kernel-mode single-step trap that is not from a task pitrace
 * is stepping may be another user's (x86: kmmio has probes registered and
 * steps the kernel's accesses to traced MMIO, from any task).  Such traps
 * are left to their owner instead of being taken for a TF of ours that
 * leaked.
 */
bool arch_kernel_step_foreign(void);

#endif /* PITRACE_DRIVER_ARCH_CONFLICT_H */
