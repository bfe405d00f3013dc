// SPDX-License-Identifier: GPL-2.0
/* The build's version (passed by the Makefile) and the trace format it speaks. */
#include <pitrace/format.h>

#include "util/version.h"

const char pt_version[] = PITRACE_VERSION;

void pt_version_print(FILE *f, const char *prog, bool writer)
{
	fprintf(f, "%s %s\n", prog, pt_version);
	if (writer)
		fprintf(f, "trace format: writes %d (readable by readers of format %d and later)\n",
			PT_FORMAT_VERSION, PT_FORMAT_MIN_READER);
	else
		fprintf(f, "trace format: reads up to %d\n", PT_FORMAT_VERSION);
}
