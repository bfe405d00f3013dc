/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Where the files of a traced module are looked for: the directories of
 * separate debuginfo and of build-id caches, in the order libdwfl's
 * standard callbacks search them (dwfl_build_id_find_elf,
 * dwfl_standard_find_debuginfo), and debuginfod's downloads with progress
 * on a terminal.  docs/symbols.md, "Where files are looked for".
 * Internal to util/sym_*.c and util/symbols.c.
 */
#ifndef PT_SYM_SEARCH_H
#define PT_SYM_SEARCH_H

#include <elfutils/libdwfl.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SYM_DEFAULT_DEBUG_DIR "/usr/lib/debug"

struct sym_search {
	char **dirs;		  /* absolute directories holding .build-id/, first first */
	size_t nr_dirs;
	char *debuginfo_path;	  /* the same as libdwfl's path: "+:.debug:DIR:DIR..." */
	Dwfl_Callbacks callbacks;
	bool progress;		  /* show debuginfod downloads (stderr is a terminal) */
	bool shown;		  /* a progress line is on the terminal */
};

/*
 * The search of a session.  Directories, each optional, in this order:
 * debug_dir, buildid_dir, the default build-id cache, symfs's
 * /usr/lib/debug (when symfs is given), /usr/lib/debug.  NULL when out
 * of memory.
 */
struct sym_search *sym_search_new(const char *debug_dir, const char *buildid_dir,
				  const char *symfs);
void sym_search_free(struct sym_search *s);

/* /usr/lib/debug and the default build-id cache (standalone uses); never NULL. */
struct sym_search *sym_search_default(void);

/*
 * The default build-id cache, where `pitrace archive --unpack` puts an
 * archive: $XDG_CACHE_HOME/pitrace/buildid, else ~/.cache/pitrace/buildid.
 * False when neither variable is set.
 */
bool sym_buildid_cache_dir(char *buf, size_t size);

/* A build-id as lower-case hex (out: 2 * len + 1 bytes). */
void sym_build_id_hex(const uint8_t *id, size_t len, char *out);

/* What the search for one module was given and what it found. */
struct sym_found {
	struct sym_search *search;
	const char *name;	  /* the module's, for messages */
	const char *path;	  /* the traced file, as it would be opened here */
	const uint8_t *build_id;  /* recorded at mmap time (length 0: unknown) */
	size_t build_id_len;
	bool replaced;		  /* the file at path is another build */
	char *file;		  /* where the module's file was found (malloc'ed), NULL */
	bool stand_in;		  /* no such file anywhere: file is its debuginfo */
	bool searching;		  /* a find_debuginfo now is for the separate debuginfo */
	int debug_fd;		  /* that debuginfo (a dup of libdwfl's fd), -1 */
	char *debug_file;
	char *alt_file;		  /* the DWARF's supplementary (dwz) file, NULL */
	Dwfl *dwfl;		  /* the session sym_search_module made */
};

/*
 * A libdwfl session for one module (*dwflp, to dwfl_end) whose main file
 * is found on its first dwfl_module_getelf: f->path when it has the
 * recorded build-id (or none is recorded), else by build-id
 * (DIR/.build-id/xx/yyyy in each directory, then debuginfod), else its
 * debuginfo stands in.  Separate debuginfo and the DWARF's supplementary
 * file are found by dwfl_standard_find_debuginfo when libdwfl needs
 * them (dwfl_module_getsymtab, dwfl_module_getdwarf).  f must live as
 * long as the session; NULL when out of memory.
 */
Dwfl_Module *sym_search_module(struct sym_found *f, Dwfl **dwflp);
void sym_found_free(struct sym_found *f);

/*
 * Around libdwfl calls that may search one module's files: when
 * DEBUGINFOD_URLS is set and stderr is a terminal, the session's
 * debuginfod client shows its downloads there; end clears that line.
 */
void sym_search_begin(struct sym_found *f, Dwfl *dwfl);
void sym_search_end(struct sym_found *f);

#endif /* PT_SYM_SEARCH_H */
