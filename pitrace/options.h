/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A command's options as one table: getopt_long parses them from it, the
 * help is printed from it, and every error names the option it is about.
 */
#ifndef PITRACE_OPTIONS_H
#define PITRACE_OPTIONS_H

#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* Keys of options without a short form start here (above every char). */
#define OPT_ID_BASE 256
/* opt_next: a usage error, already printed. */
#define OPT_ERROR (-2)

enum opt_arg { OPT_NOARG, OPT_REQUIRED, OPT_OPTIONAL };

struct opt_def {
	int key;		  /* short option letter, or an id >= OPT_ID_BASE */
	const char *name;	  /* long name, without "--" */
	enum opt_arg arg;
	const char *argname;	  /* shown in the help and in errors: "DIR", "step|block" */
	const char *help;	  /* '\n' starts a continuation line */
	unsigned flags;		  /* the command's own (record: the backends it applies to) */
};
/* An option may have one entry per variant of its help (flags tell them
 * apart for opt_help's mask); it is parsed as its first entry. */

struct opt_parser {
	const char *cmd;	  /* "record", for messages */
	const struct opt_def *defs; /* ends with an entry whose name is NULL */
	struct option *longopts;
	char shorts[80];
	int argc;
	char **argv;
};

/*
 * Get ready to parse argv[1..] (argv[0] is the command's name).  With
 * in_order, parsing stops at the first operand (record's CMD).  Returns 0,
 * or -1 when out of memory.
 */
int opt_init(struct opt_parser *p, const char *cmd, const struct opt_def *defs, int argc,
	     char **argv, bool in_order);
/*
 * The next option's key, with its argument in *arg (NULL when none); -1 at
 * the end, optind then being the first operand; OPT_ERROR after one line
 * naming what is wrong (unknown option, missing or unexpected argument).
 */
int opt_next(struct opt_parser *p, const char **arg);
void opt_free(struct opt_parser *p);

/* The table entry of key, or NULL. */
const struct opt_def *opt_find(const struct opt_def *defs, int key);
/* "-o/--output" or "--on": how messages name an option. */
const char *opt_name(const struct opt_def *d, char *buf, size_t size);
/* One help line (or more) per option whose flags meet mask (0: every one). */
void opt_help(FILE *f, const struct opt_def *defs, unsigned mask);

/*
 * Option values.  A count: decimal digits only, 1 or more (--max-steps).
 * Seconds: decimal digits with at most one '.', above 0 and at most
 * OPT_SECONDS_MAX (--duration 2.5), into nanoseconds.  0, or -1 after one
 * line naming cmd, the option (name, without "--") and the value.
 */
#define OPT_SECONDS_MAX 1e8	/* three years: far beyond any recording */
int opt_count(const char *cmd, const char *name, const char *arg, uint64_t *out);
int opt_seconds(const char *cmd, const char *name, const char *arg, uint64_t *out_ns);

#endif /* PITRACE_OPTIONS_H */
