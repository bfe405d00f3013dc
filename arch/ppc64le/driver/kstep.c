// SPDX-License-Identifier: GPL-2.0
/*
 * ppc64 side of kernel-mode stepping (driver/arch_calls.h): refused.  The x86
 * design sets the step flag in the frame an ftrace trampoline restores at
 * a system call function's entry; powerpc's ftrace_regs_caller returns
 * with a branch, never restoring MSR from that frame, and every step trap
 * taken in kernel code clobbers SRR0/SRR1, which entry and exit code hold
 * live between mtspr and rfid, in paths kprobes' blacklist does not cover
 * completely on 6.1 (docs/kernel-mode.md, "POWER").  The rest is what
 * the common code links against, never used while unsupported.
 */
#include <linux/errno.h>
#include <linux/ptrace.h>
#include <asm/reg.h>

#include "arch_calls.h"

int arch_kstep_supported(void)
{
	return -EOPNOTSUPP;
}

const char *const arch_kstep_syscall_globs[] = { NULL };
const char *const arch_kstep_unsafe_sections[][2] = { { NULL, NULL } };
const struct arch_kstep_safe arch_kstep_safe_functions[] = { { NULL, false } };
const char *const arch_kstep_registers[] = { NULL };

void arch_kstep_clear_live(void)
{
	unsigned long msr = mfmsr();

	if (msr & MSR_SE)
		mtmsr(msr & ~MSR_SE);
}

unsigned long arch_kstep_sp(const struct pt_regs *regs)
{
	return regs->gpr[1];
}

/*
 * ELFv2: kprobes sit at a function's local entry, after the global
 * entry's TOC set-up (addis r2,r12,hi; addi r2,r2,lo).  A module calls
 * through the global entry, with r12 holding it, to get the kernel's TOC.
 */
unsigned long arch_func_start(unsigned long probe_addr)
{
	u32 insn[2];

	if (copy_from_kernel_nofault(insn, (void *)(probe_addr - 8), sizeof(insn)))
		return probe_addr;
	if ((insn[0] & 0xffff0000) == 0x3c4c0000 && (insn[1] & 0xffff0000) == 0x38420000)
		return probe_addr - 8;
	return probe_addr;
}
