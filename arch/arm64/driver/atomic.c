// SPDX-License-Identifier: GPL-2.0
/*
 * arm64 exclusive sequences in the driver (driver/arch_calls.h,
 * arch_step_deferred()).  Stepped, a sequence never completes: the
 * exception return after each step clears the exclusive monitor, so the
 * store-exclusive always fails.  The trap hands a load-exclusive to the
 * task's own context (trap.c); here it runs natively from the
 * load-exclusive, untraced, and says so (an ATOMIC NATIVE record and a GAP)
 * until the task next enters the kernel.  A native run that stops at the
 * sequence's exits, as the ptrace backend's does, needs breakpoints in the
 * task's text that the driver does not place yet (docs/arm64.md).
 */
#include <linux/ptrace.h>

#include "arch_calls.h"

void arch_step_deferred(struct pt_regs *regs)
{
	pitrace_step_native(regs, instruction_pointer(regs));
}
