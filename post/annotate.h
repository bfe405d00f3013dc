/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The annotation of functions, for post annotate and the viewer's annotate
 * view: every instruction of a function as its binary has it (those that
 * never ran too), with the steps each one ran, its source line, where it
 * jumps and the jumps taken inside the function.  Gathered during one pass
 * of a report session with arcs (flowreport.h): a function's code and
 * lines are read when its first step is seen, while the address space it
 * ran in is the current one (an exec may later put other code at the same
 * address); its counts and jumps are put on them when it is first asked
 * for, of every process or of one (per-address counts are per process).
 */
#ifndef POST_ANNOTATE_H
#define POST_ANNOTATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "post/flowreport.h"

/* Longest function read whole (bigger ones: their first ANNOT_MAX_CODE bytes). */
#define ANNOT_MAX_CODE (1u << 20)

/* One instruction of an annotated function. */
struct annot_insn {
	uint64_t addr;		  /* ELF virtual address, as objdump shows it */
	uint64_t count;		  /* steps at it (of annot_fn.pid, or every process's) */
	const char *file;	  /* source file, NULL when unknown */
	int line;		  /* source line, 0 when unknown */
	uint8_t len;		  /* bytes; 0 when they were not available */
	uint8_t cls, flags;	  /* arch_insn's class and flags */
	bool listed;		  /* read from the function's code (not only seen run) */
	uint64_t target;	  /* ARCH_INSN_HAS_TARGET: the direct target (ELF address) */
	const char *target_sym;	  /* the function the target is in (NULL: none known) */
	uint64_t target_off;	  /* the target's offset in it */
	char text[64];		  /* disassembly, "(unavailable)" without the bytes */
};

/* The jumps and branches taken from one instruction to another of the function. */
struct annot_jump {
	uint64_t from, to;	  /* ELF addresses */
	uint64_t count;
	uint8_t cls;		  /* ARCH_INSN_JUMP or ARCH_INSN_COND */
};

/* Why a function's code could not be listed whole (annot_fn.code). */
enum annot_code {
	ANNOT_CODE_READ,	  /* every instruction of its symbol is listed */
	ANNOT_CODE_NO_SYMBOL,	  /* no symbol: only the addresses that ran */
	ANNOT_CODE_UNREADABLE,	  /* its bytes are not available (no file, no vmlinux) */
	ANNOT_CODE_TRUNCATED,	  /* bigger than ANNOT_MAX_CODE: its first bytes listed */
};

struct annot_fn {
	uint32_t fn;		  /* the engine's function id */
	uint32_t pid;		  /* the process counted, 0: every one */
	const char *name;	  /* as reports show it (demangled unless --no-demangle) */
	const char *raw_name;	  /* as in the symbol table, NULL when the same */
	const char *module, *module_path;
	uint8_t ring;		  /* 0 user, 1 kernel */
	uint64_t start, size;	  /* its symbol (ELF addresses); size 0 when unknown */
	enum annot_code code;
	uint64_t base;		  /* post profile's Base (pid: that process's, the sum of the
				   * counts) */
	uint64_t calls;		  /* post profile's calls (pid: 0, arcs count calls per
				   * function of every process only) */
	struct annot_insn *insns; /* by address */
	size_t nr_insns;
	struct annot_jump *jumps; /* by from, then to */
	size_t nr_jumps;
	const char *file;	  /* its own source file: the one most of its steps ran in,
				   * else most of its instructions are in; NULL: no lines */
};

struct annotate;

/* Which functions' code is gathered. */
enum annot_which {
	ANNOT_SELECTED,		  /* those the filters select (--module, --symbol, --ring) */
	ANNOT_EVERY_FUNCTION,	  /* every one (a viewer's tree shows callees not selected) */
};

/*
 * Before the pass (flow_report_open with FR_ARCS): gathers the functions'
 * code as it is first seen.  NULL when out of memory (printed).
 */
struct annotate *annotate_new(struct flow_report *r, enum annot_which which);
void annotate_free(struct annotate *a);

/*
 * After the pass: function fn's annotation, counted over process pid's
 * steps (0: every process's), built on first use and valid until
 * annotate_free; NULL when out of memory (printed) or when fn was not
 * gathered.
 */
const struct annot_fn *annotate_fn(struct annotate *a, uint32_t fn, uint32_t pid);

/* The instruction of f at addr, NULL if none starts there. */
const struct annot_insn *annot_insn_at(const struct annot_fn *f, uint64_t addr);

#endif /* POST_ANNOTATE_H */
