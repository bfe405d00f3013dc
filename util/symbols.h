/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Address resolution: which module, function and source line an address of
 * a traced process was at a given moment.  Processes' address spaces are
 * rebuilt from the trace's task records (mmap, munmap, fork, exec); ELF
 * symbols (.symtab, .dynsym, separate debuginfo by build-id, PLT entries as
 * sym@plt) and DWARF lines come from elfutils.
 */
#ifndef PT_SYMBOLS_H
#define PT_SYMBOLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct sym_session;
struct sym_module;
struct trace_task_rec;

struct sym_options {
	const char *trace_dir;	  /* for the vdso image and kernel snapshots */
	const char *debug_dir;	  /* default /usr/lib/debug */
	const char *vmlinux;	  /* kernel image with debug info, optional */
	const char *sysroot;	  /* prefix for module paths (post --symfs), optional */
	const char *buildid_dir;  /* a build-id cache searched before the default one */
	bool no_demangle;	  /* show C++ names as in the symbol table */
};

/* opts may be NULL; docs/symbols.md says how names, debuginfo and lines are found. */
struct sym_session *sym_session_new(const struct sym_options *opts);
void sym_session_free(struct sym_session *s);

/* Keep address spaces current: feed every task record in trace order. */
void sym_task_event(struct sym_session *s, const struct trace_task_rec *rec);

enum sym_kind {
	SYM_KIND_FILE,		  /* a mapped file (module) */
	SYM_KIND_VDSO,		  /* [vdso] */
	SYM_KIND_ANON,		  /* anonymous executable memory (JIT, ...) */
	SYM_KIND_KERNEL,	  /* kernel or kernel module */
	SYM_KIND_UNKNOWN,	  /* nothing mapped there as far as we know */
};

/*
 * What an MMAP record's path is: SYM_KIND_FILE (an absolute path; it may
 * end in " (deleted)"), SYM_KIND_VDSO ("[vdso]") or SYM_KIND_ANON.
 */
enum sym_kind sym_path_kind(const char *path);

struct sym_loc {
	enum sym_kind kind;
	struct sym_module *mod;	  /* NULL for ANON and UNKNOWN */
	const char *module;	  /* short name: "libc.so.6", "[vdso]", "[anon]", "[unknown]" */
	const char *module_path;  /* full path, or the same as module */
	uint64_t module_offset;	  /* addr - load bias: the ELF virtual address; the file
				   * offset for unreadable files; addr itself for ANON,
				   * UNKNOWN and (without vmlinux) the core kernel */
	const char *symbol;	  /* function name, NULL when none covers addr; C++ names
				   * demangled unless sym_options.no_demangle */
	const char *symbol_raw;	  /* as in the symbol table (mangled); NULL with symbol */
	uint64_t sym_addr;	  /* the symbol's start, as a process address */
	uint64_t sym_offset;	  /* addr - sym_addr */
	bool entry;		  /* addr is an entry point of the symbol: its start, or
				   * its local entry (ppc64 ELFv2, arch_sym_local_entry) */
	uint64_t sym_size;	  /* the symbol's size in bytes (kallsyms: to the next one) */
	const char *file;	  /* source file (SYM_LINES), NULL if unknown */
	int line;		  /* source line, 0 if unknown */
};

#define SYM_LINES (1u << 0)	  /* also look up the source line (slower) */

/*
 * Resolve addr in process pid as of the last task event fed.  Always fills
 * *loc (unknown addresses get kind UNKNOWN and module "[unknown]").
 * Returned strings live as long as the session.
 */
void sym_resolve(struct sym_session *s, uint32_t pid, uint64_t addr, unsigned flags,
		 struct sym_loc *loc);

/*
 * Code that no symbol or FDE covers is cut into functions at the calls
 * into it that the trace shows (docs/symbols.md), found before any of it
 * is resolved: fn runs the first time sym_resolve meets such code in a
 * module, before it answers, and is to note every call target of the
 * trace (sym_note_call_target, through a fork) and cut the modules
 * (sym_split_at_call_targets).  Traces that never run such code never
 * call it.
 */
void sym_on_uncovered(struct sym_session *s, void (*fn)(void *ctx), void *ctx);

/*
 * A session of its own address spaces (fed its own task records) over
 * s's modules and options, for user code only; freed before s.
 */
struct sym_session *sym_session_fork(struct sym_session *s);

/* A call landed at addr of pid: noted when no function covers it.  false: out of memory. */
bool sym_note_call_target(struct sym_session *s, uint32_t pid, uint64_t addr);

/* Each module with call targets noted is cut at them, once (MODULE+0xVADDR functions). */
void sym_split_at_call_targets(struct sym_session *s);

/* Read code bytes at addr in pid from the mapped file (for disassembly).
 * Returns bytes read (0 when the bytes are not available). */
size_t sym_read_code(struct sym_session *s, uint32_t pid, uint64_t addr, uint8_t *buf,
		     size_t len);

/*
 * Standalone use by the recorder (--on SYMBOL): the module-relative address
 * (ELF virtual address) and size of a function by exact name in the ELF file
 * at path, aliases and "name@plt" included, C++ names mangled or demangled.
 * Returns 1 found, 0 absent, -1 when path is not a readable ELF file (errno
 * set).
 */
int sym_lookup_in_file(const char *path, const char *name, uint64_t *vaddr, uint64_t *size);
/* The same, with the offset of the function's second entry point, 0 if none (ppc64 ELFv2). */
int sym_lookup_entries_in_file(const char *path, const char *name, uint64_t *vaddr,
			       uint64_t *size, unsigned *local_entry);

/*
 * Standalone use by the recorder (--on PATTERN): fn gets every name of
 * every function of the ELF file at path (aliases and "name@plt" too),
 * demangled and raw, with its ELF virtual address, local entry offset and
 * whether it is an ifunc (STT_GNU_IFUNC: the resolver).
 * Returns how many names, or -1 when path is not a readable ELF file.
 */
int sym_file_entries(const char *path,
		     void (*fn)(const char *name, const char *raw, uint64_t vaddr,
				unsigned local_entry, bool ifunc, void *arg),
		     void *arg);

/* Is name (as in the symbol table) an ifunc (STT_GNU_IFUNC) of a module the session read? */
bool sym_session_ifunc(struct sym_session *s, const char *name);

/*
 * Standalone use by shell completion (post --list symbols): fn gets the
 * name of every function of the ELF file at path, as reports show it
 * (demangled unless raw).  Returns how many, or -1 when path is not a
 * readable ELF file.
 */
int sym_file_functions(const char *path, bool raw, void (*fn)(const char *name, void *arg),
		       void *arg);

/*
 * The GNU build-id in a bare sequence of ELF notes (4-byte aligned, as
 * /sys/kernel/notes holds the running kernel's); its length, 0 if none or
 * the notes are malformed.  The recorder stores the kernel's in the trace.
 */
size_t sym_notes_build_id(const void *notes, size_t len, uint8_t *buf, size_t size);

#endif /* PT_SYMBOLS_H */
