// SPDX-License-Identifier: GPL-2.0
/* pitrace attach: placeholder until the backend lands (replaced by its owner). */
#include "log.h"
#include "pitrace.h"

int cmd_attach(int argc, char **argv, struct pitrace_opts *opts)
{
	(void)argc; (void)argv; (void)opts;
	pr_err("'attach' is not built yet");
	return EXIT_RUNTIME;
}
