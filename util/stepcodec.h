/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Encoding and decoding of step-stream records (include/pitrace/format.h):
 * variable-length pc deltas for steps, tagged control records.
 */
#ifndef PT_STEPCODEC_H
#define PT_STEPCODEC_H

#include <stddef.h>
#include <stdint.h>

#include <pitrace/format.h>

/* Longest encoding of one step (tag + 10 bytes of uleb128). */
#define STEP_MAX_BYTES 11
/* Longest uleb128 of a 64-bit value. */
#define ULEB_MAX_BYTES 10

size_t uleb_put(uint8_t *out, uint64_t v);
/* Returns bytes used, 0 if truncated (more input needed), -1 if malformed. */
int uleb_get(const uint8_t *p, const uint8_t *end, uint64_t *v);

static inline uint64_t zigzag(int64_t v)
{
	return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}

static inline int64_t unzigzag(uint64_t z)
{
	return (int64_t)(z >> 1) ^ -(int64_t)(z & 1);
}

/* Encode a step whose pc is last_pc + delta; returns bytes written. */
static inline size_t step_encode_delta(uint8_t *out, int64_t delta)
{
	uint64_t z;

	if (delta >= -64 && delta < 64) {
		out[0] = (uint8_t)delta & 0x7f;
		return 1;
	}
	z = zigzag(delta);
	if (z < 32) {	/* cannot happen given the test above, kept for clarity */
		out[0] = PT_STEP_LONG_TAG | (uint8_t)z;
		return 1;
	}
	out[0] = PT_STEP_LONG_TAG | PT_STEP_LONG_CONT | (uint8_t)(z & 0x1f);
	return 1 + uleb_put(out + 1, z >> 5);
}

/* Encode a control record; returns bytes written (at most 1 + 10 + len). */
size_t ctl_encode(uint8_t *out, unsigned type, const void *payload, size_t len);

/* Helpers to build control payloads. */
struct ctl_payload {
	uint8_t buf[64];
	size_t len;
};
void ctl_put_uleb(struct ctl_payload *p, uint64_t v);
void ctl_put_u64(struct ctl_payload *p, uint64_t v);
void ctl_put_u32(struct ctl_payload *p, uint32_t v);
void ctl_put_u8(struct ctl_payload *p, uint8_t v);

/* Reading control payloads: each returns 0 on success, -1 when short. */
struct ctl_cursor {
	const uint8_t *p, *end;
};
int ctl_get_uleb(struct ctl_cursor *c, uint64_t *v);
int ctl_get_u64(struct ctl_cursor *c, uint64_t *v);
int ctl_get_u32(struct ctl_cursor *c, uint32_t *v);
int ctl_get_u8(struct ctl_cursor *c, uint8_t *v);

/* One decoded record. */
enum step_item_kind {
	STEP_ITEM_STEP,
	STEP_ITEM_CTL,
};

struct step_item {
	enum step_item_kind kind;
	uint64_t pc;		  /* STEP: the instruction's address */
	unsigned ctl_type;	  /* CTL: enum pt_ctl_type */
	const uint8_t *payload;	  /* CTL: points into the input buffer */
	size_t payload_len;
};

enum step_decode_status {
	STEP_DECODE_OK = 0,
	STEP_DECODE_SHORT = 1,	  /* record continues past the buffer */
	STEP_DECODE_BAD = -1,	  /* malformed bytes */
};

/*
 * Decode one record from buf[0..len).  On OK, *used is its length and
 * *last_pc is updated for steps (SWITCH resets it: the caller does that,
 * since only it knows the record was applied).
 */
enum step_decode_status step_decode(const uint8_t *buf, size_t len, uint64_t *last_pc,
				    struct step_item *it, size_t *used);

#endif /* PT_STEPCODEC_H */
