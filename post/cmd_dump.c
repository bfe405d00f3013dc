// SPDX-License-Identifier: GPL-2.0
/* post dump: placeholder until the report lands (replaced by its owner). */
#include "log.h"
#include "post.h"

int cmd_dump(int argc, char **argv, struct post_opts *opts)
{
	(void)argc; (void)argv; (void)opts;
	pr_err("'dump' is not built yet");
	return EXIT_RUNTIME;
}
