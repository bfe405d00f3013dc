/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Instruction counts: aggregate the steps of a trace by process, thread,
 * module, symbol, source line or instruction.  One count is one executed
 * instruction (a rep-prefixed string instruction counts once per iteration,
 * as it traps once per iteration, and once when it does none).  Every step lands in exactly one row:
 * addresses nothing covers get rows like "[unknown]", never dropped.
 *
 * Streaming and cached: an address is resolved once per process (until the
 * process's mappings change), so the cost of a step is one hash lookup.
 */
#ifndef PT_COUNTS_H
#define PT_COUNTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct filter;
struct trace;
struct trace_event;
struct trace_task_rec;
struct sym_loc;
struct sym_session;

enum counts_by {
	COUNTS_BY_PROCESS,
	COUNTS_BY_THREAD,
	COUNTS_BY_MODULE,
	COUNTS_BY_SYMBOL,
	COUNTS_BY_LINE,
	COUNTS_BY_INSN,
	COUNTS_BY_NR
};

/* "process", "thread", ... <-> enum; counts_parse_by returns -1 for others. */
int counts_parse_by(const char *s, enum counts_by *by);
const char *counts_by_name(enum counts_by by);

/*
 * What to count: every step of the events fed, by one key.  The filter
 * (filter.h, the report session's) selects threads, modules, functions
 * and rings; NULL counts everything.  COUNT records (count-only traces)
 * carry no address: they count in rows "[counted]", only without a
 * module, symbol or ring filter.
 */
struct counts_options {
	enum counts_by by;
	struct filter *filter;
};

/*
 * Where names come from.  The trace-backed resolver (counts_sym_resolver)
 * uses util/symbols.h; tests give their own.
 */
struct counts_resolver {
	/* required: what addr in pid is, as sym_resolve() describes it */
	void (*resolve)(void *arg, uint32_t pid, uint64_t addr, unsigned flags,
			struct sym_loc *loc);
	/* optional: a task record, in trace order (keeps address spaces current) */
	void (*task)(void *arg, const struct trace_task_rec *rec);
	/* optional: code bytes at addr, for --by insn (0: not available) */
	size_t (*read_code)(void *arg, uint32_t pid, uint64_t addr, uint8_t *buf, size_t len);
	/* optional: a thread's comm (NULL: unknown) */
	const char *(*comm)(void *arg, uint32_t tid);
	void *arg;
};

/* Fill r with a resolver over a symbol session and the trace's thread names. */
struct counts_sym_arg {
	struct sym_session *sym;
	const struct trace *trace;
};
void counts_sym_resolver(struct counts_resolver *r, struct counts_sym_arg *arg);

struct counts;

/* NULL on failure (printed).  The resolver must outlive the counts. */
struct counts *counts_new(const struct counts_options *o, const struct counts_resolver *r);
void counts_free(struct counts *c);

/* Feed every event of a trace, in order (TEV_TASK ones included). */
void counts_event(struct counts *c, const struct trace_event *ev);
/* A run of n steps of one thread (ev the first, pcs[k] step ev->index + k): counts_event on each. */
void counts_steps(struct counts *c, const struct trace_event *ev, const uint64_t *pcs, size_t n);
/* The same run as its steps are encoded (stepcodec.h), not decoded one by one. */
struct step_bytes;
void counts_bytes(struct counts *c, const struct trace_event *ev, const struct step_bytes *sb);

/*
 * The result, sorted by count (descending), then by name.  Each row has
 * the columns counts_columns() names: cols[0..n-2] are context (pid,
 * module, address, ...), cols[n-1] the row's name.
 */
#define COUNTS_MAX_COLS 3
struct counts_row {
	uint64_t count;
	const char *cols[COUNTS_MAX_COLS];
};
size_t counts_columns(enum counts_by by, const char *const **names);
size_t counts_result(struct counts *c, const struct counts_row **rows);

/*
 * Code that ran natively (NATIVE records: the ptrace backend's vDSO calls),
 * by module and symbol: in no row of counts_result and not in the total,
 * its instructions known only when counted says so (count is then their sum).
 */
struct counts_native_row {
	const char *module, *symbol;
	uint64_t runs;		  /* native runs that started in it */
	uint64_t counted;	  /* runs whose count is known */
	uint64_t count;		  /* their instructions */
};
size_t counts_native(const struct counts *c, const struct counts_native_row **rows);

/* Steps that passed the filters (the sum of all rows), and all steps fed. */
uint64_t counts_total(struct counts *c);
uint64_t counts_seen(const struct counts *c);
/* Steps the trace says were lost (LOST records): in no row. */
uint64_t counts_lost(const struct counts *c);

#endif /* PT_COUNTS_H */
