/* SPDX-License-Identifier: GPL-2.0 */
/* arm64's user-space rules, gathered into arch_ops_arm64 by arch/arm64/ops.c. */
#ifndef PT_ARCH_ARM64_H
#define PT_ARCH_ARM64_H

#include "arch/arch_ops.h"

/* decode.c */
int arm64_decode(struct arch_decoder *d, const uint8_t *code, size_t avail, uint64_t pc,
		 struct arch_insn *out);
size_t arm64_disasm_fallback(const uint8_t *code, size_t avail, char *buf, size_t size);
/* The class of instruction word w at pc (out zeroed by the caller). */
void arm64_classify_word(uint32_t w, uint64_t pc, struct arch_insn *out);
/* The little-endian instruction word at code. */
uint32_t arm64_word(const uint8_t *code);

/* atomic.c (arch_ptrace.h: arch_may_start_atomic(), arch_atomic_sequence()) */
struct arch_atomic_seq;
/* ldxr, ldaxr (b, h, w, x) and ldxp, ldaxp. */
bool arm64_is_load_exclusive(uint32_t w);
/* stxr, stlxr (b, h, w, x) and stxp, stlxp. */
bool arm64_is_store_exclusive(uint32_t w);
bool arm64_may_start_atomic(const uint8_t *code, size_t len);
int arm64_atomic_sequence(const uint8_t *code, size_t avail, uint64_t pc,
			  struct arch_atomic_seq *seq);

/* sym.c */
size_t arm64_plt_entries(const uint8_t *code, size_t size, uint64_t vaddr, size_t entsize,
			 struct arch_plt_entry *out, size_t max);
bool arm64_is_kernel_addr(uint64_t addr);
int arm64_kernel_alias_rank(const char *name);
bool arm64_stub_name(const char *name, char *buf, size_t size);
bool arm64_entry_main(const struct arch_elf_image *img, uint64_t *main_addr);

/* vectors.c */
const char *arm64_interrupt_name(uint64_t vector);
const char *arm64_exception_name(uint64_t vector);
bool arm64_exception_is_page_fault(uint64_t vector);
const char *arm64_page_fault_describe(uint64_t error, char *buf, size_t size);

#endif /* PT_ARCH_ARM64_H */
