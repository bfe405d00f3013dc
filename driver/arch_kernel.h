/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What kernel-mode stepping (driver/kernel.c) needs from the architecture:
 * one implementation per arch/<arch>/driver/kstep.c.  Every item is required.
 */
#ifndef PITRACE_DRIVER_ARCH_KERNEL_H
#define PITRACE_DRIVER_ARCH_KERNEL_H

#include <linux/types.h>

struct pt_regs;

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
 * against the symbols suffixed by arch_kstep_safe_suffixes[] (or alone when
 * the suffix list of the entry is NULL); NULL-terminated.
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
 * probe's address (kprobes skip an indirect-branch landing pad: x86 IBT).
 */
unsigned long arch_kstep_func_start(unsigned long probe_addr);

#endif /* PITRACE_DRIVER_ARCH_KERNEL_H */
