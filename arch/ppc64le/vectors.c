// SPDX-License-Identifier: GPL-2.0
/*
 * ppc64 (Book3S) interrupt and exception vectors by name
 * (arch/arch_vectors.h): ASYNC records carry the vector offset, as Linux
 * names them in arch/powerpc/include/asm/ptrace.h (regs->trap).
 */
#include <stdio.h>

#include "arch/ppc64le/ppc64le.h"

static const struct {
	uint64_t vector;
	const char *name;
	bool interrupt;		  /* asynchronous: interrupts, not exceptions */
} vectors[] = {
	{ 0x100, "system reset", true },
	{ 0x200, "machine check", false },
	{ 0x300, "data storage", false },
	{ 0x380, "data segment", false },
	{ 0x400, "instruction storage", false },
	{ 0x480, "instruction segment", false },
	{ 0x500, "external", true },
	{ 0x600, "alignment", false },
	{ 0x700, "program", false },
	{ 0x800, "FP unavailable", false },
	{ 0x900, "decrementer", true },
	{ 0x980, "hypervisor decrementer", true },
	{ 0xa00, "doorbell", true },
	{ 0xc00, "system call", false },
	{ 0xd00, "trace", false },
	{ 0xe00, "hypervisor data storage", false },
	{ 0xe20, "hypervisor instruction storage", false },
	{ 0xe40, "hypervisor emulation assistance", false },
	{ 0xe60, "hypervisor maintenance", true },
	{ 0xe80, "hypervisor doorbell", true },
	{ 0xea0, "hypervisor virtualization", true },
	{ 0xf00, "performance monitor", true },
	{ 0xf20, "AltiVec unavailable", false },
	{ 0xf40, "VSX unavailable", false },
	{ 0xf60, "facility unavailable", false },
	{ 0xf80, "hypervisor facility unavailable", false },
	{ 0x1500, "denormalisation", false },
	{ 0x1700, "AltiVec assist", false },
	{ 0x3000, "system call vectored", false },
};

static const char *vector_name(uint64_t v, bool interrupt)
{
	for (size_t i = 0; i < sizeof(vectors) / sizeof(vectors[0]); i++)
		if (vectors[i].vector == v && vectors[i].interrupt == interrupt)
			return vectors[i].name;
	return NULL;
}

const char *ppc64le_interrupt_name(uint64_t vector)
{
	return vector_name(vector, true);
}

const char *ppc64le_exception_name(uint64_t vector)
{
	return vector_name(vector, false);
}

/* Data and instruction storage interrupts are the page faults (hash or radix). */
bool ppc64le_exception_is_page_fault(uint64_t vector)
{
	return vector == 0x300 || vector == 0x400;
}

/* The DSISR bits do_page_fault() looks at (arch/powerpc/include/asm/reg.h). */
const char *ppc64le_page_fault_describe(uint64_t error, char *buf, size_t size)
{
	static const struct {
		uint64_t bit;
		const char *set, *clear;
	} bits[] = {
		{ 0x02000000, "write", "read" },	/* DSISR_ISSTORE */
		{ 0x40000000, "not present", NULL },	/* DSISR_NOHPTE */
		{ 0x08000000, "protection", NULL },	/* DSISR_PROTFAULT */
		{ 0x00200000, "protection key", NULL },	/* DSISR_KEYFAULT */
		{ 0x04000000, "bad access", NULL },	/* DSISR_BADACCESS */
	};
	size_t n = 0;

	if (!size)
		return buf;
	buf[0] = '\0';
	for (size_t i = 0; i < sizeof(bits) / sizeof(bits[0]); i++) {
		const char *w = error & bits[i].bit ? bits[i].set : bits[i].clear;

		if (!w || n >= size)
			continue;
		n += (size_t)snprintf(buf + n, size - n, "%s%s", n ? ", " : "", w);
	}
	return buf;
}
