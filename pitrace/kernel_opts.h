/* SPDX-License-Identifier: GPL-2.0 */
/* The --kernel options of the driver commands (record, start): kernel-mode stepping. */
#ifndef PITRACE_KERNEL_OPTS_H
#define PITRACE_KERNEL_OPTS_H

#include <pitrace/abi.h>

/* getopt_long entries, for the command's option table */
#define KERNEL_LONGOPTS(opt_kernel, opt_limit)                                   \
	{ "kernel", optional_argument, NULL, (opt_kernel) },                     \
	{ "kernel-limit", required_argument, NULL, (opt_limit) }

#define KERNEL_OPTS_HELP                                                         \
	"  --kernel[=syscalls] also step the kernel code of system calls (driver)\n" \
	"  --kernel-limit N   kernel steps per system call before a gap (10000000)\n"

/* Apply --kernel[=ARG] to cfg; 0, or EXIT_USAGE after a message. */
int kernel_opt_parse(const char *arg, struct pitrace_config *cfg);
/* Apply --kernel-limit N to cfg; 0, or EXIT_USAGE after a message. */
int kernel_opt_limit(const char *arg, struct pitrace_config *cfg);

#endif /* PITRACE_KERNEL_OPTS_H */
