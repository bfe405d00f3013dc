// SPDX-License-Identifier: GPL-2.0
/* arm64's user-space rules (arch/arch_ops.h). */
#include "arch/arm64/arm64.h"

const struct arch_ops arch_ops_arm64 = {
	.name = "aarch64",
	.cs_arch = CS_ARCH_ARM64,
	.cs_mode = CS_MODE_ARM,
	.decode = arm64_decode,
	.disasm_fallback = arm64_disasm_fallback,
	.plt_entries = arm64_plt_entries,
	.is_kernel_addr = arm64_is_kernel_addr,
	.kernel_alias_rank = arm64_kernel_alias_rank,
	.entry_main = arm64_entry_main,
	.stub_name = arm64_stub_name,
	.interrupt_name = arm64_interrupt_name,
	.exception_name = arm64_exception_name,
	.exception_is_page_fault = arm64_exception_is_page_fault,
	.page_fault_describe = arm64_page_fault_describe,
};
