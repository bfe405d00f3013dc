/* SPDX-License-Identifier: GPL-2.0 */
/* `pitrace record` with the driver backend: CMD's process tree traced through /dev/pitrace. */
#ifndef PITRACE_RECORD_DRIVER_H
#define PITRACE_RECORD_DRIVER_H

struct pitrace_opts;

/*
 * Which backend `pitrace record` uses.  Removes "--backend NAME" (or
 * "--backend=NAME") before the command from argv, so the chosen backend's
 * parser never sees it.  Without the option: the driver when /dev/pitrace
 * exists, ptrace otherwise.  Returns 1 for the driver, 0 for ptrace, -1 for
 * an unknown backend (message printed: a usage error).
 */
int record_select_backend(int *argc, char **argv);

/* pitrace record [-o DIR] [--mode M] [--buffer-size MB] [-z] [--] CMD [ARGS] */
int cmd_record_driver(int argc, char **argv, struct pitrace_opts *opts);

#endif /* PITRACE_RECORD_DRIVER_H */
