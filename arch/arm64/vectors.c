// SPDX-License-Identifier: GPL-2.0
/*
 * arm64 exception classes by name (arch/arch_vectors.h): an arm64 trace's
 * EXCEPTION records would carry ESR_ELx.EC (bits 31:26 of the syndrome,
 * Arm ARM D17.2.37), and a page fault's error is the whole ESR.  Interrupts
 * are the interrupt controller's numbers, which differ between machines:
 * they have no fixed names.  (No arm64 driver records ASYNC yet.)
 */
#include <stdio.h>

#include "arch/arm64/arm64.h"

static const struct {
	uint64_t ec;
	const char *name;
} classes[] = {
	{ 0x00, "unknown" },
	{ 0x01, "WFI/WFE" },
	{ 0x07, "FP/SIMD access" },
	{ 0x0e, "illegal execution state" },
	{ 0x15, "SVC (AArch64)" },
	{ 0x18, "system register access" },
	{ 0x19, "SVE access" },
	{ 0x1c, "pointer authentication failure" },
	{ 0x20, "instruction abort (lower EL)" },
	{ 0x21, "instruction abort (same EL)" },
	{ 0x22, "PC alignment" },
	{ 0x24, "data abort (lower EL)" },
	{ 0x25, "data abort (same EL)" },
	{ 0x26, "SP alignment" },
	{ 0x2c, "floating point (AArch64)" },
	{ 0x2f, "SError" },
	{ 0x30, "breakpoint (lower EL)" },
	{ 0x31, "breakpoint (same EL)" },
	{ 0x32, "software step (lower EL)" },
	{ 0x33, "software step (same EL)" },
	{ 0x34, "watchpoint (lower EL)" },
	{ 0x35, "watchpoint (same EL)" },
	{ 0x3c, "BRK" },
};

const char *arm64_interrupt_name(uint64_t vector)
{
	(void)vector;
	return NULL;
}

const char *arm64_exception_name(uint64_t vector)
{
	for (size_t i = 0; i < sizeof(classes) / sizeof(classes[0]); i++)
		if (classes[i].ec == vector)
			return classes[i].name;
	return NULL;
}

/* Instruction and data aborts, from user space or the kernel. */
bool arm64_exception_is_page_fault(uint64_t vector)
{
	return vector == 0x20 || vector == 0x21 || vector == 0x24 || vector == 0x25;
}

/* The ESR's class, WnR (bit 6) and fault status code (bits 5:2 name the kind). */
const char *arm64_page_fault_describe(uint64_t error, char *buf, size_t size)
{
	static const char *const kinds[16] = {
		[0] = "address size", [1] = "not present",	/* translation fault */
		[2] = "access flag",  [3] = "protection",	/* permission fault */
		[4] = "external abort", [8] = "alignment",
	};
	uint64_t ec = (error >> 26) & 0x3f;
	const char *access = ec == 0x20 || ec == 0x21 ? "instruction fetch" :
			     error & (1u << 6) ? "write" : "read";
	const char *kind = kinds[(error >> 2) & 15];

	if (size)
		snprintf(buf, size, "%s%s%s", access, kind ? ", " : "", kind ? kind : "");
	return buf;
}
