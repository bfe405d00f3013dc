// SPDX-License-Identifier: GPL-2.0
/* The counting module: synthetic event sequences and a fake address map, expected tables. */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "util/counts.h"
#include "util/filter.h"
#include "util/symbols.h"
#include "util/trace_reader.h"
#include "tests/unit/unit.h"

/*
 * The fake address space of every process:
 *   0x1000-0x1fff  prog (main at 0x1000, helper at 0x1100, no symbol above 0x1200),
 *                  lines prog.c:N with N = (addr - 0x1000) / 16 + 1 below 0x1100
 *   0x7000-0x7fff  libc.so.6 (memcpy at 0x7000)
 *   0x9000-0x9fff  [vdso], no symbols
 *   0xa000-0xafff  libstd.so.6: two functions whose 400-byte names differ only in
 *                  their last characters (0xa000 "...::f(int)", 0xa100 "...::f(long)")
 *   elsewhere      unknown
 * After a MMAP task record, 0x1000-0x1fff is module "other" (symbol "start").
 */
static int remapped;
static char long_name_int[420], long_name_long[420];

/* "ns::ns::...::f(int)" and "(long)": 400 bytes alike, then different. */
static void make_long_names(void)
{
	memset(long_name_int, 'n', 400);
	memcpy(long_name_int + 400, "::f(int)", 9);
	memcpy(long_name_long, long_name_int, 400);
	memcpy(long_name_long + 400, "::f(long)", 10);
}
static int resolves;		  /* resolver calls: the cache must keep this low */
static struct sym_module *const fake_mod = (struct sym_module *)&remapped;

static void fake_resolve(void *arg, uint32_t pid, uint64_t addr, unsigned flags,
			 struct sym_loc *loc)
{
	(void)arg; (void)pid;
	resolves++;
	memset(loc, 0, sizeof(*loc));
	loc->kind = SYM_KIND_UNKNOWN;
	loc->module = loc->module_path = "[unknown]";
	if (addr >= 0x1000 && addr < 0x2000) {
		loc->kind = SYM_KIND_FILE;
		loc->mod = fake_mod;
		loc->module = remapped ? "other" : "prog";
		loc->module_path = remapped ? "/bin/other" : "/bin/prog";
		loc->module_offset = addr;
		if (remapped) {
			loc->symbol = "start";
			loc->sym_addr = 0x1000;
		} else if (addr < 0x1200) {
			loc->symbol = addr < 0x1100 ? "main" : "helper";
			loc->sym_addr = addr < 0x1100 ? 0x1000 : 0x1100;
		}
		loc->sym_offset = loc->symbol ? addr - loc->sym_addr : 0;
		if ((flags & SYM_LINES) && !remapped && addr < 0x1100) {
			loc->file = "prog.c";
			loc->line = (int)((addr - 0x1000) / 16 + 1);
		}
	} else if (addr >= 0x7000 && addr < 0x8000) {
		loc->kind = SYM_KIND_FILE;
		loc->mod = fake_mod;
		loc->module = "libc.so.6";
		loc->module_path = "/lib/libc.so.6";
		loc->module_offset = addr - 0x7000 + 0x28000;
		if (addr < 0x7100) {
			loc->symbol = "memcpy";
			loc->sym_addr = 0x7000;
			loc->sym_offset = addr - 0x7000;
		}
	} else if (addr >= 0x9000 && addr < 0xa000) {
		loc->kind = SYM_KIND_VDSO;
		loc->module = loc->module_path = "[vdso]";
	} else if (addr >= 0xa000 && addr < 0xb000) {
		loc->kind = SYM_KIND_FILE;
		loc->mod = fake_mod;
		loc->module = "libstd.so.6";
		loc->module_path = "/lib/libstd.so.6";
		loc->symbol = addr < 0xa100 ? long_name_int : long_name_long;
		loc->sym_addr = addr & ~0xffull;
		loc->sym_offset = addr - loc->sym_addr;
		loc->module_offset = addr;
	}
}

static void fake_task(void *arg, const struct trace_task_rec *rec)
{
	(void)arg;
	if (rec->type == PT_TASK_MMAP)
		remapped = 1;
}

/* Code: nop everywhere, "rep movsb" in memcpy. */
static size_t fake_code(void *arg, uint32_t pid, uint64_t addr, uint8_t *buf, size_t len)
{
	static const uint8_t nop[] = { 0x90 }, rep_movsb[] = { 0xf3, 0xa4 };

	(void)arg; (void)pid; (void)len;
	if (addr >= 0x7000 && addr < 0x7100) {
		memcpy(buf, rep_movsb, sizeof(rep_movsb));
		return sizeof(rep_movsb);
	}
	if (addr >= 0x1000 && addr < 0x2000) {
		memcpy(buf, nop, sizeof(nop));
		return sizeof(nop);
	}
	return 0;
}

static const char *fake_comm(void *arg, uint32_t tid)
{
	(void)arg;
	return tid == 10 ? "prog" : tid == 11 ? "worker" : NULL;
}

/* One row of input: n steps of (pid, tid) at pc; kind TEV_TASK means an MMAP record. */
struct ev_row {
	enum trace_ev_kind kind;
	uint32_t pid, tid;
	uint64_t pc;
	uint64_t n;
};

#define STEPS(pid, tid, pc, n) { TEV_STEP, pid, tid, pc, n }
#define MMAP { TEV_TASK, 10, 0, 0, 1 }
#define COUNT(pid, tid, n) { TEV_COUNT, pid, tid, 0, n }
#define LOST(n) { TEV_LOST, 10, 10, 0, n }

static const struct {
	const char *what;
	struct counts_options o;
	struct session_filter f;  /* a filter when any of it is set */
	struct ev_row evs[10];
	const char *want[8];	  /* "count|col|col...", in report order */
	uint64_t total, seen, lost;
} cases[] = {
	{ "symbols, ties by name, unknown and unnamed addresses kept",
	  { .by = COUNTS_BY_SYMBOL }, { 0 },
	  { STEPS(10, 10, 0x1000, 5), STEPS(10, 10, 0x1004, 5), STEPS(10, 10, 0x1100, 10),
	    STEPS(10, 10, 0x7000, 3), STEPS(10, 10, 0x1234, 2), STEPS(10, 10, 0x9010, 1),
	    STEPS(10, 10, 0x500000, 4) },
	  { "10|prog|helper", "10|prog|main", "4|[unknown]|[unknown]", "3|libc.so.6|memcpy",
	    "2|prog|prog+0x1234", "1|[vdso]|[vdso]" },
	  30, 30, 0 },
	{ "modules", { .by = COUNTS_BY_MODULE }, { 0 },
	  { STEPS(10, 10, 0x1000, 2), STEPS(10, 11, 0x1010, 2), STEPS(10, 10, 0x7008, 7),
	    STEPS(10, 10, 0x3000, 1) },
	  { "7|libc.so.6", "4|prog", "1|[unknown]" }, 12, 12, 0 },
	{ "processes and threads by name", { .by = COUNTS_BY_THREAD }, { 0 },
	  { STEPS(10, 10, 0x1000, 3), STEPS(10, 11, 0x1000, 5), STEPS(12, 12, 0x1000, 1),
	    STEPS(10, 10, 0x1000, 3) },
	  { "6|10|10 (prog)", "5|10|11 (worker)", "1|12|12 (?)" }, 12, 12, 0 },
	{ "processes", { .by = COUNTS_BY_PROCESS }, { 0 },
	  { STEPS(10, 10, 0x1000, 3), STEPS(10, 11, 0x1000, 5), STEPS(12, 12, 0x1000, 1) },
	  { "8|10 (prog)", "1|12 (?)" }, 9, 9, 0 },
	{ "source lines, a function without lines by name", { .by = COUNTS_BY_LINE }, { 0 },
	  { STEPS(10, 10, 0x1000, 1), STEPS(10, 10, 0x1004, 1), STEPS(10, 10, 0x1010, 5),
	    STEPS(10, 10, 0x7000, 2) },
	  { "5|prog|prog.c:2", "2|libc.so.6|memcpy", "2|prog|prog.c:1" }, 9, 9, 0 },
	{ "instructions: address, symbol+offset, disassembly; a rep insn per iteration",
	  { .by = COUNTS_BY_INSN }, { 0 },
	  { STEPS(10, 10, 0x7000, 100), STEPS(10, 10, 0x1004, 1), STEPS(10, 10, 0x500000, 1) },
	  { "100|0x7000|memcpy|rep movsb byte ptr [rdi], byte ptr [rsi]",
	    "1|0x500000|[unknown]|(code not available)", "1|0x1004|main+0x4|nop" }, 102, 102, 0 },
	{ "--pid and --tid filters", { .by = COUNTS_BY_SYMBOL }, { .pid = 10, .tid = 11 },
	  { STEPS(10, 10, 0x1000, 3), STEPS(10, 11, 0x1100, 5), STEPS(12, 11, 0x1000, 1) },
	  { "5|prog|helper" }, 5, 9, 0 },
	{ "--module filter by short name, with a thread report",
	  { .by = COUNTS_BY_THREAD }, { .module = "libc.so.6" },
	  { STEPS(10, 10, 0x1000, 3), STEPS(10, 11, 0x7000, 5), STEPS(10, 10, 0x7004, 1) },
	  { "5|10|11 (worker)", "1|10|10 (prog)" }, 6, 9, 0 },
	{ "--module filter by path", { .by = COUNTS_BY_SYMBOL }, { .module = "/bin/prog" },
	  { STEPS(10, 10, 0x1000, 3), STEPS(10, 11, 0x7000, 5) },
	  { "3|prog|main" }, 3, 8, 0 },
	{ "--module by the name before .so", { .by = COUNTS_BY_SYMBOL }, { .module = "libc" },
	  { STEPS(10, 10, 0x1000, 3), STEPS(10, 11, 0x7000, 5) },
	  { "5|libc.so.6|memcpy" }, 5, 8, 0 },
	{ "--symbol filter, by lines", { .by = COUNTS_BY_LINE }, { .symbol = "main" },
	  { STEPS(10, 10, 0x1000, 3), STEPS(10, 10, 0x1010, 2), STEPS(10, 10, 0x1100, 4) },
	  { "3|prog|prog.c:1", "2|prog|prog.c:2" }, 5, 9, 0 },
	{ "--ring kernel: user steps count in no row", { .by = COUNTS_BY_SYMBOL },
	  { .ring = SESSION_RING_KERNEL },
	  { STEPS(10, 10, 0x1000, 3) }, { NULL }, 0, 3, 0 },
	{ "names are never cut: 400 bytes alike, then different", { .by = COUNTS_BY_SYMBOL },
	  { 0 }, { STEPS(10, 10, 0xa000, 2), STEPS(10, 10, 0xa100, 1) },
	  { "2|libstd.so.6|*::f(int)", "1|libstd.so.6|*::f(long)" }, 3, 3, 0 },
	{ "a mapping change re-resolves cached addresses", { .by = COUNTS_BY_SYMBOL }, { 0 },
	  { STEPS(10, 10, 0x1000, 4), MMAP, STEPS(10, 10, 0x1000, 3) },
	  { "4|prog|main", "3|other|start" }, 7, 7, 0 },
	{ "count-only records and lost steps", { .by = COUNTS_BY_SYMBOL }, { 0 },
	  { STEPS(10, 10, 0x1000, 2), COUNT(10, 10, 40), LOST(9) },
	  { "40|[counted]|[counted]", "2|prog|main" }, 42, 42, 9 },
};

/* batch: steps given as one run of a thread (counts_steps), else one at a time */
static void feed(struct counts *c, const struct ev_row *r, bool batch)
{
	struct trace_task_rec mm = { .type = PT_TASK_MMAP, .c = { .pid = 10 } };
	struct trace_event ev;

	memset(&ev, 0, sizeof(ev));
	ev.kind = r->kind;
	ev.pid = r->pid;
	ev.tid = r->tid;
	ev.pc = r->pc;
	if (r->kind == TEV_TASK) {
		ev.task = &mm;
		counts_event(c, &ev);
		return;
	}
	if (r->kind != TEV_STEP) {
		ev.a = r->n;
		counts_event(c, &ev);
		return;
	}
	if (batch) {
		uint64_t pcs[128];

		CU_ASSERT_FATAL(r->n <= 128);
		for (uint64_t k = 0; k < r->n; k++)
			pcs[k] = r->pc;
		counts_steps(c, &ev, pcs, r->n);
		return;
	}
	for (uint64_t k = 0; k < r->n; k++)
		counts_event(c, &ev);
}

static void test_tables(void)
{
	struct counts_resolver res = {
		.resolve = fake_resolve, .task = fake_task, .read_code = fake_code,
		.comm = fake_comm,
	};

	for (size_t k = 0; k < 2 * sizeof(cases) / sizeof(cases[0]); k++) {
		bool batch = k & 1;	/* every case one step at a time, then in runs */
		struct counts *c;
		const struct counts_row *rows;
		const char *const *names;
		size_t n, nr_cols, want_n = 0;
		uint64_t sum = 0;

		const struct session_filter *sf = &cases[k / 2].f;
		struct counts_options o = cases[k / 2].o;
		struct filter fl;

		remapped = 0;
		make_long_names();
		filter_init(&fl, sf);
		if (sf->pid || sf->tid || sf->module || sf->symbol || sf->ring)
			o.filter = &fl;
		c = counts_new(&o, &res);
		CU_ASSERT_PTR_NOT_NULL_FATAL(c);
		for (size_t e = 0; e < 10 && cases[k / 2].evs[e].n; e++)
			feed(c, &cases[k / 2].evs[e], batch);
		nr_cols = counts_columns(cases[k / 2].o.by, &names);
		n = counts_result(c, &rows);
		while (want_n < 8 && cases[k / 2].want[want_n])
			want_n++;
		if (n != want_n)
			fprintf(stderr, "\n%s%s: %zu rows, expected %zu\n", cases[k / 2].what, batch ? " (in runs)" : "", n, want_n);
		CU_ASSERT_EQUAL(n, want_n);
		for (size_t i = 0; i < n; i++) {
			char got[512];
			size_t len = (size_t)snprintf(got, sizeof(got), "%llu",
						      (unsigned long long)rows[i].count);

			for (size_t col = 0; col < nr_cols; col++)
				len += (size_t)snprintf(got + len, sizeof(got) - len, "|%s",
							rows[i].cols[col]);
			sum += rows[i].count;
			/* "*" in a wanted row: the 400 bytes of a long name, then its tail */
			if (i < want_n && strchr(cases[k / 2].want[i], '*')) {
				const char *star = strchr(cases[k / 2].want[i], '*');
				size_t head = (size_t)(star - cases[k / 2].want[i]);

				if (strlen(got) > head + 400 && !strncmp(got, cases[k / 2].want[i], head) &&
				    !strcmp(got + head + 400, star + 1))
					continue;
				fprintf(stderr, "\n%s: row %zu is '%.40s...%s'\n", cases[k / 2].what, i,
					got, got + (strlen(got) > 20 ? strlen(got) - 20 : 0));
				CU_FAIL("row differs");
				continue;
			}
			if (i < want_n && strcmp(got, cases[k / 2].want[i])) {
				fprintf(stderr, "\n%s: row %zu is '%s', expected '%s'\n",
					cases[k / 2].what, i, got, cases[k / 2].want[i]);
				CU_FAIL("row differs");
			}
		}
		CU_ASSERT_EQUAL(sum, counts_total(c));
		CU_ASSERT_EQUAL(counts_total(c), cases[k / 2].total);
		CU_ASSERT_EQUAL(counts_seen(c), cases[k / 2].seen);
		CU_ASSERT_EQUAL(counts_lost(c), cases[k / 2].lost);
		counts_free(c);
		filter_free(&fl);
	}
}

/* A million steps over a hundred addresses resolve each address once. */
static void test_resolution_cached(void)
{
	struct counts_options o = { .by = COUNTS_BY_SYMBOL };
	struct counts_resolver res = { .resolve = fake_resolve };
	struct counts *c = counts_new(&o, &res);
	struct trace_event ev = { .kind = TEV_STEP, .pid = 10, .tid = 10 };
	const struct counts_row *rows;

	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	resolves = 0;
	for (unsigned k = 0; k < 1000000; k++) {
		ev.pc = 0x1000 + (k % 100) * 4;
		counts_event(c, &ev);
	}
	CU_ASSERT_EQUAL(resolves, 100);
	CU_ASSERT_EQUAL(counts_result(c, &rows), 2);	/* main and helper */
	CU_ASSERT_EQUAL(rows[0].count + rows[1].count, 1000000);
	counts_free(c);
}

/* The rows of steps given in runs (counts_steps) or one at a time (counts_event). */
static size_t count_rows(const uint64_t *pcs, size_t n, bool batch, uint64_t *count, size_t max,
			 uint64_t *total)
{
	struct counts_options o = { .by = COUNTS_BY_SYMBOL };
	struct counts_resolver res = { .resolve = fake_resolve, .task = fake_task };
	struct trace_task_rec mm = { .type = PT_TASK_MMAP, .c = { .pid = 10 } };
	struct trace_event ev = { .kind = TEV_STEP, .pid = 10, .tid = 10 };
	struct trace_event task = { .kind = TEV_TASK, .pid = 10, .task = &mm };
	struct counts *c = counts_new(&o, &res);
	const struct counts_row *rows;
	size_t nr;

	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	remapped = 0;
	for (size_t at = 0; at < n; at += 1000) {
		size_t len = n - at < 1000 ? n - at : 1000;

		if (at == n / 2)	/* halfway: a mapping change */
			counts_event(c, &task);
		if (batch) {
			counts_steps(c, &ev, pcs + at, len);
			continue;
		}
		for (size_t k = 0; k < len; k++) {
			ev.pc = pcs[at + k];
			counts_event(c, &ev);
		}
	}
	nr = counts_result(c, &rows);
	for (size_t i = 0; i < nr && i < max; i++)
		count[i] = rows[i].count;
	*total = counts_total(c);
	counts_free(c);
	remapped = 0;
	return nr;
}

/*
 * Runs over 40,000 addresses, branching as code does, the site table
 * growing and a mapping change halfway: the same rows as one step at a time.
 */
static void test_runs_match_steps(void)
{
	static uint64_t pcs[200000];
	uint64_t one[8] = { 0 }, runs[8] = { 0 }, total1, total2;
	uint32_t seed = 1;
	size_t n1, n2;

	for (size_t k = 0; k < 200000; k++) {
		seed = seed * 1103515245u + 12345u;
		/* a loop in main, calls into memcpy, and far code that grows the table */
		pcs[k] = k % 7 == 3 ? 0x7000 + (seed >> 16) % 0x100
			 : k % 5 == 0 ? 0x100000 + (uint64_t)((seed >> 8) % 40000) * 4
				      : 0x1000 + (k % 64) * 4;
	}
	n1 = count_rows(pcs, 200000, false, one, 8, &total1);
	n2 = count_rows(pcs, 200000, true, runs, 8, &total2);
	CU_ASSERT_EQUAL(n1, 4);	/* main, memcpy and [unknown]; after the change, start */
	CU_ASSERT_EQUAL(n2, n1);
	CU_ASSERT_EQUAL(total1, 200000);
	CU_ASSERT_EQUAL(total2, total1);
	for (size_t i = 0; i < 8; i++)
		CU_ASSERT_EQUAL(runs[i], one[i]);
}

/*
 * Code that runs the same way again, as loops do: blocks of 3 to 12
 * instructions in main (0x1000-0x10ff) and helper (0x1100-0x11ff), the
 * next block one of two at random, so that the same steps follow a site
 * many times, by either way; a mapping change halfway.  Counted in runs,
 * the rows are those of one step at a time.
 */
static void test_repeated_paths(void)
{
	static uint64_t pcs[300000];
	uint64_t one[8] = { 0 }, runs[8] = { 0 }, total1, total2;
	uint32_t seed = 7;
	size_t n = 0, b = 0, n1, n2;

	while (n < 300000) {
		/* block b: 3 + b instructions from 0x1000 + 0x40 * b (blocks 4 to 7 in helper) */
		for (size_t i = 0; i < 3 + b && n < 300000; i++)
			pcs[n++] = 0x1000 + 0x40 * b + 4 * i;
		seed = seed * 1103515245u + 12345u;
		b = (b + 1 + ((seed >> 16) & 1)) % 8;	/* the next block, or the one after */
	}
	n1 = count_rows(pcs, 300000, false, one, 8, &total1);
	n2 = count_rows(pcs, 300000, true, runs, 8, &total2);
	CU_ASSERT_EQUAL(n1, 3);	/* main and helper, then start */
	CU_ASSERT_EQUAL(n2, n1);
	CU_ASSERT_EQUAL(total1, 300000);
	CU_ASSERT_EQUAL(total2, total1);
	for (size_t i = 0; i < 8; i++)
		CU_ASSERT_EQUAL(runs[i], one[i]);
}

static void test_parse_by(void)
{
	static const struct {
		const char *s;
		int ret;
		enum counts_by by;
	} rows[] = {
		{ "process", 0, COUNTS_BY_PROCESS }, { "thread", 0, COUNTS_BY_THREAD },
		{ "module", 0, COUNTS_BY_MODULE }, { "symbol", 0, COUNTS_BY_SYMBOL },
		{ "line", 0, COUNTS_BY_LINE }, { "insn", 0, COUNTS_BY_INSN },
		{ "symbols", -1, 0 }, { "", -1, 0 }, { "Symbol", -1, 0 },
	};

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		enum counts_by by = COUNTS_BY_NR;

		CU_ASSERT_EQUAL(counts_parse_by(rows[i].s, &by), rows[i].ret);
		if (!rows[i].ret) {
			CU_ASSERT_EQUAL(by, rows[i].by);
			CU_ASSERT_STRING_EQUAL(counts_by_name(by), rows[i].s);
		}
	}
}

/* --ring: user steps, kernel steps, or all; count-only records only in the unfiltered total. */
static void test_ring_filter(void)
{
	static const struct {
		int ring;
		uint64_t total, main_count, helper_count;
	} rows[] = {
		{ SESSION_RING_ALL, 3 + 2 + 5, 3, 2 },
		{ SESSION_RING_USER, 3, 3, 0 },
		{ SESSION_RING_KERNEL, 2, 0, 2 },
	};
	struct counts_resolver res = { .resolve = fake_resolve };

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct counts_options o = { .by = COUNTS_BY_SYMBOL };
		struct session_filter sf = SESSION_FILTER_INIT;
		struct trace_event ev = { .kind = TEV_STEP, .pid = 10, .tid = 10 };
		const struct counts_row *crows;
		uint64_t main_count = 0, helper_count = 0;
		struct filter fl;
		struct counts *c;
		size_t n;

		sf.ring = rows[i].ring;
		filter_init(&fl, &sf);
		o.filter = &fl;
		c = counts_new(&o, &res);
		CU_ASSERT_PTR_NOT_NULL_FATAL(c);
		for (int k = 0; k < 3; k++) {	/* user: main */
			ev.pc = 0x1000 + 4 * k;
			ev.ring = 0;
			counts_event(c, &ev);
		}
		for (int k = 0; k < 2; k++) {	/* kernel: helper (the fake map has no kernel) */
			ev.pc = 0x1100 + 4 * k;
			ev.ring = 1;
			counts_event(c, &ev);
		}
		ev.kind = TEV_COUNT;
		ev.a = 5;
		counts_event(c, &ev);
		n = counts_result(c, &crows);
		for (size_t r = 0; r < n; r++) {
			if (!strcmp(crows[r].cols[1], "main"))
				main_count = crows[r].count;
			else if (!strcmp(crows[r].cols[1], "helper"))
				helper_count = crows[r].count;
		}
		CU_ASSERT_EQUAL(counts_total(c), rows[i].total);
		CU_ASSERT_EQUAL(counts_seen(c), 10);
		CU_ASSERT_EQUAL(main_count, rows[i].main_count);
		CU_ASSERT_EQUAL(helper_count, rows[i].helper_count);
		counts_free(c);
		filter_free(&fl);
	}
}

static CU_TestInfo tests[] = {
	{ "reports by every key match their tables", test_tables },
	{ "each address is resolved once", test_resolution_cached },
	{ "steps in runs count as one at a time", test_runs_match_steps },
	{ "code run the same way again counts as one at a time", test_repeated_paths },
	{ "--by values", test_parse_by },
	{ "--ring user, kernel, all", test_ring_filter },
	CU_TEST_INFO_NULL,
};

UNIT_SUITE(counts, tests)
