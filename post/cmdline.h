/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The option tables post's commands share (options.h), and the one call
 * every command makes to parse its command line with them.
 */
#ifndef POST_CMDLINE_H
#define POST_CMDLINE_H

#include "util/popt.h"
#include "post/post.h"
#include "post/output.h"
#include "post/report.h"
#include "util/session.h"
#include "post/tabout.h"

/* Where the trace and its symbols come from: every command. */
#define POST_TRACE_OPTIONS(o)                                                                \
	OPT_GROUP("Trace and symbols (before or after the command)"),                        \
	OPT_STRING('i', "input", &(o)->input, "DIR", "the trace directory (default pitrace.data)"), \
	OPT_FLAG(0, "force", &(o)->force, "read a damaged trace up to the damage"),           \
	OPT_STRING(0, "vmlinux", &(o)->vmlinux, "FILE",                                      \
		   "the traced kernel with debug info (default: found by build-id\n"         \
		   "under --debug-dir)"),                                                     \
	OPT_STRING(0, "debug-dir", &(o)->debug_dir, "DIR",                                   \
		   "where separate debuginfo is looked for first (then\n"                     \
		   "/usr/lib/debug)"),                                                        \
	OPT_STRING(0, "symfs", &(o)->symfs, "DIR",                                           \
		   "look for every traced file under DIR (DIR/usr/lib/libc.so.6)"),            \
	OPT_STRING(0, "buildid-dir", &(o)->buildid_dir, "DIR",                               \
		   "a build-id cache searched before the default one\n"                       \
		   "(~/.cache/pitrace/buildid, where 'pitrace archive --unpack'\n"            \
		   "puts a trace's files)"),                                                  \
	OPT_FLAG(0, "no-demangle", &(o)->no_demangle,                                        \
		 "C++ names as in the symbol table (_ZN3foo3barEv, not foo::bar())"),         \
	OPT_CHOICE(0, "plt", &(o)->plt, "fold|keep", post_plt_names,                          \
		   "fold (the default): a call through a PLT stub is a call of the\n"         \
		   "function it reaches, the stub's steps its caller's (as callgrind\n"       \
		   "and uftrace show them); keep: stubs are functions of their own"),         \
	OPT_U32(0, "threads", &(o)->threads, "N",                                             \
		"decode the trace's streams on N threads (default: one per CPU;\n"          \
		"the reports are the same for any N)"),                                      \
	OPT_COUNT('v', "verbose", &(o)->verbose, "more diagnostics on stderr (repeat for more)")

/* Which threads' steps, and which functions, a report looks at. */
#define POST_FILTER_OPTIONS(f)                                                               \
	OPT_GROUP("Filters"),                                                                 \
	OPT_U32(0, "pid", &(f)->pid, "PID", "only this process's threads"),                   \
	OPT_U32(0, "tid", &(f)->tid, "TID", "only this thread"),                              \
	OPT_CALLBACK(0, "module", &(f)->module, "NAMES", post_name_list,                     \
		     "only these modules' functions (short name, path, the name\n"          \
		     "before .so: libc for libc.so.6, vdso for [vdso])"),                    \
	OPT_CALLBACK(0, "symbol", &(f)->symbol, "NAMES", post_name_list,                     \
		     "only these functions (C++: demangled or mangled name; an\n"           \
		     "ifunc's name takes its implementations, __strlen_evex too)\n"         \
		     "NAMES of both: repeat the option or give a comma list of\n"           \
		     "names, globs (str*) and re:REGEX; =NAME: that name only"),             \
	OPT_CHOICE(0, "ring", &(f)->ring, "RING", post_ring_names,                            \
		   "only user or kernel code (user, kernel; all: the default)")

/* A window of steps or time: what counts (aggregate reports) or what is listed. */
#define POST_WINDOW_OPTIONS(f)                                                               \
	OPT_GROUP("Window (inclusive; the stacks are rebuilt from the trace's start)"),       \
	OPT_U64(0, "from", &(f)->from, "N", "from step index N"),                             \
	OPT_U64(0, "to", &(f)->to, "M", "to step index M"),                                   \
	OPT_DURATION(0, "time-from", &(f)->time_from, "T",                                   \
		     "from T after the trace's start (seconds, or 20ms, 300us, ...)"),        \
	OPT_DURATION(0, "time-to", &(f)->time_to, "T", "to T after the trace's start")

/* The table reports' output. */
#define POST_OUTPUT_OPTIONS(out_)                                                               \
	OPT_GROUP("Output"),                                                                  \
	OPT_SIZE(0, "top", &(out_)->top, "N", "only the first N rows"),                          \
	OPT_PERCENT(0, "percent-limit", &(out_)->percent_limit, "P",                              \
		    "leave out rows under P% (of the total)"),                                 \
	OPT_FLAG(0, "wide", &(out_)->wide, "names whole (long ones are shortened with [...])"),   \
	POST_FORMAT_OPTION(&(out_)->format),                                                     \
	POST_PAGER_OPTIONS(&(out_)->o)

/* The report for people (text) or for programs (json, csv: tabout.h; names whole). */
#define POST_FORMAT_OPTION(fmt)                                                              \
	{ .type = POPT_CALLBACK, .long_name = "format", .value = (fmt), .arg = "text|json|csv", \
	  .help = "text (the default, for people), json (one document) or csv:\n"            \
		  "the same rows for programs, names whole (docs/reports.md)",             \
	  .cb = tab_format_option }

/* Output for people: on a terminal only (scripts see plain text). */
#define POST_PAGER_OPTIONS(oo)                                                               \
	OPT_CHOICE(0, "color", &(oo)->color, "WHEN", output_color_names,                      \
		   "colour hot rows: auto (on a terminal, the default), always, never"),      \
	OPT_FLAG(0, "no-pager", &(oo)->no_pager,                                              \
		 "no pager (on a terminal: $PAGER, else less -FRSX)")

/* --module, --symbol: a name pattern list (filter.h), checked, added to the option's list. */
int post_name_list(const struct popt *o, const char *arg, const char *cmd);

extern const char *const post_ring_names[]; /* "all", "user", "kernel" (enum session_ring) */
extern const char *const post_plt_names[];  /* "fold", "keep" (post_opts.plt) */

/*
 * Parse a command's command line (argv[0] its name) with tables, which
 * hold the command's own options and the shared ones it takes: 0 with
 * the positional arguments in *args (at most max_args of them, else a
 * usage error); POPT_HELP after printing --help; EXIT_USAGE after one
 * error line.  POST_EXIT(r) is the exit status for a non-zero one.  It
 * also sets the log level (-v) and checks a window (from <= to).
 */
#define POST_EXIT(r) ((r) == POPT_HELP ? 0 : (r))
int post_parse(const struct popt_cmd *cmd, int argc, char **argv,
	       const struct popt *const *tables, const struct post_opts *opts,
	       const struct session_filter *filter, int max_args, char ***args, int *nargs);

/* The session's source from the trace options. */
struct session_source post_source(const struct post_opts *opts);

#endif /* POST_CMDLINE_H */
