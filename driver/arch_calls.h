/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Every call between the driver (driver/) and its architecture code
 * (arch/<arch>/driver/, linked into pitrace.ko as arch_*.o), in both
 * directions, as direct calls.  The first part is what each architecture
 * implements (every item required); the second is what the driver gives
 * the architecture code.  General helpers that are no callback (kallsyms
 * lookups) are in driver/ksyms.h.
 */
#ifndef PITRACE_DRIVER_ARCH_CALLS_H
#define PITRACE_DRIVER_ARCH_CALLS_H

#include <linux/types.h>

#include "tracepoint.h"

struct notifier_block;
struct pt_regs;
struct task_struct;

/* ---- implemented by arch/<arch>/driver/trap.c ---- */

/*
 * The single-step trap's two die notifiers, in the kernel's notifier_call
 * prototype.  driver/trap.c owns their notifier_blocks, priorities and
 * registration (module load to unload); the compiler checks each callback
 * against notifier_fn_t there and against its declaration here.
 *
 * arch_step_notify() (just below uprobes' notifier): calls
 * pitrace_step_trap() for every single-step trap taken in user mode, with
 * interrupts off, and consumes the trap (NOTIFY_STOP: no signal, nobody
 * else sees it) exactly when that returns true; kernel-mode single-step
 * traps go to pitrace_kernel_step_trap() the same way.  Every other trap
 * is left to its owners (ptrace, uprobes, kprobes, hardware breakpoints,
 * debuggers): NOTIFY_DONE.
 *
 * arch_uprobe_notify() (ahead of uprobes' notifier): at a user-mode
 * breakpoint that may be a uprobe's, calls conflict_uprobe_break(); at a
 * user-mode single-step trap, conflict_uprobe_step().  Consumes nothing:
 * always NOTIFY_DONE.
 */
int arch_step_notify(struct notifier_block *nb, unsigned long val, void *data);
int arch_uprobe_notify(struct notifier_block *nb, unsigned long val, void *data);

/*
 * The architecture's own step-trap hooks besides the die chain (arm64:
 * debug-monitors' step hook list, which calls the same decision as
 * arch_step_notify()), registered by driver/trap.c with the notifiers;
 * x86_64 and ppc64 have none.  An errno when this kernel cannot give
 * them: the module does not load (said in one line).
 */
int arch_trap_register(void);
void arch_trap_unregister(void);

/*
 * Arm or disarm single-stepping in a user-mode register frame, regs, of
 * task t (current, or a child not yet run): arm64 keeps part of the step
 * state in the task's flags.
 */
void arch_regs_set_step(struct task_struct *t, struct pt_regs *regs, bool on);
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
 * Other in-kernel users of the single-step trap that make a session
 * impossible as a whole (per-task users, ptrace, are asked about with
 * arch_task_stepped_by_other()).  arch_step_users_init() finds what
 * arch_step_users() reads (process context, module init; a user that
 * cannot be found is logged once and reported as absent).
 * arch_step_users() returns the PITRACE_STEP_USER_* bits
 * (include/pitrace/abi.h) active now: CLAIM refuses while any is set.
 * Cheap enough for every system call of a traced task.
 */
void arch_step_users_init(void);
u32 arch_step_users(void);

/*
 * Whether a kernel-mode single-step trap that is not from a task pitrace
 * is stepping may be another user's (x86: kmmio steps the kernel's
 * accesses to traced MMIO, from any task).  Such traps are left to their
 * owner instead of being taken for a TF of ours that leaked.
 */
bool arch_kernel_step_foreign(void);

/*
 * A step deferred by pitrace_step_defer(), from the task's own context
 * (task work, may sleep) before it returns to user mode: take the
 * instruction(s) at instruction_pointer(regs) some other way (ppc64:
 * emulate the larx..stcx. sequence), recording each as
 * pitrace_step_emulated() says, and leave regs armed or not as it says.
 * x86_64 never defers.
 */
void arch_step_deferred(struct pt_regs *regs);

/* ---- implemented by arch/<arch>/driver/async.c ---- */

/*
 * Interrupts and exceptions taken by traced tasks (ASYNC records of kinds
 * INTERRUPT and EXCEPTION): the architecture's tracepoints that tell them,
 * each probe calling pitrace_async_entry(), declared with PT_TP_PROBE()
 * (driver/tracepoint.h) so that its prototype is checked against the
 * kernel's.  Attached for a session's life; a tracepoint the running kernel
 * lacks is skipped.  NMIs must never be among them (a probe can't take the
 * ring's writer lock-out from NMI context).  Ends with an empty entry.
 */
extern const struct pt_tp_probe arch_async_probes[];

/*
 * From a hard interrupt's probe: the register frame it interrupted, or
 * NULL when that can't be found.
 */
struct pt_regs *arch_interrupt_regs(void);

/* ---- implemented by arch/<arch>/driver/kstep.c (kernel-mode stepping) ---- */

/*
 * Zero when this architecture can step the kernel code of a traced task's
 * system calls (PITRACE_CFG_KERNEL); otherwise the errno CLAIM fails with
 * (-EOPNOTSUPP), and docs/kernel-mode.md says why.  The items below are
 * only used when it is zero.
 */
int arch_kstep_supported(void);

/*
 * ftrace filters matching every system call's entry function (the functions
 * the syscall table calls with the user register frame); NULL-terminated.
 */
extern const char *const arch_kstep_syscall_globs[];

/*
 * Kernel symbols bounding text that must never be single-stepped (entry
 * code, noinstr, irq entry...), as start/end name pairs; NULL-terminated.
 * A pair the running kernel lacks is skipped.
 */
extern const char *const arch_kstep_unsafe_sections[][2];

/*
 * Functions that the kprobes blacklist or noinstr cover although stepping
 * them from a system call is safe: branch thunks (one or a few branch
 * instructions kprobes can't instrument) and leaf string routines that are
 * noinstr only so that entry code may call them.  Name prefixes, matched
 * against the symbols suffixed by arch_kstep_registers[] when per_register
 * (or alone); NULL-terminated.
 */
struct arch_kstep_safe {
	const char *prefix;
	bool per_register;		/* prefix + each general register name */
};
extern const struct arch_kstep_safe arch_kstep_safe_functions[];
extern const char *const arch_kstep_registers[];

/* Clear the single-step flag in the CPU's live flags (the caller's context). */
void arch_kstep_clear_live(void);

/* The stack pointer of a kernel-mode register frame. */
unsigned long arch_kstep_sp(const struct pt_regs *regs);

/*
 * The callable start of the function a kprobe was placed in, given the
 * probe's address (kprobes skip an indirect-branch landing pad, x86 IBT,
 * or the global entry's TOC set-up, ppc64 ELFv2).
 */
unsigned long arch_func_start(unsigned long probe_addr);

/* ---- implemented by the driver, called by the architecture code ---- */

/* For each user-mode single-step trap (driver/probes.c): true when ours, consumed. */
bool pitrace_step_trap(struct pt_regs *regs);

/*
 * For each kernel-mode single-step trap (driver/kernel.c, interrupts off):
 * true when it is ours (stepped or leaked), consumed.
 */
bool pitrace_kernel_step_trap(struct pt_regs *regs);

/*
 * When the current task takes an interrupt or exception (driver/probes.c):
 * kind PT_ASYNC_*, number its vector, regs the frame it interrupted (NULL:
 * a hard interrupt's, found by arch_interrupt_regs() if the task is
 * recorded), address and error code of a fault (else 0).
 */
void pitrace_async_entry(unsigned int kind, u64 number, struct pt_regs *regs, u64 address,
			 u64 error);

/*
 * From the user-mode trap, after pitrace_step_trap() recorded the step of
 * the instruction at regs' pc, which must not be single-stepped (ppc64: a
 * load-reserve, whose reservation every trap would clear, so that the
 * program's store-conditional never succeeds): the step flag is cleared,
 * and arch_step_deferred() runs in the task's own context before it
 * returns to user mode (driver/deferred.c).  False when nothing could be
 * queued: the caller steps the instruction as usual.
 */
bool pitrace_step_defer(struct pt_regs *regs);

/*
 * From arch_step_deferred(): the instruction at instruction_pointer(regs)
 * runs next: record its step as a trap would, with the step flag set in
 * regs.  False when the task is no longer traced (the flag is then clear):
 * stop and let it return to user mode as it is.
 */
bool pitrace_step_emulated(struct pt_regs *regs);

/*
 * From arch_step_deferred(): an ATOMIC record (kind PT_ATOMIC_*, the
 * sequence's first pc, its steps recorded).
 */
void pitrace_step_atomic(unsigned int kind, u64 pc, u64 steps);

/*
 * From arch_step_deferred(): what is at pc cannot be taken any other way
 * either: the task runs natively from here, untraced (a GAP record says
 * so, reason PT_GAP_ATOMIC_NATIVE, after an ATOMIC NATIVE record), until
 * its next system call or interrupt arms it again.  Clears the step flag.
 */
void pitrace_step_native(struct pt_regs *regs, u64 pc);

/*
 * uprobes hit in a traced task (driver/task.c; from the arch code's
 * breakpoint notifier, interrupts off): bp_pc is the probed instruction.
 * uprobes single-steps a copy of it, or emulates it, and when it finds the
 * step flag already set it may take it for a debugger's and send SIGTRAP.
 * So the task's step flag is lent to uprobes (cleared here) and set again
 * by the task's work once uprobes is done with the instruction.
 */
void conflict_uprobe_break(struct pt_regs *regs, unsigned long bp_pc);

/*
 * A user-mode single-step trap, before uprobes sees it (driver/task.c;
 * interrupts off): when it ends uprobes' step of a lent task's
 * instruction, the task's work is queued to take the flag back after
 * uprobes' fix-up.
 */
void conflict_uprobe_step(void);

#endif /* PITRACE_DRIVER_ARCH_CALLS_H */
