// SPDX-License-Identifier: GPL-2.0
/* The --kernel options of the driver commands (record, start): kernel-mode stepping. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "pitrace/kernel_opts.h"
#include "util/log.h"
#include "pitrace/commands.h"

int kernel_opt_parse(const char *arg, struct pitrace_config *cfg)
{
	if (arg && !strcmp(arg, "faults")) {
		/* docs/kernel-mode.md: page-fault handling is not stepped (why). */
		pr_err("--kernel=faults: stepping page-fault handling is not supported "
		       "(every driver session records page faults as ASYNC entries; see "
		       "docs/kernel-mode.md)");
		return EXIT_USAGE;
	}
	if (arg && strcmp(arg, "syscalls")) {
		pr_err("--kernel=%s: expected 'syscalls'", arg);
		return EXIT_USAGE;
	}
	cfg->flags |= PITRACE_CFG_KERNEL;
	return 0;
}

int kernel_opt_limit(const char *arg, struct pitrace_config *cfg)
{
	unsigned long long n;
	char *end;

	errno = 0;
	n = strtoull(arg, &end, 10);
	if (errno || *end || !n || arg[0] == '-') {
		pr_err("--kernel-limit: '%s' is not a step count (1 or more)", arg);
		return EXIT_USAGE;
	}
	cfg->kernel_step_limit = n;
	return 0;
}

int kernel_opt_cb(const struct popt *o, const char *arg, const char *cmd)
{
	(void)cmd;
	return kernel_opt_parse(arg, o->value) ? -1 : 0;
}

int kernel_limit_cb(const struct popt *o, const char *arg, const char *cmd)
{
	(void)cmd;
	return kernel_opt_limit(arg, o->value) ? -1 : 0;
}
