/* SPDX-License-Identifier: GPL-2.0 */
/* The pitrace command: global options and the subcommand entry points. */
#ifndef PITRACE_COMMANDS_H
#define PITRACE_COMMANDS_H

#include <stdbool.h>
#include <stdio.h>

struct pitrace_opts {
	int verbose;		  /* -v count */
};

/* Each subcommand: argv[0] is its name; returns the process exit status. */
int cmd_record(int argc, char **argv, struct pitrace_opts *opts);
int cmd_attach(int argc, char **argv, struct pitrace_opts *opts);
/* Driver sessions (cmd_start.c, cmd_stop.c, cmd_status.c, cmd_onoff.c). */
int cmd_start(int argc, char **argv, struct pitrace_opts *opts);
int cmd_stop(int argc, char **argv, struct pitrace_opts *opts);
int cmd_status(int argc, char **argv, struct pitrace_opts *opts);
int cmd_on(int argc, char **argv, struct pitrace_opts *opts);
int cmd_off(int argc, char **argv, struct pitrace_opts *opts);
/* pitrace archive: a trace's files by build-id in one tarball, and --unpack (cmd_archive.c). */
int cmd_archive(int argc, char **argv, struct pitrace_opts *opts);

/*
 * In a child about to exec the recorded command: turn address-space
 * randomization off (ADDR_NO_RANDOMIZE) unless keep, so that recordings of
 * one command count the same (aslr.c).
 */
void aslr_child_setup(bool keep);

/*
 * pitrace ignores SIGXFSZ from its start, so that a file size limit is a
 * write error said in one line (EFBIG) like a full disk, not a silent
 * death; a child about to exec a command gives it back the disposition
 * pitrace was started with (main.c).
 */
void signals_child_restore(void);

/*
 * Parse the options of a command that takes none but --help (stop, status,
 * on, off): 0 to go on; POPT_HELP after printing --help (exit 0); or
 * EXIT_USAGE after one line saying what is wrong (main.c).
 */
int cmd_no_options(int argc, char **argv, const char *description);

/* pitrace --version (version.c). */
void pitrace_print_version(FILE *f);

#endif /* PITRACE_COMMANDS_H */
