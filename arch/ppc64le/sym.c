// SPDX-License-Identifier: GPL-2.0
/*
 * ppc64le (ELFv2) facts for the symbol resolver: a function's local entry,
 * the linker's call stubs, a stripped program's main, and the kernel's part
 * of the address space.
 */
#include <elf.h>
#include <endian.h>
#include <stdio.h>
#include <string.h>

#include "arch/ppc64le/ppc64le.h"

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

/*
 * The doubleword the loader leaves at vaddr, for a load bias of 0: a
 * PIE's pointers are R_PPC64_RELATIVE relocations whose addend is the
 * value (the file may hold 0); any other relocation is not followed.
 */
static bool read_pointer(const struct arch_elf_image *img, uint64_t vaddr, uint64_t *value)
{
	unsigned type;
	uint64_t sym, word;
	int64_t addend;

	if (img->reloc(img->ctx, vaddr, &type, &sym, &addend)) {
		if (type != R_PPC64_RELATIVE || sym)
			return false;
		*value = (uint64_t)addend;
		return true;
	}
	if (img->read(img->ctx, vaddr, (uint8_t *)&word, sizeof(word)) != sizeof(word))
		return false;
	*value = le64toh(word);
	return true;
}

/* What _start has put in the general registers so far: known[r] when reg[r] is an address. */
struct entry_regs {
	uint64_t reg[32];
	bool known[32];
};

/*
 * One instruction of _start: the D-form additions that build addresses
 * (addi, addis, with li and lis for rA = 0) and ld; false at a branch,
 * the end of the set-up.  Any other instruction forgets the registers of
 * its RT and RA fields, its possible destinations.
 */
static bool entry_step(const struct arch_elf_image *img, uint32_t w, struct entry_regs *r)
{
	unsigned op = w >> 26, rt = (w >> 21) & 31, ra = (w >> 16) & 31;
	int64_t simm = (int16_t)(w & 0xffff);
	uint64_t base = ra ? r->reg[ra] : 0;
	bool base_known = !ra || r->known[ra];

	switch (op) {
	case 14: /* addi */
	case 15: /* addis */
		r->reg[rt] = base + (uint64_t)(op == 15 ? simm * 65536 : simm);
		r->known[rt] = base_known;
		return true;
	case 58: /* ld (DS form: the low two bits are the kind, 0) */
		if ((w & 3) == 0 && ra) {
			r->known[rt] =
				base_known &&
				read_pointer(img, base + (uint64_t)(simm & ~3ll), &r->reg[rt]);
			return true;
		}
		break;
	case 16: /* bc */
	case 18: /* b */
	case 19: /* bclr, bcctr */
		return false;
	}
	r->known[rt] = r->known[ra] = false;
	return true;
}

/*
 * glibc's _start (sysdeps/powerpc/powerpc64/start.S) sets up its TOC
 * pointer r2 (from r12, which holds the entry's address, or absolute), puts
 * the address of start_addresses {0, main, 0, 0} in r8, TOC-relative
 * (addis/addi, or ld from the TOC), and branches to __libc_start_main.
 */
bool ppc64le_entry_main(const struct arch_elf_image *img, uint64_t *main_addr)
{
	struct entry_regs r = { 0 };
	uint8_t code[64];
	size_t len =
		img->machine == EM_PPC64 ? img->read(img->ctx, img->entry, code, sizeof(code)) : 0;

	r.reg[12] = img->entry;
	r.known[12] = true;
	for (size_t off = 0; off + 4 <= len; off += 4) {
		uint32_t w;

		memcpy(&w, code + off, sizeof(w));
		if (!entry_step(img, le32toh(w), &r))
			return r.known[8] && read_pointer(img, r.reg[8] + 8, main_addr);
	}
	return false;
}
