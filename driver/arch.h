/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the driver needs from the architecture: one implementation per
 * arch/<arch>/driver/, linked into pitrace.ko.  Every function is required.
 */
#ifndef PITRACE_DRIVER_ARCH_H
#define PITRACE_DRIVER_ARCH_H

#include <linux/types.h>

struct pt_regs;
struct task_struct;

/*
 * Hook the single-step trap.  From then on the arch code calls
 * pitrace_step_trap() (driver/pitrace.h) for every single-step trap taken in
 * user mode, with interrupts off, and consumes the trap (no signal, nobody
 * else sees it) exactly when that returns true.  Every other trap is left
 * to its owners (ptrace, uprobes, hardware breakpoints, debuggers).
 */
int arch_trap_register(void);
void arch_trap_unregister(void);

/* Arm or disarm single-stepping in a user-mode register frame. */
void arch_regs_set_step(struct pt_regs *regs, bool on);
bool arch_regs_step(const struct pt_regs *regs);

/*
 * Block stepping for the current task (call from its own context and again
 * in every trap, since the hardware forgets it at each trap).  Returns false
 * when the CPU or hypervisor does not honour it: traps then come after
 * every instruction, as in step mode.
 */
bool arch_block_arm(void);
/* Undo arch_block_arm() for the current task. */
void arch_block_disarm(void);

/* True when some other in-kernel user (ptrace) single-steps this task. */
bool arch_task_stepped_by_other(struct task_struct *t);

/* True when the system call that regs is returning from was a sigreturn. */
bool arch_syscall_is_sigreturn(const struct pt_regs *regs);

/*
 * Interrupts and exceptions taken by traced tasks (ASYNC records of kinds
 * INTERRUPT and EXCEPTION): the architecture's tracepoints that tell them,
 * each probe calling pitrace_async_entry() (driver/pitrace.h).  Attached
 * for a session's life; a tracepoint the running kernel lacks is skipped.
 * NMIs must never be among them (a probe can't take the ring's writer
 * lock-out from NMI context).  NULL-terminated.
 */
struct arch_async_probe {
	const char *name;
	void *func;
};
extern const struct arch_async_probe arch_async_probes[];

/*
 * From a hard interrupt's probe: the register frame it interrupted, or
 * NULL when that can't be found.
 */
struct pt_regs *arch_interrupt_regs(void);

#endif /* PITRACE_DRIVER_ARCH_H */
