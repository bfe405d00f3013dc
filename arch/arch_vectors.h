/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Names for the interrupts and exceptions a trace records (ASYNC records of
 * kinds INTERRUPT and EXCEPTION carry the architecture's vector numbers).
 * Each arch/<arch>/vectors.c implements them; these apply the selected
 * architecture's (arch/arch.h).
 */
#ifndef PT_ARCH_VECTORS_H
#define PT_ARCH_VECTORS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The name of interrupt vector v ("local timer"), or NULL if it has none. */
const char *arch_interrupt_name(uint64_t vector);

/* The name of exception vector v ("page fault"), or NULL if it has none. */
const char *arch_exception_name(uint64_t vector);

/* True when exception vector v is a page fault. */
bool arch_exception_is_page_fault(uint64_t vector);

/*
 * A page fault's error code in words, comma separated ("write,
 * not present"), into buf; returns buf.
 */
const char *arch_page_fault_describe(uint64_t error, char *buf, size_t size);

#endif /* PT_ARCH_VECTORS_H */
