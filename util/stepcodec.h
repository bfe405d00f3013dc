/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Decoding step-stream records (include/pitrace/format.h) and building
 * control payloads; the encoder itself is include/pitrace/stepenc.h.
 */
#ifndef PT_STEPCODEC_H
#define PT_STEPCODEC_H

#include <stddef.h>
#include <stdint.h>

#include <pitrace/format.h>
#include <pitrace/stepenc.h>

/* Returns bytes used, 0 if truncated (more input needed), -1 if malformed. */
int uleb_get(const uint8_t *p, const uint8_t *end, uint64_t *v);

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

/*
 * A long step (10cxxxxx) at b, decoded without a call when it needs no
 * check: its zigzagged delta into *z and its length returned, or 0 when
 * it is anything else (its continuation runs past end, or is longer than
 * 8 bytes, the only ones that can be malformed): step_decode says then.
 */
static inline size_t step_long_fast(const uint8_t *b, const uint8_t *end, uint64_t *z)
{
	uint64_t v;
	size_t n;

	if ((b[0] & PT_CTL_TAG) != PT_STEP_LONG_TAG)
		return 0;
	v = b[0] & 0x1f;
	if (!(b[0] & PT_STEP_LONG_CONT)) {
		*z = v;
		return 1;
	}
	for (n = 1; n <= 8 && b + n < end; n++) {
		v |= (uint64_t)(b[n] & 0x7f) << (5 + 7 * (n - 1));
		if (!(b[n] & 0x80)) {
			*z = v;
			return n + 1;
		}
	}
	return 0;
}

#endif /* PT_STEPCODEC_H */
