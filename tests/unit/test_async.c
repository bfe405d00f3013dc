// SPDX-License-Identifier: GPL-2.0
/*
 * Interrupt and exception records (ASYNC kinds INTERRUPT, EXCEPTION, IRQ):
 * the reader decodes their short and long payloads, and the call-flow
 * engine treats them as information -- a run with them between its steps
 * gives exactly the frames, counts and arcs of the same run without them.
 */
#include <stdio.h>
#include <string.h>

#include "arch/arch_vectors.h"
#include "util/arcs.h"
#include "util/callflow.h"
#include "util/stepcodec.h"
#include "util/trace_reader.h"
#include "tests/unit/unit.h"

/* ---- payload decoding ---- */

/* Build an ASYNC payload: kind, number, then (when ring >= 0) the v3 detail. */
static size_t build_payload(uint8_t *out, uint64_t kind, uint64_t number, int ring, uint64_t pc,
			    uint64_t address, uint64_t error)
{
	struct ctl_payload p = { .len = 0 };

	ctl_put_uleb(&p, kind);
	ctl_put_uleb(&p, number);
	if (ring >= 0) {
		ctl_put_uleb(&p, (uint64_t)ring);
		ctl_put_u64(&p, pc);
		ctl_put_u64(&p, address);
		ctl_put_uleb(&p, error);
	}
	memcpy(out, p.buf, p.len);
	return p.len;
}

static void test_decode(void)
{
	static const struct {
		const char *what;
		uint64_t kind, number;
		int ring;		  /* -1: short (v2) payload */
		uint64_t pc, address, error;
		int cut;		  /* bytes removed from the end */
		int extra;		  /* bytes of a newer writer appended */
		int ret;
		bool detail;
	} rows[] = {
		{ "signal, short", PT_ASYNC_SIGNAL, 10, -1, 0, 0, 0, 0, 0, 0, false },
		{ "page fault, long", PT_ASYNC_EXCEPTION, 14, 0, 0x401136, 0x7f0000001000, 6, 0, 0,
		  0, true },
		{ "timer in the kernel", PT_ASYNC_INTERRUPT, 236, 1, 0xffffffff81001234ull, 0, 0, 0,
		  0, 0, true },
		{ "irq, ring unknown", PT_ASYNC_IRQ, 11, PT_ASYNC_RING_UNKNOWN, 0, 0, 0, 0, 0, 0,
		  true },
		{ "interrupt, short (v2 writer)", PT_ASYNC_INTERRUPT, 236, -1, 0, 0, 0, 0, 0, 0,
		  false },
		{ "detail cut short: none", PT_ASYNC_EXCEPTION, 14, 0, 0x401136, 0x1000, 6, 3, 0, 0,
		  false },
		{ "newer writer's extra fields ignored", PT_ASYNC_EXCEPTION, 14, 0, 0x401136,
		  0x1000, 7, 0, 4, 0, true },
		{ "kind only: malformed", PT_ASYNC_IRQ, 1, -1, 0, 0, 0, 1, 0, -1, false },
	};

	for (size_t r = 0; r < sizeof(rows) / sizeof(rows[0]); r++) {
		uint8_t buf[64];
		struct trace_async as;
		size_t len = build_payload(buf, rows[r].kind, rows[r].number, rows[r].ring,
					   rows[r].pc, rows[r].address, rows[r].error);
		int ret;

		memset(buf + len, 0x01, (size_t)rows[r].extra);
		len = len + (size_t)rows[r].extra - (size_t)rows[r].cut;
		ret = trace_async_decode(buf, len, &as);
		CU_ASSERT_EQUAL(ret, rows[r].ret);
		if (ret != rows[r].ret)
			fprintf(stderr, "\n  %s: returned %d", rows[r].what, ret);
		if (ret < 0)
			continue;
		CU_ASSERT_EQUAL(as.kind, rows[r].kind);
		CU_ASSERT_EQUAL(as.number, rows[r].number);
		CU_ASSERT_EQUAL(as.detail, rows[r].detail);
		if (as.detail != rows[r].detail)
			fprintf(stderr, "\n  %s: detail %d", rows[r].what, as.detail);
		if (!rows[r].detail) {
			CU_ASSERT(as.pc == 0 && as.address == 0 && as.error == 0);
			continue;
		}
		CU_ASSERT_EQUAL(as.ring, rows[r].ring);
		CU_ASSERT_EQUAL(as.pc, rows[r].pc);
		CU_ASSERT_EQUAL(as.address, rows[r].address);
		CU_ASSERT_EQUAL(as.error, rows[r].error);
	}
	CU_ASSERT(pt_async_is_info(PT_ASYNC_INTERRUPT) && pt_async_is_info(PT_ASYNC_EXCEPTION) &&
		  pt_async_is_info(PT_ASYNC_IRQ));
	CU_ASSERT(!pt_async_is_info(PT_ASYNC_SIGNAL) && !pt_async_is_info(PT_ASYNC_SIGRETURN));
	CU_ASSERT_STRING_EQUAL(trace_async_kind_name(PT_ASYNC_IRQ), "irq");
	CU_ASSERT_STRING_EQUAL(trace_async_kind_name(99), "unknown");
}

/* ---- names (x86_64: the vectors Linux assigns, the #PF error code bits) ---- */

static void test_names(void)
{
	static const struct {
		uint64_t vector;
		const char *name;
	} interrupts[] = {
		{ 236, "local timer" },	{ 253, "reschedule" },	   { 252, "call function" },
		{ 251, "call function single" },			   { 246, "irq work" },
		{ 247, "platform IPI" }, { 255, "spurious APIC" }, { 100, NULL },
	};
	static const struct {
		uint64_t error;
		const char *words;
	} faults[] = {
		{ 0x6, "write, not present" },		  /* user store to a fresh page */
		{ 0x4, "read, not present" },
		{ 0x2, "write, not present, kernel mode" }, /* copy_to_user */
		{ 0x7, "write, protection" },		  /* store to a read-only page */
		{ 0x15, "instruction fetch, protection" }, /* NX */
		{ 0x25, "read, protection, protection key" },
	};
	char buf[128];

	for (size_t i = 0; i < sizeof(interrupts) / sizeof(interrupts[0]); i++) {
		const char *n = arch_interrupt_name(interrupts[i].vector);

		if (interrupts[i].name) {
			CU_ASSERT(n && !strcmp(n, interrupts[i].name));
		} else {
			CU_ASSERT_PTR_NULL(n);
		}
	}
	for (size_t i = 0; i < sizeof(faults) / sizeof(faults[0]); i++) {
		arch_page_fault_describe(faults[i].error, buf, sizeof(buf));
		CU_ASSERT_STRING_EQUAL(buf, faults[i].words);
	}
	CU_ASSERT(arch_exception_is_page_fault(14) && !arch_exception_is_page_fault(13));
	CU_ASSERT_STRING_EQUAL(arch_exception_name(14), "page fault");
	CU_ASSERT_PTR_NULL(arch_exception_name(300));
}

/* ---- the call-flow rule ---- */

#define KBASE 0xffffffff81000000ull

/* A made-up program: main calls f, f calls g twice and makes a system call. */
static const struct {
	const char *name;
	uint64_t start, end;
} fns[] = {
	{ "main", 0x1000, 0x2000 },
	{ "f", 0x2000, 0x3000 },
	{ "g", 0x3000, 0x4000 },
	{ "handler", 0x5000, 0x6000 },
	{ "restorer", 0x6000, 0x7000 },
	{ "sys_read", KBASE, KBASE + 0x1000 },
	{ "copy_user", KBASE + 0x1000, KBASE + 0x2000 },
};

static const struct {
	uint64_t pc;
	unsigned cls, len;
	uint64_t target;
} insns[] = {
	{ 0x1001, ARCH_INSN_CALL, 5, 0x2000 },
	{ 0x2001, ARCH_INSN_CALL, 5, 0x3000 },
	{ 0x2006, ARCH_INSN_CALL, 5, 0x3000 },
	{ 0x200b, ARCH_INSN_SYSCALL, 2, 0 },
	{ 0x200e, ARCH_INSN_RET, 1, 0 },
	{ 0x3002, ARCH_INSN_RET, 1, 0 },
	{ 0x5001, ARCH_INSN_RET, 1, 0 },
	{ 0x6001, ARCH_INSN_SYSCALL, 2, 0 },
	{ KBASE + 1, ARCH_INSN_CALL, 5, KBASE + 0x1000 },
	{ KBASE + 0x1001, ARCH_INSN_RET, 1, 0 },
	{ KBASE + 7, ARCH_INSN_RET, 1, 0 },
	{ 0x1007, ARCH_INSN_SYSCALL, 2, 0 },
};

static void site(void *ctx, struct callflow *cf, uint32_t pid, uint64_t pc, uint8_t ring,
		 struct cf_site *out)
{
	(void)ctx; (void)pid; (void)ring;
	out->insn.cls = ARCH_INSN_OTHER;
	out->insn.len = 1;
	out->insn.flags = 0;
	for (size_t i = 0; i < sizeof(insns) / sizeof(insns[0]); i++) {
		if (insns[i].pc != pc)
			continue;
		out->insn.cls = (uint8_t)insns[i].cls;
		out->insn.len = (uint8_t)insns[i].len;
		out->insn.target = insns[i].target;
		out->insn.flags = insns[i].target ? ARCH_INSN_HAS_TARGET : ARCH_INSN_INDIRECT;
	}
	for (size_t f = 0; f < sizeof(fns) / sizeof(fns[0]); f++)
		if (pc >= fns[f].start && pc < fns[f].end) {
			out->fn = cf_func_intern(cf, "prog", "/prog", fns[f].name, fns[f].start);
			out->entry = pc == fns[f].start;
			return;
		}
	out->fn = cf_func_intern(cf, "prog", "/prog", "[unknown]", 0);
}

/* One event: a step at pc (ring 1 in the kernel), or an ASYNC record of kind. */
struct ev {
	uint64_t pc;
	uint8_t ring;
	unsigned kind;
	uint64_t number;
};
#define S(p) { .pc = p }
#define SK(p) { .pc = p, .ring = 1 }
#define A(k, n) { .kind = k, .number = n }

/*
 * main 1000 1001(call f); f 2000 2001(call g); g 3000 3001 3002(ret); f 2006
 * (call g); g 3000 3001 3002; f 200b(syscall) -> kernel sys_read 0..1(call
 * copy_user) copy_user 1000 1001(ret) sys_read 6 7(ret); f 200d 200e(ret);
 * main 1006 1007 (exit); with a signal handler taken in g's second call.
 */
static const struct ev plain[] = {
	S(0x1000), S(0x1001), S(0x2000), S(0x2001), S(0x3000), S(0x3001), S(0x3002),
	S(0x2006), S(0x3000), A(PT_ASYNC_SIGNAL, 10), S(0x5000), S(0x5001), S(0x6000),
	S(0x6001), A(PT_ASYNC_SIGRETURN, 0), S(0x3001), S(0x3002), S(0x200b), SK(KBASE),
	SK(KBASE + 1), SK(KBASE + 0x1000), SK(KBASE + 0x1001), SK(KBASE + 6), SK(KBASE + 7),
	S(0x200d), S(0x200e), S(0x1006), S(0x1007), { 0 },
};

/*
 * The informational records put between steps, each after the step of the
 * instruction it interrupted (pc), as the driver writes them.
 */
static const struct {
	size_t before;		  /* inserted before plain[before] */
	unsigned kind;
	uint64_t number;
	uint8_t ring;
	uint64_t pc;
} extras[] = {
	{ 1, PT_ASYNC_INTERRUPT, 236, 0, 0x1001 },	  /* timer before main's call */
	{ 3, PT_ASYNC_EXCEPTION, 14, 0, 0x2001 },	  /* fault at a call */
	{ 3, PT_ASYNC_IRQ, 11, 0, 0x2001 },
	{ 7, PT_ASYNC_EXCEPTION, 14, 0, 0x3002 },	  /* fault at a return */
	{ 11, PT_ASYNC_INTERRUPT, 253, 0, 0x5000 },	  /* in the signal handler */
	{ 14, PT_ASYNC_EXCEPTION, 14, 0, 0x6001 },	  /* at the sigreturn syscall */
	{ 18, PT_ASYNC_INTERRUPT, 236, 0, 0x200b },	  /* at the syscall instruction */
	{ 21, PT_ASYNC_EXCEPTION, 14, 1, KBASE + 0x1000 }, /* copy_user faults */
	{ 21, PT_ASYNC_EXCEPTION, 13, 1, KBASE + 0x1000 },
	{ 25, PT_ASYNC_INTERRUPT, 236, 2, 0 },		  /* ring unknown */
	{ 27, PT_ASYNC_EXCEPTION, 14, 0, 0x1006 },	  /* before the last step */
};
#define NR_EXTRAS (sizeof(extras) / sizeof(extras[0]))

struct seen {
	uint64_t marks, calls;
	char fn[NR_EXTRAS][16];
};

static void on_mark(void *ctx, struct cf_thread *t, enum cf_mark m, uint64_t index)
{
	(void)t; (void)index;
	((struct seen *)ctx)->marks += m == CF_MARK_INTERRUPT;
}

static struct callflow *seen_cf;

static void on_interrupt(void *ctx, struct cf_thread *t, const struct cf_interrupt *in)
{
	struct seen *s = ctx;

	(void)t;
	if (s->calls < NR_EXTRAS)
		snprintf(s->fn[s->calls], sizeof(s->fn[0]), "%s",
			 in->fn == CF_NO_FN ? "-" : cf_func(seen_cf, in->fn)->name);
	s->calls++;
}

static const struct cf_consumer_ops seen_ops = { .mark = on_mark, .interrupt = on_interrupt };

/* Does the step at pc start a block, after the instruction at prev? */
static bool block_start(struct callflow *cf, uint64_t prev, uint64_t pc)
{
	struct cf_site s;

	memset(&s, 0, sizeof(s));
	site(NULL, cf, 1, prev, 0, &s);
	return !((s.insn.cls == ARCH_INSN_OTHER || s.insn.cls == ARCH_INSN_COND) &&
		 pc == prev + s.insn.len);
}

/* Run plain[], with the extras or not, as steps or as block starts. */
static struct arcs *run(bool with_extras, bool block, struct seen *seen)
{
	struct cf_source src = { .site = site };
	struct callflow *cf = cf_new(&src);
	struct arcs *a = arcs_new(cf);
	uint64_t index = 0, prev = 0;

	seen_cf = cf;
	if (seen)
		cf_add_consumer(cf, &seen_ops, seen);
	cf_set_block_mode(cf, block);
	for (size_t i = 0; plain[i].pc || plain[i].kind; i++) {
		struct trace_event ev = { .pid = 1, .tid = 1, .cpu = 0 };

		for (size_t x = 0; with_extras && x < NR_EXTRAS; x++) {
			if (extras[x].before != i)
				continue;
			ev.kind = TEV_ASYNC;
			ev.index = index;
			ev.a = ev.async.kind = extras[x].kind;
			ev.b = ev.async.number = extras[x].number;
			ev.async.detail = true;
			ev.async.ring = extras[x].ring;
			ev.async.pc = extras[x].pc;
			ev.async.address = extras[x].number == 14 ? 0x7f0000000000 : 0;
			cf_event(cf, &ev);
		}
		memset(&ev.async, 0, sizeof(ev.async));
		if (plain[i].kind) {
			ev.kind = TEV_ASYNC;
			ev.index = index;
			ev.a = plain[i].kind;
			ev.b = plain[i].number;
			cf_event(cf, &ev);
			continue;
		}
		if (!block || !prev || block_start(cf, prev, plain[i].pc)) {
			ev.kind = TEV_STEP;
			ev.pc = plain[i].pc;
			ev.ring = plain[i].ring;
			ev.index = index++;
			cf_event(cf, &ev);
		}
		prev = plain[i].pc;
	}
	cf_finish(cf);
	return a;
}

static uint32_t fn_id(struct callflow *cf, const char *name)
{
	for (uint32_t f = 0; f < cf_nr_funcs(cf); f++)
		if (!strcmp(cf_func(cf, f)->name, name))
			return f;
	return CF_NO_FN;
}

/* Every function and every arc of b equals a's. */
static int compare(struct arcs *a, struct arcs *b, const char *what)
{
	struct callflow *ca = arcs_callflow(a), *cb = arcs_callflow(b);
	int bad = 0;

	if (arcs_total(a) != arcs_total(b) || arcs_nr_edges(a) != arcs_nr_edges(b)) {
		fprintf(stderr, "\n  %s: total %lu edges %zu, without %lu %zu", what,
			arcs_total(b), arcs_nr_edges(b), arcs_total(a), arcs_nr_edges(a));
		bad++;
	}
	for (uint32_t f = 0; f < cf_nr_funcs(ca); f++) {
		const struct arc_fn_stats *x = arcs_fn(a, f);
		uint32_t g = fn_id(cb, cf_func(ca, f)->name);
		const struct arc_fn_stats *y = g == CF_NO_FN ? NULL : arcs_fn(b, g);

		if (!y || x->calls != y->calls || x->base != y->base || x->cum != y->cum) {
			fprintf(stderr, "\n  %s: %s differs", what, cf_func(ca, f)->name);
			bad++;
		}
	}
	for (size_t i = 0; i < arcs_nr_edges(a); i++) {
		const struct arc_edge *e = arcs_edge(a, i);
		const char *from = e->caller == CF_NO_FN ? NULL : cf_func(ca, e->caller)->name;
		uint32_t gf = from ? fn_id(cb, from) : CF_NO_FN;
		uint32_t gt = fn_id(cb, cf_func(ca, e->callee)->name);
		bool found = false;

		for (size_t j = 0; j < arcs_nr_edges(b); j++) {
			const struct arc_edge *d = arcs_edge(b, j);

			if (d->caller == gf && d->callee == gt)
				found = d->calls == e->calls && d->base == e->base &&
					d->cum == e->cum;
		}
		if (!found) {
			fprintf(stderr, "\n  %s: arc %s->%s differs", what, from ? from : "root",
				cf_func(ca, e->callee)->name);
			bad++;
		}
	}
	return bad;
}

static void test_interrupts_change_nothing(void)
{
	for (int block = 0; block <= 1; block++) {
		struct seen seen = { 0 };
		struct arcs *without = run(false, block, NULL);
		struct arcs *with = run(true, block, &seen);
		struct cf_stats sa, sb;

		CU_ASSERT_EQUAL(compare(without, with, block ? "block mode" : "step mode"), 0);
		CU_ASSERT_EQUAL(arcs_check(with), 0);
		cf_get_stats(arcs_callflow(without), &sa);
		cf_get_stats(arcs_callflow(with), &sb);
		/* the same frames: depth, signal entries, unmatched returns, steps */
		CU_ASSERT_EQUAL(sb.max_depth, sa.max_depth);
		CU_ASSERT_EQUAL(sb.async, sa.async);
		CU_ASSERT_EQUAL(sb.async, 1);
		CU_ASSERT_EQUAL(sb.unmatched, sa.unmatched);
		CU_ASSERT_EQUAL(sb.steps, sa.steps);
		CU_ASSERT_EQUAL(sb.gaps, sa.gaps);
		/* counted by kind: 4 interrupts, 1 irq, 6 exceptions of which 5 page faults */
		CU_ASSERT_EQUAL(sb.interrupts, 4);
		CU_ASSERT_EQUAL(sb.irqs, 1);
		CU_ASSERT_EQUAL(sb.exceptions, 6);
		CU_ASSERT_EQUAL(sb.page_faults, 5);
		CU_ASSERT_EQUAL(sa.interrupts + sa.irqs + sa.exceptions, 0);
		/* one mark and one callback each, naming the interrupted function */
		CU_ASSERT_EQUAL(seen.marks, NR_EXTRAS);
		CU_ASSERT_EQUAL(seen.calls, NR_EXTRAS);
		for (size_t x = 0; x < NR_EXTRAS && x < seen.calls; x++) {
			const char *want = "-";

			for (size_t f = 0; extras[x].ring != PT_ASYNC_RING_UNKNOWN &&
					   f < sizeof(fns) / sizeof(fns[0]); f++)
				if (extras[x].pc >= fns[f].start && extras[x].pc < fns[f].end)
					want = fns[f].name;
			CU_ASSERT_STRING_EQUAL(seen.fn[x], want);
		}
		cf_free(arcs_callflow(without));
		cf_free(arcs_callflow(with));
		arcs_free(without);
		arcs_free(with);
	}
}

static CU_TestInfo tests[] = {
	{ "ASYNC payloads, short and long", test_decode },
	{ "vector names and page-fault error words", test_names },
	{ "interrupts and exceptions change no frame, count or arc",
	  test_interrupts_change_nothing },
	CU_TEST_INFO_NULL,
};

UNIT_SUITE(async, tests)
