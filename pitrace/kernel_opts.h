/* SPDX-License-Identifier: GPL-2.0 */
/* The --kernel options of the driver commands (record, start): kernel-mode stepping. */
#ifndef PITRACE_KERNEL_OPTS_H
#define PITRACE_KERNEL_OPTS_H

#include <pitrace/abi.h>

#include "util/popt.h"

/* Apply --kernel[=ARG] to cfg; 0, or EXIT_USAGE after a message. */
int kernel_opt_parse(const char *arg, struct pitrace_config *cfg);
/* Apply --kernel-limit N to cfg; 0, or EXIT_USAGE after a message. */
int kernel_opt_limit(const char *arg, struct pitrace_config *cfg);

/* popt callbacks of --kernel[=syscalls] and --kernel-limit N: value is the pitrace_config */
int kernel_opt_cb(const struct popt *o, const char *arg, const char *cmd);
int kernel_limit_cb(const struct popt *o, const char *arg, const char *cmd);

#endif /* PITRACE_KERNEL_OPTS_H */
