/* SPDX-License-Identifier: GPL-2.0 */
/* Walking the tagged records of a header or tasks file's bytes (docs/trace-format.md). */
#ifndef PT_TRACE_RECORD_H
#define PT_TRACE_RECORD_H

#include <stddef.h>
#include <stdint.h>

struct pt_rec_header;

/*
 * The tagged record at *off in data[0..len), advancing *off; 1 with *rh
 * set, 0 at the end, -1 if it is cut short.
 */
int trace_next_record(const uint8_t *data, size_t len, size_t *off,
		      const struct pt_rec_header **rh);

#endif /* PT_TRACE_RECORD_H */
