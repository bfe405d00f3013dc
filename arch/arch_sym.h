/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the symbol resolver needs to know about an architecture: how its PLT
 * entries reach their GOT slots, and which addresses belong to the kernel.
 * Each arch/<arch>/sym.c implements every function here.
 */
#ifndef PT_ARCH_SYM_H
#define PT_ARCH_SYM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Required.  Decode a PLT section (code, size bytes at ELF virtual address
 * vaddr, entries of entsize bytes): for entry i set slots[i] to the virtual
 * address of the GOT slot its indirect jump reads, or 0 when it has none
 * (PLT0, the lazy-binding stubs of an IBT .plt next to .plt.sec).  slots
 * has size / entsize elements.
 */
void arch_sym_plt_slots(const uint8_t *code, size_t size, uint64_t vaddr, size_t entsize,
			uint64_t *slots);

/* Required.  True when addr lies in the kernel's part of the address space. */
bool arch_sym_is_kernel_addr(uint64_t addr);

#endif /* PT_ARCH_SYM_H */
