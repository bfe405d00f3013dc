/* SPDX-License-Identifier: GPL-2.0 */
/* x86_64's user-space rules, gathered into arch_ops_x86_64 by arch/x86_64/ops.c. */
#ifndef PT_ARCH_X86_64_H
#define PT_ARCH_X86_64_H

#include "arch/arch_ops.h"

/* decode.c */
int x86_64_decode(struct arch_decoder *d, const uint8_t *code, size_t avail, uint64_t pc,
		  struct arch_insn *out);

/* sym.c */
size_t x86_64_plt_entries(const uint8_t *code, size_t size, uint64_t vaddr, size_t entsize,
			  struct arch_plt_entry *out, size_t max);
bool x86_64_is_kernel_addr(uint64_t addr);
int x86_64_kernel_alias_rank(const char *name);
bool x86_64_entry_main(const struct arch_elf_image *img, uint64_t *main_addr);

/* vectors.c */
const char *x86_64_interrupt_name(uint64_t vector);
const char *x86_64_exception_name(uint64_t vector);
bool x86_64_exception_is_page_fault(uint64_t vector);
const char *x86_64_page_fault_describe(uint64_t error, char *buf, size_t size);

#endif /* PT_ARCH_X86_64_H */
