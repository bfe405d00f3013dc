/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Option tables: each command describes its options in a table, parsed
 * with getopt_long and printed by --help from the same entries, so the two
 * cannot drift apart.  The options every command or every report shares
 * are tables too (post_trace_options, post_filter_options, ...).
 */
#ifndef POST_OPTIONS_H
#define POST_OPTIONS_H

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
};

#define OPT_END { .type = POPT_END }
#define OPT_GROUP(title) { .type = POPT_GROUP, .help = (title) }
#define OPT_FLAG(s, l, v, h) { .type = POPT_FLAG, .short_name = (s), .long_name = (l), \
			      .value = (v), .help = (h) }
#define OPT_COUNT(s, l, v, h) { .type = POPT_COUNT, .short_name = (s), .long_name = (l), \
			       .value = (v), .help = (h) }
#define OPT_STRING(s, l, v, a, h) { .type = POPT_STRING, .short_name = (s), .long_name = (l), \
				   .value = (v), .arg = (a), .help = (h) }
#define OPT_U32(s, l, v, a, h) { .type = POPT_U32, .short_name = (s), .long_name = (l), \
				.value = (v), .arg = (a), .help = (h) }
#define OPT_U64(s, l, v, a, h) { .type = POPT_U64, .short_name = (s), .long_name = (l), \
				.value = (v), .arg = (a), .help = (h) }
#define OPT_SIZE(s, l, v, a, h) { .type = POPT_SIZE, .short_name = (s), .long_name = (l), \
				 .value = (v), .arg = (a), .help = (h) }
#define OPT_PERCENT(s, l, v, a, h) { .type = POPT_PERCENT, .short_name = (s), \
				    .long_name = (l), .value = (v), .arg = (a), .help = (h) }
#define OPT_CHOICE(s, l, v, a, c, h) { .type = POPT_CHOICE, .short_name = (s), \
				      .long_name = (l), .value = (v), .arg = (a), .help = (h), \
				      .choices = (c) }
#define OPT_DURATION(s, l, v, a, h) { .type = POPT_DURATION, .short_name = (s), \
				     .long_name = (l), .value = (v), .arg = (a), .help = (h) }
#define OPT_CALLBACK(s, l, v, a, f, h) { .type = POPT_CALLBACK, .short_name = (s), \
					.long_name = (l), .value = (v), .arg = (a), .help = (h), \
					.cb = (f) }

/* What a command is, for its usage line and --help. */
struct popt_cmd {
	const char *name;	  /* "profile" */
	const char *synopsis;	  /* "[OPTIONS]" */
	const char *description;  /* a paragraph */
	bool stop_at_args;	  /* options end at the first argument (post's own, before
				   * the command) */
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

/* A duration in ns from "1.5", "1.5s", "20ms", "300us", "40ns"; -1 if it is not one. */
int popt_parse_duration(const char *s, uint64_t *ns);

#endif /* POST_OPTIONS_H */
