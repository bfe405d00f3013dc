// SPDX-License-Identifier: GPL-2.0
/*
 * x86_64 interrupts and exceptions for pitrace.ko (driver/arch_calls.h): probes on
 * the irq_vectors entry tracepoints (the APIC's system vectors: local timer,
 * IPIs, ...) and on the page-fault tracepoints, and the register frame a
 * hard interrupt interrupted.
 */
#include <linux/kernel.h>
#include <linux/ptrace.h>
#include <linux/sched.h>
#include <asm/irq_regs.h>
#include <asm/trapnr.h>
#include <asm/unwind.h>
#include <asm/trace/exceptions.h>
#include <asm/trace/irq_vectors.h>

#include "arch_calls.h"
#include "internal.h"

/* The unwinder finds an IPI's frame within a handful of frames; a bound keeps it cheap. */
#define ASYNC_UNWIND_MAX 16

struct pt_regs *arch_interrupt_regs(void)
{
	struct pt_regs *regs = get_irq_regs();
	struct unwind_state state;
	unsigned int n = 0;

	if (regs)
		return regs;
	/*
	 * The local timer, device interrupts and the platform IPI publish
	 * their frame (set_irq_regs); the reschedule, call-function and
	 * irq-work IPIs don't.  Their frame is the first entry frame the
	 * unwinder meets below this probe (ORC; a partial frame still holds
	 * ip and cs, all we read).
	 */
	unwind_start(&state, current, NULL, NULL);
	for (; !unwind_done(&state) && n < ASYNC_UNWIND_MAX; unwind_next_frame(&state), n++) {
		regs = unwind_get_entry_regs(&state, NULL);
		if (regs)
			return regs;
	}
	return NULL;
}

/* Every irq_vectors *_entry tracepoint has this prototype. */
static void probe_vector_entry(void *data, int vector)
{
	pitrace_async_entry(PT_ASYNC_INTERRUPT, (u32)vector, NULL, 0, 0);
}

/*
 * Registering either page-fault tracepoint flips trace_pagefault_key (its
 * regfunc), which makes every page fault call trace_page_fault_entries():
 * a cost paid only while a session has them attached.
 */
static void probe_page_fault(void *data, unsigned long address, struct pt_regs *regs,
			     unsigned long error_code)
{
	pitrace_async_entry(PT_ASYNC_EXCEPTION, X86_TRAP_PF, regs, address, error_code);
}

/*
 * The irq_vectors entry tracepoints (arch/x86/include/asm/trace/irq_vectors.h,
 * the same #ifdefs as there); those of optional hardware (thermal, MCE
 * threshold, deferred error) are missing on some kernels.  Not the NMI handler's.  Device interrupts go
 * through irq_handler_entry (common code, driver/probes.c).
 */
const struct pt_tp_probe arch_async_probes[] = {
	PT_TP_PROBE(local_timer_entry, probe_vector_entry),
	PT_TP_PROBE(spurious_apic_entry, probe_vector_entry),
	PT_TP_PROBE(error_apic_entry, probe_vector_entry),
	PT_TP_PROBE(x86_platform_ipi_entry, probe_vector_entry),
#ifdef CONFIG_IRQ_WORK
	PT_TP_PROBE(irq_work_entry, probe_vector_entry),
#endif
#ifdef CONFIG_SMP
	PT_TP_PROBE(reschedule_entry, probe_vector_entry),
	PT_TP_PROBE(call_function_entry, probe_vector_entry),
	PT_TP_PROBE(call_function_single_entry, probe_vector_entry),
#endif
#ifdef CONFIG_X86_THERMAL_VECTOR
	PT_TP_PROBE(thermal_apic_entry, probe_vector_entry),
#endif
#ifdef CONFIG_X86_MCE_THRESHOLD
	PT_TP_PROBE(threshold_apic_entry, probe_vector_entry),
#endif
#ifdef CONFIG_X86_MCE_AMD
	PT_TP_PROBE(deferred_error_apic_entry, probe_vector_entry),
#endif
	PT_TP_PROBE(page_fault_user, probe_page_fault),
	PT_TP_PROBE(page_fault_kernel, probe_page_fault),
	{ NULL, NULL },
};
