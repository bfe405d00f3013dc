// SPDX-License-Identifier: GPL-2.0
/* post info: placeholder until the report lands (replaced by its owner). */
#include "log.h"
#include "post.h"

int cmd_info(int argc, char **argv, struct post_opts *opts)
{
	(void)argc; (void)argv; (void)opts;
	pr_err("'info' is not built yet");
	return EXIT_RUNTIME;
}
