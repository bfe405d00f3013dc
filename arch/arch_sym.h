/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the symbol resolver needs to know about an architecture: how its PLT
 * entries reach their GOT slots, its linker's call stubs, a function's
 * second entry point, where a stripped program's main is, and which
 * addresses belong to the kernel.  Each
 * arch/<arch>/sym.c implements them; these apply the selected
 * architecture's (arch/arch.h).
 */
#ifndef PT_ARCH_SYM_H
#define PT_ARCH_SYM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One PLT entry: where it is and which GOT slot its indirect jump reads. */
struct arch_plt_entry {
	uint64_t addr;
	uint64_t size;
	uint64_t got_slot;	  /* 0: no such jump (PLT0, lazy-binding stubs) */
};

/*
 * Decode a PLT section: code, size bytes at ELF virtual address
 * vaddr.  entsize is the section's sh_entsize; 0 means unknown (static
 * executables' .plt) and the entries are found by decoding.  Fills at most
 * max entries and returns how many.
 */
size_t arch_sym_plt_entries(const uint8_t *code, size_t size, uint64_t vaddr, size_t entsize,
			    struct arch_plt_entry *out, size_t max);

/* True when addr lies in the kernel's part of the address space. */
bool arch_sym_is_kernel_addr(uint64_t addr);

/*
 * Preference of a kernel symbol name among the aliases at one
 * address (higher wins): the native system call entry (what the syscall
 * table calls) over its compat and inner names, which the kernel defines
 * at the same address for argument-less system calls.
 */
int arch_sym_kernel_alias_rank(const char *name);

/*
 * The offset of a function's local entry point from its symbol, from the
 * symbol's st_other (ppc64 ELFv2: a direct call lands past the global
 * entry's TOC set-up, and is still a call to the function's entry); 0 where
 * functions have one entry.
 */
unsigned arch_sym_local_entry(unsigned char st_other);

/*
 * The name reports show for a linker-generated call stub the symbol table
 * names (ppc64: "0000001b.plt_call.puts" is "puts@plt"), into buf; false
 * when name is no such stub.  Version suffixes are already dropped.
 */
bool arch_sym_stub_name(const char *name, char *buf, size_t size);

/*
 * What arch_sym_entry_main() reads of an executable, at ELF virtual
 * addresses (load bias 0).
 */
struct arch_elf_image {
	unsigned machine;	  /* e_machine: a rule reads only its own architecture's files */
	uint64_t entry;		  /* e_entry */
	const void *ctx;
	/* Copy up to len file bytes at vaddr; how many. */
	size_t (*read)(const void *ctx, uint64_t vaddr, uint8_t *buf, size_t len);
	/* The dynamic (RELA) relocation of the word at vaddr; false when none. */
	bool (*reloc)(const void *ctx, uint64_t vaddr, unsigned *type, uint64_t *sym,
		      int64_t *addend);
};

/*
 * The address of main in a program without symbols, from its entry code:
 * glibc's _start hands main to __libc_start_main, whose symbol stripping
 * removes.  False when the entry code is no such _start, or the
 * architecture has no rule.  The caller checks that the address is code.
 */
bool arch_sym_entry_main(const struct arch_elf_image *img, uint64_t *main_addr);

#endif /* PT_ARCH_SYM_H */
