// SPDX-License-Identifier: GPL-2.0
/*
 * The collector's core step without a driver: ring sub-buffers (step-stream
 * records as the driver writes them) appended with tw_raw, then read back.
 */
#include <stdio.h>
#include <string.h>

#include "util/stepcodec.h"
#include "util/trace_reader.h"
#include "util/trace_writer.h"
#include "tests/unit/unit.h"

/* A sub-buffer as the driver fills one: SWITCH first, then steps and markers. */
struct subbuf {
	uint8_t b[300000];
	size_t len;
	uint64_t last_pc;
};

static void sb_switch(struct subbuf *s, uint32_t pid, uint32_t tid, uint64_t t)
{
	struct ctl_payload p = { .len = 0 };

	ctl_put_uleb(&p, pid);
	ctl_put_uleb(&p, tid);
	ctl_put_u64(&p, t);
	ctl_put_uleb(&p, PT_SEQ_NONE);
	s->len += pt_ctl_put(s->b + s->len, PT_CTL_SWITCH, p.buf, p.len);
	s->last_pc = 0;
}

static void sb_ctl_uleb(struct subbuf *s, unsigned type, uint64_t v)
{
	struct ctl_payload p = { .len = 0 };

	ctl_put_uleb(&p, v);
	s->len += pt_ctl_put(s->b + s->len, type, p.buf, p.len);
}

static void sb_step(struct subbuf *s, uint64_t pc)
{
	s->len += pt_step_put(s->b + s->len, (int64_t)(pc - s->last_pc));
	s->last_pc = pc;
}

/* Read a stream file back: steps, LOST total, the pcs' sum, and CHECK/END counts. */
struct readback {
	uint64_t steps, lost, pc_sum, switches, checks, ends, end_steps;
	int status;
};

static struct readback read_stream(const char *path)
{
	struct readback rb = { 0 };
	struct stream_reader *r = stream_reader_open(path);
	struct step_item it;
	uint64_t off;
	int ret;

	if (!r) {
		rb.status = -2;
		return rb;
	}
	while ((ret = stream_reader_next(r, &it, &off)) == 1) {
		struct ctl_cursor c = { it.payload, it.payload + it.payload_len };
		uint64_t v;

		if (it.kind == STEP_ITEM_STEP) {
			rb.steps++;
			rb.pc_sum += it.pc;
			continue;
		}
		if (it.ctl_type == PT_CTL_LOST && !ctl_get_uleb(&c, &v))
			rb.lost += v;
		if (it.ctl_type == PT_CTL_SWITCH)
			rb.switches++;
		if (it.ctl_type == PT_CTL_CHECK)
			rb.checks++;
		if (it.ctl_type == PT_CTL_END && !ctl_get_uleb(&c, &v)) {
			rb.ends++;
			rb.end_steps = v;
		}
	}
	rb.status = ret;
	stream_reader_close(r);
	return rb;
}

static struct subbuf sb;

/* One row a case: sub-buffers of n steps each, lost markers, driver CHECK/END noise. */
static const struct {
	const char *what;
	unsigned nr_subbufs;
	unsigned steps_per_subbuf;
	uint64_t lost_per_subbuf;
	bool driver_check_end;	  /* records the writer must drop */
} rows[] = {
	{ "one small sub-buffer", 1, 10, 0, false },
	{ "many sub-buffers, lost markers between", 5, 1000, 7, false },
	{ "a sub-buffer larger than the writer's buffer", 2, 150000, 0, false },
	{ "CHECK and END from elsewhere are dropped", 3, 100, 1, true },
};

static void test_raw_roundtrip(void)
{
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		char dir[256], path[300];
		struct tw_options o = { 0 };
		struct trace_writer *tw;
		struct tw_stream *s;
		struct readback rb;
		uint64_t lost = 0, want_sum = 0;

		snprintf(dir, sizeof(dir), "%s/raw%zu", unit_tmpdir(), i);
		tw = tw_open(dir, &o);
		CU_ASSERT_PTR_NOT_NULL_FATAL(tw);
		s = tw_stream_open(tw, true, 1);
		CU_ASSERT_PTR_NOT_NULL_FATAL(s);
		for (unsigned n = 0; n < rows[i].nr_subbufs; n++) {
			sb.len = 0;
			sb_switch(&sb, 100, 101 + n, 1000 + n);
			for (unsigned k = 0; k < rows[i].steps_per_subbuf; k++) {
				/* Mostly short deltas, now and then a far jump. */
				uint64_t pc = 0x401000 + (k % 97) * 3 + (k % 1000 == 999 ? 0x7f0000000000ull : 0);

				sb_step(&sb, pc);
				want_sum += pc;
			}
			if (rows[i].lost_per_subbuf)
				sb_ctl_uleb(&sb, PT_CTL_LOST, rows[i].lost_per_subbuf);
			if (rows[i].driver_check_end) {
				uint8_t crc[4] = { 1, 2, 3, 4 };

				sb.len += pt_ctl_put(sb.b + sb.len, PT_CTL_CHECK, crc, 4);
				sb_ctl_uleb(&sb, PT_CTL_END, 12345);
			}
			CU_ASSERT_EQUAL(tw_raw(s, sb.b, sb.len, &lost), 0);
		}
		CU_ASSERT_EQUAL(s->steps, (uint64_t)rows[i].nr_subbufs * rows[i].steps_per_subbuf);
		CU_ASSERT_EQUAL(tw_total_steps(tw), s->steps);
		CU_ASSERT_EQUAL(lost, rows[i].nr_subbufs * rows[i].lost_per_subbuf);
		CU_ASSERT_EQUAL(tw_stream_close(s), 0);
		CU_ASSERT_EQUAL(tw_close(tw, "complete"), 0);

		snprintf(path, sizeof(path), "%s/steps.c1", dir);
		rb = read_stream(path);
		CU_ASSERT_EQUAL(rb.status, 0);
		CU_ASSERT_EQUAL(rb.steps, (uint64_t)rows[i].nr_subbufs * rows[i].steps_per_subbuf);
		CU_ASSERT_EQUAL(rb.pc_sum, want_sum);
		CU_ASSERT_EQUAL(rb.lost, lost);
		CU_ASSERT_EQUAL(rb.switches, rows[i].nr_subbufs);
		CU_ASSERT_EQUAL(rb.ends, 1);	/* the writer's own, with the right count */
		CU_ASSERT_EQUAL(rb.end_steps, rb.steps);
		CU_ASSERT(rb.checks >= 1);
		if (rb.status || rb.steps != rows[i].nr_subbufs * rows[i].steps_per_subbuf)
			printf("\n  row %zu (%s): status %d, %llu steps\n", i, rows[i].what, rb.status,
			       (unsigned long long)rb.steps);
	}
}

static void test_raw_malformed(void)
{
	char dir[256], path[300];
	struct tw_options o = { 0 };
	struct trace_writer *tw;
	struct tw_stream *s;
	struct readback rb;
	size_t good;

	snprintf(dir, sizeof(dir), "%s/rawbad", unit_tmpdir());
	tw = tw_open(dir, &o);
	CU_ASSERT_PTR_NOT_NULL_FATAL(tw);
	s = tw_stream_open(tw, true, 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	sb.len = 0;
	sb_switch(&sb, 1, 1, 1);
	sb_step(&sb, 0x401000);
	sb_step(&sb, 0x401002);
	good = sb.len;
	/* A control record whose length runs past the sub-buffer's end. */
	sb.b[sb.len++] = PT_CTL_TAG | PT_CTL_LOST;
	sb.b[sb.len++] = 50;
	sb.b[sb.len++] = 1;
	CU_ASSERT_EQUAL(tw_raw(s, sb.b, sb.len, NULL), -1);
	/* What came before the bad record is kept, and the stream stays valid. */
	CU_ASSERT_EQUAL(s->steps, 2);
	CU_ASSERT_EQUAL(tw_raw(s, sb.b, good, NULL), 0);
	CU_ASSERT_EQUAL(tw_stream_close(s), 0);
	CU_ASSERT_EQUAL(tw_close(tw, "complete"), 0);
	snprintf(path, sizeof(path), "%s/steps.c0", dir);
	rb = read_stream(path);
	CU_ASSERT_EQUAL(rb.status, 0);
	CU_ASSERT_EQUAL(rb.steps, 4);
	CU_ASSERT_EQUAL(rb.pc_sum, 2 * (0x401000 + 0x401002));
}

static const CU_TestInfo collector_tests[] = {
	{ "ring sub-buffers appended whole read back exactly", test_raw_roundtrip },
	{ "a malformed record stops the append, keeping what came before", test_raw_malformed },
	CU_TEST_INFO_NULL,
};

UNIT_SUITE(collector, collector_tests)
