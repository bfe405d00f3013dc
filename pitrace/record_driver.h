/* SPDX-License-Identifier: GPL-2.0 */
/* `pitrace record` with the driver backend: CMD's process tree traced through /dev/pitrace. */
#ifndef PITRACE_RECORD_DRIVER_H
#define PITRACE_RECORD_DRIVER_H

#include <stdbool.h>

#include <pitrace/abi.h>

/* What `pitrace record` (cmd_record.c) parsed for the driver backend. */
struct record_driver_opts {
	struct pitrace_config cfg;  /* mode, buffer size, kernel stepping */
	const char *out_dir;
	bool compress;
	bool aslr;		    /* keep CMD's address-space randomization */
};

/*
 * Run argv under the driver (a TREE selection on its pid) from its first
 * instruction after execve to its end.  Returns the command's exit status
 * (128+N for signal N), or EXIT_RUNTIME.
 */
int record_driver(const struct record_driver_opts *o, char **argv);

#endif /* PITRACE_RECORD_DRIVER_H */
