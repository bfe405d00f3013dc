// SPDX-License-Identifier: GPL-2.0
/* The step-stream codec: round trips, control records, bad bytes. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/stepcodec.h"
#include "tests/unit/unit.h"

/* One row a case: a pc sequence and the bytes it must take at most. */
static const struct {
	const char *what;
	uint64_t pcs[6];
	size_t n;
	size_t max_bytes;
} roundtrips[] = {
	{ "sequential code: a byte a step", { 0x401000, 0x401001, 0x401004, 0x401009, 0x40100b }, 5, 5 + 8 },
	{ "short backward branch", { 0x401000, 0x401010, 0x400fd0 }, 3, 3 + 8 },
	{ "zero delta (rep string)", { 0x7f0000001000, 0x7f0000001000, 0x7f0000001000 }, 3, 2 + 8 },
	{ "jump across the address space", { 0x400000, 0x7fffffffe000, 0x400000 }, 3, 3 * 9 },
	{ "kernel and user addresses", { 0x401000, 0xffffffff81000000ull, 0x401002 }, 3, 3 * 11 },
	{ "extreme values", { 0, UINT64_MAX, 0, 1ull << 63 }, 4, 4 * 11 },
};

static void test_step_roundtrip(void)
{
	for (size_t r = 0; r < sizeof(roundtrips) / sizeof(roundtrips[0]); r++) {
		uint8_t buf[256];
		size_t len = 0, off = 0;
		uint64_t last = 0;

		for (size_t i = 0; i < roundtrips[r].n; i++) {
			len += pt_step_put(buf + len, (int64_t)(roundtrips[r].pcs[i] - last));
			last = roundtrips[r].pcs[i];
		}
		CU_ASSERT(len <= roundtrips[r].max_bytes);
		last = 0;
		for (size_t i = 0; i < roundtrips[r].n; i++) {
			struct step_item it;
			size_t used;

			CU_ASSERT_EQUAL_FATAL(step_decode(buf + off, len - off, &last, &it, &used),
					      STEP_DECODE_OK);
			CU_ASSERT_EQUAL(it.kind, STEP_ITEM_STEP);
			CU_ASSERT_EQUAL(it.pc, roundtrips[r].pcs[i]);
			off += used;
		}
		CU_ASSERT_EQUAL(off, len);
	}
}

static void test_every_delta_width(void)
{
	/* Each power of two either side of zero survives encode/decode. */
	for (int bit = 0; bit < 64; bit++) {
		int64_t deltas[2] = { (int64_t)(1ull << bit), -(int64_t)(1ull << bit) };

		for (int k = 0; k < 2; k++) {
			uint8_t buf[PT_STEP_MAX_BYTES];
			struct step_item it;
			uint64_t last = 0x1000;
			size_t used, len = pt_step_put(buf, deltas[k]);

			CU_ASSERT(len <= PT_STEP_MAX_BYTES);
			CU_ASSERT_EQUAL(step_decode(buf, len, &last, &it, &used), STEP_DECODE_OK);
			CU_ASSERT_EQUAL(used, len);
			CU_ASSERT_EQUAL(it.pc, 0x1000 + (uint64_t)deltas[k]);
		}
	}
}

static void test_control_record(void)
{
	struct ctl_payload p = { .len = 0 };
	struct ctl_cursor c;
	struct step_item it;
	uint8_t buf[128];
	uint64_t last = 0, v;
	uint32_t v32;
	size_t len, used;

	ctl_put_uleb(&p, 1234);
	ctl_put_u64(&p, 0x1122334455667788ull);
	ctl_put_u32(&p, 0xdeadbeef);
	len = pt_ctl_put(buf, PT_CTL_SWITCH, p.buf, p.len);
	CU_ASSERT_EQUAL_FATAL(step_decode(buf, len, &last, &it, &used), STEP_DECODE_OK);
	CU_ASSERT_EQUAL(it.kind, STEP_ITEM_CTL);
	CU_ASSERT_EQUAL(it.ctl_type, PT_CTL_SWITCH);
	CU_ASSERT_EQUAL(used, len);
	c.p = it.payload;
	c.end = it.payload + it.payload_len;
	CU_ASSERT(ctl_get_uleb(&c, &v) == 0 && v == 1234);
	CU_ASSERT(ctl_get_u64(&c, &v) == 0 && v == 0x1122334455667788ull);
	CU_ASSERT(ctl_get_u32(&c, &v32) == 0 && v32 == 0xdeadbeef);
	CU_ASSERT_EQUAL(ctl_get_u8(&c, (uint8_t *)&v32), -1); /* payload exhausted */
}

static void test_truncation_detected(void)
{
	static const uint8_t time_payload[8] = { 42 };	/* u64 time_ns 42 */
	uint8_t buf[64];
	struct step_item it;
	uint64_t last = 0;
	size_t len, used;

	/* A long step cut anywhere before its last byte needs more input. */
	len = pt_step_put(buf, 0x7fffffffe000);
	for (size_t cut = 0; cut < len; cut++)
		CU_ASSERT_EQUAL(step_decode(buf, cut, &last, &it, &used), STEP_DECODE_SHORT);
	/* So does a control record cut inside its payload. */
	len = pt_ctl_put(buf, PT_CTL_TIME, time_payload, sizeof(time_payload));
	for (size_t cut = 0; cut < len; cut++)
		CU_ASSERT_EQUAL(step_decode(buf, cut, &last, &it, &used), STEP_DECODE_SHORT);
}

static void test_malformed_rejected(void)
{
	/* A uleb128 longer than 64 bits is corruption, not a long step. */
	uint8_t bad[16];
	struct step_item it;
	uint64_t last = 0;
	size_t used;

	bad[0] = PT_STEP_LONG_TAG | PT_STEP_LONG_CONT;
	memset(bad + 1, 0xff, 12);
	bad[13] = 0x01;
	CU_ASSERT_EQUAL(step_decode(bad, 14, &last, &it, &used), STEP_DECODE_BAD);
	/* A control record claiming a huge payload. */
	bad[0] = PT_CTL_TAG | PT_CTL_TIME;
	memset(bad + 1, 0xff, 5);
	bad[6] = 0x0f;
	CU_ASSERT_EQUAL(step_decode(bad, 7, &last, &it, &used), STEP_DECODE_BAD);
}

/*
 * The reader's call-free long step (step_long_fast) takes exactly what
 * step_decode takes, or leaves it to step_decode: over every tag byte,
 * continuations of 0 to 11 bytes, each cut at every length.
 */
static void test_long_step_fast_path(void)
{
	uint32_t seed = 12345;
	unsigned fast = 0;

	for (unsigned tag = 0; tag < 256; tag++) {
		for (unsigned cont = 0; cont <= 11; cont++) {
			uint8_t buf[16];
			size_t len = 1 + cont;

			buf[0] = (uint8_t)tag;
			for (unsigned k = 1; k <= cont; k++) {
				seed = seed * 1103515245u + 12345u;
				/* continuation bytes but the last; the last ends the uleb */
				buf[k] = (uint8_t)((seed >> 16) & 0x7f) | (k < cont ? 0x80 : 0);
			}
			for (size_t cut = 1; cut <= len; cut++) {
				struct step_item it;
				uint64_t last = 0x401000, z = 0;
				size_t used = 0, n = step_long_fast(buf, buf + cut, &z);
				enum step_decode_status st = step_decode(buf, cut, &last, &it, &used);

				if (n) {
					fast++;
					CU_ASSERT_EQUAL(st, STEP_DECODE_OK);
					CU_ASSERT_EQUAL(it.kind, STEP_ITEM_STEP);
					CU_ASSERT_EQUAL(n, used);
					CU_ASSERT_EQUAL(0x401000 + (uint64_t)pt_unzigzag(z), last);
				} else {
					/* only what is not a long step, is cut, or is over 8 bytes of uleb */
					CU_ASSERT((tag & PT_CTL_TAG) != PT_STEP_LONG_TAG ||
						  st != STEP_DECODE_OK || used > 9);
				}
			}
		}
	}
	CU_ASSERT(fast > 0);
}


/* Eight short steps summed at once: the sum of each one's delta, for every kind of byte. */
static void test_short8_sum(void)
{
	uint64_t x = 0x9e3779b97f4a7c15ull;

	for (int k = 0; k < 100000; k++) {
		uint64_t w;
		int64_t want = 0;

		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		/* every byte's top bit clear; the extremes now and then */
		w = k % 7 == 0 ? 0x4040404040404040ull : k % 7 == 1 ? 0x3f3f3f3f3f3f3f3full :
			x & 0x7f7f7f7f7f7f7f7full;
		for (int b = 0; b < 8; b++)
			want += step_short_delta((uint8_t)(w >> (8 * b)));
		CU_ASSERT_EQUAL(step_short8_sum(w), want);
		if (step_short8_sum(w) != want)
			break;
	}
	CU_ASSERT_EQUAL(step_short8_sum(0x7f7f7f7f7f7f7f7full), -8);
	CU_ASSERT_EQUAL(step_short8_sum(0x3f3f3f3f3f3f3f3full), 8 * 63);
}

/*
 * Steps as encoded: each case's pcs encoded, walked, and split at every
 * step; each half gives its steps from its base and ends at its last pc.
 */
static void test_step_bytes_walk_split(void)
{
	for (size_t r = 0; r < sizeof(roundtrips) / sizeof(roundtrips[0]); r++) {
		const uint64_t *pcs = roundtrips[r].pcs;
		size_t n = roundtrips[r].n, steps;
		uint8_t buf[256] = { 0 };
		struct step_bytes sb = { buf, 0, n, 0x1234, pcs[n - 1] };
		uint64_t pc = sb.base_pc;

		sb.len = step_bytes_encode(pcs, n, sb.base_pc, buf);
		CU_ASSERT_EQUAL(step_bytes_walk(buf, sb.len, SIZE_MAX, &pc, &steps), sb.len);
		CU_ASSERT_EQUAL(steps, n);
		CU_ASSERT_EQUAL(pc, pcs[n - 1]);
		for (size_t k = 0; k <= n; k++) {
			struct step_bytes h, t;
			uint64_t p;

			step_bytes_split(&sb, k, &h, &t);
			CU_ASSERT_EQUAL(h.steps, k);
			CU_ASSERT_EQUAL(t.steps, n - k);
			CU_ASSERT_EQUAL(h.len + t.len, sb.len);
			CU_ASSERT_EQUAL(h.base_pc, sb.base_pc);
			CU_ASSERT_EQUAL(h.end_pc, k ? pcs[k - 1] : sb.base_pc);
			CU_ASSERT_EQUAL(t.base_pc, h.end_pc);
			CU_ASSERT_EQUAL(t.end_pc, pcs[n - 1]);
			p = t.base_pc;
			for (size_t j = k; j < n; j++) {
				size_t used = step_next_pc(t.b, t.b + t.len, &p);

				CU_ASSERT(used > 0);
				t.b += used;
				t.len -= used;
				CU_ASSERT_EQUAL(p, pcs[j]);
			}
			CU_ASSERT_EQUAL(t.len, 0);
		}
	}
}

static CU_TestInfo tests[] = {
	{ "steps round-trip within their byte budget", test_step_roundtrip },
	{ "every delta width round-trips", test_every_delta_width },
	{ "control records carry their payload", test_control_record },
	{ "a cut record asks for more input", test_truncation_detected },
	{ "malformed bytes are rejected", test_malformed_rejected },
	{ "a long step decodes the same without a call", test_long_step_fast_path },
	{ "eight short steps sum to their deltas", test_short8_sum },
	{ "steps as encoded walk and split at every step", test_step_bytes_walk_split },
	CU_TEST_INFO_NULL,
};

UNIT_SUITE(stepcodec, tests)
