// SPDX-License-Identifier: GPL-2.0
/*
 * ppc64le (ELFv2) facts for the symbol resolver: a function's local entry,
 * the linker's call stubs, and the kernel's part of the address space.
 */
#include <elf.h>
#include <stdio.h>
#include <string.h>

#include "ppc64le.h"

/*
 * ELFv2 .plt is an array of function addresses (SHT_NOBITS, filled by the
 * dynamic loader), not code: calls reach it through stubs the linker puts
 * in .text, named by stub_name() below.  There is no PLT code to decode.
 */
size_t ppc64le_plt_entries(const uint8_t *code, size_t size, uint64_t vaddr, size_t entsize,
			   struct arch_plt_entry *out, size_t max)
{
	(void)code, (void)size, (void)vaddr, (void)entsize, (void)out, (void)max;
	return 0;
}

/* User space ends below 4 PB; the kernel's linear map starts at 0xc000000000000000. */
bool ppc64le_is_kernel_addr(uint64_t addr)
{
	return addr >= 0xc000000000000000ull;
}

/* SYSCALL_DEFINE: sys_getpid (what the table calls, with the syscall wrapper) over __se_/__do_. */
int ppc64le_kernel_alias_rank(const char *name)
{
	if (!strncmp(name, "sys_", 4))
		return 1;
	if (!strncmp(name, "compat_sys_", 11) || !strncmp(name, "__se_compat_", 12))
		return -1;
	return 0;
}

/*
 * A function with a TOC set-up starts with it (addis r2,r12,..; addi
 * r2,r2,..) at the global entry, which callers in other modules (and
 * through pointers) use; calls from the same module land at the local
 * entry after it.  Both are the function's entry.
 */
unsigned ppc64le_local_entry(unsigned char st_other)
{
	return PPC64_LOCAL_ENTRY_OFFSET(st_other);
}

/*
 * GNU ld names its stubs "<8 hex digits>.<kind>.<target>": plt_call (and
 * its notoc/both variants) and plt_branch reach an imported function
 * through the PLT (shown "target@plt", as x86_64's PLT entries are);
 * long_branch reaches a local one out of reach of a direct branch
 * ("target@stub").
 */
bool ppc64le_stub_name(const char *name, char *buf, size_t size)
{
	static const struct {
		const char *kind;
		const char *suffix;
	} kinds[] = {
		{ "plt_call", "plt" },		{ "plt_call_notoc", "plt" },
		{ "plt_call_both", "plt" },	{ "plt_branch", "plt" },
		{ "plt_branch_notoc", "plt" },	{ "plt_branch_both", "plt" },
		{ "long_branch", "stub" },	{ "long_branch_notoc", "stub" },
		{ "long_branch_both", "stub" },
	};
	const char *kind = name + 9, *target;
	size_t kind_len;

	if (strlen(name) < 10 || name[8] != '.' || strspn(name, "0123456789abcdef") != 8)
		return false;
	target = strchr(kind, '.');
	if (!target || !target[1])
		return false;
	kind_len = (size_t)(target - kind);
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		if (strlen(kinds[i].kind) == kind_len && !strncmp(kind, kinds[i].kind, kind_len)) {
			snprintf(buf, size, "%s@%s", target + 1, kinds[i].suffix);
			return true;
		}
	}
	return false;
}
