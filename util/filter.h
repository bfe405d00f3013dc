/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What a report looks at (threads, a window, functions), matched one
 * question at a time, and what each filter matched: after the report, a
 * filter that matched nothing is said, with what the trace has instead.
 * The report session (session.h) owns one; counts asks it about
 * addresses, the call-flow reports about functions.
 */
#ifndef PT_FILTER_H
#define PT_FILTER_H

#include <regex.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum session_ring { SESSION_RING_ALL = 0, SESSION_RING_USER, SESSION_RING_KERNEL };

/*
 * Threads (pid, tid) and the window select events; module, symbol and
 * ring select functions and addresses (session.h says how reports use
 * each).
 */
struct session_filter {
	uint32_t pid, tid;	  /* 0: all */
	const char *module;	  /* name patterns (below) of modules: short name, file name,
				   * path, the short name's stem before ".so" ("libc"
				   * matches libc.so.6), or without brackets ("vdso") */
	const char *symbol;	  /* name patterns of functions, demangled or mangled */
	int ring;		  /* enum session_ring */
	uint64_t from, to;	  /* step indexes; to UINT64_MAX: to the end */
	uint64_t time_from, time_to; /* ns since the trace started; time_to UINT64_MAX: no end */
};

#define SESSION_FILTER_INIT { .to = UINT64_MAX, .time_to = UINT64_MAX }

/*
 * Name patterns, as --module, --symbol and pitrace's --on take them: a
 * list split at newlines (one per repeated option) and at commas outside
 * (), <>, [] and {} (C++ names keep theirs), each item one of
 *   re:REGEX  a POSIX extended regular expression found in the name (^ $ anchor it)
 *   =NAME     this name only
 *   GLOB      an item with *, ? or [: fnmatch(3); the name equal to it matches too
 *             (operator[], f(char*))
 *   NAME      this name; a function NAME that is an ifunc also takes glibc's names for
 *             its implementations, __NAME_* (__strlen_evex for strlen)
 */
enum name_pattern_kind { NAME_PAT_NAME, NAME_PAT_EXACT, NAME_PAT_GLOB, NAME_PAT_REGEX };

struct name_pattern {
	enum name_pattern_kind kind;
	char *text;		  /* as typed, without "re:" or "=" */
	const char *item;	  /* as typed, for messages */
	regex_t re;		  /* NAME_PAT_REGEX */
	bool matched;
};

struct name_patterns {
	struct name_pattern *v;
	size_t n;
	char *copy;		  /* the list, split in place into the items */
};

/* Parse list into *p: 0, or -1 with why in err (a bad regular expression, an empty item). */
int name_patterns_parse(struct name_patterns *p, const char *list, char *err, size_t size);
void name_patterns_free(struct name_patterns *p);
/* list as the value of option opt ("record: --on"): 0, or -1 with "opt: why" printed. */
int name_patterns_check(const char *opt, const char *list);
/* Does pattern pat take name?  symbol: a function's name (C++: either form). */
bool name_pattern_match(const struct name_pattern *pat, const char *name, bool symbol);
/* Is name glibc's name for an implementation of an ifunc that pat names (__NAME_*)? */
bool name_pattern_ifunc_variant(const struct name_pattern *pat, const char *name);

#define FILTER_HINTS 8		  /* names a "matched nothing" warning lists at most */

/* Names seen that a filter did not take, for its warning. */
struct filter_hints {
	char *name[FILTER_HINTS];
	size_t n, more;
};

struct filter {
	struct session_filter f;
	struct name_patterns modules_pat, symbols_pat; /* f.module and f.symbol, parsed */
	/* Is this name an ifunc (STT_GNU_IFUNC) of the trace's modules?  NULL: any name
	 * is taken for one (its __NAME_* are its implementations). */
	bool (*is_ifunc)(void *ctx, const char *name);
	void *ifunc_ctx;
	/* what matched (only filters that are set are tracked) */
	bool thread_matched, module_matched, symbol_matched, ring_matched;
	bool saw_ring[2];	  /* steps of user (0) and kernel (1) code were seen */
	struct filter_hints modules, symbols;
	struct { uint32_t pid, tid; } threads[FILTER_HINTS]; /* the other threads seen */
	size_t nr_threads, more_threads;
};

/* 0, or -1 with one error line printed (a pattern that does not parse). */
int filter_init(struct filter *fl, const struct session_filter *f);
void filter_free(struct filter *fl);

/* Is any function filter set (module, symbol, ring)? */
bool filter_on_functions(const struct filter *fl);

/* Each: does it pass?  (NULL fl: everything passes.) */
bool filter_thread(struct filter *fl, uint32_t pid, uint32_t tid);
bool filter_module(struct filter *fl, const char *module, const char *module_path);
bool filter_symbol(struct filter *fl, const char *name, const char *raw);
bool filter_ring(struct filter *fl, uint8_t ring);

/*
 * The filters that matched nothing, one warning each on stderr, with what
 * the trace has instead.  steps_seen: steps of the selected threads;
 * in_window: of them inside the window; last_index: the last step's index;
 * comm: a thread's name (NULL: unknown), for the threads' list.
 */
void filter_warn_unmatched(const struct filter *fl, uint64_t steps_seen, uint64_t in_window,
			   uint64_t last_index, const char *(*comm)(void *ctx, uint32_t tid),
			   void *ctx);

#endif /* PT_FILTER_H */
