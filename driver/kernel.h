/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel-mode stepping (PITRACE_CFG_KERNEL): a traced task's system calls
 * are single-stepped from the syscall function's entry to its return.
 * docs/kernel-mode.md has the design; driver/kernel.c the common logic;
 * driver/arch_calls.h what it needs from the architecture (arch_kstep_*) and the
 * trap the architecture code calls (pitrace_kernel_step_trap()).
 */
#ifndef PITRACE_DRIVER_KERNEL_H
#define PITRACE_DRIVER_KERNEL_H

struct pt_session;

#define PT_KERNEL_STEP_LIMIT_DEFAULT 10000000ull

/* Session start/end (pt_session_mutex held). */
int kernel_session_start(struct pt_session *s);
void kernel_session_stop(struct pt_session *s);
/* Module unload: detach what stays attached after the first kernel session. */
void kernel_module_exit(void);

#endif /* PITRACE_DRIVER_KERNEL_H */
