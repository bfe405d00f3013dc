// SPDX-License-Identifier: GPL-2.0
/*
 * ppc64 interrupts for pitrace.ko (driver/arch_calls.h): probes on the powerpc
 * interrupt tracepoints (<asm/trace.h>: external interrupts, the
 * decrementer, doorbells), numbered by their vector, and the register
 * frame a hard interrupt interrupted.  Page faults have no tracepoint on
 * powerpc: they are not recorded (docs/driver.md).
 */
#include <linux/kernel.h>
#include <linux/ptrace.h>
#include <asm/irq_regs.h>
#include <asm/trace.h>

#include <pitrace/format.h>

#include "arch_calls.h"

/* Book3S vectors (arch/arch_vectors.h names them for post). */
#define PPC_VEC_EXTERNAL 0x500
#define PPC_VEC_DECREMENTER 0x900
#define PPC_VEC_DOORBELL 0xa00

struct pt_regs *arch_interrupt_regs(void)
{
	/* do_IRQ() and timer_interrupt() publish their frame. */
	return get_irq_regs();
}

static void probe_external(void *data, struct pt_regs *regs)
{
	pitrace_async_entry(PT_ASYNC_INTERRUPT, PPC_VEC_EXTERNAL, regs, 0, 0);
}

static void probe_decrementer(void *data, struct pt_regs *regs)
{
	pitrace_async_entry(PT_ASYNC_INTERRUPT, PPC_VEC_DECREMENTER, regs, 0, 0);
}

#ifdef CONFIG_PPC_DOORBELL
static void probe_doorbell(void *data, struct pt_regs *regs)
{
	pitrace_async_entry(PT_ASYNC_INTERRUPT, PPC_VEC_DOORBELL, regs, 0, 0);
}
#endif /* CONFIG_PPC_DOORBELL */

/* The entry tracepoints of arch/powerpc/include/asm/trace.h, under its #ifdefs. */
const struct pt_tp_probe arch_async_probes[] = {
	PT_TP_PROBE(irq_entry, probe_external),
	PT_TP_PROBE(timer_interrupt_entry, probe_decrementer),
#ifdef CONFIG_PPC_DOORBELL
	PT_TP_PROBE(doorbell_entry, probe_doorbell),
#endif
	{ NULL, NULL },
};
