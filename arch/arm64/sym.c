// SPDX-License-Identifier: GPL-2.0
/*
 * arm64 facts for the symbol resolver: PLT entries and the GOT slots they
 * jump through, the linkers' veneers, a stripped program's main, and the
 * kernel's part of the address space.
 */
#include <elf.h>
#include <endian.h>
#include <stdio.h>
#include <string.h>

#include "arch/arm64/arm64.h"

#define A64_BTI_C 0xd503245fu		/* bti c: a PLT entry's landing pad (-z force-bti) */
#define A64_PLT0_STP 0xa9bf7bf0u	/* stp x16, x30, [sp, #-16]!: PLT0's first word */

static int64_t sign_extend(uint64_t v, unsigned bits)
{
	return (int64_t)(v << (64 - bits)) >> (64 - bits);
}

static bool is_adrp(uint32_t w)
{
	return (w & 0x9f000000) == 0x90000000;
}

/* The 4 KB page adrp at pc puts in its register. */
static uint64_t adrp_page(uint32_t w, uint64_t pc)
{
	uint64_t imm = ((uint64_t)(w >> 5 & 0x7ffff) << 2) | (w >> 29 & 3);

	return (pc & ~0xfffull) + (uint64_t)(sign_extend(imm, 21) * 4096);
}

/* ldr xT, [xN, #imm]: 64-bit, unsigned offset (scaled by 8); its offset, or -1. */
static int64_t ldr_offset(uint32_t w, unsigned rt, unsigned rn)
{
	if ((w & 0xffc00000) != 0xf9400000 || (w & 31) != rt || (w >> 5 & 31) != rn)
		return -1;
	return (int64_t)(w >> 10 & 0xfff) * 8;
}

/*
 * GNU ld's and lld's PLT entries load their GOT slot into x17 and jump
 * there: "adrp x16, slot; ldr x17, [x16, #lo12]; add x16, x16, #lo12; br
 * x17", behind a "bti c" with BTI, with an autia1716 before the br with
 * PAC-PLT; PLT0 (the lazy resolver's) starts with "stp x16, x30, [sp,
 * #-16]!" before the same.  PLT0 is 32 bytes and BTI entries 24, so the
 * entries are found by decoding, whatever sh_entsize says: one starts at
 * each such adrp (or the word before it that belongs to it) and runs to
 * the next.
 */
size_t arm64_plt_entries(const uint8_t *code, size_t size, uint64_t vaddr, size_t entsize,
			 struct arch_plt_entry *out, size_t max)
{
	size_t n = 0;

	(void)entsize;
	for (size_t off = 0; off + 8 <= size && n < max; off += 4) {
		uint32_t w = arm64_word(code + off), prev = off ? arm64_word(code + off - 4) : 0;
		int64_t lo12 = ldr_offset(arm64_word(code + off + 4), 17, 16);
		uint64_t start = vaddr + off;

		if (!is_adrp(w) || (w & 31) != 16 || lo12 < 0)
			continue;
		if (off && (prev == A64_BTI_C || prev == A64_PLT0_STP))
			start -= 4;
		if (n)
			out[n - 1].size = start - out[n - 1].addr;
		out[n++] = (struct arch_plt_entry){ start, vaddr + size - start,
						    adrp_page(w, vaddr + off) + (uint64_t)lo12 };
	}
	return n;
}

/* User space ends at 2^48 (2^52 with LVA); the kernel's addresses have the top bits set. */
bool arm64_is_kernel_addr(uint64_t addr)
{
	return addr >= 0xfff0000000000000ull;
}

/* SYSCALL_DEFINE0(getpid): __arm64_sys_getpid (the table's) = __do_sys_getpid. */
int arm64_kernel_alias_rank(const char *name)
{
	if (!strncmp(name, "__arm64_sys_", 12))
		return 1;
	if (!strncmp(name, "__arm64_compat_sys_", 19) || !strncmp(name, "__se_compat_", 12) ||
	    !strncmp(name, "compat_sys_", 11))
		return -1;
	return 0;
}

/*
 * Veneers, the stubs a linker puts in front of a branch target out of
 * reach of bl's 128 MB (adrp, add, br x16): GNU ld names them
 * "__TARGET_veneer" (not the erratum workarounds, "__erratum_843419_veneer",
 * which branch back into their caller), lld "__AArch64ADRPThunk_TARGET"
 * and "__AArch64AbsLongThunk_TARGET".  Shown "TARGET@veneer".
 */
bool arm64_stub_name(const char *name, char *buf, size_t size)
{
	static const char *const thunks[] = { "__AArch64ADRPThunk_", "__AArch64AbsLongThunk_" };
	size_t len = strlen(name);

	for (size_t i = 0; i < sizeof(thunks) / sizeof(thunks[0]); i++) {
		size_t p = strlen(thunks[i]);

		if (len > p && !strncmp(name, thunks[i], p)) {
			snprintf(buf, size, "%s@veneer", name + p);
			return true;
		}
	}
	if (len <= 2 + 7 || strncmp(name, "__", 2) || strcmp(name + len - 7, "_veneer") ||
	    !strncmp(name, "__erratum_", 10))
		return false;
	snprintf(buf, size, "%.*s@veneer", (int)(len - 2 - 7), name + 2);
	return true;
}

/*
 * The doubleword the loader leaves at vaddr, for a load bias of 0: a PIE's
 * pointers are R_AARCH64_RELATIVE relocations whose addend is the value;
 * any other relocation is not followed.
 */
static bool read_pointer(const struct arch_elf_image *img, uint64_t vaddr, uint64_t *value)
{
	unsigned type;
	uint64_t sym, word;
	int64_t addend;

	if (img->reloc(img->ctx, vaddr, &type, &sym, &addend)) {
		if (type != R_AARCH64_RELATIVE || sym)
			return false;
		*value = (uint64_t)addend;
		return true;
	}
	if (img->read(img->ctx, vaddr, (uint8_t *)&word, sizeof(word)) != sizeof(word))
		return false;
	*value = le64toh(word);
	return true;
}

/* What _start has put in x0-x30 so far: known[r] when reg[r] is an address. */
struct entry_regs {
	uint64_t reg[31];
	bool known[31];
};

/*
 * One instruction of _start, at pc: the ones that build addresses (adrp,
 * add immediate, ldr from the GOT, movz and movk); false at a branch, the
 * end of the set-up.  Any other instruction forgets its destination (Rd,
 * bits 4:0).
 */
static bool entry_step(const struct arch_elf_image *img, uint32_t w, uint64_t pc,
		       struct entry_regs *r)
{
	unsigned rd = w & 31, rn = w >> 5 & 31, shift = 16 * (w >> 21 & 3);
	uint64_t imm16 = w >> 5 & 0xffff;
	struct arch_insn in = { 0 };
	bool rn_known = rn < 31 && r->known[rn];

	arm64_classify_word(w, pc, &in);
	if (in.cls != ARCH_INSN_OTHER)
		return false;
	if (rd == 31)
		return true;	/* sp or xzr */
	if (is_adrp(w)) {
		r->reg[rd] = adrp_page(w, pc);
		r->known[rd] = true;
	} else if ((w & 0xff800000) == 0x91000000) {	/* add xd, xn, #imm{, lsl 12} */
		r->reg[rd] = (rn_known ? r->reg[rn] : 0) + ((w >> 10 & 0xfff) << (w >> 22 & 1 ? 12 : 0));
		r->known[rd] = rn_known;
	} else if ((w & 0xffc00000) == 0xf9400000) {	/* ldr xd, [xn, #imm] */
		r->known[rd] = rn_known && read_pointer(img, r->reg[rn] + (w >> 10 & 0xfff) * 8,
							&r->reg[rd]);
	} else if ((w & 0xff800000) == 0xd2800000) {	/* movz xd, #imm{, lsl} */
		r->reg[rd] = imm16 << shift;
		r->known[rd] = true;
	} else if ((w & 0xff800000) == 0xf2800000) {	/* movk xd, #imm{, lsl} */
		r->reg[rd] = (r->reg[rd] & ~(0xffffull << shift)) | imm16 << shift;
	} else {
		r->known[rd] = false;
	}
	return true;
}

/* A hint (nop, bti): what a BTI-ready function starts with. */
static bool is_hint(uint32_t w)
{
	return (w & 0xfffff01f) == 0xd503201f;
}

/*
 * main itself, when addr is glibc's __wrap_main ("b main", after a hint
 * where BTI may be): else addr.
 */
static uint64_t wrapped_main(const struct arch_elf_image *img, uint64_t addr)
{
	uint8_t code[8];
	size_t n = img->read(img->ctx, addr, code, sizeof(code)), at = 0;

	if (n >= 4 && is_hint(arm64_word(code)))
		at = 4;
	if (n < at + 4 || (arm64_word(code + at) & 0xfc000000) != 0x14000000)
		return addr;
	return addr + at + (uint64_t)(sign_extend(arm64_word(code + at) & 0x03ffffff, 26) * 4);
}

/*
 * glibc's _start (sysdeps/aarch64/start.S) puts main in x0 and calls
 * __libc_start_main with bl: from the GOT in a PIE (adrp, ldr), else
 * glibc 2.36's address of __wrap_main ("b main": adrp, add), or main
 * itself with movz/movk in older ones.
 */
bool arm64_entry_main(const struct arch_elf_image *img, uint64_t *main_addr)
{
	struct entry_regs r = { 0 };
	uint8_t code[96];
	size_t len =
		img->machine == EM_AARCH64 ? img->read(img->ctx, img->entry, code, sizeof(code)) : 0;

	for (size_t off = 0; off + 4 <= len; off += 4) {
		uint32_t w = arm64_word(code + off);
		struct arch_insn in = { 0 };

		if (entry_step(img, w, img->entry + off, &r))
			continue;
		arm64_classify_word(w, img->entry + off, &in);
		if (in.cls != ARCH_INSN_CALL || !(in.flags & ARCH_INSN_HAS_TARGET) || !r.known[0])
			return false;
		*main_addr = wrapped_main(img, r.reg[0]);
		return true;
	}
	return false;
}
