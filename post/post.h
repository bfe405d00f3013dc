/* SPDX-License-Identifier: GPL-2.0 */
/* The post command: global options and the subcommand entry points. */
#ifndef POST_POST_H
#define POST_POST_H

#include <stdbool.h>

struct session_pass_stats;

/* The options every command takes, before or after its name (cmdline.h: POST_TRACE_OPTIONS). */
struct post_opts {
	int verbose;		  /* -v count */
	const char *input;	  /* trace directory (-i DIR), default pitrace.data */
	bool force;		  /* --force: read a damaged trace up to the damage */
	const char *vmlinux;	  /* --vmlinux: the traced kernel's image with DWARF */
	const char *debug_dir;	  /* --debug-dir: root of separate debuginfo */
	const char *symfs;	  /* --symfs: prefix of every mapped path */
	const char *buildid_dir;  /* --buildid-dir: a build-id cache before the default one */
	bool no_demangle;	  /* --no-demangle: C++ names as in the symbol table */
	int plt;		  /* --plt: 0 fold (post_plt_names), 1 keep */
	unsigned threads;	  /* --threads: decoding threads, 0 one per online CPU */
	/* post --verify's passes (verify.c): */
	bool one_at_a_time;	  /* every step alone to the engine and the consumers */
	bool to_stdout;		  /* an export's -o FILE is standard output */
	struct session_pass_stats *pass_stats; /* how the passes went */
};

#define POST_MAX_THREADS 1024

/*
 * post [-i DIR] --list symbols|modules|pids|tids: the trace's names for
 * shell completion, one a line (list.c); returns the exit status.
 */
int post_list(const char *what, struct post_opts *opts);

/* Each subcommand: argv[0] is its name; returns the process exit status. */
int cmd_info(int argc, char **argv, struct post_opts *opts);
int cmd_dump(int argc, char **argv, struct post_opts *opts);
int cmd_counts(int argc, char **argv, struct post_opts *opts);
int cmd_arc(int argc, char **argv, struct post_opts *opts);
int cmd_tree(int argc, char **argv, struct post_opts *opts);
int cmd_profile(int argc, char **argv, struct post_opts *opts);
int cmd_flow(int argc, char **argv, struct post_opts *opts);
int cmd_annotate(int argc, char **argv, struct post_opts *opts);
int cmd_steps(int argc, char **argv, struct post_opts *opts);
int cmd_export(int argc, char **argv, struct post_opts *opts);
int cmd_diff(int argc, char **argv, struct post_opts *opts);
int cmd_tui(int argc, char **argv, struct post_opts *opts);
int cmd_script(int argc, char **argv, struct post_opts *opts);

/*
 * post --verify COMMAND...: the command twice, through the fast paths and
 * one step at a time, its outputs compared (verify.c); the exit status.
 */
int post_verify(int (*fn)(int argc, char **argv, struct post_opts *opts), int argc, char **argv,
		struct post_opts *opts);

#endif /* POST_POST_H */
