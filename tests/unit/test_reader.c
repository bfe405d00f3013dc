// SPDX-License-Identifier: GPL-2.0
/* libpitrace's reader (include/pitrace/reader.h): events, order, filters, stops, sizes. */
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <pitrace/reader.h>

#include "util/trace_writer.h"
#include "tests/unit/unit.h"

#define PID 4242

/*
 * Code the trace runs: two functions of this very program, without
 * branches, so that their steps are known (x86_64: the unit tests run on
 * the host).  caller: nop, call leaf, call leaf, ret; leaf: nop, nop, ret.
 */
#ifdef __x86_64__
__asm__(".text\n"
	".globl ut_reader_leaf\n.type ut_reader_leaf, @function\n"
	"ut_reader_leaf:\n\tnop\n\tnop\n\tret\n.size ut_reader_leaf, .-ut_reader_leaf\n"
	".globl ut_reader_caller\n.type ut_reader_caller, @function\n"
	"ut_reader_caller:\n\tnop\n\tcall ut_reader_leaf\n\tcall ut_reader_leaf\n\tret\n"
	".size ut_reader_caller, .-ut_reader_caller\n");
void ut_reader_leaf(void);
void ut_reader_caller(void);
#define HAVE_CODE 1
#endif /* __x86_64__ */

#define NR_STEPS 10

/* The trace's steps, by the code's layout above. */
static void steps_of(uint64_t *pc)
{
#ifdef HAVE_CODE
	uint64_t c = (uint64_t)(uintptr_t)ut_reader_caller, l = (uint64_t)(uintptr_t)ut_reader_leaf;
	const uint64_t seq[NR_STEPS] = { c, c + 1, l, l + 1, l + 2, c + 6, l, l + 1, l + 2, c + 11 };

	memcpy(pc, seq, sizeof(seq));
#else
	memset(pc, 0, NR_STEPS * sizeof(*pc));
#endif /* HAVE_CODE */
}

/* The mapping of this program that holds pc: its start, file offset and path. */
static int own_mapping(uint64_t pc, uint64_t *start, uint64_t *len, uint64_t *pgoff, char *path)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[PATH_MAX + 128];
	int found = -1;

	if (!f)
		return -1;
	while (found < 0 && fgets(line, sizeof(line), f)) {
		unsigned long long lo, hi, off;

		if (sscanf(line, "%llx-%llx %*s %llx %*s %*s %s", &lo, &hi, &off, path) == 4 &&
		    pc >= lo && pc < hi) {
			*start = lo;
			*len = hi - lo;
			*pgoff = off;
			found = 0;
		}
	}
	fclose(f);
	return found;
}

static char trace_path[PATH_MAX];

/* The trace: COMM, MMAP of the code, its ten steps, a gap, EXIT. */
static const char *make_trace(void)
{
	struct pt_task_mmap m = { .c = { .seq = 0, .pid = PID }, .prot = 5 };
	struct pt_task_comm comm = { .c = { .seq = 0, .pid = PID, .tid = PID } };
	struct pt_task_exit ex = { .c = { .seq = NR_STEPS, .pid = PID, .tid = PID }, .status = 0 };
	char path[PATH_MAX];
	uint64_t pc[NR_STEPS], start, len, pgoff;
	struct trace_writer *tw;
	struct tw_stream *st;

	if (trace_path[0])
		return trace_path;
	steps_of(pc);
	if (own_mapping(pc[0], &start, &len, &pgoff, path) < 0)
		return NULL;
	m.start = start;	/* the record is packed: no pointers into it */
	m.len = len;
	m.pgoff = pgoff;
	snprintf(trace_path, sizeof(trace_path), "%s/reader.data", unit_tmpdir());
	tw = tw_open(trace_path, &(struct tw_options){ 0 });
	if (!tw)
		return NULL;
	tw_task(tw, PT_TASK_COMM, &comm, sizeof(comm), "ut");
	tw_task(tw, PT_TASK_MMAP, &m, sizeof(m), path);
	st = tw_stream_open(tw, false, PID);
	tw_switch(st, PID, PID, 1000, 0);
	for (int k = 0; k < NR_STEPS; k++)
		tw_step(st, pc[k]);
	tw_gap(st, PT_GAP_DETACH);
	tw_task(tw, PT_TASK_EXIT, &ex, sizeof(ex), NULL);
	tw_stream_close(st);
	if (tw_close(tw, "complete"))
		return NULL;
	return trace_path;
}

/* What a pass told, one line per event ("S 3", "C leaf 2", "R leaf 2 3 3"...). */
struct told {
	struct ptr_reader *r;
	char log[4096];
	size_t len;
	int stop_at_call;	  /* return this from the first call (0: never stop) */
	uint64_t steps, base, calls;
};

static const char *fname(struct ptr_reader *r, uint32_t id)
{
	static struct ptr_func f;

	f.size = sizeof(f);
	if (id == PTR_NO_FUNC || ptr_get_func(r, id, &f))
		return "-";
	return strncmp(f.name, "ut_reader_", 10) ? f.name : f.name + 10;
}

#define TELL(t, ...) \
	((t)->len += (size_t)snprintf((t)->log + (t)->len, sizeof((t)->log) - (t)->len, __VA_ARGS__))

static int on_step(void *ctx, const struct ptr_step *s)
{
	struct told *t = ctx;

	TELL(t, "S%llu ", (unsigned long long)s->index);
	t->steps++;
	return 0;
}

static int on_call(void *ctx, const struct ptr_call *c)
{
	struct told *t = ctx;

	TELL(t, "C%u:%s>%s@%u ", c->kind, fname(t->r, c->caller), fname(t->r, c->callee),
	     c->depth);
	t->calls++;
	return t->stop_at_call;
}

static int on_ret(void *ctx, const struct ptr_return *r)
{
	struct told *t = ctx;

	TELL(t, "R%u:%s@%u:%llu/%llu ", r->kind, fname(t->r, r->func), r->depth,
	     (unsigned long long)r->base, (unsigned long long)r->cum);
	t->base += r->base;
	return 0;
}

static int on_task(void *ctx, const struct ptr_task *e)
{
	struct told *t = ctx;

	TELL(t, "T%u ", e->kind);
	return 0;
}

static int on_gap(void *ctx, const struct ptr_gap *e)
{
	struct told *t = ctx;

	TELL(t, "G%u:%llu ", e->kind, (unsigned long long)e->reason);
	return 0;
}

static struct ptr_reader *open_trace(void)
{
	const char *dir = make_trace();
	struct ptr_reader *r;
	int err = 1;

	CU_ASSERT_PTR_NOT_NULL_FATAL(dir);
	r = ptr_open(dir, NULL, &err);
	CU_ASSERT_EQUAL(err, 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	return r;
}

static const struct ptr_callbacks all_cb = {
	.size = sizeof(all_cb), .step = on_step, .call = on_call, .ret = on_ret,
	.task = on_task, .gap = on_gap,
};
static const struct ptr_callbacks calls_cb = {
	.size = sizeof(calls_cb), .call = on_call, .ret = on_ret,
};

/*
 * Each pass as a table row: what is asked, with which window, and what is
 * told in order.  The trace: caller (4 steps, Cum 10) calls leaf twice
 * (3 steps each); caller's last ret leaves the trace, so its frame ends
 * at the thread's exit (kind FLUSH).  A window's pass ends after its last
 * step: the frames open then end there (FLUSH), with the window's costs.
 */
static const struct {
	const char *what;
	const struct ptr_callbacks *cb;
	uint64_t from, to;
	const char *told;
} passes[] = {
	{ "every event, in order", &all_cb, 0, UINT64_MAX,
	  "T3 T5 C0:->caller@1 S0 S1 C1:caller>leaf@2 S2 S3 S4 R0:leaf@2:3/3 S5 "
	  "C1:caller>leaf@2 S6 S7 S8 R0:leaf@2:3/3 S9 G1:1 R3:caller@1:4/10 T4 " },
	{ "calls and returns only: the same ones", &calls_cb, 0, UINT64_MAX,
	  "C0:->caller@1 C1:caller>leaf@2 R0:leaf@2:3/3 C1:caller>leaf@2 R0:leaf@2:3/3 "
	  "R3:caller@1:4/10 " },
	{ "a window: the second call of leaf; the pass ends with it", &all_cb, 6, 8,
	  "T3 T5 C1:caller>leaf@2 S6 S7 S8 R3:leaf@2:3/3 R3:caller@1:0/3 " },
};

static void test_passes(void)
{
#ifndef HAVE_CODE
	return;
#endif /* HAVE_CODE */
	for (size_t k = 0; k < sizeof(passes) / sizeof(passes[0]); k++) {
		struct told t = { .r = open_trace() };
		struct ptr_filter f;

		ptr_filter_init(&f);
		f.from = passes[k].from;
		f.to = passes[k].to;
		CU_ASSERT_EQUAL(ptr_run(t.r, &f, passes[k].cb, &t), 0);
		if (strcmp(t.log, passes[k].told))
			fprintf(stderr, "\n%s:\n  told     %s\n  expected %s\n", passes[k].what,
				t.log, passes[k].told);
		CU_ASSERT_STRING_EQUAL(t.log, passes[k].told);
		ptr_close(t.r);
	}
}

/* A pass stops where a callback says, and says what it returned. */
static void test_stop(void)
{
	struct told t = { .r = open_trace(), .stop_at_call = 7 };

	CU_ASSERT_EQUAL(ptr_run(t.r, NULL, &all_cb, &t), 7);
	CU_ASSERT_EQUAL(t.calls, 1);
	CU_ASSERT_EQUAL(t.steps, 0);
	CU_ASSERT_STRING_EQUAL(t.log, "T3 T5 C0:->caller@1 ");
	/* the next pass starts afresh */
	t.stop_at_call = 0;
	t.len = 0;
	t.log[0] = 0;
	t.steps = t.calls = 0;
	CU_ASSERT_EQUAL(ptr_run(t.r, NULL, &all_cb, &t), 0);
	CU_ASSERT_EQUAL(t.steps, NR_STEPS);
	CU_ASSERT_EQUAL(t.calls, 3);
	ptr_close(t.r);
}

/* An older caller's struct: the library reads no field past its size. */
static void test_sizes(void)
{
	struct ptr_callbacks old = all_cb;
	struct told t = { .r = open_trace() };
	struct ptr_pass_stats st = { .size = sizeof(st) };
	struct ptr_func fn = { .size = offsetof(struct ptr_func, name) };

	old.size = offsetof(struct ptr_callbacks, ret);	/* step and call, no ret */
	CU_ASSERT_EQUAL(ptr_run(t.r, NULL, &old, &t), 0);
	CU_ASSERT_EQUAL(t.base, 0);
	CU_ASSERT_EQUAL(t.calls, 3);
	CU_ASSERT_EQUAL(t.steps, NR_STEPS);
	old.size = 0;
	CU_ASSERT_EQUAL(ptr_run(t.r, NULL, &old, &t), PTR_ERR_VERSION);
	CU_ASSERT_EQUAL(ptr_get_pass_stats(t.r, &st), 0);
	CU_ASSERT_EQUAL(st.steps, NR_STEPS);
	/* a struct passed out is cut to the caller's size, and says so */
	CU_ASSERT_EQUAL(ptr_get_func(t.r, 0, &fn), 0);
	CU_ASSERT_EQUAL(fn.size, offsetof(struct ptr_func, name));
	CU_ASSERT(!PTR_HAS(&fn, name));
	fn.size = sizeof(fn);
	CU_ASSERT_EQUAL(ptr_get_func(t.r, 0, &fn), 0);
	CU_ASSERT(PTR_HAS(&fn, addr));
	CU_ASSERT_EQUAL(ptr_get_func(t.r, ptr_nr_funcs(t.r), &fn), PTR_ERR_USAGE);
	ptr_close(t.r);
}

/* pc resolves to the caller's call (its symbol where the test program's code is readable). */
static void resolve_caller(struct ptr_reader *r, uint64_t pc, const char *when)
{
	struct ptr_location loc = { .size = sizeof(loc) };
	int err = ptr_resolve(r, PID, pc, 0, &loc);

	if (err)
		fprintf(stderr, "\nresolve %s: %s\n", when, ptr_strerror(err));
	CU_ASSERT_EQUAL_FATAL(err, 0);
#ifdef HAVE_CODE
	CU_ASSERT_STRING_EQUAL(loc.symbol, "ut_reader_caller");
	CU_ASSERT_EQUAL(loc.symbol_offset, 1);
	CU_ASSERT_EQUAL(loc.insn_class, PTR_INSN_CALL);
	CU_ASSERT_EQUAL(loc.len, 5);
	CU_ASSERT_EQUAL(loc.bytes[0], 0xe8);
	CU_ASSERT_PTR_NOT_NULL(strstr(loc.text, "call"));
#endif /* HAVE_CODE */
}

static int row_none(void *ctx, const struct ptr_row *row)
{
	(void)ctx;
	(void)row;
	return 0;
}

/* Addresses at any time: before any pass, after passes of every kind, stopped or not. */
static void test_resolve(void)
{
	static const char *const tabs[][2] = {
		{ "profile", NULL }, { "arcs", NULL }, { "tree", "merged" }, { "counts", "line" },
	};
	struct ptr_reader *r = open_trace();
	struct ptr_location loc = { .size = sizeof(loc) };
	uint64_t pc[NR_STEPS];

	steps_of(pc);
	resolve_caller(r, pc[1], "before any pass");
	CU_ASSERT_EQUAL(ptr_run(r, NULL, &calls_cb, &(struct told){ .r = r }), 0);
	resolve_caller(r, pc[1], "after a pass");
	for (size_t k = 0; k < sizeof(tabs) / sizeof(tabs[0]); k++) {
		CU_ASSERT_EQUAL(ptr_table(r, NULL, tabs[k][0], tabs[k][1], row_none, NULL), 0);
		resolve_caller(r, pc[1], tabs[k][0]);
	}
	CU_ASSERT_EQUAL(ptr_run(r, NULL, &calls_cb, &(struct told){ .r = r, .stop_at_call = 7 }),
			7);
	resolve_caller(r, pc[1], "after a stopped pass");
	CU_ASSERT_EQUAL(ptr_resolve(r, PID + 1, 0x1000, 0, &loc), 0);
	CU_ASSERT_STRING_EQUAL(loc.module, "[unknown]");
	CU_ASSERT_PTR_NULL(loc.symbol);
	ptr_close(r);
	/* a pass after resolving before any: the address space built once, every event told */
	r = open_trace();
	resolve_caller(r, pc[1], "before any pass");
	CU_ASSERT_EQUAL(ptr_run(r, NULL, &all_cb, &(struct told){ .r = r }), 0);
	CU_ASSERT_EQUAL(ptr_table(r, NULL, "profile", NULL, row_none, NULL), 0);
	ptr_close(r);
}

/* ptr_get_pass_stats inside a callback: the last finished pass's figures. */
static int call_stats(void *ctx, const struct ptr_call *c)
{
	struct told *t = ctx;
	struct ptr_pass_stats st = { .size = sizeof(st) };
	int err = ptr_get_pass_stats(t->r, &st);

	(void)c;
	t->steps = err ? (uint64_t)err : st.steps;
	return 1;
}

/* Pass figures: none before a pass; a pass's once it is over, kept while the next runs. */
static void test_stats(void)
{
	static const struct ptr_callbacks stats_cb = { .size = sizeof(stats_cb),
						       .call = call_stats };
	struct told t = { .r = open_trace() };
	struct ptr_pass_stats st = { .size = sizeof(st) };
	struct ptr_filter f;

	CU_ASSERT_EQUAL(ptr_get_pass_stats(t.r, &st), PTR_ERR_STATE);
	CU_ASSERT_EQUAL(ptr_run(t.r, NULL, &stats_cb, &t), 1);
	CU_ASSERT_EQUAL(t.steps, (uint64_t)PTR_ERR_STATE);
	/* a table pass has figures too: every step read */
	CU_ASSERT_EQUAL(ptr_table(t.r, NULL, "counts", NULL, row_none, NULL), 0);
	CU_ASSERT_EQUAL(ptr_get_pass_stats(t.r, &st), 0);
	CU_ASSERT_EQUAL(st.steps, NR_STEPS);
	/* a window's pass, then one that looks at its figures while it runs */
	ptr_filter_init(&f);
	f.to = 2;
	CU_ASSERT_EQUAL(ptr_run(t.r, &f, &calls_cb, &(struct told){ .r = t.r }), 0);
	CU_ASSERT_EQUAL(ptr_get_pass_stats(t.r, &st), 0);
	CU_ASSERT_EQUAL(st.steps_in_window, 3);
	t.steps = 0;
	CU_ASSERT_EQUAL(ptr_run(t.r, NULL, &stats_cb, &t), 1);
	CU_ASSERT_EQUAL(t.steps, st.steps);
	CU_ASSERT_EQUAL(ptr_get_pass_stats(t.r, &st), 0);
	CU_ASSERT(st.steps > 0);
	ptr_close(t.r);
}

/* Bad input: a clear error code, never a crash. */
static void test_errors(void)
{
	struct ptr_open_options o = { .size = 0 };
	struct ptr_trace_info info = { .size = sizeof(info) };
	struct ptr_location loc = { .size = sizeof(loc) };
	struct ptr_reader *r;
	struct ptr_filter f;
	char missing[PATH_MAX];
	int err = 0;

	CU_ASSERT_EQUAL(ptr_version() >> 16, PTR_VERSION_MAJOR);
	CU_ASSERT(ptr_version() >= PTR_VERSION_CURRENT);
	CU_ASSERT_PTR_NULL(ptr_open(NULL, NULL, &err));
	CU_ASSERT_EQUAL(err, PTR_ERR_USAGE);
	CU_ASSERT_PTR_NULL(ptr_open(make_trace(), &o, &err));
	CU_ASSERT_EQUAL(err, PTR_ERR_USAGE);
	snprintf(missing, sizeof(missing), "%s/no-such-trace", unit_tmpdir());
	CU_ASSERT_PTR_NULL(ptr_open(missing, NULL, &err));
	CU_ASSERT_EQUAL(err, PTR_ERR_RUNTIME);
	r = open_trace();
	ptr_filter_init(&f);
	f.ring = 7;
	CU_ASSERT_EQUAL(ptr_run(r, &f, &calls_cb, NULL), PTR_ERR_USAGE);
	ptr_filter_init(&f);
	f.symbol = "re:(";
	CU_ASSERT_EQUAL(ptr_run(r, &f, &calls_cb, NULL), PTR_ERR_USAGE);
	CU_ASSERT_EQUAL(ptr_run(r, NULL, NULL, NULL), PTR_ERR_USAGE);
	/* a pass that could not start leaves the last one's answers */
	CU_ASSERT_EQUAL(ptr_run(r, NULL, &calls_cb, &(struct told){ .r = r }), 0);
	CU_ASSERT_EQUAL(ptr_run(r, &f, &calls_cb, NULL), PTR_ERR_USAGE);
	CU_ASSERT_EQUAL(ptr_get_trace_info(r, &info), 0);
	CU_ASSERT(info.format_version > 0);
	CU_ASSERT_EQUAL(info.steps, NR_STEPS);
	CU_ASSERT(ptr_nr_funcs(r) > 0);
	CU_ASSERT_EQUAL(ptr_resolve(r, PID, 0x1000, 0, &loc), 0);
	CU_ASSERT_STRING_EQUAL(ptr_strerror(PTR_ERR_STATE), "not possible now");
	ptr_close(r);
}

/* A symbol filter: steps of the functions it takes, calls into them. */
static void test_symbol_filter(void)
{
	struct told t = { .r = open_trace() };
	struct ptr_filter f;

	ptr_filter_init(&f);
	f.symbol = "ut_reader_leaf";
	CU_ASSERT_EQUAL(ptr_run(t.r, &f, &all_cb, &t), 0);
#ifdef HAVE_CODE
	CU_ASSERT_STRING_EQUAL(t.log, "T3 T5 C1:caller>leaf@2 S2 S3 S4 R0:leaf@2:3/3 "
				      "C1:caller>leaf@2 S6 S7 S8 R0:leaf@2:3/3 G1:1 T4 ");
#endif /* HAVE_CODE */
	ptr_close(t.r);
}

/* Rows as "name=value|..." lines: what a table told. */
struct rows {
	char log[2048];
	size_t len;
	int stop_after;		  /* return this from the first row (0: never stop) */
};

static int table_row(void *ctx, const struct ptr_row *row)
{
	struct rows *t = ctx;

	for (uint32_t k = 0; k < row->nr_cols; k++) {
		const char *v = row->str[k] ? row->str[k] : "-";
		char num[32];

		if (!(row->text & (1u << k))) {
			snprintf(num, sizeof(num), "%llu", (unsigned long long)row->num[k]);
			v = num;
		} else if (!strncmp(v, "ut_reader_", 10)) {
			v += 10;
		}
		if (!strcmp(row->names[k], "module") || !strcmp(row->names[k], "caller_module") ||
		    !strcmp(row->names[k], "callee_module") || !strcmp(row->names[k], "pid") ||
		    !strcmp(row->names[k], "tid"))
			continue;	/* the test program's name, the thread: known elsewhere */
		t->len += (size_t)snprintf(t->log + t->len, sizeof(t->log) - t->len, "%s%s=%s",
					   k ? "|" : "", row->names[k], v);
	}
	t->len += (size_t)snprintf(t->log + t->len, sizeof(t->log) - t->len, " ");
	return t->stop_after;
}

static const struct {
	const char *table, *by, *rows;
} tables[] = {
	{ "profile", NULL, "function=leaf|calls=2|base=6|cum=6 function=caller|calls=0|base=4|cum=10 " },
	{ "arcs", NULL, "caller=-|callee=caller|calls=0|base=4|cum=10 "
			"caller=caller|callee=leaf|calls=2|base=6|cum=6 " },
	{ "tree", NULL, "|depth=0|function=caller|calls=0|base=4|cum=10 "
			"|depth=1|function=leaf|calls=2|base=6|cum=6 " },
	{ "counts", "symbol", "|symbol=leaf|count=6 |symbol=caller|count=4 " },
};

/* post's tables through ptr_table: the rows of the trace's two functions, and errors. */
static void test_tables(void)
{
	struct ptr_reader *r = open_trace();
	struct rows t = { .stop_after = 0 };
	struct told told = { .r = r };

	for (size_t k = 0; k < sizeof(tables) / sizeof(tables[0]); k++) {
		t.len = 0;
		t.log[0] = 0;
		CU_ASSERT_EQUAL(ptr_table(r, NULL, tables[k].table, tables[k].by, table_row, &t), 0);
#ifdef HAVE_CODE
		if (strcmp(t.log, tables[k].rows))
			fprintf(stderr, "\n%s:\n  told     %s\n  expected %s\n", tables[k].table,
				t.log, tables[k].rows);
		CU_ASSERT_STRING_EQUAL(t.log, tables[k].rows);
#endif /* HAVE_CODE */
	}
	t.stop_after = 5;
	t.len = 0;
	CU_ASSERT_EQUAL(ptr_table(r, NULL, "profile", NULL, table_row, &t), 5);
	CU_ASSERT_EQUAL(ptr_table(r, NULL, "flow", NULL, table_row, &t), PTR_ERR_USAGE);
	CU_ASSERT_EQUAL(ptr_table(r, NULL, "counts", "color", table_row, &t), PTR_ERR_USAGE);
	CU_ASSERT_EQUAL(ptr_table(r, NULL, "profile", "symbol", table_row, &t), PTR_ERR_USAGE);
	CU_ASSERT_EQUAL(ptr_table(NULL, NULL, "profile", NULL, table_row, &t), PTR_ERR_USAGE);
	/* a pass after a table pass: every event again */
	CU_ASSERT_EQUAL(ptr_run(r, NULL, &all_cb, &told), 0);
	CU_ASSERT_EQUAL(told.steps, NR_STEPS);
	ptr_close(r);
}

static CU_TestInfo tests[] = {
	{ "events in order, calls only, a window", test_passes },
	{ "a callback stops the pass", test_stop },
	{ "structs of other sizes", test_sizes },
	{ "addresses resolved", test_resolve },
	{ "pass figures", test_stats },
	{ "bad input", test_errors },
	{ "a symbol filter", test_symbol_filter },
	{ "post's tables", test_tables },
	CU_TEST_INFO_NULL,
};

UNIT_SUITE(reader, tests)
