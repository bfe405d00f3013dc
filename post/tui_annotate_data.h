/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What an annotated function shows, gathered apart from how it is shown:
 * each executed address's place (module offset, source file and line,
 * code bytes) resolved when it is first seen, while its code is mapped
 * (arcs_first_sight), and on demand a function's instructions in address
 * order with their counts, the instructions that never ran filled in from
 * its code when the address space still holds it, and the taken jumps into
 * each.  Source files are read once and kept.
 */
#ifndef POST_TUI_ANNOTATE_DATA_H
#define POST_TUI_ANNOTATE_DATA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "arch_decode.h"

struct arcs;
struct session;

/* One instruction of an annotated function. */
struct ann_insn {
	uint64_t offset;	  /* where in its module: the ELF virtual address (perf's) */
	uint64_t pc;		  /* its address in the first process seen running it */
	uint32_t pid;
	uint64_t count;		  /* steps at it of the processes asked for */
	uint64_t jumped_in;	  /* taken jumps and branches to it from the function */
	const char *file;	  /* source file, NULL unknown */
	int line;
	uint8_t bytes[ARCH_INSN_MAX_LEN];
	uint8_t nr_bytes;
	bool ran;		  /* in the trace at all (any process) */
	char text[64];		  /* disassembly */
};

struct ann_function {
	uint32_t fn;
	struct ann_insn *insns;	  /* by offset */
	size_t n;
	uint64_t total;		  /* sum of the counts */
	const char *file;	  /* the file most of its counted instructions are from */
	const char *why;	  /* why only the executed instructions are shown; NULL when
				   * the whole function is */
};

struct ann_data;

/* Resolve what annotate needs as addresses are first seen (before the pass); NULL out of memory. */
struct ann_data *ann_data_new(struct session *s, struct arcs *a);
void ann_data_free(struct ann_data *d);

/*
 * The instructions of function fn, counted over the processes take()
 * accepts (NULL take: all); 0, or -1 when out of memory (printed).
 */
int ann_function_get(struct ann_data *d, uint32_t fn, bool (*take)(void *ctx, uint32_t pid),
		     void *ctx, struct ann_function *out);
void ann_function_free(struct ann_function *f);

/* Line line (from 1) of a source file, NULL when the file cannot be read or is shorter. */
const char *ann_source_line(struct ann_data *d, const char *file, int line);
/* Lines in the file (0 when it cannot be read). */
int ann_source_lines(struct ann_data *d, const char *file);

#endif /* POST_TUI_ANNOTATE_DATA_H */
