/* SPDX-License-Identifier: GPL-2.0 */
/* ppc64le's user-space rules, gathered into arch_ops_ppc64le by arch/ppc64le/ops.c. */
#ifndef PT_ARCH_PPC64LE_H
#define PT_ARCH_PPC64LE_H

#include "arch/arch_ops.h"

/* decode.c */
int ppc64le_decode(struct arch_decoder *d, const uint8_t *code, size_t avail, uint64_t pc,
		   struct arch_insn *out);
size_t ppc64le_disasm_fallback(const uint8_t *code, size_t avail, char *buf, size_t size);
/* The class of instruction word w at pc (out zeroed by the caller). */
void ppc64le_classify_word(uint32_t w, uint64_t pc, struct arch_insn *out);

/* ppc_is_larx(), ppc_is_stcx(): shared with the driver. */
#include "arch/ppc64le/driver/ppc_atomic.h"

/* atomic.c (arch_ptrace.h: arch_may_start_atomic(), arch_atomic_sequence()) */
struct arch_atomic_seq;
bool ppc64le_may_start_atomic(const uint8_t *code, size_t len);
int ppc64le_atomic_sequence(const uint8_t *code, size_t avail, uint64_t pc,
			    struct arch_atomic_seq *seq);

/* sym.c */
size_t ppc64le_plt_entries(const uint8_t *code, size_t size, uint64_t vaddr, size_t entsize,
			   struct arch_plt_entry *out, size_t max);
bool ppc64le_is_kernel_addr(uint64_t addr);
int ppc64le_kernel_alias_rank(const char *name);
unsigned ppc64le_local_entry(unsigned char st_other);
bool ppc64le_stub_name(const char *name, char *buf, size_t size);
bool ppc64le_entry_main(const struct arch_elf_image *img, uint64_t *main_addr);

/* vectors.c */
const char *ppc64le_interrupt_name(uint64_t vector);
const char *ppc64le_exception_name(uint64_t vector);
bool ppc64le_exception_is_page_fault(uint64_t vector);
const char *ppc64le_page_fault_describe(uint64_t error, char *buf, size_t size);

#endif /* PT_ARCH_PPC64LE_H */
