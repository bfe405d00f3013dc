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

/* step_next_pc's long path (a long step of more than 8 continuation bytes). */
size_t step_next_pc_slow(const uint8_t *b, const uint8_t *end, uint64_t *pc);

/*
 * A stretch of step records as they are in the stream (bytes mode: the
 * reports that take steps by their encoding, trace_next_bytes): every
 * record of b[0..len) is a step (a short or long delta), each step's pc
 * the one before's plus its delta, the first's from base_pc.  At least
 * STEP_BYTES_SLACK bytes past b + len are readable (their values
 * anything): a compare may load eight bytes at a time.
 */
#define STEP_BYTES_SLACK 16
struct step_bytes {
	const uint8_t *b;
	size_t len;		  /* bytes */
	size_t steps;		  /* step records in them */
	uint64_t base_pc;	  /* the pc the first delta is from (0 after a SWITCH) */
	uint64_t end_pc;	  /* the last step's pc */
};

/* The delta of a short step (0xxxxxxx): seven bits, two's complement. */
static inline int64_t step_short_delta(uint8_t b)
{
	return (int64_t)((uint64_t)b << 57) >> 57;
}

/*
 * Eight short steps at once (w: eight bytes, each with its top bit clear):
 * the sum of their deltas.  Each byte is its value, less 128 when bit 6
 * (the sign) is set; the bytes are summed in pairs, then the pairs by a
 * multiplication (1,016 at most: no lane carries into the next).
 */
static inline int64_t step_short8_sum(uint64_t w)
{
	uint64_t pairs = (w & 0x00ff00ff00ff00ffull) + ((w >> 8) & 0x00ff00ff00ff00ffull);
	uint64_t sum = (pairs * 0x0001000100010001ull) >> 48;
	uint64_t neg = (((w >> 6) & 0x0101010101010101ull) * 0x0101010101010101ull) >> 56;

	return (int64_t)sum - 128 * (int64_t)neg;
}

/*
 * The step record at b (before end) of a verified stream: *pc moved by
 * its delta, its length returned; 0 when it is no step or runs past end.
 */
static inline size_t step_next_pc(const uint8_t *b, const uint8_t *end, uint64_t *pc)
{
	uint64_t z;
	size_t n;

	if (b >= end)
		return 0;
	if (!(b[0] & PT_STEP_SHORT_MASK)) {
		*pc += (uint64_t)step_short_delta(b[0]);
		return 1;
	}
	n = step_long_fast(b, end, &z);
	if (n) {
		*pc += (uint64_t)pt_unzigzag(z);
		return n;
	}
	return step_next_pc_slow(b, end, pc);
}

/*
 * Walk the records of b[0..len): up to max steps from *pc (left the last
 * one's); returns the bytes they take, *steps how many.  Stops early at
 * anything that is no step.
 */
size_t step_bytes_walk(const uint8_t *b, size_t len, size_t max, uint64_t *pc, size_t *steps);

/*
 * The first k steps of sb into head, the rest into tail (either may be
 * empty); sb may be either.
 */
void step_bytes_split(const struct step_bytes *sb, size_t k, struct step_bytes *head,
		      struct step_bytes *tail);

/*
 * sb cut before its step k, whose record is at byte off, after a step at
 * pc (what the reader knew there): head and tail, as step_bytes_split
 * gives them without walking the records.
 */
static inline void step_bytes_cut(const struct step_bytes *sb, size_t k, size_t off, uint64_t pc,
				  struct step_bytes *head, struct step_bytes *tail)
{
	struct step_bytes h = { sb->b, off, k, sb->base_pc, pc };
	struct step_bytes t = { sb->b + off, sb->len - off, sb->steps - k, pc, sb->end_pc };

	*head = h;
	*tail = t;
}

/*
 * pcs[0..n) encoded as steps from base (the encoding the writers use):
 * bytes written to out, which has room for n * PT_STEP_MAX_BYTES.
 */
size_t step_bytes_encode(const uint64_t *pcs, size_t n, uint64_t base, uint8_t *out);

/*
 * Decoded steps pcs[0..n) (n > 0) as a run as encoded, in *sb: the first
 * step's delta from itself (0, one byte), then the rest.  Returns the
 * buffer sb points into (the caller frees it), NULL when out of memory.
 */
uint8_t *step_bytes_of_pcs(const uint64_t *pcs, size_t n, struct step_bytes *sb);

#endif /* PT_STEPCODEC_H */
