/* SPDX-License-Identifier: GPL-2.0 */
/* What `pitrace --version` and `post --version` say about this build. */
#ifndef PT_VERSION_H
#define PT_VERSION_H

#include <stdbool.h>
#include <stdio.h>

/* scripts/version.sh at build time: "0.1.0", "0.1.0-12-gabc1234-dirty". */
extern const char pt_version[];

/*
 * The first lines of --version: "PROG VERSION" and the trace format
 * (include/pitrace/format.h) this build writes (the recorder) or reads.
 */
void pt_version_print(FILE *f, const char *prog, bool writer);

#endif /* PT_VERSION_H */
