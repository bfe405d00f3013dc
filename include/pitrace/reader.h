/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * libpitrace's trace reader: open a trace directory that pitrace recorded
 * and get its events in order (steps, calls and returns as post's
 * call-flow engine rebuilds them, system calls, signals, interrupts, task
 * events, gaps), with post's filters and windows, and resolve addresses
 * to module, symbol and source line.  docs/reader.md is its contract.
 * Link with -lpitrace (pkg-config --cflags --libs libpitrace).
 *
 * Versioning.  Every name is ptr_ or PTR_.  ptr_version() is the library's
 * PTR_VERSION(major, minor); a program compiled against major M runs with
 * any library of major M (minor >= the one it was compiled with, for the
 * functions and fields that minor added).  A later minor only appends:
 * fields at the end of structs, callbacks at the end of struct
 * ptr_callbacks, kinds and flags with new numbers.  So that an old program
 * and a new library (or the reverse) agree on a struct's length, each
 * struct starts with its size: the caller sets .size = sizeof(...) in the
 * structs it passes in (options, filter, callbacks) and the library reads
 * no field past it; the library sets .size in the structs it passes out
 * (events, locations) and a caller reads a field added later only when
 * .size covers it (PTR_HAS(s, field)).  Handles are opaque.
 *
 * Callbacks, not next().  A pass is driven by the library (ptr_run):
 * the call-flow engine is a push engine whose fast path tells many steps
 * and whole calls at once (straight-line runs counted in bulk, calls it
 * has seen before replayed), and a pull interface would have to buffer
 * them or give that fast path up.  With callbacks a consumer that asks
 * only for calls and returns keeps it: no step is decoded for it one by
 * one.  A callback that is NULL costs nothing; a non-zero return stops
 * the pass, and ptr_run returns it.
 *
 * Threads: a reader is used by one thread at a time; ptr_run decodes the
 * trace's streams on threads of its own but calls every callback from the
 * thread that called it.
 */
#ifndef PITRACE_READER_H_PUBLIC
#define PITRACE_READER_H_PUBLIC

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define PTR_VERSION(major, minor) (((uint32_t)(major) << 16) | (uint32_t)(minor))
#define PTR_VERSION_MAJOR 1
#define PTR_VERSION_MINOR 2
#define PTR_VERSION_CURRENT PTR_VERSION(PTR_VERSION_MAJOR, PTR_VERSION_MINOR)

/* The library's PTR_VERSION(major, minor). */
uint32_t ptr_version(void);

/* A struct the library passed out has field (its .size covers it). */
#define PTR_HAS(s, field) \
	((s)->size >= offsetof(__typeof__(*(s)), field) + sizeof((s)->field))

/* Errors: functions return 0 (or a count), or one of these. */
enum ptr_error {
	PTR_ERR_RUNTIME = -1,	  /* the trace or its symbols could not be read (said on stderr) */
	PTR_ERR_USAGE = -2,	  /* a bad argument: NULL, a bad name pattern (said on stderr) */
	PTR_ERR_VERSION = -3,	  /* a struct's size is not one this library knows */
	PTR_ERR_STATE = -4,	  /* not now: pass figures before a pass ended, ptr_run inside one */
};
/* "trace not readable", ...; "unknown error" for other values. */
const char *ptr_strerror(int err);

/* ---- opening ---- */

#define PTR_OPEN_FORCE (1u << 0)       /* read a damaged trace up to the damage (post --force) */
#define PTR_OPEN_NO_DEMANGLE (1u << 1) /* C++ names as in the symbol table (--no-demangle) */
#define PTR_OPEN_KEEP_STUBS (1u << 2)  /* PLT stubs are functions of their own (--plt keep) */
/*
 * A trace still being recorded is read as it is written, threads and
 * libraries that come later too, and a pass ends with the recording, its
 * events those of the finished trace (post script --follow;
 * docs/reader.md).  Once the recording is over, ptr_get_trace_info's
 * state is the final one: still "recording" when the recorder died
 * without finishing the trace.
 */
#define PTR_OPEN_FOLLOW (1u << 3)

/*
 * Where symbols come from, as post's common options have it (docs/post.md);
 * NULL members take post's defaults.  debuginfod is asked when the
 * environment names a server (DEBUGINFOD_URLS), as post and libdw do.
 */
struct ptr_open_options {
	uint32_t size;		  /* sizeof(struct ptr_open_options) */
	uint32_t flags;		  /* PTR_OPEN_* */
	const char *symfs;	  /* --symfs DIR */
	const char *buildid_dir;  /* --buildid-dir DIR */
	const char *debug_dir;	  /* --debug-dir DIR */
	const char *vmlinux;	  /* --vmlinux FILE */
	uint32_t threads;	  /* --threads N: stream decoding threads, 0 one per CPU */
	uint32_t reserved;
};

struct ptr_reader;

/*
 * Open trace directory dir (opts may be NULL): its header, tasks and
 * symbols.  NULL after a one-line message on stderr, and *err (if not
 * NULL) one of enum ptr_error.
 */
struct ptr_reader *ptr_open(const char *dir, const struct ptr_open_options *opts, int *err);
void ptr_close(struct ptr_reader *r);

/* What the trace's header says.  Strings live as long as the reader. */
struct ptr_trace_info {
	uint32_t size;
	uint16_t format_version;  /* the trace format's version (docs/trace-format.md) */
	uint16_t reserved;
	const char *arch;	  /* "x86_64", "ppc64le" */
	const char *backend;	  /* "ptrace", "driver" */
	const char *mode;	  /* "step", "block", "count" */
	const char *state;	  /* "complete", "interrupted", "recording" */
	const char *const *argv;  /* the traced command, NULL-terminated */
	uint64_t start_ns;	  /* CLOCK_MONOTONIC at the start: event times count from it */
	uint64_t steps;		  /* steps the recorder counted (its TOTALS), 0 unknown */
};
int ptr_get_trace_info(struct ptr_reader *r, struct ptr_trace_info *out);

/* ---- what a pass looks at: post's filters and window (docs/post.md) ---- */

enum ptr_ring { PTR_RING_ALL = 0, PTR_RING_USER = 1, PTR_RING_KERNEL = 2 };

/*
 * Zero (with .size set) selects everything; ptr_filter_init() sets the
 * open ends.  pid and tid drop other threads' events; from..to (step
 * indexes) and time_from..time_to (ns since the trace's start), both
 * inclusive, are the window: only its steps are told and counted, and
 * the Base and Cum of returns are the window's, as post's reports have
 * them.  module, symbol and ring select functions: steps of them, and
 * calls into them with their returns (name patterns as post's --module
 * and --symbol take them: NAME, =NAME, GLOB, re:REGEX, comma-separated).
 */
struct ptr_filter {
	uint32_t size;		  /* sizeof(struct ptr_filter) */
	uint32_t pid, tid;	  /* 0: all */
	int32_t ring;		  /* enum ptr_ring */
	const char *module;
	const char *symbol;
	uint64_t from, to;	  /* to UINT64_MAX: to the end */
	uint64_t time_from, time_to; /* time_to UINT64_MAX: to the end */
};
void ptr_filter_init(struct ptr_filter *f);

/* ---- events ---- */

/* What an instruction is (its class in the engine's decoder). */
enum ptr_insn_class {
	PTR_INSN_INVALID = 0,	  /* bytes not available or not an instruction */
	PTR_INSN_OTHER,		  /* no control transfer */
	PTR_INSN_CALL,
	PTR_INSN_RET,
	PTR_INSN_JUMP,
	PTR_INSN_COND,		  /* conditional branch */
	PTR_INSN_SYSCALL,
	PTR_INSN_INT,		  /* software interrupt or trap */
	PTR_INSN_KRET,		  /* return from the kernel */
};

#define PTR_INSN_MAX_LEN 16
#define PTR_NO_CPU UINT32_MAX
#define PTR_NO_FUNC UINT32_MAX	  /* no function: a thread's first frame has no caller */

/* One executed instruction. */
struct ptr_step {
	uint32_t size;
	uint32_t pid, tid;
	uint32_t cpu;		  /* PTR_NO_CPU: per-thread streams (the ptrace backend) */
	uint64_t index;		  /* the step's index in the trace, from 0 */
	uint64_t time_ns;	  /* best known time (CLOCK_MONOTONIC), 0 unknown */
	uint64_t pc;
	uint8_t kernel;		  /* 1: a kernel step */
	uint8_t insn_class;	  /* enum ptr_insn_class */
	uint8_t len;		  /* the instruction's length, 0 unknown */
	uint8_t nr_bytes;	  /* bytes[] read from the module, 0 unavailable */
	uint32_t func;		  /* the function it counts for (ptr_get_func) */
	uint8_t bytes[PTR_INSN_MAX_LEN]; /* the instruction's bytes (a copy: ptr_resolve
				   * in the callback leaves them as they are) */
};

/* How a frame was entered (the engine's entry kinds, docs/callflow-internals.md). */
enum ptr_call_kind {
	PTR_CALL_ROOT = 0,	  /* a thread's first frame (or after a gap), not a call */
	PTR_CALL_CALL,		  /* a call instruction */
	PTR_CALL_TAIL,		  /* a jump to another function's entry (replaces the caller) */
	PTR_CALL_JUMP,		  /* a jump into the middle of another function */
	PTR_CALL_ASYNC,		  /* an asynchronous entry: a signal handler */
	PTR_CALL_KERNEL,	  /* a system call's kernel steps */
	PTR_CALL_UNMATCHED,	  /* a caller rebuilt below the oldest frame */
};

/*
 * A frame entered.  post's reports count kinds CALL, TAIL, ASYNC and
 * KERNEL as calls (PTR_CALL_COUNTS).
 */
struct ptr_call {
	uint32_t size;
	uint32_t pid, tid;
	uint32_t depth;		  /* frames on the thread's stack with this one, from 1 */
	uint64_t index;		  /* its first step's index */
	uint64_t time_ns;
	uint32_t caller, callee;  /* functions (ptr_get_func); caller PTR_NO_FUNC for roots */
	uint64_t pc;		  /* where the call was made (the call instruction), 0 none */
	uint64_t target;	  /* where the callee was entered, 0 unknown */
	uint8_t kind;		  /* enum ptr_call_kind */
	uint8_t reserved[7];
};
#define PTR_CALL_COUNTS(kind) \
	((kind) == PTR_CALL_CALL || (kind) == PTR_CALL_TAIL || (kind) == PTR_CALL_ASYNC || \
	 (kind) == PTR_CALL_KERNEL)

/* How a frame ended. */
enum ptr_return_kind {
	PTR_RETURN_RETURN = 0,	  /* its return instruction (or sigreturn, kernel exit) */
	PTR_RETURN_UNWIND,	  /* a return or jump to a frame further down ended it */
	PTR_RETURN_REPLACED,	  /* a tail call or jump into another function replaced it */
	PTR_RETURN_FLUSH,	  /* thread exit, exec, gap or the end of the trace */
	PTR_RETURN_OFF,		  /* recording was switched off */
};

/*
 * A frame ended: the call it is of has the same pid, tid, depth and
 * function.  base and cum are the call's (docs/reader.md, "Costs"):
 * base its own steps, cum its steps and its callees'.  arc_cum and
 * fn_cum are what post's arc report adds for it (a recursive call's
 * steps are in its outermost activation's Cum only): summed over the
 * returns they are the arcs' and the functions' Cum.
 */
struct ptr_return {
	uint32_t size;
	uint32_t pid, tid;
	uint32_t depth;
	uint64_t index;		  /* the index of the step it ended before */
	uint64_t time_ns;
	uint32_t func, caller;	  /* the function that returns, and the frame below's */
	uint64_t base, cum;
	uint64_t arc_cum, fn_cum;
	uint8_t kind;		  /* enum ptr_return_kind */
	uint8_t call_kind;	  /* enum ptr_call_kind: how it was entered */
	uint8_t reserved[6];
};

/*
 * A system call: a step of class PTR_INSN_SYSCALL in user code, told
 * after that step.  Its number is not in the trace.
 */
struct ptr_syscall {
	uint32_t size;
	uint32_t pid, tid;
	uint32_t cpu;
	uint64_t index;		  /* the syscall instruction's step */
	uint64_t time_ns;
	uint64_t pc;
};

/* Signals, their handlers' returns, and interrupts, irqs and exceptions. */
enum ptr_async_kind {
	PTR_ASYNC_SIGNAL = 1,	  /* a signal handler is entered (number: the signal) */
	PTR_ASYNC_SIGRETURN = 2,  /* a handler returns */
	PTR_ASYNC_INTERRUPT = 3,  /* an interrupt (number: its vector); information only */
	PTR_ASYNC_EXCEPTION = 4,  /* an exception, page faults included (number: vector) */
	PTR_ASYNC_IRQ = 5,	  /* a device interrupt (number: Linux's irq number) */
};

struct ptr_async {
	uint32_t size;
	uint32_t pid, tid;
	uint32_t kind;		  /* enum ptr_async_kind */
	uint64_t number;
	uint64_t index;		  /* the index of the step it comes before */
	uint64_t time_ns;
	uint64_t pc;		  /* the interrupted instruction, 0 unknown */
	uint64_t address;	  /* page faults: the faulting address */
	uint64_t error;		  /* exceptions: the error code */
	uint8_t kernel;		  /* interrupted in the kernel (2: unknown) */
	uint8_t reserved[7];
};

/* Task events: the records of the trace's tasks file. */
enum ptr_task_kind {
	PTR_TASK_FORK = 1,	  /* a process or thread was made (parent: ppid, ptid) */
	PTR_TASK_EXEC = 2,	  /* path: the program */
	PTR_TASK_COMM = 3,	  /* path: the thread's new name */
	PTR_TASK_EXIT = 4,	  /* status: wait(2)'s */
	PTR_TASK_MMAP = 5,	  /* path, start, len, pgoff, prot */
	PTR_TASK_MUNMAP = 6,	  /* start, len */
};

struct ptr_task {
	uint32_t size;
	uint32_t kind;		  /* enum ptr_task_kind */
	uint32_t pid, tid;
	uint32_t ppid, ptid;	  /* FORK */
	uint32_t thread;	  /* FORK: 1 a thread of the parent's process, 0 a process */
	int32_t status;		  /* EXIT */
	uint64_t time_ns;
	const char *path;	  /* EXEC, COMM, MMAP; else NULL */
	uint64_t start, len, pgoff; /* MMAP, MUNMAP */
	uint32_t prot;		  /* MMAP: PROT_* */
	uint32_t reserved;
};

/* Steps missing, and recording switched off and on. */
enum ptr_gap_kind {
	PTR_GAP = 1,		  /* steps not recorded here (reason: the format's PT_GAP_*) */
	PTR_GAP_LOST = 2,	  /* steps lost (count: how many) */
	PTR_GAP_OFF = 3,	  /* recording switched off */
	PTR_GAP_ON = 4,		  /* recording switched on */
	PTR_GAP_NATIVE = 5,	  /* code ran natively, untraced, from pc to end (vDSO calls) */
};

struct ptr_gap {
	uint32_t size;
	uint32_t kind;		  /* enum ptr_gap_kind */
	uint32_t pid, tid;
	uint64_t index;		  /* the index of the step it comes before */
	uint64_t time_ns;
	uint64_t reason;	  /* GAP: PT_GAP_* (pitrace/format.h) */
	uint64_t count;		  /* LOST: steps lost */
	uint64_t pc, end;	  /* NATIVE */
};

/*
 * What a pass tells, each callback optional.  step and syscall need every
 * step: a pass with either counts one step at a time; without them, the
 * engine's fast path counts runs of steps and takes calls it has seen
 * before whole (docs/reader.md, "Cost").  Events come in trace order:
 * a thread's events in the order they happened, a call before the steps
 * of its callee, a return before the step after it.
 */
struct ptr_callbacks {
	uint32_t size;		  /* sizeof(struct ptr_callbacks) */
	uint32_t reserved;
	int (*step)(void *ctx, const struct ptr_step *s);
	int (*call)(void *ctx, const struct ptr_call *c);
	int (*ret)(void *ctx, const struct ptr_return *r);
	int (*syscall)(void *ctx, const struct ptr_syscall *e);
	int (*async)(void *ctx, const struct ptr_async *e);
	int (*task)(void *ctx, const struct ptr_task *e);
	int (*gap)(void *ctx, const struct ptr_gap *e);
};

/*
 * One pass over the trace (f may be NULL: everything), in order.  0 at
 * the end, the first non-zero value a callback returned (the pass stops
 * there), or a negative enum ptr_error.  Function ids and their strings,
 * and what ptr_resolve returns, are valid until the next ptr_run or
 * ptr_close.  A reader runs any number of passes, one at a time.
 */
int ptr_run(struct ptr_reader *r, const struct ptr_filter *f, const struct ptr_callbacks *cb,
	    void *ctx);

/*
 * How the last pass that ended went (ptr_run's or ptr_table's, stopped or
 * not): while one runs, the one before's.  PTR_ERR_STATE before any ended.
 */
struct ptr_pass_stats {
	uint32_t size;
	uint32_t reserved;
	uint64_t steps;		  /* steps of the selected threads read */
	uint64_t steps_in_window;
	uint64_t steps_single;	  /* of them, the engine's taken one at a time */
	uint64_t calls_whole;	  /* calls the engine took whole (its fast path) */
	uint64_t steps_whole;	  /* their steps */
	double cpu_seconds;	  /* the pass's CPU time, every thread's */
};
int ptr_get_pass_stats(struct ptr_reader *r, struct ptr_pass_stats *out);

/* ---- functions and addresses ---- */

/* A function as post's reports name it. */
struct ptr_func {
	uint32_t size;
	uint8_t kernel;		  /* its code runs in the kernel */
	uint8_t native;		  /* code of it ran natively, untraced (vDSO) */
	uint8_t reserved[2];
	const char *name;	  /* symbol, or "[module]" for code without one */
	const char *module;	  /* short module name: "libc.so.6", "[vdso]" */
	const char *module_path;
	uint64_t addr;		  /* its first address */
};
/* Function id (of an event, during a pass or after it); PTR_ERR_USAGE for an unknown id. */
int ptr_get_func(struct ptr_reader *r, uint32_t id, struct ptr_func *out);
/* Functions known so far (ids are 0 .. this - 1). */
uint32_t ptr_nr_funcs(struct ptr_reader *r);

/* Everything known about one address. */
struct ptr_location {
	uint32_t size;
	uint32_t func;		  /* its function (ptr_get_func) */
	const char *module;	  /* "[unknown]" when nothing is mapped there */
	const char *module_path;
	uint64_t module_offset;	  /* the module's ELF virtual address of it */
	const char *symbol;	  /* NULL when no symbol covers it */
	uint64_t symbol_offset;
	const char *file;	  /* source file, NULL unknown */
	uint32_t line;		  /* 0 unknown */
	uint8_t insn_class;	  /* enum ptr_insn_class */
	uint8_t len;
	uint8_t nr_bytes;
	uint8_t reserved;
	uint8_t bytes[PTR_INSN_MAX_LEN];
	const char *text;	  /* its disassembly */
};

/*
 * Resolve pc of process pid (kernel: 1 for kernel addresses) against the
 * address space as it is at this point of the pass (inside a ptr_run
 * callback), or as the last pass (ptr_run's or ptr_table's) left it, or
 * before any pass as the trace leaves it, every task record applied
 * (since 1.2: before, PTR_ERR_STATE then and after a counts table).
 * Strings live until the next pass (ptr_run, ptr_table) or ptr_close;
 * text until the next ptr_resolve.
 */
int ptr_resolve(struct ptr_reader *r, uint32_t pid, uint64_t pc, int kernel,
		struct ptr_location *out);

/* ---- tables: post's reports as rows (since 1.1) ---- */

#define PTR_TABLE_MAX_COLS 9

/*
 * One row of a table: nr_cols cells, column k named names[k].  A text
 * column (bit k of text set) has its cell in str[k] (NULL: none, as a
 * root's caller), a number column in num[k].  The names and strings
 * live until the next ptr_run, ptr_table or ptr_close.
 */
struct ptr_row {
	uint32_t size;
	uint32_t nr_cols;
	const char *const *names;
	uint32_t text;		  /* bit k: column k is text */
	uint32_t reserved;
	const char *str[PTR_TABLE_MAX_COLS];
	uint64_t num[PTR_TABLE_MAX_COLS];
};

/*
 * One pass (f as ptr_run's) that computes the table post's report of
 * that name computes, with post's own code, and tells its rows in the
 * report's order (docs/reader.md, "Tables"):
 *   "profile"  function, module, calls, base, cum (post profile)
 *   "arcs"     caller, caller_module, callee, callee_module, calls,
 *              base, cum (post arc: every caller -> callee arc)
 *   "tree"     pid, tid, depth, function, module, calls, base, cum
 *              (post tree: by NULL or "threads" a tree per thread,
 *              "merged" one tree, pid and tid 0)
 *   "counts"   the columns of post counts --by BY, then count (by:
 *              process, thread, module, symbol (NULL), line, insn)
 * 0 at the end, what row returned when not 0 (the rows stop there), or
 * a negative enum ptr_error (PTR_ERR_USAGE: an unknown table or by).
 */
int ptr_table(struct ptr_reader *r, const struct ptr_filter *f, const char *table,
	      const char *by, int (*row)(void *ctx, const struct ptr_row *row), void *ctx);

#ifdef __cplusplus
}
#endif

#endif /* PITRACE_READER_H_PUBLIC */
