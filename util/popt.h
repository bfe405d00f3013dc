/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Option tables for pitrace's and post's commands: each command describes
 * its options in a table, parsed with getopt_long and printed by --help
 * from the same entries, so the two cannot drift apart (the man pages and
 * the bash completion read that --help).  The options several commands
 * share are tables too (post_trace_options, post_filter_options, ...).
 *
 * Long options may be abbreviated to any unique prefix ("--fol" for
 * --follow-fork), as getopt_long allows; a prefix of several is an error
 * naming it ambiguous.  Every error is one line, "PROG: error: CMD: ...",
 * naming the option it is about, and makes popt_parse return EXIT_USAGE.
 */
#ifndef PT_POPT_H
#define PT_POPT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum popt_type {
	POPT_END,
	POPT_GROUP,		  /* a heading in --help */
	POPT_FLAG,		  /* bool, set */
	POPT_COUNT,		  /* int, incremented (-v -v) */
	POPT_STRING,		  /* const char * */
	POPT_U32,		  /* uint32_t, positive (pid, tid) */
	POPT_U64,		  /* uint64_t, non-negative (a step index) */
	POPT_SIZE,		  /* size_t, positive (a number of rows) */
	POPT_PERCENT,		  /* double, 0 to 100 */
	POPT_CHOICE,		  /* int: the index of the value in choices[] */
	POPT_DURATION,		  /* uint64_t ns: "1.5" or "1.5s", "20ms", "300us", "40ns" */
	POPT_CALLBACK,		  /* cb decides */
	POPT_HELP_OPT,		  /* -h/--help, listed where the table puts it (a command
				   * whose tables have none gets an unlisted one) */
};

struct popt {
	enum popt_type type;
	int short_name;		  /* 'i', or 0 */
	const char *long_name;	  /* without "--", or NULL */
	void *value;
	const char *arg;	  /* the value's name in --help; NULL for flags */
	const char *help;	  /* one line or more ('\n' continues it, indented); NULL: not
				   * in --help (an option for scripts, such as completion's) */
	const char *const *choices; /* POPT_CHOICE: NULL terminated */
	/* POPT_CALLBACK: 0, or -1 with a usage message printed (cmd: the command) */
	int (*cb)(const struct popt *o, const char *arg, const char *cmd);
	/*
	 * The variants of the command the option applies to (popt_cmd.variant;
	 * record's backends), 0: every one.  An option whose help differs by
	 * variant has one entry per help, all with one name: it is parsed as its
	 * first entry.
	 */
	unsigned variants;
	bool optional;		  /* its value may be left out: "--kernel" or "--kernel=syscalls"
				   * (only with "=": arg is NULL to cb without one) */
};

/* Each macro takes designated fields after its own: OPT_FLAG(..., .variants = 2). */
#define OPT_END { .type = POPT_END }
#define OPT_GROUP(title) { .type = POPT_GROUP, .help = (title) }
#define OPT_HELP(h) { .type = POPT_HELP_OPT, .short_name = 'h', .long_name = "help", .help = (h) }
#define OPT_FLAG(s, l, v, h, ...) { .type = POPT_FLAG, .short_name = (s), .long_name = (l), \
				   .value = (v), .help = (h), __VA_ARGS__ }
#define OPT_COUNT(s, l, v, h, ...) { .type = POPT_COUNT, .short_name = (s), .long_name = (l), \
				    .value = (v), .help = (h), __VA_ARGS__ }
#define OPT_STRING(s, l, v, a, h, ...) { .type = POPT_STRING, .short_name = (s), \
					.long_name = (l), .value = (v), .arg = (a), \
					.help = (h), __VA_ARGS__ }
#define OPT_U32(s, l, v, a, h, ...) { .type = POPT_U32, .short_name = (s), .long_name = (l), \
				     .value = (v), .arg = (a), .help = (h), __VA_ARGS__ }
#define OPT_U64(s, l, v, a, h, ...) { .type = POPT_U64, .short_name = (s), .long_name = (l), \
				     .value = (v), .arg = (a), .help = (h), __VA_ARGS__ }
#define OPT_SIZE(s, l, v, a, h, ...) { .type = POPT_SIZE, .short_name = (s), .long_name = (l), \
				      .value = (v), .arg = (a), .help = (h), __VA_ARGS__ }
#define OPT_PERCENT(s, l, v, a, h, ...) { .type = POPT_PERCENT, .short_name = (s), \
					 .long_name = (l), .value = (v), .arg = (a), \
					 .help = (h), __VA_ARGS__ }
#define OPT_CHOICE(s, l, v, a, c, h, ...) { .type = POPT_CHOICE, .short_name = (s), \
					   .long_name = (l), .value = (v), .arg = (a), \
					   .help = (h), .choices = (c), __VA_ARGS__ }
#define OPT_DURATION(s, l, v, a, h, ...) { .type = POPT_DURATION, .short_name = (s), \
					  .long_name = (l), .value = (v), .arg = (a), \
					  .help = (h), __VA_ARGS__ }
#define OPT_CALLBACK(s, l, v, a, f, h, ...) { .type = POPT_CALLBACK, .short_name = (s), \
					     .long_name = (l), .value = (v), .arg = (a), \
					     .help = (h), .cb = (f), __VA_ARGS__ }

/* The options given, in order, each once (popt_cmd.given). */
struct popt_given {
	const struct popt *o[64];
	size_t n;
};

/* What a command is, for its usage line and --help. */
struct popt_cmd {
	const char *name;	  /* "profile" */
	const char *synopsis;	  /* "[OPTIONS]" */
	const char *description;  /* a paragraph */
	const char *epilog;	  /* after the options (exit status), or NULL */
	bool stop_at_args;	  /* options end at the first argument (the program's own,
				   * before the command; record's, before CMD) */
	/* --help lists the options of this variant (popt.variants), 0: every one */
	unsigned variant;
	/* --help prints nothing: popt_parse returns POPT_HELP once every option is
	 * parsed, so that a later option (record's --backend) chooses the variant */
	bool defer_help;
	struct popt_given *given; /* when set, filled with the options given */
};

/* popt_parse's return when --help was asked for (printed): exit 0. */
#define POPT_HELP (-1)

/*
 * Parse argv[1..argc) (argv[0] is the command) against tables, a NULL
 * terminated list of option tables: 0 with *nargs positional arguments
 * left in args[] (argv reordered, args pointing into it); POPT_HELP
 * after printing --help; EXIT_USAGE after printing one error line
 * ("post: error: CMD: ...").
 */
int popt_parse(const struct popt_cmd *cmd, int argc, char **argv,
	       const struct popt *const *tables, char ***args, int *nargs);

/* The command's usage and every option of tables, grouped, for --help (and man pages). */
void popt_usage(FILE *f, const struct popt_cmd *cmd, const struct popt *const *tables);

/*
 * The first option of given that applies to none of variant's entries (the
 * variants of all the entries of its name), or NULL: one the chosen variant
 * cannot do.
 */
const struct popt *popt_outside(const struct popt *const *tables,
				const struct popt_given *given, unsigned variant);

/* A duration in ns from "1.5", "1.5s", "20ms", "300us", "40ns"; -1 if it is not one. */
int popt_parse_duration(const char *s, uint64_t *ns);

/*
 * Strict values for limits.  A count: decimal digits only, 1 or more
 * (--max-steps).  Seconds: decimal digits with at most one '.', above 0
 * and at most POPT_SECONDS_MAX (--duration 2.5), into nanoseconds.  0, or
 * -1 after one line naming cmd, the option (name, without "--") and the
 * value.  The callbacks read them into a uint64_t at o->value.
 */
#define POPT_SECONDS_MAX 1e8	/* three years: far beyond any recording */
int popt_count(const char *cmd, const char *name, const char *arg, uint64_t *out);
int popt_seconds(const char *cmd, const char *name, const char *arg, uint64_t *out_ns);
int popt_count_cb(const struct popt *o, const char *arg, const char *cmd);
int popt_seconds_cb(const struct popt *o, const char *arg, const char *cmd);

#endif /* PT_POPT_H */
