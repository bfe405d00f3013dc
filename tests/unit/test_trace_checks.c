// SPDX-License-Identifier: GPL-2.0
/*
 * What a trace is checked for (docs/post.md, docs/trace-format.md
 * "Checksums and checks"), one row a check: a trace written through the
 * real writer, made inconsistent in one way (by the writer's own calls, or
 * an edit of its bytes with the CRCs redone where the check is not the
 * CRC), is damage: an error naming the file and what is wrong, and with
 * --force a warning and no more steps than were written.  Rows without
 * damage read cleanly: the checks let real traces through (an older
 * version without checksums, a driver's "no thread" SWITCH, a trace cut
 * short between a record and its CHECK).
 */
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "util/log.h"
#include "util/stepcodec.h"
#include "util/trace_reader.h"
#include "util/trace_writer.h"
#include "tests/unit/unit.h"

#define TID 10
#define STEPS 300

/* How the writer is asked to make the trace. */
struct knobs {
	bool per_cpu;		  /* steps.c0 with SWITCHes, not steps.t10 */
	bool unnamed;		  /* no task record names the thread */
	uint32_t switch_tid;	  /* the SWITCH goes to this thread (0: TID) */
	bool count_record;	  /* a COUNT record in a step trace */
	bool count_mode;	  /* ... in a count-only trace */
	bool extra_end;		  /* an END in the middle of the stream */
	bool ring5;		  /* a RING record with ring 5 */
	bool none_then_step;	  /* per-CPU: a SWITCH to no thread (0/0), then a step */
	bool none_then_named;	  /* per-CPU: a SWITCH to no thread, then one to TID */
	bool long_stream;	  /* steps over three CHECK blocks */
	bool long_name;		  /* the mapped file's name longer than NAME_MAX */
	bool tasks_lost;	  /* the recorder lost task events (TASKS_LOST) */
	const char *state;	  /* default "complete" */
};

static char *path_in(const char *dir, const char *name)
{
	static char p[4][512];
	static int k;
	char *s = p[k++ % 4];

	snprintf(s, sizeof(p[0]), "%s/%s", dir, name);
	return s;
}

static void write_trace(const char *dir, const struct knobs *k)
{
	struct tw_options o = { .features = k->count_mode ? PT_FEAT_COUNT_ONLY : 0 };
	struct trace_writer *tw = tw_open(dir, &o);
	struct pt_task_comm comm = { .c = { .pid = TID, .tid = TID } };
	struct pt_task_mmap m = { .c = { .pid = TID }, .start = 0x400000, .len = 0x1000, .prot = 5 };
	struct ctl_payload p = { .len = 0 };
	struct tw_stream *st;
	unsigned steps = k->long_stream ? 200000 : STEPS;
	char path[512] = "/usr/lib/checked/prog";

	CU_ASSERT_PTR_NOT_NULL_FATAL(tw);
	tw_set_attr_str(tw, PT_ATTR_ARCH, "x86_64");
	tw_set_attr_str(tw, PT_ATTR_MODE, k->count_mode ? "count" : "step");
	if (k->tasks_lost) {
		uint64_t lost = 3;

		tw_set_attr(tw, PT_ATTR_TASKS_LOST, &lost, sizeof(lost));
	}
	if (!k->unnamed)
		tw_task(tw, PT_TASK_COMM, &comm, sizeof(comm), "checked");
	if (k->long_name) {
		memset(path + strlen(path), 'x', 256);
		path[strlen("/usr/lib/checked/prog") + 256] = '\0';
	}
	tw_task(tw, PT_TASK_MMAP, &m, sizeof(m), path);
	st = tw_stream_open(tw, k->per_cpu, k->per_cpu ? 0 : TID);
	CU_ASSERT_PTR_NOT_NULL_FATAL(st);
	if (k->none_then_step || k->none_then_named) {
		tw_switch(st, 0, 0, 100, PT_SEQ_NONE);
		if (k->none_then_step)
			tw_step(st, 0x400000);
	}
	tw_switch(st, TID, k->switch_tid ? k->switch_tid : TID, 100,
		  k->per_cpu ? PT_SEQ_NONE : 0);
	for (unsigned n = 0; n < steps; n++) {
		tw_step(st, 0x400000 + (n % 64) * 4);
		if (n == steps / 2 && (k->count_record || k->count_mode)) {
			ctl_put_uleb(&p, 1ull << 40);	  /* the 2^40 */
			tw_ctl(st, PT_CTL_COUNT, &p);
		}
		if (n == steps / 2 && k->extra_end) {
			p.len = 0;
			ctl_put_uleb(&p, n + 1);
			ctl_put_uleb(&p, 0);
			tw_ctl(st, PT_CTL_END, &p);
		}
		if (n == steps / 2 && k->ring5)
			tw_ring(st, 5);
	}
	CU_ASSERT_EQUAL(tw_stream_close(st), 0);
	CU_ASSERT_EQUAL(tw_close(tw, k->state ? k->state : PT_STATE_COMPLETE), 0);
}

/* ---- edits of the bytes, checks redone where the check is not the CRC ---- */

static uint8_t *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf;

	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fseek(f, 0, SEEK_END);
	*len = (size_t)ftell(f);
	rewind(f);
	buf = malloc(*len + 1);
	CU_ASSERT_EQUAL(fread(buf, 1, *len, f), *len);
	fclose(f);
	return buf;
}

static void spill(const char *path, const uint8_t *buf, size_t len)
{
	FILE *f = fopen(path, "wb");

	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	CU_ASSERT_EQUAL(fwrite(buf, 1, len, f), len);
	fclose(f);
}

/* The first tagged record of type in a header or tasks image, or NULL. */
static uint8_t *find_rec(uint8_t *buf, size_t len, unsigned type)
{
	for (size_t off = sizeof(struct pt_file_header); off + 8 <= len;) {
		struct pt_rec_header rh;

		memcpy(&rh, buf + off, sizeof(rh));
		if (rh.type == type)
			return buf + off;
		if (rh.size < sizeof(rh))
			return NULL;
		off += rh.size;
	}
	return NULL;
}

/* Redo the header's CHECK after an edit. */
static void reseal_header(uint8_t *buf, size_t len)
{
	uint8_t *ck = find_rec(buf, len, PT_ATTR_CHECK);
	uint32_t crc;

	CU_ASSERT_PTR_NOT_NULL_FATAL(ck);
	crc = (uint32_t)crc32(0, buf, (uInt)(ck - buf));
	memcpy(ck + sizeof(struct pt_rec_header), &crc, 4);
}

static void edit_flip_header(const char *dir)
{
	size_t len;
	uint8_t *buf = slurp(path_in(dir, "header"), &len), *arch = find_rec(buf, len, PT_ATTR_ARCH);

	arch[sizeof(struct pt_rec_header)] ^= 0x20;	  /* "x86_64" -> "X86_64" */
	spill(path_in(dir, "header"), buf, len);
	free(buf);
}

static void edit_flip_tasks(const char *dir)
{
	size_t len;
	uint8_t *buf = slurp(path_in(dir, "tasks"), &len), *m = find_rec(buf, len, PT_TASK_MMAP);

	/* the mapping moved by 0x1000: the misattributed libc */
	m[sizeof(struct pt_rec_header) + offsetof(struct pt_task_mmap, start) + 1] ^= 0x10;
	spill(path_in(dir, "tasks"), buf, len);
	free(buf);
}

static void edit_totals(const char *dir)
{
	size_t len;
	uint8_t *buf = slurp(path_in(dir, "header"), &len), *t = find_rec(buf, len, PT_ATTR_TOTALS);

	t[sizeof(struct pt_rec_header)]++;	  /* steps + 1, the CHECK redone */
	reseal_header(buf, len);
	spill(path_in(dir, "header"), buf, len);
	free(buf);
}

static void edit_no_header_check(const char *dir)
{
	size_t len;
	uint8_t *buf = slurp(path_in(dir, "header"), &len), *ck = find_rec(buf, len, PT_ATTR_CHECK);
	uint16_t pad = PT_ATTR_PAD;

	memcpy(ck, &pad, 2);	  /* the CHECK becomes padding: zeros of no meaning */
	memset(ck + sizeof(struct pt_rec_header), 0, 4);
	spill(path_in(dir, "header"), buf, len);
	free(buf);
}

static void edit_stream_id(const char *dir)
{
	char *p = path_in(dir, "steps.t10");
	size_t len;
	uint8_t *buf = slurp(p, &len);

	buf[offsetof(struct pt_file_header, stream_id)] = 11;
	spill(p, buf, len);
	free(buf);
}

/* The stream's first CHECK block again, right after it (its CRC holds). */
static void edit_dup_block(const char *dir)
{
	char *p = path_in(dir, "steps.t10");
	size_t len, off = sizeof(struct pt_file_header), blk;
	uint8_t *buf = slurp(p, &len), *out;
	uint64_t last_pc = 0;

	for (;;) {
		struct step_item it;
		size_t used;

		CU_ASSERT_FATAL(step_decode(buf + off, len - off, &last_pc, &it, &used) ==
				STEP_DECODE_OK);
		off += used;
		if (it.kind == STEP_ITEM_CTL && it.ctl_type == PT_CTL_CHECK)
			break;
	}
	blk = off - sizeof(struct pt_file_header);
	out = malloc(len + blk);
	memcpy(out, buf, off);
	memcpy(out + off, buf + sizeof(struct pt_file_header), blk);
	memcpy(out + off + blk, buf + off, len - off);
	spill(p, out, len + blk);
	free(out);
	free(buf);
}

/* A record appended without its CHECK. */
static void edit_task_unchecked(const char *dir)
{
	struct pt_task_comm c = { .c = { .pid = TID, .tid = TID } };
	struct pt_rec_header rh = { .type = PT_TASK_COMM, .size = sizeof(rh) + sizeof(c) + 4 };
	size_t len;
	uint8_t *buf = slurp(path_in(dir, "tasks"), &len);

	buf = realloc(buf, len + rh.size);
	memcpy(buf + len, &rh, sizeof(rh));
	memcpy(buf + len + sizeof(rh), &c, sizeof(c));
	memcpy(buf + len + sizeof(rh) + sizeof(c), "new", 4);
	spill(path_in(dir, "tasks"), buf, len + rh.size);
	free(buf);
}

/* Without CHECK records and as version 4, as a writer before version 6 wrote it. */
static void edit_version4(const char *dir)
{
	const char *names[] = { "header", "tasks", "steps.t10" };

	for (size_t i = 0; i < 3; i++) {
		char *p = path_in(dir, names[i]);
		size_t len, n = sizeof(struct pt_file_header);
		uint8_t *buf = slurp(p, &len), *out = malloc(len);
		uint16_t v4 = 4;

		memcpy(out, buf, n);
		memcpy(out + offsetof(struct pt_file_header, version), &v4, 2);
		for (size_t off = n; i < 2 && off + 8 <= len;) {
			struct pt_rec_header rh;

			memcpy(&rh, buf + off, sizeof(rh));
			if (rh.type != (i ? PT_TASK_CHECK : PT_ATTR_CHECK)) {
				memcpy(out + n, buf + off, rh.size);
				n += rh.size;
			}
			off += rh.size;
		}
		if (i == 2) {
			memcpy(out + n, buf + n, len - n);
			n = len;
		}
		spill(p, out, n);
		free(out);
		free(buf);
	}
}

static const struct check_case {
	const char *what;
	struct knobs k;
	void (*edit)(const char *dir);
	const char *damage;	  /* in the message; NULL: reads cleanly */
	bool at_open;		  /* found by trace_open (header, tasks) */
} cases[] = {
	{ "a trace as written reads cleanly", { 0 }, NULL, NULL, false },
	{ "per-CPU, no-thread SWITCH before the thread's: clean",
	  { .per_cpu = true, .none_then_named = true }, NULL, NULL, false },
	{ "version 4, no CHECK records: read as before", { 0 }, edit_version4, NULL, false },
	{ "a thread the tasks never name, when the recorder lost task events: clean",
	  { .per_cpu = true, .unnamed = true, .tasks_lost = true }, NULL, NULL, false },
	{ "a thread the tasks never name, in a trace cut short: clean",
	  { .per_cpu = true, .unnamed = true, .state = PT_STATE_INTERRUPTED }, NULL, NULL, false },
	{ "cut short between a record and its CHECK: the record is not read",
	  { .state = PT_STATE_INTERRUPTED }, edit_task_unchecked, NULL, false },
	{ "a flipped byte in the header", { 0 }, edit_flip_header,
	  "header: checksum mismatch: corrupt data in bytes 0-", true },
	{ "a mapping moved by 0x1000 in the tasks file", { 0 }, edit_flip_tasks,
	  "tasks: checksum mismatch: corrupt data in bytes", true },
	{ "the header's CHECK gone", { 0 }, edit_no_header_check, "header: no CHECK record", true },
	{ "a task record without its CHECK in a complete trace", { 0 }, edit_task_unchecked,
	  "tasks: no CHECK record after byte", true },
	{ "TOTALS one step more than the streams", { 0 }, edit_totals,
	  "header: TOTALS counts 301 steps, the streams hold 300", false },
	{ "a stream file naming another stream", { 0 }, edit_stream_id,
	  "steps.t10: the file header names stream 11, the file name 10", false },
	{ "a CHECK block duplicated", { .long_stream = true }, edit_dup_block,
	  "ends block 0 where block 1 was due", false },
	{ "a SWITCH to a thread the tasks never name", { .per_cpu = true, .unnamed = true }, NULL,
	  "steps.c0: SWITCH at byte 32 to thread 10, which the tasks file never names", false },
	{ "a SWITCH to another thread in a per-thread stream", { .switch_tid = 12 }, NULL,
	  "SWITCH at byte 32 to thread 12, in the stream of thread 10", false },
	{ "a step after a SWITCH to no thread", { .per_cpu = true, .none_then_step = true }, NULL,
	  "a step at byte", false },
	{ "a COUNT of 2^40 in a step trace", { .count_record = true }, NULL,
	  "in a trace that is not count-only", false },
	{ "an END in the middle: records after it", { .extra_end = true }, NULL,
	  "a record after END, at byte", false },
	{ "a RING of 5", { .ring5 = true }, NULL, "malformed RING record at byte", false },
	{ "a mapped file's name longer than a file name can be", { .long_name = true }, NULL,
	  "tasks: malformed MMAP record (type 5) at byte", true },
};

static char *read_text(const char *path)
{
	size_t len;
	char *s = (char *)slurp(path, &len);

	s[len] = '\0';
	return s;
}

/*
 * Read every event, decoded or as encoded (bytes); 0 at the clean end, -1
 * on damage.  *steps: the steps read.
 */
static int read_trace_mode(const char *dir, unsigned flags, bool bytes, bool *opened,
			   uint64_t *steps)
{
	struct trace *t = trace_open_flags(dir, flags);
	struct trace_iter *it;
	struct trace_event ev;
	struct step_bytes sb;
	int r;

	*steps = 0;
	*opened = t != NULL;
	if (!t)
		return -1;
	it = trace_iter_new_mode(t, 1, bytes);
	if (!it) {
		trace_close(t);
		return -1;
	}
	if (bytes) {
		const struct run_event *evs;
		size_t nr_evs;

		while ((r = trace_next_bytes(it, &ev, &sb, &evs, &nr_evs)) == 1)
			*steps += ev.kind == TEV_STEP ? sb.steps : 0;
	} else {
		while ((r = trace_next(it, &ev)) == 1)
			*steps += ev.kind == TEV_STEP;
	}
	trace_iter_free(it);
	trace_close(t);
	return r;
}

static int read_trace(const char *dir, unsigned flags, bool *opened, uint64_t *steps)
{
	return read_trace_mode(dir, flags, false, opened, steps);
}

/* The messages of reading dir in bytes mode (with flags) into path; returns read_trace_mode's. */
static int read_bytes_to(const char *dir, unsigned flags, const char *path, uint64_t *steps)
{
	int saved = dup(2), fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600), r;
	bool opened;

	dup2(fd, 2);
	r = read_trace_mode(dir, flags, true, &opened, steps);
	dup2(saved, 2);
	close(fd);
	close(saved);
	return r;
}

static void test_checks(void)
{
	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		const struct check_case *k = &cases[c];
		char dir[256], err[300];
		int saved = dup(2), fd, r, rf;
		uint64_t steps, force_steps, written = k->k.long_stream ? 200000 : STEPS;
		bool opened, opened_f;
		char *msg, *msg_f;

		snprintf(dir, sizeof(dir), "%s/check-%zu", unit_tmpdir(), c);
		snprintf(err, sizeof(err), "%s/check-%zu.err", unit_tmpdir(), c);
		write_trace(dir, &k->k);
		if (k->edit)
			k->edit(dir);
		fd = open(err, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		dup2(fd, 2);
		r = read_trace(dir, 0, &opened, &steps);
		dup2(saved, 2);
		close(fd);
		msg = read_text(err);
		fd = open(err, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		dup2(fd, 2);
		rf = read_trace(dir, TRACE_OPEN_FORCE, &opened_f, &force_steps);
		dup2(saved, 2);
		close(fd);
		close(saved);
		msg_f = read_text(err);
		/* steps as encoded: the same damage found, said the same, the same steps read */
		for (int f = 0; f < 2; f++) {
			uint64_t bsteps;
			int rb = read_bytes_to(dir, f ? TRACE_OPEN_FORCE : 0, err, &bsteps);
			char *bmsg = read_text(err);

			if (rb != (f ? rf : r) || bsteps != (f ? force_steps : steps) ||
			    strcmp(bmsg, f ? msg_f : msg))
				fprintf(stderr, "\n  %s, bytes%s: %d, %lu steps, '%s'", k->what,
					f ? ", --force" : "", rb, bsteps, bmsg);
			CU_ASSERT_EQUAL(rb, f ? rf : r);
			CU_ASSERT_EQUAL(bsteps, f ? force_steps : steps);
			CU_ASSERT_STRING_EQUAL(bmsg, f ? msg_f : msg);
			free(bmsg);
		}
		if (!k->damage) {
			if (r != 0 || steps != STEPS || *msg)
				fprintf(stderr, "\n  %s: %d, %lu steps, '%s'", k->what, r, steps, msg);
			CU_ASSERT_EQUAL(r, 0);
			CU_ASSERT_EQUAL(steps, STEPS);
			CU_ASSERT_STRING_EQUAL(msg, "");
		} else {
			if (r != -1 || !strstr(msg, k->damage) || !strstr(msg, "error:") ||
			    opened == k->at_open)
				fprintf(stderr, "\n  %s: %d (opened %d), '%s'", k->what, r, opened, msg);
			CU_ASSERT_EQUAL(r, -1);
			CU_ASSERT_NOT_EQUAL(opened, k->at_open);
			CU_ASSERT_PTR_NOT_NULL(strstr(msg, k->damage));
			CU_ASSERT_PTR_NOT_NULL(strstr(msg, "error:"));
			CU_ASSERT_PTR_NOT_NULL(strstr(msg, "--force reads"));
			/* --force: a warning, the trace read, never more than was written */
			if (rf != 0 || !strstr(msg_f, "warning:") || strstr(msg_f, "error:"))
				fprintf(stderr, "\n  %s, --force: %d, '%s'", k->what, rf, msg_f);
			CU_ASSERT_EQUAL(rf, 0);
			CU_ASSERT(opened_f);
			CU_ASSERT(force_steps <= written + 1);
			CU_ASSERT_PTR_NOT_NULL(strstr(msg_f, "warning:"));
			CU_ASSERT_PTR_NULL(strstr(msg_f, "error:"));
		}
		free(msg);
		free(msg_f);
	}
}

static CU_TestInfo tests[] = {
	{ "each inconsistency is an error naming file and offset, a warning with --force",
	  test_checks },
	CU_TEST_INFO_NULL,
};

UNIT_SUITE(trace_checks, tests)
