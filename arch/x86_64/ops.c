// SPDX-License-Identifier: GPL-2.0
/* x86_64's user-space rules (arch/arch_ops.h). */
#include "arch/x86_64/x86_64.h"

const struct arch_ops arch_ops_x86_64 = {
	.name = "x86_64",
	.cs_arch = CS_ARCH_X86,
	.cs_mode = CS_MODE_64,
	.decode = x86_64_decode,
	.plt_entries = x86_64_plt_entries,
	.is_kernel_addr = x86_64_is_kernel_addr,
	.kernel_alias_rank = x86_64_kernel_alias_rank,
	.entry_main = x86_64_entry_main,
	.interrupt_name = x86_64_interrupt_name,
	.exception_name = x86_64_exception_name,
	.exception_is_page_fault = x86_64_exception_is_page_fault,
	.page_fault_describe = x86_64_page_fault_describe,
};
