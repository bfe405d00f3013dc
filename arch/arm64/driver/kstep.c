// SPDX-License-Identifier: GPL-2.0
/*
 * arm64 side of kernel-mode stepping (driver/arch_calls.h): refused.  The
 * x86 design sets the step flag in the frame an ftrace trampoline restores
 * at a system call function's entry; arm64's ftrace_caller returns with a
 * ret, never restoring PSTATE from that frame.  Stepping EL1 also needs
 * MDSCR_EL1.KDE and PSTATE.D clear, which the kernel keeps per CPU behind
 * a refcount shared with kgdb and kprobes (enable_debug_monitors()), and
 * debug exceptions are masked in entry code and wherever DAIF is saved and
 * restored (docs/kernel-mode.md, "arm64").  The rest is what the common
 * code links against, never used while unsupported.
 */
#include <linux/errno.h>
#include <linux/ptrace.h>

#include "arch_calls.h"

int arch_kstep_supported(void)
{
	return -EOPNOTSUPP;
}

const char *const arch_kstep_syscall_globs[] = { NULL };
const char *const arch_kstep_unsafe_sections[][2] = { { NULL, NULL } };
const struct arch_kstep_safe arch_kstep_safe_functions[] = { { NULL, false } };
const char *const arch_kstep_registers[] = { NULL };

/*
 * EL1 is never stepped, and the kernel clears MDSCR_EL1.SS on every entry
 * from a stepped task (entry.S, disable_step_tsk): nothing live to clear.
 */
void arch_kstep_clear_live(void)
{
}

unsigned long arch_kstep_sp(const struct pt_regs *regs)
{
	return regs->sp;
}

/* arm64 kprobes sit at the symbol's address, which is the callable start. */
unsigned long arch_func_start(unsigned long probe_addr)
{
	return probe_addr;
}
