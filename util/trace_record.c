// SPDX-License-Identifier: GPL-2.0
/* Walking the tagged records of a header or tasks file's bytes (trace_record.h). */
#include <string.h>

#include <pitrace/format.h>
#include "util/trace_record.h"

int trace_next_record(const uint8_t *data, size_t len, size_t *off, const struct pt_rec_header **rh)
{
	struct pt_rec_header h;

	if (*off == len)
		return 0;
	if (len - *off < sizeof(h))
		return -1;
	memcpy(&h, data + *off, sizeof(h));
	if (h.size < sizeof(h) || h.size > len - *off)
		return -1;
	*rh = (const struct pt_rec_header *)(data + *off);
	*off += h.size;
	return 1;
}
