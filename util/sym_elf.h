/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One ELF module's tables for the symbol resolver: function symbols (with
 * PLT entries and sizes filled in), DWARF line lookup, load bias and code
 * bytes.  Internal to util/sym_*.c and util/symbols.c.
 */
#ifndef PT_SYM_ELF_H
#define PT_SYM_ELF_H

#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <gelf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/sym_search.h"

/* A function: [addr, addr + size) in ELF virtual addresses. */
struct sym_entry {
	uint64_t addr;
	uint64_t size;
	const char *name;	  /* what reports show: demangled after sym_module_demangle */
	const char *raw;	  /* as in the symbol table (version suffix dropped) */
	uint8_t local_entry;	  /* offset of a second entry point (ppc64 ELFv2), 0 none */
	bool ifunc;		  /* an STT_GNU_IFUNC symbol: the resolver of a function */
};

struct sym_cu_range;
struct sym_strtab;

struct sym_module {
	char *path;		  /* the traced path (after sysroot / deleted-suffix handling) */
	char *name;		  /* basename, or a given display name ("[vdso]") */
	uint8_t build_id[20];
	uint8_t build_id_len;	  /* as wanted by the mapping, else as found in the file */
	bool usable;		  /* the mapped file (or one of its build) is here: code bytes */

	struct sym_found found;	  /* where its files are (found.file, found.debug_file) */
	Dwfl *dwfl;		  /* libdwfl found them and holds the file and DWARF */
	Dwfl_Module *dwmod;
	Elf *elf;		  /* the module's file (libdwfl's), NULL if not found */
	GElf_Half e_type;
	GElf_Phdr *phdrs;
	size_t nr_phdrs;
	Elf *debug_elf;		  /* separate debuginfo (ours, on found.debug_fd), NULL */
	Elf *stand_in_elf;	  /* the debuginfo libdwfl opened in place of a missing file */

	struct sym_entry *syms;	  /* sorted by addr, one per address, sized */
	size_t nr_syms;
	struct sym_entry *aliases; /* every accepted name, for lookup by name */
	size_t nr_aliases;
	size_t last_hit;	  /* index into syms of the last found symbol */

	Dwarf *dwarf;		  /* libdwfl's, got on the first line lookup (decompression costs) */
	bool dwarf_tried;
	bool cus_loaded;
	struct sym_cu_range *cus;
	size_t nr_cus;
	size_t last_cu;
	struct sym_strtab *strs;  /* strings we built (plt names, joined paths) */
	uint64_t *call_targets;	  /* noted call targets no function covers (sym_module_note_call) */
	size_t nr_call_targets, cap_call_targets;
	struct sym_module *next;  /* session list */
};

/*
 * Open the module whose file was at path.  build_id (may be NULL/0) is
 * what the mapping said: when the file at path has another build-id it is
 * not the mapped file (one warning), and a file of that build-id is looked
 * for (sym_search.h), else its debuginfo.  search: where (NULL:
 * sym_search_default()).  name: display name, NULL for the basename.
 * Never returns NULL except out of memory; check ->usable and ->nr_syms.
 */
struct sym_module *sym_module_open(const char *path, const char *name, const uint8_t *build_id,
				   size_t build_id_len, struct sym_search *search);
void sym_module_free(struct sym_module *m);

/*
 * The load bias of a mapping of this module at start with file offset pgoff
 * (exec: the mapping is executable): process address - ELF virtual address.
 * False when no loadable segment covers pgoff.
 */
bool sym_module_bias(const struct sym_module *m, uint64_t start, uint64_t pgoff, bool exec,
		     uint64_t *bias);

/*
 * A call into vaddr, which no function covers: noted, to become a function
 * of its own (MODULE+0xVADDR) when sym_module_split_at_calls cuts the
 * module.  false: out of memory.
 */
bool sym_module_note_call(struct sym_module *m, uint64_t vaddr);

/*
 * Code no symbol or FDE covers, cut at the call targets noted: each is a
 * function from its target to the next function or target, or to the end
 * of its segment.  Once, after every target was noted.
 */
void sym_module_split_at_calls(struct sym_module *m);

/* The function covering vaddr, or NULL. */
const struct sym_entry *sym_module_find(struct sym_module *m, uint64_t vaddr);

/* A function by exact name, shown or raw (aliases included), or NULL. */
const struct sym_entry *sym_module_find_name(const struct sym_module *m, const char *name);

/*
 * Show C++ names demangled: every name that demangles (util/demangle.h)
 * becomes the demangled form, ->raw keeps the symbol table's.  Once per
 * module, after sym_module_open; the alias choice was made on raw names.
 */
void sym_module_demangle(struct sym_module *m);

/*
 * Load the module's DWARF now, with what it takes: separate debuginfo when
 * the file has none, the supplementary (dwz) file (found.debug_file,
 * found.alt_file).  sym_module_line does it on its first call.
 */
void sym_module_load_dwarf(struct sym_module *m);

/* Source line of vaddr from DWARF; false when unknown. */
bool sym_module_line(struct sym_module *m, uint64_t vaddr, const char **file, int *line);

/* Copy up to len file bytes at vaddr (within one loadable segment). */
size_t sym_module_read(const struct sym_module *m, uint64_t vaddr, uint8_t *buf, size_t len);

/* The build-id note of an open ELF; its length or 0. */
size_t sym_elf_build_id(Elf *elf, uint8_t *buf, size_t size);

/*
 * Between the parts of a module's tables only (util/sym_elf*.c):
 * util/sym_elf.c finds and opens its files and answers its lookups;
 * util/sym_elf_symtab.c makes its function table from the symbol tables
 * and the PLT; util/sym_elf_stripped.c adds functions for code no symbol
 * names.
 */

/* s, interned in *tp (made on first use): equal strings share memory.  NULL: out of memory. */
const char *sym_strtab_intern(struct sym_strtab **tp, const char *s);

/* The section of elf (NULL: none) named name, its header in *shdr; NULL if there is none. */
Elf_Scn *sym_elf_section(Elf *elf, const char *name, GElf_Shdr *shdr);

/* m's functions and aliases from its symbol tables and PLT (sym_elf_symtab.c). */
void sym_elf_load_symbols(struct sym_module *m);

/* Where main is in a program no symbol names it in; 0 when unknown (sym_elf_stripped.c). */
uint64_t sym_elf_stripped_main(const struct sym_module *m);

/* Functions from the unwind table for code no symbol covers (main at main_addr, 0 none). */
void sym_elf_add_fde_functions(struct sym_module *m, uint64_t main_addr);

#endif /* PT_SYM_ELF_H */
