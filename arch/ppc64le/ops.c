// SPDX-License-Identifier: GPL-2.0
/* ppc64le's user-space rules (arch/arch_ops.h). */
#include "arch/ppc64le/ppc64le.h"

const struct arch_ops arch_ops_ppc64le = {
	.name = "ppc64le",
	.cs_arch = CS_ARCH_PPC,
	.cs_mode = CS_MODE_64 | CS_MODE_LITTLE_ENDIAN,
	.decode = ppc64le_decode,
	.disasm_fallback = ppc64le_disasm_fallback,
	.plt_entries = ppc64le_plt_entries,
	.is_kernel_addr = ppc64le_is_kernel_addr,
	.kernel_alias_rank = ppc64le_kernel_alias_rank,
	.entry_main = ppc64le_entry_main,
	.local_entry = ppc64le_local_entry,
	.stub_name = ppc64le_stub_name,
	.interrupt_name = ppc64le_interrupt_name,
	.exception_name = ppc64le_exception_name,
	.exception_is_page_fault = ppc64le_exception_is_page_fault,
	.page_fault_describe = ppc64le_page_fault_describe,
};
