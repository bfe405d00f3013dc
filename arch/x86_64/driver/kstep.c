// SPDX-License-Identifier: GPL-2.0
/*
 * x86_64 side of kernel-mode stepping (driver/arch_calls.h): which
 * functions are system calls, which text sections must not be stepped, and
 * TF in the live RFLAGS.
 */
#include <linux/ptrace.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <asm/processor-flags.h>

#include "arch_calls.h"

int arch_kstep_supported(void)
{
	return 0;
}

/*
 * The syscall table's targets: __x64_sys_read(const struct pt_regs *) etc.
 * A SYSCALL_DEFINE0 function is one symbol with two names, and ftrace
 * knows it as __do_sys_getpid; other __do_sys_ functions run inside an
 * __x64_sys_ one (already stepping: the callback ignores them).
 */
const char *const arch_kstep_syscall_globs[] = { "__x64_sys_*", "__do_sys_*", NULL };

/*
 * Entry code runs on entry stacks, with user GS or CR3; noinstr code may
 * run where RCU is not watching; irq/softirq entry and kprobes text belong
 * to paths a #DB must not re-enter.  The kprobes blacklist (read too)
 * covers most of them; these bounds stay checked if it changes shape.
 */
const char *const arch_kstep_unsafe_sections[][2] = {
	{ "__entry_text_start", "__entry_text_end" },
	{ "__noinstr_text_start", "__noinstr_text_end" },
	{ "__irqentry_text_start", "__irqentry_text_end" },
	{ "__softirqentry_text_start", "__softirqentry_text_end" },
	{ "__kprobes_text_start", "__kprobes_text_end" },
	{ "__cpuidle_text_start", "__cpuidle_text_end" },
	{ NULL, NULL },
};

const struct arch_kstep_safe arch_kstep_safe_functions[] = {
	{ "__x86_indirect_thunk_", true },	/* retpolines: jmp *%reg */
	{ "__x86_indirect_call_thunk_", true },	/* call depth tracking */
	{ "__x86_indirect_jump_thunk_", true },
	{ "__x86_return_thunk", false },	/* ret (retbleed/SRSO) */
	{ "srso_return_thunk", false },
	{ "srso_alias_return_thunk", false },
	{ "retbleed_return_thunk", false },
	{ "memcpy", false },			/* noinstr leaf routines */
	{ "memcpy_orig", false },
	{ "memset_orig", false },
	{ "memmove_orig", false },
	{ "__memcpy", false },
	{ "memmove", false },
	{ "__memmove", false },
	{ "memset", false },
	{ "__memset", false },
	{ NULL, false },
};

const char *const arch_kstep_registers[] = {
	"rax", "rbx", "rcx", "rdx", "rsi", "rdi", "rbp", "r8",
	"r9", "r10", "r11", "r12", "r13", "r14", "r15", NULL,
};

void arch_kstep_clear_live(void)
{
	unsigned long flags;

	/*
	 * popf takes TF from the stack word: clearing it there ends stepping
	 * of this context at once (TF is not saved across __switch_to_asm,
	 * so a TF left live would follow the CPU into the next task).
	 */
	asm volatile("pushfq; popq %0" : "=r"(flags));
	if (flags & X86_EFLAGS_TF)
		asm volatile("pushq %0; popfq" : : "r"(flags & ~X86_EFLAGS_TF) : "memory", "cc");
}

unsigned long arch_kstep_sp(const struct pt_regs *regs)
{
	return regs->sp;
}

unsigned long arch_func_start(unsigned long probe_addr)
{
	/* endbr64 is f3 0f 1e fa; calling past it faults with IBT on. */
	static const u8 endbr64[4] = { 0xf3, 0x0f, 0x1e, 0xfa };
	u8 insn[4];

	if (!copy_from_kernel_nofault(insn, (void *)(probe_addr - 4), 4) &&
	    !memcmp(insn, endbr64, 4))
		return probe_addr - 4;
	return probe_addr;
}
