// SPDX-License-Identifier: GPL-2.0
/* x86_64 interrupt and exception vectors by name (arch/arch_vectors.h), as Linux assigns them. */
#include <stdio.h>
#include <string.h>

#include "arch/x86_64/x86_64.h"

/* arch/x86/include/asm/irq_vectors.h: the system vectors (the same in 6.1 and 6.12). */
static const struct {
	uint64_t vector;
	const char *name;
} interrupts[] = {
	{ 0xec, "local timer" },
	{ 0xed, "Hyper-V stimer0" },
	{ 0xee, "Hyper-V reenlightenment" },
	{ 0xef, "managed irq shutdown" },
	{ 0xf0, "posted interrupt nested" },
	{ 0xf1, "posted interrupt wakeup" },
	{ 0xf2, "posted interrupt" },
	{ 0xf3, "hypervisor callback" },
	{ 0xf4, "deferred error" },
	{ 0xf6, "irq work" },
	{ 0xf7, "platform IPI" },
	{ 0xf8, "reboot" },
	{ 0xf9, "threshold APIC" },
	{ 0xfa, "thermal APIC" },
	{ 0xfb, "call function single" },
	{ 0xfc, "call function" },
	{ 0xfd, "reschedule" },
	{ 0xfe, "error APIC" },
	{ 0xff, "spurious APIC" },
};

/* The CPU's exception vectors (arch/x86/include/asm/trapnr.h). */
static const char *const exceptions[32] = {
	[0] = "divide error",		[1] = "debug",
	[2] = "NMI",			[3] = "breakpoint",
	[4] = "overflow",		[5] = "bound range",
	[6] = "invalid opcode",		[7] = "device not available",
	[8] = "double fault",		[9] = "coprocessor segment overrun",
	[10] = "invalid TSS",		[11] = "segment not present",
	[12] = "stack segment",		[13] = "general protection",
	[14] = "page fault",		[15] = "spurious",
	[16] = "x87 floating point",	[17] = "alignment check",
	[18] = "machine check",		[19] = "SIMD floating point",
	[20] = "virtualization",	[21] = "control protection",
	[29] = "VMM communication",	[30] = "security",
};

#define X86_TRAP_PF 14

const char *x86_64_interrupt_name(uint64_t vector)
{
	for (size_t i = 0; i < sizeof(interrupts) / sizeof(interrupts[0]); i++)
		if (interrupts[i].vector == vector)
			return interrupts[i].name;
	return NULL;
}

const char *x86_64_exception_name(uint64_t vector)
{
	return vector < 32 ? exceptions[vector] : NULL;
}

bool x86_64_exception_is_page_fault(uint64_t vector)
{
	return vector == X86_TRAP_PF;
}

/* The #PF error code bits (X86_PF_* in arch/x86/include/asm/trap_pf.h). */
const char *x86_64_page_fault_describe(uint64_t error, char *buf, size_t size)
{
	static const struct {
		uint64_t bit;
		const char *set, *clear;
	} bits[] = {
		{ 1u << 4, "instruction fetch", NULL },
		{ 1u << 1, "write", "read" },
		{ 1u << 0, "protection", "not present" },
		{ 1u << 2, NULL, "kernel mode" },
		{ 1u << 3, "reserved bit", NULL },
		{ 1u << 5, "protection key", NULL },
		{ 1u << 6, "shadow stack", NULL },
		{ 1u << 15, "SGX", NULL },
	};
	size_t n = 0;

	if (!size)
		return buf;
	buf[0] = '\0';
	for (size_t i = 0; i < sizeof(bits) / sizeof(bits[0]); i++) {
		const char *w = error & bits[i].bit ? bits[i].set : bits[i].clear;

		/* an instruction fetch is a read: say only the former */
		if (bits[i].bit == 1u << 1 && !(error & bits[i].bit) && (error & (1u << 4)))
			w = NULL;
		if (!w || n >= size)
			continue;
		n += (size_t)snprintf(buf + n, size - n, "%s%s", n ? ", " : "", w);
	}
	return buf;
}
