/* SPDX-License-Identifier: GPL-2.0 */
/* The formats of post export, one file each (export_*.c), over one pass of the call flow. */
#ifndef POST_EXPORT_H
#define POST_EXPORT_H

#include <stdio.h>

#include "arcflow.h"

/*
 * callgrind format (callgrind_annotate, KCachegrind): _new before the run
 * (it notes where each address is while its address space is current),
 * _write after it (0 or EXIT_RUNTIME, printed).
 */
struct export_cg;
struct export_cg *export_callgrind_new(struct af_session *s);
int export_callgrind_write(struct export_cg *c, FILE *out);
void export_callgrind_free(struct export_cg *c);

#endif /* POST_EXPORT_H */
