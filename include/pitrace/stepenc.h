/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Writing step-stream records (format.h, docs/trace-format.md "Step
 * streams"): the one encoder that pitrace.ko's ring writer and user space's
 * trace writer (util/stepcodec.h) both include, header-only so that the
 * trap's inline path and user space compile the same code.
 */
#ifndef PITRACE_STEPENC_H
#define PITRACE_STEPENC_H

#include <pitrace/format.h>

#ifdef __KERNEL__
#include <linux/string.h>
#else
#include <stddef.h>
#include <string.h>
#endif /* __KERNEL__ */

/* Longest uleb128 of a 64-bit value. */
#define PT_ULEB_MAX_BYTES 10
/* Longest encoding of one step (tag + the rest of the zigzag in uleb128). */
#define PT_STEP_MAX_BYTES 11
/* Longest control record header (tag + uleb128 length). */
#define PT_CTL_HEADER_MAX (1 + PT_ULEB_MAX_BYTES)

static inline size_t pt_uleb_put(uint8_t *out, uint64_t v)
{
	size_t n = 0;

	do {
		uint8_t b = v & 0x7f;

		v >>= 7;
		out[n++] = b | (v ? 0x80 : 0);
	} while (v);
	return n;
}

static inline uint64_t pt_zigzag(int64_t v)
{
	return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}

static inline int64_t pt_unzigzag(uint64_t z)
{
	return (int64_t)(z >> 1) ^ -(int64_t)(z & 1);
}

/* A step this far from the previous one takes one byte (0xxxxxxx). */
static inline int pt_step_is_short(int64_t delta)
{
	return delta >= -64 && delta < 64;
}

static inline uint8_t pt_step_short(int64_t delta)
{
	return (uint8_t)delta & 0x7f;
}

/* Encode a step whose pc is last_pc + delta; returns bytes written (<= PT_STEP_MAX_BYTES). */
static inline size_t pt_step_put(uint8_t *out, int64_t delta)
{
	uint64_t z;

	if (pt_step_is_short(delta)) {
		out[0] = pt_step_short(delta);
		return 1;
	}
	/* |delta| >= 64, so z >= 127: the long form always continues. */
	z = pt_zigzag(delta);
	out[0] = PT_STEP_LONG_TAG | PT_STEP_LONG_CONT | (uint8_t)(z & 0x1f);
	return 1 + pt_uleb_put(out + 1, z >> 5);
}

/* A control record's header (11tttttt, uleb128 len); returns bytes written. */
static inline size_t pt_ctl_put_header(uint8_t *out, unsigned int type, size_t len)
{
	out[0] = PT_CTL_TAG | (type & 0x3f);
	return 1 + pt_uleb_put(out + 1, len);
}

/* A whole control record; returns bytes written (<= PT_CTL_HEADER_MAX + len). */
static inline size_t pt_ctl_put(uint8_t *out, unsigned int type, const void *payload, size_t len)
{
	size_t n = pt_ctl_put_header(out, type, len);

	if (len)
		memcpy(out + n, payload, len);
	return n + len;
}

#endif /* PITRACE_STEPENC_H */
