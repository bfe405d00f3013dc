// SPDX-License-Identifier: GPL-2.0
/*
 * The call-flow engine on synthetic step sequences: a made-up program whose
 * instructions are given by a table, so every count below follows from the
 * sequence by hand (each scenario's comment says how).
 */
#include <stdio.h>
#include <string.h>

#include "util/arcs.h"
#include "util/callflow.h"
#include "util/cf_runs.h"
#include "tests/unit/unit.h"

#define KBASE 0xffffffff81000000ull

/* The made-up program: function address ranges. */
static const struct {
	const char *name;
	uint64_t start, end;
} fake_fns[] = {
	{ "main", 0x1000, 0x2000 },	{ "f", 0x2000, 0x3000 },
	{ "g", 0x3000, 0x4000 },	{ "h", 0x4000, 0x5000 },
	{ "handler", 0x5000, 0x6000 },	{ "restorer", 0x6000, 0x7000 },
	{ "outer", 0x7000, 0x8000 },	{ "sys_write", KBASE, KBASE + 0x1000 },
	{ "[prog]", 0x9000, 0xa000 },	/* code without symbols */
	{ "f.cold", 0x8000, 0x9000 },
	{ "x", 0xa000, 0xb000 },	{ "y", 0xb000, 0xc000 },
	{ "z", 0xc000, 0xd000 },	{ "vclock", 0xd000, 0xe000 }, /* run natively */
	/* a library call through the PLT: its stub, PLT0, ld.so's resolver, the function */
	{ "printf@plt", 0xe000, 0xe010 }, { ".plt", 0xe100, 0xe200 },
	{ "_dl_runtime_resolve_xsavec", 0xe200, 0xf000 }, { "printf", 0xf000, 0x10000 },
};

/* Filler functions fill0, fill1, ..., FILL_SIZE bytes each from FILL_BASE (a thread's many). */
#define FILL_BASE 0x20000ull
#define FILL_SIZE 0x100u
#define FILL_MAX 256u

/* Instructions that are not one-byte "other" instructions. */
struct fake_insn {
	uint64_t pc;
	unsigned cls, len;
	uint64_t target;	  /* 0: indirect */
};

#define CALL(pc, to) { pc, ARCH_INSN_CALL, 5, to }
#define JMP(pc, to) { pc, ARCH_INSN_JUMP, 5, to }
#define JCC(pc, to) { pc, ARCH_INSN_COND, 2, to }
#define RET(pc) { pc, ARCH_INSN_RET, 1, 0 }
#define SYSCALL(pc) { pc, ARCH_INSN_SYSCALL, 2, 0 }
#define END_INSNS { 0, 0, 0, 0 }

/* One trace event: a step (pc), or an async record before the next step. */
struct fake_ev {
	uint64_t pc;
	uint32_t tid;		  /* 0 means thread 100 */
	uint8_t ring;
	unsigned async_kind;	  /* non-zero: a TEV_ASYNC of this kind, not a step */
	uint8_t native;		  /* non-zero: code ran natively from pc to end, not a step:
				   * a TEV_NATIVE (flags native - 1) and a GAP of reason NATIVE */
	uint64_t end;
};
#define END_EVS { .pc = 0 }
#define S(p) { .pc = p }
#define ST(p, t) { .pc = p, .tid = t }
#define SK(p) { .pc = p, .ring = 1 }
#define ASYNC(k) { .async_kind = k }
#define NATIVE_RET(p, e) { .pc = p, .native = 1 + PT_NATIVE_RETURNED, .end = e }
#define NATIVE_STOP(p, e) { .pc = p, .native = 1, .end = e }

struct expect_fn {
	const char *name;
	uint64_t calls, base, cum;
};

static const struct fake_insn *cur_insns;

/*
 * The sites described so far, for the source's peek: what a real source
 * has cached (it never describes code that has not run).  Ids are dense
 * from 1 in the order sites were first described.
 */
static struct {
	uint64_t pc;
	uint8_t ring;
} described[4096];
static size_t nr_described;

static uint32_t described_id(uint64_t pc, uint8_t ring, bool add)
{
	for (size_t i = 0; i < nr_described; i++)
		if (described[i].pc == pc && described[i].ring == ring)
			return (uint32_t)i + 1;
	if (!add || nr_described == sizeof(described) / sizeof(described[0]))
		return 0;
	described[nr_described].pc = pc;
	described[nr_described].ring = ring;
	return (uint32_t)++nr_described;
}

static void fake_site(void *ctx, struct callflow *cf, uint32_t pid, uint64_t pc, uint8_t ring,
		      struct cf_site *out)
{
	(void)ctx; (void)pid;
	out->id = described_id(pc, ring, true);
	out->insn.cls = ARCH_INSN_OTHER;
	out->insn.len = 1;
	out->insn.flags = 0;
	for (const struct fake_insn *i = cur_insns; i->pc; i++) {
		if (i->pc != pc)
			continue;
		out->insn.cls = (uint8_t)i->cls;
		out->insn.len = (uint8_t)i->len;
		out->insn.target = i->target;
		out->insn.flags = i->target ? ARCH_INSN_HAS_TARGET : ARCH_INSN_INDIRECT;
	}
	for (size_t f = 0; f < sizeof(fake_fns) / sizeof(fake_fns[0]); f++)
		if (pc >= fake_fns[f].start && pc < fake_fns[f].end) {
			out->fn = cf_func_intern(cf, "prog", "/prog", fake_fns[f].name,
						 fake_fns[f].start);
			if (pc >= 0xe000 && pc < 0xe200)
				cf_func_set_fold(cf, out->fn, CF_FOLD_STUB);
			else if (pc >= 0xe200 && pc < 0xf000)
				cf_func_set_fold(cf, out->fn, CF_FOLD_PASS);
			out->anon = fake_fns[f].name[0] == '[';
			out->entry = pc == fake_fns[f].start && !out->anon;
			return;
		}
	if (pc >= FILL_BASE && pc < FILL_BASE + FILL_MAX * FILL_SIZE) {
		char name[16];
		uint64_t start = pc - (pc - FILL_BASE) % FILL_SIZE;

		snprintf(name, sizeof(name), "fill%u", (unsigned)((start - FILL_BASE) / FILL_SIZE));
		out->fn = cf_func_intern(cf, "prog", "/prog", name, start);
		out->anon = false;
		out->entry = pc == start;
		return;
	}
	out->fn = cf_func_intern(cf, "prog", "/prog", "[unknown]", 0);
	out->entry = false;
}

/* The peek: a site described before, else none (its function is not interned by a peek). */
static struct callflow *peek_cf;

static bool fake_peek(void *ctx, uint32_t pid, uint64_t pc, uint8_t ring, struct cf_site *out)
{
	if (!described_id(pc, ring, false))
		return false;
	fake_site(ctx, peek_cf, pid, pc, ring, out);
	return true;
}

static const struct fake_insn one_call_insns[] = { CALL(0x1001, 0x2000), RET(0x2001), END_INSNS };
static const struct fake_ev one_call_evs[] = {
	S(0x1000), S(0x1001), S(0x2000), S(0x2001), S(0x1006), END_EVS,
};
/* main: 1000 1001 1006; f: 2000 2001 */
static const struct expect_fn one_call_expect[] = {
	{ "main", 0, 3, 5 }, { "f", 1, 2, 2 }, { NULL },
};

/* f(n): 2000 jcc base case to 2010; 2002 call f; 2007 ret; 2010 ret. Three activations. */
static const struct fake_insn recursion_insns[] = {
	CALL(0x1001, 0x2000), JCC(0x2000, 0x2010), CALL(0x2002, 0x2000), RET(0x2007), RET(0x2010),
	END_INSNS,
};
static const struct fake_ev recursion_evs[] = {
	S(0x1000), S(0x1001), S(0x2000), S(0x2002), S(0x2000), S(0x2002), S(0x2000),
	S(0x2010), S(0x2007), S(0x2007), S(0x1006), END_EVS,
};
/* f's 8 steps count once in its Cum however deep it recursed */
static const struct expect_fn recursion_expect[] = {
	{ "main", 0, 3, 11 }, { "f", 3, 8, 8 }, { NULL },
};

/* f ends with jmp g: g returns straight to main. */
static const struct fake_insn tail_insns[] = {
	CALL(0x1001, 0x2000), JMP(0x2001, 0x3000), RET(0x3001), END_INSNS,
};
static const struct fake_ev tail_evs[] = {
	S(0x1000), S(0x1001), S(0x2000), S(0x2001), S(0x3000), S(0x3001), S(0x1006), END_EVS,
};
static const struct expect_fn tail_expect[] = {
	{ "main", 0, 3, 7 }, { "f", 1, 2, 2 }, { "g", 1, 2, 2 }, { NULL },
};

/*
 * f and g jump to each other's entry 50 times each (f: jmp g; g: jcc out,
 * jmp f): the stack must stay at depth 2.  main 4 steps, f 50, g 100.
 */
static const struct fake_insn pingpong_insns[] = {
	CALL(0x1001, 0x2000), JMP(0x2000, 0x3000), JCC(0x3000, 0x3010), JMP(0x3002, 0x2000),
	RET(0x3010), END_INSNS,
};
static struct fake_ev pingpong_evs[2 + 150 + 2 + 1];
static const struct expect_fn pingpong_expect[] = {
	{ "main", 0, 4, 154 }, { "f", 50, 50, 50 }, { "g", 50, 100, 100 }, { NULL },
};

/* The trace starts inside f, called from main, called from outer: both returns are unmatched. */
static const struct fake_insn unmatched_insns[] = { RET(0x2001), RET(0x1007), END_INSNS };
static const struct fake_ev unmatched_evs[] = {
	S(0x2000), S(0x2001), S(0x1006), S(0x1007), S(0x7005), END_EVS,
};
static const struct expect_fn unmatched_expect[] = {
	{ "outer", 0, 1, 5 }, { "main", 0, 2, 4 }, { "f", 0, 2, 2 }, { NULL },
};

/* A signal arrives after 1001; the handler returns into the restorer, whose
 * sigreturn resumes main at 1002.  Without a TEV_ASYNC record. */
static const struct fake_insn signal_insns[] = { RET(0x5001), SYSCALL(0x6001), END_INSNS };
static const struct fake_ev signal_evs[] = {
	S(0x1000), S(0x1001), S(0x5000), S(0x5001), S(0x6000), S(0x6001), S(0x1002),
	S(0x1003), END_EVS,
};
static const struct expect_fn signal_expect[] = {
	{ "main", 0, 4, 8 }, { "handler", 1, 2, 2 }, { "restorer", 0, 2, 2 }, { NULL },
};

/* The same with the reader's async records; the handler interrupts a call's target. */
static const struct fake_insn signal2_insns[] = {
	CALL(0x1001, 0x2000), RET(0x2001), RET(0x5001), SYSCALL(0x6001), END_INSNS,
};
static const struct fake_ev signal2_evs[] = {
	S(0x1000), S(0x1001), ASYNC(PT_ASYNC_SIGNAL), S(0x5000), S(0x5001), S(0x6000),
	S(0x6001), ASYNC(PT_ASYNC_SIGRETURN), S(0x2000), S(0x2001), S(0x1006), END_EVS,
};
static const struct expect_fn signal2_expect[] = {
	{ "main", 0, 3, 9 }, { "f", 1, 2, 2 }, { "handler", 1, 2, 2 }, { "restorer", 0, 2, 2 },
	{ NULL },
};

/* main -> f -> g; g longjmps (indirect jmp) back into the middle of main. */
static const struct fake_insn longjmp_insns[] = {
	CALL(0x1001, 0x2000), CALL(0x2001, 0x3000), { 0x3000, ARCH_INSN_JUMP, 2, 0 }, END_INSNS,
};
static const struct fake_ev longjmp_evs[] = {
	S(0x1000), S(0x1001), S(0x2000), S(0x2001), S(0x3000), S(0x1020), S(0x1021), END_EVS,
};
static const struct expect_fn longjmp_expect[] = {
	{ "main", 0, 4, 7 }, { "f", 1, 2, 3 }, { "g", 1, 1, 1 }, { NULL },
};

/* main -> f -> g -> h; h's ret lands on a landing pad in f (exception unwinding). */
static const struct fake_insn unwind_insns[] = {
	CALL(0x1001, 0x2000), CALL(0x2001, 0x3000), CALL(0x3000, 0x4000), RET(0x4000), RET(0x2031),
	END_INSNS,
};
static const struct fake_ev unwind_evs[] = {
	S(0x1000), S(0x1001), S(0x2000), S(0x2001), S(0x3000), S(0x4000), S(0x2030),
	S(0x2031), S(0x1006), END_EVS,
};
static const struct expect_fn unwind_expect[] = {
	{ "main", 0, 3, 9 }, { "f", 1, 4, 6 }, { "g", 1, 1, 2 }, { "h", 1, 1, 1 }, { NULL },
};

/*
 * A return past frames that return to the same address: main -> f -> f ->
 * f -> g, and g's ret lands at 0x2007, where the two inner f return to.
 * The innermost of them (the third f) returns, g unwinds; the second f
 * calls g again, whose ret lands there again: now the second f returns
 * (the third, gone, no longer hides it), and the first f returns to main.
 * main 4 steps; f 3 calls, 5 + 5 + 2 steps, Cum from its first step to its
 * ret (14); g 2 calls of a step each.
 */
static const struct fake_insn deep_ret_insns[] = {
	CALL(0x1001, 0x2000), JCC(0x2000, 0x2010), CALL(0x2002, 0x2000), JCC(0x2008, 0x2010),
	RET(0x200a), CALL(0x2010, 0x3000), RET(0x3000), END_INSNS,
};
static const struct fake_ev deep_ret_evs[] = {
	S(0x1000), S(0x1001), S(0x2000), S(0x2002), S(0x2000), S(0x2002), S(0x2000), S(0x2010),
	S(0x3000), S(0x2007), S(0x2008), S(0x2010), S(0x3000), S(0x2007), S(0x2008), S(0x200a),
	S(0x1006), S(0x1007), END_EVS,
};
static const struct expect_fn deep_ret_expect[] = {
	{ "main", 0, 4, 18 }, { "f", 3, 12, 14 }, { "g", 2, 2, 2 }, { NULL },
};

/* Two threads interleaved, each calling f; their stacks don't mix. */
static const struct fake_insn threads_insns[] = { CALL(0x1001, 0x2000), RET(0x2001), END_INSNS };
static const struct fake_ev threads_evs[] = {
	ST(0x1000, 100), ST(0x1001, 100), ST(0x1000, 101), ST(0x2000, 100), ST(0x1001, 101),
	ST(0x2000, 101), ST(0x2001, 101), ST(0x2001, 100), ST(0x1006, 100), ST(0x1006, 101),
	END_EVS,
};
static const struct expect_fn threads_expect[] = {
	{ "main", 0, 6, 10 }, { "f", 2, 4, 4 }, { NULL },
};

/* A system call whose kernel steps nest under the syscall site. */
static const struct fake_insn kernel_insns[] = {
	SYSCALL(0x1001), { KBASE + 1, ARCH_INSN_KRET, 3, 0 }, END_INSNS,
};
static const struct fake_ev kernel_evs[] = {
	S(0x1000), S(0x1001), SK(KBASE), SK(KBASE + 1), S(0x1003), END_EVS,
};
static const struct expect_fn kernel_expect[] = {
	{ "main", 0, 3, 5 }, { "sys_write", 1, 2, 2 }, { NULL },
};

/* Mutual recursion main -> f -> g -> f -> g: arcs must still add up. */
static const struct fake_insn mutual_insns[] = {
	CALL(0x1001, 0x2000), CALL(0x2001, 0x3000), JCC(0x3000, 0x3010), CALL(0x3002, 0x2000),
	RET(0x3007), RET(0x3010), RET(0x2006), END_INSNS,
};
static const struct fake_ev mutual_evs[] = {
	S(0x1000), S(0x1001), S(0x2000), S(0x2001), S(0x3000), S(0x3002), S(0x2000),
	S(0x2001), S(0x3000), S(0x3010), S(0x2006), S(0x3007), S(0x2006), S(0x1006), END_EVS,
};
/* f: 2000 2001 2000 2001 2006 2006 = 6 self; g: 3000 3002 3000 3010 3007 = 5 self;
 * g is on the stack from its first 3000 to its 3007: 8 steps */
static const struct expect_fn mutual_expect[] = {
	{ "main", 0, 3, 14 }, { "f", 2, 6, 11 }, { "g", 2, 5, 8 }, { NULL },
};

/*
 * Code without symbols (a stripped program's [prog]) calls main, which jumps
 * into another part of [prog]: that continues main's frame as [prog] (it is
 * not a jump back into the root [prog] frame), and its ret returns to the root.
 */
static const struct fake_insn anon_insns[] = {
	CALL(0x9001, 0x1000), { 0x1001, ARCH_INSN_JUMP, 2, 0 }, RET(0x9100), END_INSNS,
};
static const struct fake_ev anon_evs[] = {
	S(0x9000), S(0x9001), S(0x1000), S(0x1001), S(0x9100), S(0x9006), END_EVS,
};
static const struct expect_fn anon_expect[] = {
	{ "[prog]", 0, 4, 6 }, { "main", 1, 2, 2 }, { NULL },
};

/*
 * f recurses once; the inner f jumps into the middle of its cold part and
 * back: that is the same activation (f.cold's frame nests above it, no
 * call), not a longjmp back to the outer f.
 */
static const struct fake_insn cold_insns[] = {
	CALL(0x1001, 0x2000), JCC(0x2000, 0x2010), CALL(0x2002, 0x2000), RET(0x2007),
	JMP(0x2010, 0x8004), JMP(0x8005, 0x2007), END_INSNS,
};
static const struct fake_ev cold_evs[] = {
	S(0x1000), S(0x1001), S(0x2000), S(0x2002), S(0x2000), S(0x2010), S(0x8004), S(0x8005),
	S(0x2007), S(0x2007), S(0x1006), END_EVS,
};
static const struct expect_fn cold_expect[] = {
	{ "main", 0, 3, 11 }, { "f", 2, 6, 8 }, { "f.cold", 0, 2, 2 }, { NULL },
};

/*
 * The layout gcc -O2 emits: the inner f enters f.cold by a jump to its
 * first instruction (a call of its cold part, as callgrind counts it:
 * f.cold 1 call, nested above the inner f) and f.cold jumps back into f's
 * body while the outer f is still on the stack.  The inner activation
 * goes on (no unwinding to the outer f): f 2000 2002 |
 * 2000 2010 | cold 8000 8001 | 2007 (inner returns) 2007 (outer returns).
 */
static const struct fake_insn cold_entry_insns[] = {
	CALL(0x1001, 0x2000), JCC(0x2000, 0x2010), CALL(0x2002, 0x2000), RET(0x2007),
	JMP(0x2010, 0x8000), JMP(0x8001, 0x2007), END_INSNS,
};
static const struct fake_ev cold_entry_evs[] = {
	S(0x1000), S(0x1001), S(0x2000), S(0x2002), S(0x2000), S(0x2010), S(0x8000), S(0x8001),
	S(0x2007), S(0x2007), S(0x1006), END_EVS,
};
static const struct expect_fn cold_entry_expect[] = {
	{ "main", 0, 3, 11 }, { "f", 2, 6, 8 }, { "f.cold", 1, 2, 2 }, { NULL },
};

/*
 * f's tail recursion made a jump to its own first instruction (clang -O2):
 * each jump is a call of f by f whose frame replaces the last, as callgrind
 * counts it.  f 2000 2001 2003 five times (jcc not taken, jmp f), then
 * 2000 2001 2010 (ret): 1 + 5 calls, 18 steps, the stack flat.
 */
static const struct fake_insn self_tail_insns[] = {
	CALL(0x1001, 0x2000), JCC(0x2001, 0x2010), JMP(0x2003, 0x2000), RET(0x2010), END_INSNS,
};
static const struct fake_ev self_tail_evs[] = {
	S(0x1000), S(0x1001), S(0x2000), S(0x2001), S(0x2003), S(0x2000), S(0x2001), S(0x2003),
	S(0x2000), S(0x2001), S(0x2003), S(0x2000), S(0x2001), S(0x2003), S(0x2000), S(0x2001),
	S(0x2003), S(0x2000), S(0x2001), S(0x2010), S(0x1006), END_EVS,
};
static const struct expect_fn self_tail_expect[] = {
	{ "main", 0, 3, 21 }, { "f", 6, 18, 18 }, { NULL },
};

/* longjmp's indirect jump from a function f tail-called into f's outer activation unwinds. */
static const struct fake_insn tail_longjmp_insns[] = {
	CALL(0x1001, 0x2000), JCC(0x2000, 0x2010), CALL(0x2002, 0x2000), RET(0x2007),
	JMP(0x2010, 0x3000), JMP(0x3001, 0), END_INSNS,
};
static const struct fake_ev tail_longjmp_evs[] = {
	S(0x1000), S(0x1001), S(0x2000), S(0x2002), S(0x2000), S(0x2010), S(0x3000), S(0x3001),
	S(0x2007), S(0x1006), END_EVS,
};
/* g's indirect jump lands in the outer f (its frame goes on), which returns to main */
static const struct expect_fn tail_longjmp_expect[] = {
	{ "main", 0, 3, 10 }, { "f", 2, 5, 7 }, { "g", 1, 2, 2 }, { NULL },
};

/*
 * A signal interrupts the handler of another: each sigreturn resumes the
 * innermost frame that resumes there (0x5001, then 0x1002).  Steps 0-11:
 * 1000 1001 | 5000 | 5000 5001 | 6000 6001 | 5001 | 6000 6001 | 1002 1003;
 * the handler is on the stack for steps 2-7.
 */
static const struct fake_insn nested_signal_insns[] = { RET(0x5001), SYSCALL(0x6001), END_INSNS };
static const struct fake_ev nested_signal_evs[] = {
	S(0x1000), S(0x1001), ASYNC(PT_ASYNC_SIGNAL), S(0x5000), ASYNC(PT_ASYNC_SIGNAL),
	S(0x5000), S(0x5001), S(0x6000), S(0x6001), ASYNC(PT_ASYNC_SIGRETURN), S(0x5001),
	S(0x6000), S(0x6001), ASYNC(PT_ASYNC_SIGRETURN), S(0x1002), S(0x1003), END_EVS,
};
static const struct expect_fn nested_signal_expect[] = {
	{ "main", 0, 4, 12 }, { "handler", 2, 4, 6 }, { "restorer", 0, 4, 4 }, { NULL },
};

/*
 * One instruction repeated: every step is a transfer no instruction
 * explains, so each opens an asynchronous frame, all returning to 0x1001.
 * Four sigreturns there then end them one at a time, innermost first.
 */
static const struct fake_ev repeated_evs[] = {
	S(0x1000), S(0x1000), S(0x1000), S(0x1000), S(0x1000),
	ASYNC(PT_ASYNC_SIGRETURN), S(0x1001), ASYNC(PT_ASYNC_SIGRETURN), S(0x1001),
	ASYNC(PT_ASYNC_SIGRETURN), S(0x1001), ASYNC(PT_ASYNC_SIGRETURN), S(0x1001),
	S(0x1002), END_EVS,
};
static const struct fake_insn repeated_insns[] = { END_INSNS };
static const struct expect_fn repeated_expect[] = { { "main", 4, 10, 10 }, { NULL } };

/*
 * main calls vclock, which runs natively (a NATIVE record, then a GAP):
 * a call with no steps, which returns to 0x1006.  main: 1000 1001 1006
 * 1007.
 */
static const struct fake_insn native_insns[] = { CALL(0x1001, 0xd000), RET(0x5001),
						 SYSCALL(0x6001), END_INSNS };
static const struct fake_ev native_evs[] = {
	S(0x1000), S(0x1001), NATIVE_RET(0xd000, 0x1006), S(0x1006), S(0x1007), END_EVS,
};
static const struct expect_fn native_expect[] = {
	{ "main", 0, 4, 4 }, { "vclock", 1, 0, 0 }, { NULL },
};

/* The same with a signal at its return: the handler nests above main, then main goes on. */
static const struct fake_ev native_sig_evs[] = {
	S(0x1000), S(0x1001), NATIVE_RET(0xd000, 0x1006), ASYNC(PT_ASYNC_SIGNAL), S(0x5000),
	S(0x5001), S(0x6000), S(0x6001), ASYNC(PT_ASYNC_SIGRETURN), S(0x1006), S(0x1007),
	END_EVS,
};
static const struct expect_fn native_sig_expect[] = {
	{ "main", 0, 4, 8 }, { "vclock", 1, 0, 0 }, { "handler", 1, 2, 2 },
	{ "restorer", 0, 2, 2 }, { NULL },
};

/*
 * A signal stops the native run at 0xd010: the handler nests above vclock
 * (its Cum), and the run goes on natively from there to its return.
 */
static const struct fake_ev native_stop_evs[] = {
	S(0x1000), S(0x1001), NATIVE_STOP(0xd000, 0xd010), ASYNC(PT_ASYNC_SIGNAL), S(0x5000),
	S(0x5001), S(0x6000), S(0x6001), ASYNC(PT_ASYNC_SIGRETURN),
	NATIVE_RET(0xd010, 0x1006), S(0x1006), S(0x1007), END_EVS,
};
static const struct expect_fn native_stop_expect[] = {
	{ "main", 0, 4, 8 }, { "vclock", 1, 0, 4 }, { "handler", 1, 2, 2 },
	{ "restorer", 0, 2, 2 }, { NULL },
};

static const struct scenario {
	const char *what;
	const struct fake_insn *insns;
	const struct fake_ev *evs;
	const struct expect_fn *expect;
	uint32_t max_depth;
	uint64_t unmatched, async;
} scenarios[] = {
	{ "one call", one_call_insns, one_call_evs, one_call_expect, 2, 0, 0 },
	{ "recursion counts Cum once", recursion_insns, recursion_evs, recursion_expect, 4, 0, 0 },
	{ "tail call replaces the frame", tail_insns, tail_evs, tail_expect, 2, 0, 0 },
	{ "mutual tail calls stay flat", pingpong_insns, pingpong_evs, pingpong_expect, 2, 0, 0 },
	{ "returns out of frames older than the trace", unmatched_insns, unmatched_evs,
	  unmatched_expect, 2, 2, 0 },
	{ "signal handler and sigreturn", signal_insns, signal_evs, signal_expect, 2, 0, 1 },
	{ "signal with async records", signal2_insns, signal2_evs, signal2_expect, 2, 0, 1 },
	{ "longjmp back to main", longjmp_insns, longjmp_evs, longjmp_expect, 3, 0, 0 },
	{ "exception unwinds to a landing pad", unwind_insns, unwind_evs, unwind_expect, 4, 0, 0 },
	{ "two threads keep their own stacks", threads_insns, threads_evs, threads_expect,
	  2, 0, 0 },
	{ "kernel steps nest under the syscall", kernel_insns, kernel_evs, kernel_expect, 2, 0, 0 },
	{ "mutual recursion", mutual_insns, mutual_evs, mutual_expect, 5, 0, 0 },
	{ "jumps into code without symbols", anon_insns, anon_evs, anon_expect, 2, 0, 0 },
	{ "a cold part jumps back into its function", cold_insns, cold_evs, cold_expect, 4, 0, 0 },
	{ "a cold part entered at its first instruction jumps back", cold_entry_insns,
	  cold_entry_evs, cold_entry_expect, 4, 0, 0 },
	{ "an indirect jump from a tail callee into an outer frame unwinds", tail_longjmp_insns,
	  tail_longjmp_evs, tail_longjmp_expect, 3, 0, 0 },
	{ "a signal in a handler: each sigreturn resumes the innermost", nested_signal_insns,
	  nested_signal_evs, nested_signal_expect, 3, 0, 2 },
	{ "a repeated unexplained step nests, sigreturns unnest one each", repeated_insns,
	  repeated_evs, repeated_expect, 5, 0, 4 },
	{ "a return past frames that return to the same address", deep_ret_insns, deep_ret_evs,
	  deep_ret_expect, 5, 0, 0 },
	{ "a jump to its own entry is a call", self_tail_insns, self_tail_evs, self_tail_expect,
	  2, 0, 0 },
	{ "a native call: counted, no steps", native_insns, native_evs, native_expect, 2, 0, 0 },
	{ "a signal at a native call's return", native_insns, native_sig_evs, native_sig_expect,
	  2, 0, 1 },
	{ "a signal stops a native call midway", native_insns, native_stop_evs,
	  native_stop_expect, 3, 0, 1 },
};

static void build_pingpong(void)
{
	size_t n = 0;

	pingpong_evs[n++].pc = 0x1000;
	pingpong_evs[n++].pc = 0x1001;
	for (int i = 0; i < 50; i++) {
		pingpong_evs[n++].pc = 0x2000;
		pingpong_evs[n++].pc = 0x3000;
		pingpong_evs[n++].pc = i < 49 ? 0x3002 : 0x3010;
	}
	pingpong_evs[n++].pc = 0x1006;
	pingpong_evs[n++].pc = 0x1007;
	pingpong_evs[n].pc = 0;
}

static struct arcs *run_src(const struct fake_insn *insns, const struct fake_ev *evs, bool block,
			    bool runs, bool peek);
/* Stubs folded (cf_set_fold) in what run_src runs. */
static bool run_fold;
/* A consumer run_src adds beside the arcs, when set. */
static const struct cf_consumer_ops *extra_ops, *extra2_ops;
static void *extra_ctx, *extra2_ctx;
/* The fast path's limits run_src sets, when set. */
static const struct cf_limits *run_limits;

/*
 * Feed a scenario (as block starts if block; a thread's consecutive steps
 * in one ring as runs through cf_steps if runs); the arcs (with its
 * callflow) after cf_finish.
 */
static struct arcs *run_how(const struct scenario *sc, bool block, bool runs)
{
	return run_src(sc->insns, sc->evs, block, runs, false);
}

/* An event; a native run comes with the GAP the recorder writes after it. */
static void native_or_event(struct callflow *cf, const struct trace_event *ev)
{
	struct trace_event gap = *ev;

	cf_event(cf, ev);
	if (ev->kind != TEV_NATIVE)
		return;
	gap.kind = TEV_GAP;
	gap.a = PT_GAP_NATIVE;
	cf_event(cf, &gap);
}

static struct arcs *run_src(const struct fake_insn *insns, const struct fake_ev *evs, bool block,
			    bool runs, bool peek)
{
	struct cf_source src = { .site = fake_site, .peek = peek ? fake_peek : NULL };
	struct callflow *cf = cf_new(&src);
	struct arcs *a = arcs_new(cf);
	struct trace_event first = { .kind = TEV_STEP };
	uint64_t pcs[512];

	if (extra_ops)
		CU_ASSERT(cf_add_consumer(cf, extra_ops, extra_ctx) >= 0);
	if (extra2_ops)
		CU_ASSERT(cf_add_consumer(cf, extra2_ops, extra2_ctx) >= 0);
	if (run_limits)
		cf_set_limits(cf, run_limits);
	cf_set_fold(cf, run_fold);
	size_t n = 0;
	uint64_t index = 0;

	cf_set_block_mode(cf, block);
	cur_insns = insns;
	nr_described = 0;
	peek_cf = cf;
	for (const struct fake_ev *e = evs; e->pc || e->async_kind; e++) {
		struct trace_event ev = {
			.kind = e->async_kind ? TEV_ASYNC : TEV_STEP,
			.pid = 100, .tid = e->tid ? e->tid : 100, .cpu = UINT32_MAX,
			.ring = e->ring, .pc = e->pc, .index = index, .a = e->async_kind,
		};

		if (e->native) {
			ev.kind = TEV_NATIVE;
			ev.a = e->native - 1u;
			ev.end = e->end;
		} else if (!e->async_kind) {
			index++;
		}
		if (!runs) {
			native_or_event(cf, &ev);
			continue;
		}
		if (n && (ev.kind != TEV_STEP || ev.tid != first.tid || ev.ring != first.ring ||
			  n == sizeof(pcs) / sizeof(pcs[0]))) {
			cf_steps(cf, &first, pcs, n);
			n = 0;
		}
		if (ev.kind != TEV_STEP) {
			native_or_event(cf, &ev);
			continue;
		}
		if (!n)
			first = ev;
		pcs[n++] = ev.pc;
	}
	if (n)
		cf_steps(cf, &first, pcs, n);
	cf_finish(cf);
	return a;
}

static struct arcs *run_mode(const struct scenario *sc, bool block)
{
	return run_how(sc, block, false);
}

static struct arcs *run(const struct scenario *sc)
{
	return run_mode(sc, false);
}

static uint32_t fn_id(struct callflow *cf, const char *name)
{
	for (uint32_t f = 0; f < cf_nr_funcs(cf); f++)
		if (!strcmp(cf_func(cf, f)->name, name))
			return f;
	return CF_NO_FN;
}

/* cf_steps over runs of a thread's steps gives what cf_event step by step gives. */
static void test_runs(void)
{
	build_pingpong();
	for (size_t s = 0; s < sizeof(scenarios) / sizeof(scenarios[0]); s++) {
		const struct scenario *sc = &scenarios[s];
		struct arcs *one = run_how(sc, false, false), *runs = run_how(sc, false, true);
		struct callflow *cf1 = arcs_callflow(one), *cfr = arcs_callflow(runs);
		struct cf_stats s1, sr;
		int bad = 0;

		cf_get_stats(cf1, &s1);
		cf_get_stats(cfr, &sr);
		if (memcmp(&s1, &sr, sizeof(s1)) || cf_nr_funcs(cf1) != cf_nr_funcs(cfr) ||
		    arcs_total(one) != arcs_total(runs))
			bad++;
		for (uint32_t f = 0; !bad && f < cf_nr_funcs(cf1); f++) {
			const struct arc_fn_stats *a = arcs_fn(one, f), *b = arcs_fn(runs, f);

			if (strcmp(cf_func(cf1, f)->name, cf_func(cfr, f)->name) ||
			    a->calls != b->calls || a->base != b->base || a->cum != b->cum)
				bad++;
		}
		if (bad)
			fprintf(stderr, "\n  %s: runs differ from single steps", sc->what);
		CU_ASSERT_EQUAL(bad, 0);
		arcs_free(runs);
		cf_free(cfr);
		arcs_free(one);
		cf_free(cf1);
	}
}

/* Everything arcs has: one result step by step, the other through cf_steps' bulk counts. */
static int arcs_differ(const struct arcs *x, const struct arcs *y)
{
	struct callflow *cx = arcs_callflow(x), *cy = arcs_callflow(y);
	struct cf_stats sx, sy;
	int bad = 0;

	cf_get_stats(cx, &sx);
	cf_get_stats(cy, &sy);
	/* how each pass went (steps one at a time, calls whole) is not the trace's */
	sx.steps_single = sy.steps_single = sx.calls_whole = sy.calls_whole = 0;
	sx.steps_whole = sy.steps_whole = sx.replays = sy.replays = 0;
	sx.replays_replaced = sy.replays_replaced = sx.replays_over_total = 0;
	sy.replays_over_total = sx.rec_too_long = sy.rec_too_long = 0;
	sx.rec_too_deep = sy.rec_too_deep = 0;
	bad += !!memcmp(&sx, &sy, sizeof(sx));
	bad += cf_nr_funcs(cx) != cf_nr_funcs(cy) || arcs_total(x) != arcs_total(y);
	bad += arcs_nr_edges(x) != arcs_nr_edges(y) || arcs_nr_pcs(x) != arcs_nr_pcs(y) ||
	       arcs_nr_jumps(x) != arcs_nr_jumps(y) || arcs_nr_nodes(x) != arcs_nr_nodes(y);
	if (bad)
		return bad;
	for (uint32_t f = 0; f < cf_nr_funcs(cx); f++)
		bad += strcmp(cf_func(cx, f)->name, cf_func(cy, f)->name) ||
		       memcmp(arcs_fn(x, f), arcs_fn(y, f), sizeof(struct arc_fn_stats));
	for (size_t i = 0; i < arcs_nr_edges(x); i++)
		bad += !!memcmp(arcs_edge(x, i), arcs_edge(y, i), sizeof(struct arc_edge));
	for (size_t i = 0; i < arcs_nr_pcs(x); i++)	/* in the order first seen, too */
		bad += !!memcmp(arcs_pc(x, i), arcs_pc(y, i), sizeof(struct arc_pc));
	for (size_t i = 0; i < arcs_nr_jumps(x); i++)
		bad += arcs_jump(x, i)->from != arcs_jump(y, i)->from ||
		       arcs_jump(x, i)->to != arcs_jump(y, i)->to ||
		       arcs_jump(x, i)->count != arcs_jump(y, i)->count;
	for (uint32_t i = 0; i < arcs_nr_nodes(x); i++)
		bad += !!memcmp(arcs_node(x, i), arcs_node(y, i), sizeof(struct arc_node));
	return bad;
}

/*
 * A loop the way compilers lay one out, for two threads of one process
 * taking turns in chunks that cut runs anywhere: straight code, a call,
 * an inner loop on a conditional branch, an indirect jump to one of three
 * blocks (the successor a run remembers changes), direct jumps joining
 * them, an indirect call now of g (which calls f) and now of a stub that
 * jumps to f's entry (a tail call, as through a PLT), and now and then a
 * transfer no instruction explains (a signal handler entered without a
 * record) in the middle of straight code or where its last instruction
 * was due.
 */
static const struct fake_insn loop_insns[] = {
	CALL(0x1004, 0x2000), RET(0x2006), JCC(0x100c, 0x1009),
	{ 0x100e, ARCH_INSN_JUMP, 2, 0 }, JMP(0x1023, 0x1040), JMP(0x1032, 0x1040),
	{ 0x1041, ARCH_INSN_CALL, 2, 0 }, JMP(0x1045, 0x1000), CALL(0x3002, 0x2000), RET(0x3007),
	{ 0x4000, ARCH_INSN_JUMP, 2, 0 }, RET(0x5002), END_INSNS,
};
static struct fake_ev loop_evs[40000];

static size_t loop_thread(uint64_t *pcs, int phase)
{
	size_t n = 0;

#define P(x) (pcs[n++] = (x))
	for (int it = 0; it < 60; it++) {
		P(0x1000);
		P(0x1001);
		if (it % 11 == 7 + phase) {
			P(0x5000);
			P(0x5001);
			P(0x5002);
		}
		P(0x1002);
		P(0x1003);
		if (it % 13 == 5 + phase) {	/* where a run's last step was due */
			P(0x5000);
			P(0x5001);
			P(0x5002);
		}
		P(0x1004);
		for (uint64_t pc = 0x2000; pc <= 0x2006; pc++)
			P(pc);
		for (int j = 0; j < 3; j++) {
			P(0x1009);
			P(0x100a);
			P(0x100b);
			P(0x100c);
		}
		P(0x100e);
		switch ((it / (1 + phase)) % 3) {
		case 0:
			P(0x1020);
			P(0x1021);
			P(0x1022);
			P(0x1023);
			break;
		case 1:
			P(0x1030);
			P(0x1031);
			P(0x1032);
			break;
		default:
			break;
		}
		P(0x1040);
		P(0x1041);
		if ((it + phase) % 4 < 2) {
			P(0x3000);
			P(0x3001);
			P(0x3002);
		} else {
			P(0x4000);
		}
		for (uint64_t pc = 0x2000; pc <= 0x2006; pc++)
			P(pc);
		if ((it + phase) % 4 < 2)
			P(0x3007);
		P(0x1043);
		P(0x1044);
		P(0x1045);
	}
	P(0x1000);
#undef P
	return n;
}

static void build_loop(void)
{
	static uint64_t a[20000], b[20000];
	size_t na = loop_thread(a, 0), nb = loop_thread(b, 1), ia = 0, ib = 0, n = 0;

	for (int chunk = 0; ia < na || ib < nb; chunk++) {
		size_t len = 17 + (size_t)(chunk * 7) % 41;	/* chunks of 17 to 57 steps */

		for (size_t k = 0; k < len && ia < na; k++)
			loop_evs[n++] = (struct fake_ev){ .pc = a[ia++], .tid = 100 };
		for (size_t k = 0; k < len && ib < nb; k++)
			loop_evs[n++] = (struct fake_ev){ .pc = b[ib++], .tid = 101 };
	}
	loop_evs[n].pc = 0;
}

/* A consumer that only counts how steps came: by step() or in bulk. */
struct how_counted {
	uint64_t stepped, bulk, pushed;
	uint64_t replayed, replayed_frames, replayed_steps;	/* calls taken whole */
	uint64_t replayed_nested;  /* of them, with a frame above another of its own */
	uint64_t landed;	  /* stepped at f's entry or where a call into f returns */
};

static void hc_push(void *ctx, struct cf_thread *t, const struct cf_frame *parent,
		    const struct cf_frame *f)
{
	(void)t; (void)parent; (void)f;
	((struct how_counted *)ctx)->pushed++;
}

static void hc_step(void *ctx, struct cf_thread *t, const struct cf_step *s)
{
	(void)t;
	((struct how_counted *)ctx)->stepped++;
	((struct how_counted *)ctx)->landed += s->pc == 0x2000 || s->pc == 0x1009 ||
					       s->pc == 0x3007 || s->pc == 0x1043;
}

static void hc_bulk(void *ctx, struct cf_thread *t, const struct cf_bulk *b)
{
	(void)t;
	((struct how_counted *)ctx)->bulk += b->n;
}

static void hc_replay(void *ctx, struct cf_thread *t, const struct cf_replay_frame *fr, uint32_t nr,
		      const struct cf_bulk *before, const struct cf_bulk *b, uint32_t *words)
{
	struct how_counted *hc = ctx;

	(void)t; (void)words;
	if (before)
		hc->bulk += before->n;
	hc->replayed++;
	hc->replayed_frames += nr;
	hc->replayed_steps += b->n;
	for (uint32_t k = 0; k < nr; k++)
		if (fr[k].depth > 1) {
			hc->replayed_nested++;
			break;
		}
}

/*
 * With a source that peeks, cf_steps counts straight code and quiet
 * branches in bulk: every number arcs keeps (costs, calls, trees, the
 * per-address counts and taken jumps, in the order first seen) is the
 * one of the steps one by one; and most steps of a loop do come in bulk.
 */
static void test_bulk(void)
{
	static const struct cf_consumer_ops hc_ops = { .step = hc_step, .bulk = hc_bulk,
						       .push = hc_push };

	build_pingpong();
	build_loop();
	for (size_t s = 0; s <= sizeof(scenarios) / sizeof(scenarios[0]); s++) {
		bool loop = s == sizeof(scenarios) / sizeof(scenarios[0]);
		const struct fake_insn *insns = loop ? loop_insns : scenarios[s].insns;
		const struct fake_ev *evs = loop ? loop_evs : scenarios[s].evs;
		const char *what = loop ? "the loop" : scenarios[s].what;
		struct arcs *one = run_src(insns, evs, false, false, false);
		struct arcs *bulk = run_src(insns, evs, false, true, true);
		int bad = arcs_differ(one, bulk);

		if (bad)
			fprintf(stderr, "\n  %s: bulk counts differ from single steps (%d)", what, bad);
		CU_ASSERT_EQUAL(bad, 0);
		cf_free(arcs_callflow(bulk));
		arcs_free(bulk);
		cf_free(arcs_callflow(one));
		arcs_free(one);
	}
	/* the loop: most steps in bulk, each step told once either way */
	{
		struct cf_source src = { .site = fake_site, .peek = fake_peek };
		struct callflow *cf = cf_new(&src);
		struct how_counted hc = { 0 };
		struct cf_stats st;
		uint64_t pcs[64];
		size_t n = 0;
		struct trace_event first = { .kind = TEV_STEP };

		CU_ASSERT(cf_add_consumer(cf, &hc_ops, &hc) >= 0);
		cur_insns = loop_insns;
		nr_described = 0;
		peek_cf = cf;
		for (size_t k = 0;; k++) {
			const struct fake_ev *e = &loop_evs[k];

			if (n && (!e->pc || e->tid != first.tid || n == 64)) {
				cf_steps(cf, &first, pcs, n);
				n = 0;
			}
			if (!e->pc)
				break;
			if (!n)
				first = (struct trace_event){ .kind = TEV_STEP, .pid = 100, .tid = e->tid,
							      .cpu = UINT32_MAX, .index = k };
			pcs[n++] = e->pc;
		}
		cf_finish(cf);
		cf_get_stats(cf, &st);
		CU_ASSERT_EQUAL(hc.stepped + hc.bulk, st.steps);
		CU_ASSERT(hc.bulk > st.steps / 2);
		cf_free(cf);
	}
	/*
	 * One thread's loop in one go: after the first pass through each path,
	 * its calls, returns and the stub's tail call come in bulk too (before,
	 * each call stepped its callee's first step and its return's).
	 */
	{
		struct cf_source src = { .site = fake_site, .peek = fake_peek };
		struct callflow *cf = cf_new(&src);
		struct how_counted hc = { 0 };
		struct cf_stats st;
		static uint64_t pcs[20000];
		size_t n = loop_thread(pcs, 0);
		struct trace_event first = { .kind = TEV_STEP, .pid = 100, .tid = 100,
					     .cpu = UINT32_MAX };

		CU_ASSERT(cf_add_consumer(cf, &hc_ops, &hc) >= 0);
		cur_insns = loop_insns;
		nr_described = 0;
		peek_cf = cf;
		cf_steps(cf, &first, pcs, n);
		cf_finish(cf);
		cf_get_stats(cf, &st);
		CU_ASSERT_EQUAL(hc.stepped + hc.bulk, st.steps);
		CU_ASSERT(hc.pushed >= 180);	/* 3 an iteration, and the signals */
		/* f is entered 120 times, returned from as often: one at a time, a few */
		CU_ASSERT(hc.landed * 10 < hc.pushed);
		CU_ASSERT(hc.bulk > st.steps * 9 / 10);
		cf_free(cf);
	}
}

static void test_scenarios(void)
{
	build_pingpong();
	(void)pingpong_expect;
	for (size_t s = 0; s < sizeof(scenarios) / sizeof(scenarios[0]); s++) {
		const struct scenario *sc = &scenarios[s];
		struct arcs *a = run(sc);
		struct callflow *cf = arcs_callflow(a);
		struct cf_stats st;
		int bad = 0;

		cf_get_stats(cf, &st);
		for (const struct expect_fn *x = sc->expect; x->name; x++) {
			uint32_t f = fn_id(cf, x->name);
			const struct arc_fn_stats *fs = arcs_fn(a, f);

			if (f == CF_NO_FN || fs->calls != x->calls || fs->base != x->base ||
			    fs->cum != x->cum) {
				fprintf(stderr, "\n  %s: %s: calls %lu base %lu cum %lu, "
					"expected %lu %lu %lu", sc->what, x->name, fs->calls,
					fs->base, fs->cum, x->calls, x->base, x->cum);
				bad++;
			}
		}
		if (st.max_depth != sc->max_depth || st.unmatched != sc->unmatched ||
		    st.async != sc->async) {
			fprintf(stderr,
				"\n  %s: max depth %u unmatched %lu async %lu, expected %u %lu %lu",
				sc->what, st.max_depth, st.unmatched, st.async, sc->max_depth,
				sc->unmatched, sc->async);
			bad++;
		}
		CU_ASSERT_EQUAL(bad, 0);
		CU_ASSERT_EQUAL(arcs_check(a), 0);
		/* a native run's GAP is the run's: no gap; its function is marked */
		CU_ASSERT_EQUAL(st.gaps, 0);
		if (sc->insns == native_insns)
			CU_ASSERT(cf_func(cf, fn_id(cf, "vclock"))->native);
		arcs_free(a);
		cf_free(cf);
	}
}

/*
 * Arc-level numbers of the tail call, the unmatched returns, cold parts,
 * deep returns and jumps to a function's own entry.
 */
static void test_arcs_of_tail_and_unmatched(void)
{
	static const struct {
		const struct scenario *sc;
		const char *caller, *callee;
		uint64_t calls, base, cum, entries;
	} rows[] = {
		{ &scenarios[2], "main", "f", 1, 2, 2, 1 },
		{ &scenarios[2], "f", "g", 1, 0, 0, 0 },   /* the jump counts, the costs don't */
		{ &scenarios[2], "main", "g", 0, 2, 2, 1 }, /* g ran for main */
		{ &scenarios[4], "main", "f", 0, 2, 2, 1 },
		{ &scenarios[4], "outer", "main", 0, 2, 4, 1 },
		{ &scenarios[4], "(root)", "outer", 0, 1, 5, 1 }, /* the caller adopted last */
		{ &scenarios[1], "f", "f", 2, 5, 0, 2 },   /* self recursion adds no Cum */
		{ &scenarios[1], "main", "f", 1, 3, 8, 1 },
		/* gcc's cold layout: the inner f, its cold part and its jump back, over the outer f */
		{ &scenarios[14], "main", "f", 1, 3, 8, 1 },
		{ &scenarios[14], "f", "f", 1, 3, 0, 1 },
		{ &scenarios[14], "f", "f.cold", 1, 2, 2, 1 },
		/* g's rets end the innermost f that returns there, then the next one */
		{ &scenarios[18], "main", "f", 1, 5, 14, 1 },
		{ &scenarios[18], "f", "f", 2, 7, 0, 2 },
		{ &scenarios[18], "f", "g", 2, 2, 2, 2 },
		/* the inner f's jump into its cold part's middle: f.cold above it, no call */
		{ &scenarios[13], "f", "f.cold", 0, 2, 2, 1 },
		{ &scenarios[13], "f", "f", 1, 3, 0, 1 },
		/* f's jumps to its own entry: f's calls and entries (the export's), no costs */
		{ &scenarios[19], "main", "f", 1, 18, 18, 1 },
		{ &scenarios[19], "f", "f", 5, 0, 0, 5 },
	};

	for (size_t r = 0; r < sizeof(rows) / sizeof(rows[0]); r++) {
		struct arcs *a = run(rows[r].sc);
		struct callflow *cf = arcs_callflow(a);
		uint32_t from = strcmp(rows[r].caller, "(root)") ? fn_id(cf, rows[r].caller) : CF_NO_FN;
		uint32_t to = fn_id(cf, rows[r].callee);
		const struct arc_edge *e = NULL;

		for (size_t i = 0; i < arcs_nr_edges(a); i++)
			if (arcs_edge(a, i)->caller == from && arcs_edge(a, i)->callee == to)
				e = arcs_edge(a, i);
		CU_ASSERT_PTR_NOT_NULL(e);
		if (e) {
			CU_ASSERT_EQUAL(e->calls, rows[r].calls);
			CU_ASSERT_EQUAL(e->base, rows[r].base);
			CU_ASSERT_EQUAL(e->cum, rows[r].cum);
			CU_ASSERT_EQUAL(e->entries, rows[r].entries);
			if (e->calls != rows[r].calls || e->base != rows[r].base ||
			    e->cum != rows[r].cum || e->entries != rows[r].entries)
				fprintf(stderr, "\n  arc %s->%s: %lu %lu %lu %lu", rows[r].caller,
					rows[r].callee, e->calls, e->base, e->cum, e->entries);
		}
		arcs_free(a);
		cf_free(cf);
	}
}

/*
 * main calls printf twice through its PLT stub.  The first call binds
 * lazily: the stub's indirect jmp goes on to its push and a jmp to PLT0,
 * whose jmp enters ld.so's resolver; that calls h (the binding) and jumps
 * to printf.  The second call's stub jumps straight to printf.
 */
static const struct fake_insn plt_insns[] = {
	CALL(0x1001, 0xe000), CALL(0x1007, 0xe000),
	{ 0xe000, ARCH_INSN_JUMP, 6, 0 }, JMP(0xe007, 0xe100), { 0xe101, ARCH_INSN_JUMP, 6, 0 },
	CALL(0xe200, 0x4000), RET(0x4000), { 0xe206, ARCH_INSN_JUMP, 2, 0 }, RET(0xf001),
	END_INSNS,
};
static const struct fake_ev plt_evs[] = {
	S(0x1000), S(0x1001), S(0xe000), S(0xe006), S(0xe007), S(0xe100), S(0xe101), S(0xe200),
	S(0x4000), S(0xe205), S(0xe206), S(0xf000), S(0xf001), S(0x1006), S(0x1007), S(0xe000),
	S(0xf000), S(0xf001), S(0x100c), END_EVS,
};

/* f, called by main, ends with a jmp to printf's stub (a tail call), bound already. */
static const struct fake_insn plt_tail_insns[] = {
	CALL(0x1001, 0x2000), JMP(0x2001, 0xe000), { 0xe000, ARCH_INSN_JUMP, 6, 0 }, RET(0xf001),
	END_INSNS,
};
static const struct fake_ev plt_tail_evs[] = {
	S(0x1000), S(0x1001), S(0x2000), S(0x2001), S(0xe000), S(0xf000), S(0xf001), S(0x1006),
	END_EVS,
};

/*
 * A signal arrives in f's call of printf, inside the stub (after its first
 * instruction); the handler calls f again, whose call of printf goes
 * through the stub whole; after sigreturn the outer stub jumps on.  Folded,
 * the handler's frame is above f's as consumers see it, and f's Cum counts
 * the inner activation once: the arc f -> handler has the handler's steps
 * while the outer f was f's innermost activation (its first and its ret),
 * not the inner f's.
 */
static const struct fake_insn plt_signal_insns[] = {
	CALL(0x1001, 0x2000), CALL(0x2000, 0xe000), RET(0x2005), { 0xe001, ARCH_INSN_JUMP, 6, 0 },
	RET(0xf000), CALL(0x5000, 0x2000), RET(0x5005), SYSCALL(0x6000), END_INSNS,
};
static const struct fake_ev plt_signal_evs[] = {
	S(0x1000), S(0x1001), S(0x2000), S(0xe000), ASYNC(PT_ASYNC_SIGNAL), S(0x5000), S(0x2000),
	S(0xe000), S(0xe001), S(0xf000), S(0x2005), S(0x5005), S(0x6000),
	ASYNC(PT_ASYNC_SIGRETURN), S(0xe001), S(0xf000), S(0x2005), S(0x1006), END_EVS,
};

/* The arc caller -> callee of a, NULL when there is none. */
static const struct arc_edge *arc_of(const struct arcs *a, const char *caller, const char *callee)
{
	struct callflow *cf = arcs_callflow(a);
	uint32_t from = fn_id(cf, caller), to = fn_id(cf, callee);

	for (size_t i = 0; i < arcs_nr_edges(a); i++)
		if (arcs_edge(a, i)->caller == from && arcs_edge(a, i)->callee == to)
			return arcs_edge(a, i);
	return NULL;
}

/* Steps a counts at pc for function name. */
static uint64_t pc_count(const struct arcs *a, uint64_t pc, const char *name)
{
	uint32_t fn = fn_id(arcs_callflow(a), name);
	uint64_t n = 0;

	for (size_t i = 0; i < arcs_nr_pcs(a); i++)
		if (arcs_pc(a, i)->pc == pc && arcs_pc(a, i)->fn == fn)
			n += arcs_pc(a, i)->count;
	return n;
}

/* The arcs of a run and their engine, freed. */
static void free_run(struct arcs *a)
{
	struct callflow *cf = arcs_callflow(a);

	arcs_free(a);
	cf_free(cf);
}

static void expect_fns(const struct arcs *a, const char *what, const struct expect_fn *x)
{
	struct callflow *cf = arcs_callflow(a);

	for (; x->name; x++) {
		uint32_t f = fn_id(cf, x->name);
		const struct arc_fn_stats *fs = f == CF_NO_FN ? NULL : arcs_fn(a, f);
		bool ok = fs && fs->calls == x->calls && fs->base == x->base && fs->cum == x->cum;

		CU_ASSERT(ok);
		if (!ok)
			fprintf(stderr, "\n  %s: %s: calls %lu base %lu cum %lu, expected %lu %lu %lu",
				what, x->name, fs ? fs->calls : 0, fs ? fs->base : 0,
				fs ? fs->cum : 0, x->calls, x->base, x->cum);
	}
}

/*
 * Folded (the reports' default), the stubs are no frames: their steps are
 * the Base of the frame below (main's 5 and the stubs' 6; a tail-called
 * stub's, f's), a call through one is a call of printf by the caller, and
 * the resolver, entered so, passes main's call on to printf.  Kept, the
 * stubs are functions and the jumps out of them tail calls.  Stepped one
 * by one or followed as runs, the same.
 */
static void test_plt_fold(void)
{
	static const struct expect_fn folded[] = {
		{ "main", 0, 11, 19 }, { "_dl_runtime_resolve_xsavec", 1, 3, 4 }, { "h", 1, 1, 1 },
		{ "printf", 2, 4, 4 }, { "printf@plt", 0, 0, 0 }, { ".plt", 0, 0, 0 }, { NULL },
	};
	static const struct expect_fn kept[] = {
		{ "main", 0, 5, 19 }, { "printf@plt", 2, 4, 4 }, { ".plt", 1, 2, 2 },
		{ "_dl_runtime_resolve_xsavec", 1, 3, 4 }, { "printf", 2, 4, 4 }, { NULL },
	};
	static const struct expect_fn tail_folded[] = {
		{ "main", 0, 3, 8 }, { "f", 1, 3, 3 }, { "printf", 1, 2, 2 }, { NULL },
	};
	static const struct expect_fn signal_folded[] = {
		{ "main", 0, 3, 16 }, { "f", 2, 8, 13 }, { "printf", 2, 2, 2 },
		{ "handler", 1, 2, 7 }, { NULL },
	};

	for (int runs = 0; runs < 2; runs++) {
		struct arcs *a;

		run_fold = true;
		a = run_src(plt_insns, plt_evs, false, runs, runs);
		expect_fns(a, "folded", folded);
		CU_ASSERT(arc_of(a, "main", "printf") && arc_of(a, "main", "printf")->calls == 2);
		CU_ASSERT(arc_of(a, "main", "_dl_runtime_resolve_xsavec") &&
			  arc_of(a, "main", "_dl_runtime_resolve_xsavec")->calls == 1);
		CU_ASSERT_PTR_NULL(arc_of(a, "_dl_runtime_resolve_xsavec", "printf"));
		/* the stubs' instructions, counted for main: where they are, per caller */
		CU_ASSERT_EQUAL(pc_count(a, 0xe000, "main"), 2);
		CU_ASSERT_EQUAL(pc_count(a, 0xe101, "main"), 1);
		CU_ASSERT_EQUAL(pc_count(a, 0xe000, "printf@plt"), 0);
		CU_ASSERT_EQUAL(arcs_check(a), 0);
		free_run(a);

		a = run_src(plt_tail_insns, plt_tail_evs, false, runs, runs);
		expect_fns(a, "tail call of a stub", tail_folded);
		CU_ASSERT(arc_of(a, "f", "printf") && arc_of(a, "f", "printf")->calls == 1);
		CU_ASSERT_EQUAL(pc_count(a, 0xe000, "f"), 1);
		CU_ASSERT_EQUAL(arcs_check(a), 0);
		free_run(a);

		a = run_src(plt_signal_insns, plt_signal_evs, false, runs, runs);
		expect_fns(a, "a signal in a stub, its handler calling f again", signal_folded);
		CU_ASSERT(arc_of(a, "f", "handler") && arc_of(a, "f", "handler")->cum == 2);
		CU_ASSERT_EQUAL(arcs_check(a), 0);
		free_run(a);

		run_fold = false;
		a = run_src(plt_signal_insns, plt_signal_evs, false, runs, runs);
		CU_ASSERT_EQUAL(arcs_check(a), 0);
		free_run(a);
		a = run_src(plt_insns, plt_evs, false, runs, runs);
		expect_fns(a, "kept", kept);
		CU_ASSERT(arc_of(a, "_dl_runtime_resolve_xsavec", "printf") &&
			  arc_of(a, "_dl_runtime_resolve_xsavec", "printf")->calls == 1);
		CU_ASSERT_EQUAL(pc_count(a, 0xe000, "printf@plt"), 2);
		CU_ASSERT_EQUAL(arcs_check(a), 0);
		free_run(a);
	}
}

/* The node below node for function name, ARC_NONE if none. */
static uint32_t tree_child(const struct arcs *a, uint32_t node, const char *name)
{
	struct callflow *cf = arcs_callflow(a);

	for (uint32_t c = arcs_node(a, node)->first_child; c != ARC_NONE;
	     c = arcs_node(a, c)->next_sibling)
		if (!strcmp(cf_func(cf, arcs_node(a, c)->fn)->name, name))
			return c;
	return ARC_NONE;
}

/*
 * Per call path, gcc's cold layout over a recursion: the inner f is one
 * activation under the outer f, its cold part called above it.
 */
static void test_cold_part_call_paths(void)
{
	static const struct {
		const char *path[4];
		uint64_t calls, base, cum;
	} rows[] = {
		{ { "main" }, 0, 3, 11 },
		{ { "main", "f" }, 1, 3, 8 },
		{ { "main", "f", "f" }, 1, 3, 5 },
		{ { "main", "f", "f", "f.cold" }, 1, 2, 2 },
	};
	struct arcs *a = run(&scenarios[14]);
	const struct arc_jump *j;

	for (size_t r = 0; r < sizeof(rows) / sizeof(rows[0]); r++) {
		uint32_t n = arcs_thread_root(a, 0, NULL, NULL);

		for (size_t k = 0; k < 4 && rows[r].path[k] && n != ARC_NONE; k++)
			n = tree_child(a, n, rows[r].path[k]);
		CU_ASSERT_NOT_EQUAL_FATAL(n, ARC_NONE);
		CU_ASSERT_EQUAL(arcs_node(a, n)->calls, rows[r].calls);
		CU_ASSERT_EQUAL(arcs_node(a, n)->base, rows[r].base);
		CU_ASSERT_EQUAL(arcs_node(a, n)->cum, rows[r].cum);
	}
	/* the jumps inside one function: the inner f's branch to 2010, taken once */
	CU_ASSERT_EQUAL_FATAL(arcs_nr_jumps(a), 1);
	j = arcs_jump(a, 0);
	CU_ASSERT_EQUAL(j->from, 0x2000);
	CU_ASSERT_EQUAL(j->to, 0x2010);
	CU_ASSERT_EQUAL(j->count, 1);
	CU_ASSERT_EQUAL(j->cls, ARCH_INSN_COND);
	cf_free(arcs_callflow(a));
	arcs_free(a);
}

/*
 * Block mode: the same runs recorded as block starts (a step only where the
 * previous instruction transferred control) give the same numbers.  Each run
 * ends in an exit system call at 0x1006 so its last block has an end.
 */
static const struct fake_insn block_insns[] = {
	CALL(0x1001, 0x2000), JCC(0x2000, 0x2010), CALL(0x2002, 0x2000), RET(0x2007), RET(0x2010),
	SYSCALL(0x1006), END_INSNS,
};
static const struct fake_ev block_recursion_evs[] = {
	S(0x1000), S(0x1001), S(0x2000), S(0x2002), S(0x2000), S(0x2002), S(0x2000),
	S(0x2010), S(0x2007), S(0x2007), S(0x1006), END_EVS,
};
/* main calls h, whose loop branches back twice, then tail-calls g */
static const struct fake_insn block_loop_insns[] = {
	CALL(0x1001, 0x4000), JCC(0x4001, 0x4000), JMP(0x4003, 0x3000), RET(0x3000),
	SYSCALL(0x1006), END_INSNS,
};
static const struct fake_ev block_loop_evs[] = {
	S(0x1000), S(0x1001), S(0x4000), S(0x4001), S(0x4000), S(0x4001), S(0x4000), S(0x4001),
	S(0x4003), S(0x3000), S(0x1006), END_EVS,
};
/* a signal handler entered after main's call, returning through the restorer */
static const struct fake_ev block_signal_evs[] = {
	S(0x1000), S(0x1001), ASYNC(PT_ASYNC_SIGNAL), S(0x5000), S(0x5001), S(0x6000), S(0x6001),
	ASYNC(PT_ASYNC_SIGRETURN), S(0x2000), S(0x2010), S(0x1006), END_EVS,
};
static const struct fake_insn block_signal_insns[] = {
	CALL(0x1001, 0x2000), RET(0x5001), SYSCALL(0x6001), JCC(0x2000, 0x2010), RET(0x2010),
	SYSCALL(0x1006), END_INSNS,
};

/* Does the step at pc start a block, after the instruction at prev? */
static bool block_start(struct callflow *cf, uint64_t prev, uint64_t pc)
{
	struct cf_site s = { 0 };

	fake_site(NULL, cf, 100, prev, 0, &s);
	return !((s.insn.cls == ARCH_INSN_OTHER || s.insn.cls == ARCH_INSN_COND) &&
		 pc == prev + s.insn.len);
}

static void test_block_mode(void)
{
	static const struct {
		const struct fake_insn *insns;
		const struct fake_ev *evs;
	} runs[] = {
		{ block_insns, block_recursion_evs },
		{ block_loop_insns, block_loop_evs },
		{ block_signal_insns, block_signal_evs },
	};

	for (size_t r = 0; r < sizeof(runs) / sizeof(runs[0]); r++) {
		struct fake_ev heads[64];
		struct scenario sc = { .what = "block", .insns = runs[r].insns,
				       .evs = runs[r].evs };
		struct cf_source src = { .site = fake_site };
		struct callflow *scratch = cf_new(&src);
		struct arcs *steps, *blocks;
		uint64_t prev = 0;
		size_t n = 0;

		cur_insns = runs[r].insns;
		for (const struct fake_ev *e = runs[r].evs; e->pc || e->async_kind; e++) {
			if (e->async_kind || !prev || block_start(scratch, prev, e->pc))
				heads[n++] = *e;
			if (!e->async_kind)
				prev = e->pc;
		}
		heads[n] = (struct fake_ev){ .pc = 0 };
		cf_free(scratch);
		CU_ASSERT(n < (size_t)(sizeof(heads) / sizeof(heads[0])));
		steps = run(&sc);
		sc.evs = heads;
		blocks = run_mode(&sc, true);
		CU_ASSERT_EQUAL(arcs_total(blocks), arcs_total(steps));
		for (uint32_t f = 0; f < cf_nr_funcs(arcs_callflow(steps)); f++) {
			const char *name = cf_func(arcs_callflow(steps), f)->name;
			uint32_t g = fn_id(arcs_callflow(blocks), name);
			const struct arc_fn_stats *a = arcs_fn(steps, f), *b = arcs_fn(blocks, g);

			bool same = a->calls == b->calls && a->base == b->base && a->cum == b->cum;

			CU_ASSERT(same);
			if (!same)
				fprintf(stderr, "\n  block run %zu: %s: %lu %lu %lu in blocks, "
					"%lu %lu %lu", r, name, b->calls, b->base, b->cum, a->calls,
					a->base, a->cum);
		}
		CU_ASSERT_EQUAL(arcs_check(blocks), 0);
		cf_free(arcs_callflow(steps));
		cf_free(arcs_callflow(blocks));
		arcs_free(steps);
		arcs_free(blocks);
	}
}

/*
 * Recording switched on and off (--on f): each ON..OFF is one activation.
 * f: 2000, 2001 call g, 2006 ret; g: 3000, 3001 ret.  One region:
 * f 2000 2001 g 3000 3001 f 2006 = f base 3 cum 5, g base 2.
 */
static const struct fake_insn onoff_insns[] = {
	CALL(0x2001, 0x3000), RET(0x2006), RET(0x3001), CALL(0x1001, 0x2000), END_INSNS,
};

/* An event of a recording switched on and off: a step, or ON / OFF. */
struct onoff_ev {
	uint64_t pc;		  /* 0: ON if on, else OFF */
	bool on;
};
#define ON_ { 0, true }
#define OFF_ { 0, false }
#define P(p) { p, false }

struct onoff_case {
	const char *what;
	struct onoff_ev evs[40];
	struct expect_fn expect[4];
	unsigned returns, offs, marks; /* pops ending CF_END_RETURN / CF_END_OFF, OFF marks */
};

static const struct onoff_case onoff_cases[] = {
	{ "three activations of f: three calls",
	  { ON_, P(0x2000), P(0x2001), P(0x3000), P(0x3001), P(0x2006), OFF_,
	    ON_, P(0x2000), P(0x2001), P(0x3000), P(0x3001), P(0x2006), OFF_,
	    ON_, P(0x2000), P(0x2001), P(0x3000), P(0x3001), P(0x2006), OFF_, { 1, 0 } },
	  { { "f", 3, 9, 15 }, { "g", 3, 6, 6 }, { NULL } }, 6, 0, 3 },
	/* the trace ends after the last OFF's activation without OFF: still one call */
	{ "the last activation runs to the end of the trace",
	  { ON_, P(0x2000), P(0x2001), P(0x3000), P(0x3001), P(0x2006), OFF_,
	    ON_, P(0x2000), P(0x2001), { 1, 0 } },
	  { { "f", 2, 5, 7 }, { "g", 1, 2, 2 }, { NULL } }, 2, 0, 1 },
	/* switched off inside g (a longjmp out, say): both frames end there */
	{ "switched off two frames deep",
	  { ON_, P(0x2000), P(0x2001), P(0x3000), OFF_, ON_, P(0x2000), P(0x2001), P(0x3000),
	    P(0x3001), P(0x2006), OFF_, { 1, 0 } },
	  { { "f", 2, 5, 8 }, { "g", 2, 3, 3 }, { NULL } }, 2, 2, 2 },
	/* switched on in the middle of main (pitrace_on() returns there): no call */
	{ "switched on inside a function",
	  { ON_, P(0x1001), P(0x2000), P(0x2001), P(0x3000), P(0x3001), P(0x2006), P(0x1006),
	    OFF_, { 1, 0 } },
	  { { "main", 0, 2, 7 }, { "f", 1, 3, 5 }, { "g", 1, 2, 2 } }, 2, 1, 1 },
};

struct onoff_count {
	unsigned returns, offs, marks;
};

static void onoff_pop(void *ctx, struct cf_thread *t, const struct cf_frame *parent,
		      const struct cf_frame *f, const struct cf_cost *cost, enum cf_end_kind how)
{
	struct onoff_count *c = ctx;

	(void)t; (void)parent; (void)f; (void)cost;
	c->returns += how == CF_END_RETURN;
	c->offs += how == CF_END_OFF;
}

static void onoff_mark(void *ctx, struct cf_thread *t, enum cf_mark m, uint64_t index)
{
	struct onoff_count *c = ctx;

	(void)t; (void)index;
	c->marks += m == CF_MARK_OFF;
	CU_ASSERT(m != CF_MARK_GAP);	/* recording off is not steps missing in a frame */
}

static void test_recording_on_off(void)
{
	static const struct cf_consumer_ops ops = { .pop = onoff_pop, .mark = onoff_mark };

	for (size_t i = 0; i < sizeof(onoff_cases) / sizeof(onoff_cases[0]); i++) {
		const struct onoff_case *oc = &onoff_cases[i];
		struct cf_source src = { .site = fake_site };
		struct callflow *cf = cf_new(&src);
		struct arcs *a = arcs_new(cf);
		struct onoff_count c = { 0 };
		uint64_t index = 0;
		int bad = 0;

		cf_add_consumer(cf, &ops, &c);
		cur_insns = onoff_insns;
		for (const struct onoff_ev *e = oc->evs; e->pc != 1; e++) {
			struct trace_event ev = {
				.kind = e->pc ? TEV_STEP : e->on ? TEV_ON : TEV_OFF,
				.pid = 100, .tid = 100, .cpu = UINT32_MAX, .pc = e->pc,
				.index = index,
			};

			cf_event(cf, &ev);
			index += e->pc != 0;
		}
		cf_finish(cf);
		for (const struct expect_fn *x = oc->expect; x->name; x++) {
			uint32_t f = fn_id(cf, x->name);
			const struct arc_fn_stats *fs = f == CF_NO_FN ? NULL : arcs_fn(a, f);

			if (!fs || fs->calls != x->calls || fs->base != x->base || fs->cum != x->cum) {
				fprintf(stderr, "\n  %s: %s: calls %lu base %lu cum %lu, expected "
					"%lu %lu %lu", oc->what, x->name, fs ? fs->calls : 0,
					fs ? fs->base : 0, fs ? fs->cum : 0, x->calls, x->base,
					x->cum);
				bad++;
			}
		}
		if (c.returns != oc->returns || c.offs != oc->offs || c.marks != oc->marks) {
			fprintf(stderr, "\n  %s: %u returns, %u ended off, %u OFF marks; expected "
				"%u %u %u", oc->what, c.returns, c.offs, c.marks, oc->returns,
				oc->offs, oc->marks);
			bad++;
		}
		CU_ASSERT_EQUAL(bad, 0);
		CU_ASSERT_EQUAL(arcs_check(a), 0);
		arcs_free(a);
		cf_free(cf);
	}
}

/*
 * Transfers nothing explains are bounded: one instruction repeated opens an
 * asynchronous frame a step, but never more than CF_MAX_UNEXPLAINED at
 * once (the others are taken as jumps within the innermost); signals,
 * each with its ASYNC record, nest as deep as they come.
 */
static void test_unexplained_bounded(void)
{
	static const struct {
		const char *what;
		unsigned repeats;
		bool signal;		  /* each repeat an ASYNC SIGNAL, then the handler's entry */
		uint8_t ring;
		uint32_t max_depth;
		uint64_t async, unexplained, capped, capped_user;
	} rows[] = {
		{ "a few unexplained steps nest", 10, false, 0, 11, 10, 10, 0, 0 },
		{ "exactly the limit", CF_MAX_UNEXPLAINED, false, 0, CF_MAX_UNEXPLAINED + 1,
		  CF_MAX_UNEXPLAINED, CF_MAX_UNEXPLAINED, 0, 0 },
		{ "10,000 of them: the limit, the rest jumps", 10000, false, 0,
		  CF_MAX_UNEXPLAINED + 1, CF_MAX_UNEXPLAINED, CF_MAX_UNEXPLAINED,
		  10000 - CF_MAX_UNEXPLAINED, 10000 - CF_MAX_UNEXPLAINED },
		{ "in the kernel too, but no sign of damage there", 10000, false, 1,
		  CF_MAX_UNEXPLAINED + 1, CF_MAX_UNEXPLAINED, CF_MAX_UNEXPLAINED,
		  10000 - CF_MAX_UNEXPLAINED, 0 },
		{ "100 signals with their records nest 100 deep", 100, true, 0, 101, 100, 0, 0, 0 },
	};
	static struct fake_ev evs[2 * 10000 + 2];
	static const struct fake_insn insns[] = { END_INSNS };

	for (size_t r = 0; r < sizeof(rows) / sizeof(rows[0]); r++) {
		struct scenario sc = { .what = rows[r].what, .insns = insns, .evs = evs };
		struct cf_stats st;
		struct callflow *cf;
		struct arcs *a;
		size_t n = 0;

		uint64_t pc = rows[r].ring ? KBASE : 0x1000;

		evs[n++] = (struct fake_ev){ .pc = pc, .ring = rows[r].ring };
		for (unsigned k = 0; k < rows[r].repeats; k++) {
			if (rows[r].signal)
				evs[n++] = (struct fake_ev)ASYNC(PT_ASYNC_SIGNAL);
			evs[n++] = (struct fake_ev){ .pc = rows[r].signal ? 0x5000 : pc,
						     .ring = rows[r].ring };
		}
		evs[n] = (struct fake_ev)END_EVS;
		a = run(&sc);
		cf_get_stats(arcs_callflow(a), &st);
		if (st.max_depth != rows[r].max_depth || st.async != rows[r].async ||
		    st.unexplained != rows[r].unexplained ||
		    st.unexplained_capped != rows[r].capped)
			fprintf(stderr, "\n  %s: depth %u async %lu unexplained %lu capped %lu",
				rows[r].what, st.max_depth, st.async, st.unexplained,
				st.unexplained_capped);
		CU_ASSERT_EQUAL(st.max_depth, rows[r].max_depth);
		CU_ASSERT_EQUAL(st.async, rows[r].async);
		CU_ASSERT_EQUAL(st.unexplained, rows[r].unexplained);
		CU_ASSERT_EQUAL(st.unexplained_capped, rows[r].capped);
		CU_ASSERT_EQUAL(st.unexplained_capped_user, rows[r].capped_user);
		CU_ASSERT_EQUAL(st.steps, rows[r].repeats + 1);
		CU_ASSERT_EQUAL(arcs_check(a), 0);
		cf = arcs_callflow(a);
		arcs_free(a);
		cf_free(cf);
	}
}

/*
 * A source of straight code: 16,384 one-byte ordinary instructions of one
 * function from 0x100000, site ids by address, every one described.
 */
#define LONG_BASE 0x100000ull
#define LONG_N 16384u

static bool long_peek(void *ctx, uint32_t pid, uint64_t pc, uint8_t ring, struct cf_site *out)
{
	(void)ctx; (void)pid; (void)ring;
	if (pc < LONG_BASE || pc >= LONG_BASE + LONG_N)
		return false;
	*out = (struct cf_site){ .insn = { .cls = ARCH_INSN_OTHER, .len = 1 }, .fn = 0,
				 .id = (uint32_t)(pc - LONG_BASE) + 1 };
	return true;
}

/*
 * Every run holds the pcs it was made of, the pool growing under it
 * (before, a run made just when the pool grew lost its first pc, and was
 * never taken in bulk again).
 */
static void test_runs_keep_their_pcs(void)
{
	struct cf_source src = { .peek = long_peek };
	struct cf_runs rs;
	uint32_t bad = 0, made = 0;

	cf_runs_init(&rs, NULL, NULL);
	for (uint64_t pc = LONG_BASE; pc + CF_RUN_MAX <= LONG_BASE + LONG_N; pc += CF_RUN_MAX) {
		struct cf_site x;
		int32_t i;

		CU_ASSERT_FATAL(long_peek(NULL, 1, pc, 0, &x));
		i = cf_runs_get(&rs, &src, 1, 0, pc, &x);
		CU_ASSERT_FATAL(i >= 0);
		made++;
	}
	CU_ASSERT(rs.pool_size > 4096);	/* it grew, more than once */
	for (uint32_t i = 0; i < rs.nr; i++) {
		const struct cf_run *r = &rs.runs[i];

		for (uint32_t k = 0; k < r->m; k++)
			bad += rs.pcs[r->first + k] != LONG_BASE + (uint64_t)i * CF_RUN_MAX + k ||
			       rs.sites[r->first + k].id != i * CF_RUN_MAX + k + 1;
		bad += r->m != CF_RUN_MAX;
	}
	if (bad)
		fprintf(stderr, "\n  %u of %u runs' pcs or sites are not theirs", bad, made);
	CU_ASSERT_EQUAL(rs.nr, made);
	CU_ASSERT_EQUAL(bad, 0);
	cf_runs_release(&rs);
}

/*
 * A program for calls taken whole.  main loops calling outer (which
 * recurses to a depth that changes each time and calls f on the way
 * back: leaf calls of a function already on the stack), h (which calls
 * f), g (which calls h) and x (x, y and z call one another in a circle
 * to a depth that changes, z calling x twice: calls with x and y on the
 * stack below, whose own x frames, one after the other, move the clocks
 * of those).  f goes one
 * of three ways: straight to its return; through its cold part and back;
 * or by a jump into g's middle and a jump back, which unwinds to g when g
 * is on the stack and is two frames replacing f's when it is not.
 */
static const struct fake_insn whole_insns[] = {
	CALL(0x1001, 0x7000), CALL(0x1007, 0x4000), CALL(0x100d, 0x3000), CALL(0x1012, 0xa000),
	JMP(0x1017, 0x1000),
	JCC(0xa001, 0xa008), CALL(0xa003, 0xb000), RET(0xa008), CALL(0xb001, 0xc000), RET(0xb006),
	CALL(0xc001, 0xa000), CALL(0xc006, 0xa000), RET(0xc00b),
	JCC(0x7001, 0x700e), CALL(0x7003, 0x7000), CALL(0x7009, 0x2000), RET(0x700e),
	JCC(0x2001, 0x2010), JCC(0x2004, 0x3010), RET(0x2006), JMP(0x2011, 0x8000),
	JMP(0x8001, 0x2006),
	CALL(0x3001, 0x4000), RET(0x3006), JMP(0x3011, 0x2006),
	CALL(0x4001, 0x2000), RET(0x4006),
	END_INSNS,
};
static struct fake_ev whole_evs[80000];

/* f's steps, the way way (0 straight, 1 the cold part, 2 into g and back), to its return. */
static size_t whole_f(uint64_t *pcs, int way)
{
	static const uint64_t ways[3][8] = {
		{ 0x2000, 0x2001, 0x2003, 0x2004, 0x2006 },
		{ 0x2000, 0x2001, 0x2010, 0x2011, 0x8000, 0x8001, 0x2006 },
		{ 0x2000, 0x2001, 0x2003, 0x2004, 0x3010, 0x3011, 0x2006 },
	};
	size_t n = 0;

	while (n < 8 && ways[way][n])
		pcs[n] = ways[way][n], n++;
	return n;
}

/* x(depth): x calls y, y calls z, z calls x(depth - 1) twice; x(0) returns at once. */
static size_t whole_x(uint64_t *pcs, int depth)
{
	size_t n = 0;

	pcs[n++] = 0xa000;
	pcs[n++] = 0xa001;
	if (depth) {
		pcs[n++] = 0xa003;
		pcs[n++] = 0xb000;
		pcs[n++] = 0xb001;
		pcs[n++] = 0xc000;
		pcs[n++] = 0xc001;
		n += whole_x(pcs + n, depth - 1);
		pcs[n++] = 0xc006;
		n += whole_x(pcs + n, depth - 1);
		pcs[n++] = 0xc00b;
		pcs[n++] = 0xb006;
	}
	pcs[n++] = 0xa008;
	return n;
}

static size_t whole_outer(uint64_t *pcs, int depth, int way)
{
	size_t n = 0;

	pcs[n++] = 0x7000;
	pcs[n++] = 0x7001;
	if (depth) {
		pcs[n++] = 0x7003;
		n += whole_outer(pcs + n, depth - 1, (way + 1) % 3);
		pcs[n++] = 0x7008;
		pcs[n++] = 0x7009;
		n += whole_f(pcs + n, way);
	}
	pcs[n++] = 0x700e;
	return n;
}

static void build_whole(void)
{
	size_t n = 0;

	for (int it = 0; it < 400; it++) {
		uint64_t pcs[256];
		size_t m = 0;

		pcs[m++] = 0x1000;
		pcs[m++] = 0x1001;
		m += whole_outer(pcs + m, it % 5, (it / 5) % 3);
		pcs[m++] = 0x1006;
		pcs[m++] = 0x1007;
		pcs[m++] = 0x4000;	/* h, from main */
		pcs[m++] = 0x4001;
		m += whole_f(pcs + m, it % 3);
		pcs[m++] = 0x4006;
		pcs[m++] = 0x100c;
		pcs[m++] = 0x100d;
		pcs[m++] = 0x3000;	/* g, then h, from g */
		pcs[m++] = 0x3001;
		pcs[m++] = 0x4000;
		pcs[m++] = 0x4001;
		m += whole_f(pcs + m, (it / 3) % 3);
		pcs[m++] = 0x4006;
		pcs[m++] = 0x3006;
		pcs[m++] = 0x1012;
		m += whole_x(pcs + m, (it / 2) % 4);
		pcs[m++] = 0x1017;
		for (size_t k = 0; k < m; k++)
			whole_evs[n++] = (struct fake_ev){ .pc = pcs[k] };
	}
	whole_evs[n].pc = 0;
}

/*
 * Calls cf_steps takes whole (replays) give every number arcs keeps as
 * stepping through them does: leaf calls of a function on the stack,
 * tail parts and jumps between functions, a jump that unwinds to a frame
 * further down where the same steps did not before; in one run and in
 * runs cut anywhere; and most calls of the loop are taken whole.
 */
static void test_replays(void)
{
	static const struct cf_consumer_ops hc_ops = { .step = hc_step, .bulk = hc_bulk,
						       .push = hc_push, .replay = hc_replay };
	struct how_counted hc = { 0 };
	struct arcs *one, *whole;
	struct cf_stats st;
	int bad;

	build_whole();
	one = run_src(whole_insns, whole_evs, false, false, false);
	extra_ops = &hc_ops;
	extra_ctx = &hc;
	whole = run_src(whole_insns, whole_evs, false, true, true);
	extra_ops = NULL;
	bad = arcs_differ(one, whole);
	if (bad)
		fprintf(stderr, "\n  calls taken whole differ from single steps (%d)", bad);
	CU_ASSERT_EQUAL(bad, 0);
	CU_ASSERT_EQUAL(arcs_check(whole), 0);
	cf_get_stats(arcs_callflow(whole), &st);
	CU_ASSERT_EQUAL(hc.stepped + hc.bulk + hc.replayed_steps, st.steps);
	/* 400 iterations of up to 15 calls: most of them whole, some of more than one frame,
	 * calls that made calls among them */
	CU_ASSERT(hc.replayed > 400 * 3);
	CU_ASSERT(hc.replayed_frames > hc.replayed + 400);
	CU_ASSERT(hc.replayed_nested > 400);
	CU_ASSERT(hc.replayed_steps > st.steps / 2);
	if (hc.replayed_nested <= 400 || hc.replayed_steps <= st.steps / 2)
		fprintf(stderr, "\n  %lu calls whole, %lu nested, %lu of %lu steps", hc.replayed,
			hc.replayed_nested, hc.replayed_steps, st.steps);
	cf_free(arcs_callflow(whole));
	arcs_free(whole);
	cf_free(arcs_callflow(one));
	arcs_free(one);
}

/*
 * Threads of one process running the same code, each from its own start
 * function (so each its own outer call site), each after calling its own
 * number of filler functions: the threads' function tables at every size
 * around a growth.  The code: start calls x(d); x(d > 0) calls y, y calls
 * x(d - 1); x(0) calls h, h calls x (which returns at once) and z.  The
 * first thread calls x(1), the others x(2) and x(3): their y's call of
 * x(0) is the first thread's replay, x on the stack below and h and z in
 * it after x, not yet in their tables: found, they may grow the table.
 */
#define SHARE_THREADS 64
#define SHARE_ITERS 12

static struct fake_insn share_insns[FILL_MAX + 16 + 5 * SHARE_THREADS];
static struct fake_ev share_evs[64 * 1024];

/* Thread i's start function: a filler slot from the top, none of them called. */
static uint64_t share_start(unsigned i)
{
	return FILL_BASE + (uint64_t)(FILL_MAX - 1 - i) * FILL_SIZE;
}

static void build_share_insns(unsigned nr_threads)
{
	static const struct fake_insn code[] = {
		JCC(0xa001, 0xa010), JCC(0xa003, 0xa020), CALL(0xa005, 0xb000), RET(0xa00a),
		RET(0xa010), CALL(0xa020, 0x4000), RET(0xa025),
		CALL(0xb001, 0xa000), RET(0xb006),
		CALL(0x4001, 0xa000), CALL(0x4007, 0xc000), RET(0x400c),
		RET(0xc002),
	};
	size_t n = 0;

	for (size_t k = 0; k < sizeof(code) / sizeof(code[0]); k++)
		share_insns[n++] = code[k];
	for (unsigned k = 0; k < FILL_MAX - SHARE_THREADS; k++)
		share_insns[n++] = (struct fake_insn)RET(FILL_BASE + (uint64_t)k * FILL_SIZE);
	for (unsigned i = 0; i < nr_threads; i++) {
		uint64_t s = share_start(i);

		share_insns[n++] = (struct fake_insn){ s + 1, ARCH_INSN_CALL, 5, 0 };
		share_insns[n++] = (struct fake_insn)JCC(s + 7, s);
		share_insns[n++] = (struct fake_insn)JMP(s + 9, s + 0x20);
		share_insns[n++] = (struct fake_insn)CALL(s + 0x21, 0xa000);
		share_insns[n++] = (struct fake_insn)JMP(s + 0x27, s + 0x20);
	}
	share_insns[n] = (struct fake_insn)END_INSNS;
}

/* x(d), leaf: the call from h (x returns at once). */
static size_t share_x(uint64_t *pcs, unsigned d, bool leaf)
{
	static const uint64_t x0[] = { 0xa020, 0x4000, 0x4001, 0xa000, 0xa001, 0xa010, 0x4006,
				       0x4007, 0xc000, 0xc001, 0xc002, 0x400c, 0xa025 };
	size_t n = 0;

	pcs[n++] = 0xa000;
	pcs[n++] = 0xa001;
	if (leaf) {
		pcs[n++] = 0xa010;
		return n;
	}
	pcs[n++] = 0xa003;
	if (!d) {
		memcpy(pcs + n, x0, sizeof(x0));
		return n + sizeof(x0) / sizeof(x0[0]);
	}
	pcs[n++] = 0xa005;
	pcs[n++] = 0xb000;
	pcs[n++] = 0xb001;
	n += share_x(pcs + n, d - 1, false);
	pcs[n++] = 0xb006;
	pcs[n++] = 0xa00a;
	return n;
}

/* Thread i's steps: fillers calls to fillers 0.., then the calls of x. */
static size_t share_thread(uint64_t *pcs, unsigned i, unsigned fillers)
{
	uint64_t s = share_start(i);
	size_t n = 0;

	for (unsigned k = 0; k < fillers; k++) {
		pcs[n++] = s;
		pcs[n++] = s + 1;
		pcs[n++] = FILL_BASE + (uint64_t)k * FILL_SIZE;
		pcs[n++] = s + 6;
		pcs[n++] = s + 7;
		if (k + 1 == fillers)
			pcs[n++] = s + 9;
	}
	for (unsigned it = 0; it < SHARE_ITERS; it++) {
		pcs[n++] = s + 0x20;
		pcs[n++] = s + 0x21;
		n += share_x(pcs + n, i ? 2 + (it + i) % 2 : 1, false);
		pcs[n++] = s + 0x26;
		pcs[n++] = s + 0x27;
	}
	pcs[n++] = s + 0x20;
	return n;
}

/* The threads' steps one after the other (chunk 0) or taking turns chunk steps at a time. */
static void build_share(unsigned nr_threads, const unsigned *fillers, size_t chunk)
{
	static uint64_t pcs[SHARE_THREADS][4096];
	size_t len[SHARE_THREADS], at[SHARE_THREADS] = { 0 }, n = 0;
	bool more = true;

	for (unsigned i = 0; i < nr_threads; i++)
		len[i] = share_thread(pcs[i], i, fillers[i]);
	while (more) {
		more = false;
		for (unsigned i = 0; i < nr_threads; i++) {
			size_t end = chunk && at[i] + chunk < len[i] ? at[i] + chunk : len[i];

			while (at[i] < end)
				share_evs[n++] = (struct fake_ev){ .pc = pcs[i][at[i]++], .tid = 100 + i };
			more |= at[i] < len[i];
		}
	}
	share_evs[n].pc = 0;
}

/*
 * One layout through cf_steps and one step at a time: how many checks
 * failed (a fast pass that took no call whole is one).
 */
static int share_differs(unsigned nr_threads, const unsigned *fillers, size_t chunk)
{
	struct arcs *one, *fast;
	struct cf_stats st;
	int bad;

	build_share_insns(nr_threads);
	build_share(nr_threads, fillers, chunk);
	one = run_src(share_insns, share_evs, false, false, false);
	fast = run_src(share_insns, share_evs, false, true, true);
	bad = arcs_differ(one, fast);
	cf_get_stats(arcs_callflow(fast), &st);
	bad += !st.calls_whole;
	bad += arcs_check(one) != 0;
	bad += arcs_check(fast) != 0;
	cf_free(arcs_callflow(fast));
	arcs_free(fast);
	cf_free(arcs_callflow(one));
	arcs_free(one);
	return bad;
}

/*
 * Threads sharing replays give what stepping through gives, whatever the
 * sizes of their function tables: two threads, the first with 0 to 15
 * fillers, the second with 20 to 70 (past the tables' growths at 32 and
 * 64 functions); and up to 64 threads taking turns, of every filler count
 * to 70 among them.  (A replay taken read a function's state where a
 * lookup had found it, after a later lookup had grown the table.)
 */
static void test_replays_shared_by_threads(void)
{
	static const unsigned nr_threads[] = { 1, 2, 3, 8, 64 };
	unsigned fillers[SHARE_THREADS];
	unsigned layouts = 0, bad_layouts = 0;

	for (unsigned a = 0; a <= 15; a++) {
		for (unsigned b = 20; b <= 70; b++) {
			fillers[0] = a;
			fillers[1] = b;
			layouts++;
			if (share_differs(2, fillers, 0)) {
				if (!bad_layouts)
					fprintf(stderr, "\n  threads with %u and %u fillers: replays "
						"differ from single steps", a, b);
				bad_layouts++;
			}
		}
	}
	for (size_t r = 0; r < sizeof(nr_threads) / sizeof(nr_threads[0]); r++) {
		for (unsigned shift = 0; shift < 71; shift += 7) {
			for (unsigned i = 0; i < nr_threads[r]; i++)
				fillers[i] = (shift + i * 29) % 71;
			layouts++;
			if (share_differs(nr_threads[r], fillers, 23 + shift)) {
				if (!bad_layouts)
					fprintf(stderr, "\n  %u threads (shift %u): replays differ "
						"from single steps", nr_threads[r], shift);
				bad_layouts++;
			}
		}
	}
	if (bad_layouts)
		fprintf(stderr, "\n  %u of %u layouts differ", bad_layouts, layouts);
	CU_ASSERT_EQUAL(bad_layouts, 0);
}

/*
 * The fast path's limits shrunk, so that what they bound happens on small
 * traces: replays made in place of others (a call's run keeps one or
 * two), refused (all of them may take a few KiB, or nothing), calls no
 * longer recorded (too many steps, frames or bytes) or not recorded
 * (nested deeper than one or two), runs of straight code cut short.  The
 * whole-call loop and eight threads sharing code give, through cf_steps,
 * what they give one step at a time, and what each row bounds happened.
 */
static void test_limits_shrunk(void)
{
	enum { REPLACED = 1, OVER_TOTAL = 2, TOO_LONG = 4, TOO_DEEP = 8, NONE_WHOLE = 16 };
	static const struct {
		const char *what;
		struct cf_limits lim;	  /* zero: the default's */
		unsigned happens;
	} rows[] = {
		{ "defaults", { 0 }, 0 },
		{ "one replay a call's run", { .replays_per_run = 1 }, REPLACED },
		{ "two replays a call's run", { .replays_per_run = 2 }, REPLACED },
		{ "replays take 4 KiB at most", { .replays_total = 4096 }, OVER_TOTAL },
		{ "replays take nothing", { .replays_total = 1 }, OVER_TOTAL | NONE_WHOLE },
		{ "a replay's steps: 12", { .replay_steps = 12 }, TOO_LONG },
		{ "a replay's frames: 2", { .replay_frames = 2 }, TOO_LONG },
		{ "a replay's records: 16 bytes", { .replay_bytes = 16 }, 0 },
		{ "one call recorded at a time", { .rec_levels = 1 }, TOO_DEEP },
		{ "two calls recorded at a time", { .rec_levels = 2 }, TOO_DEEP },
		{ "runs of one site", { .run_sites = 1 }, 0 },
		{ "runs of three sites", { .run_sites = 3 }, 0 },
		{ "everything small",
		  { .run_sites = 2, .replay_steps = 20, .replay_bytes = 64, .replay_frames = 3,
		    .replays_per_run = 1, .rec_levels = 2, .replays_total = 2048 },
		  REPLACED | OVER_TOTAL | TOO_LONG | TOO_DEEP },
	};
	unsigned fillers[8] = { 3, 29, 60, 12, 30, 61, 0, 31 };

	build_whole();
	build_share_insns(8);
	build_share(8, fillers, 37);
	for (size_t r = 0; r < sizeof(rows) / sizeof(rows[0]); r++) {
		struct cf_limits lim = cf_limits_default;
		const struct cf_limits *x = &rows[r].lim;

#define TAKE(field) (lim.field = x->field ? x->field : lim.field)
		TAKE(run_sites);
		TAKE(replay_steps);
		TAKE(replay_bytes);
		TAKE(replay_frames);
		TAKE(replays_per_run);
		TAKE(rec_levels);
		TAKE(replays_total);
#undef TAKE
		for (int prog = 0; prog < 2; prog++) {
			const struct fake_insn *insns = prog ? share_insns : whole_insns;
			const struct fake_ev *evs = prog ? share_evs : whole_evs;
			struct arcs *one = run_src(insns, evs, false, false, false), *fast;
			unsigned happened = 0;
			struct cf_stats st;
			int bad;

			run_limits = &lim;
			fast = run_src(insns, evs, false, true, true);
			run_limits = NULL;
			bad = arcs_differ(one, fast);
			bad += arcs_check(fast) != 0;
			cf_get_stats(arcs_callflow(fast), &st);
			happened |= st.replays_replaced ? REPLACED : 0;
			happened |= st.replays_over_total ? OVER_TOTAL : 0;
			happened |= st.rec_too_long ? TOO_LONG : 0;
			happened |= st.rec_too_deep ? TOO_DEEP : 0;
			happened |= st.calls_whole ? 0 : NONE_WHOLE;
			/* the whole-call loop shows each; the threads some */
			if (!prog && (happened & rows[r].happens) != rows[r].happens)
				bad++;
			if (bad)
				fprintf(stderr, "\n  %s, %s: %d differ (replaced %lu, over the total "
					"%lu, too long %lu, too deep %lu, %lu whole)", rows[r].what,
					prog ? "threads" : "loop", bad, st.replays_replaced,
					st.replays_over_total, st.rec_too_long, st.rec_too_deep,
					st.calls_whole);
			CU_ASSERT_EQUAL(bad, 0);
			cf_free(arcs_callflow(fast));
			arcs_free(fast);
			cf_free(arcs_callflow(one));
			arcs_free(one);
		}
	}
}

/*
 * A consumer without replay(): the tables it keeps from push(), pop(),
 * step() and bulk(), and a hash of what each push and pop saw (the frame,
 * its parent, its cost, the thread's depth, clock and last step).
 */
#define SEEN_FNS 64
struct seen_tables {
	uint64_t calls[SEEN_FNS], base[SEEN_FNS], cum[SEEN_FNS], incl[SEEN_FNS];
	uint64_t steps, index_sum;
	uint64_t pushes, pops, hash;
	uint64_t last_pc;	  /* the last step's, told by step() or bulk() */
	uint32_t last_fn;	  /* its site's function */
};

static void seen_mix(struct seen_tables *st, uint64_t v)
{
	st->hash = (st->hash ^ v) * 0x100000001b3ull;
}

static void seen_thread(struct seen_tables *st, const struct cf_thread *t,
			const struct cf_frame *parent)
{
	seen_mix(st, t->tid);
	seen_mix(st, cf_shown_depth(t));
	seen_mix(st, t->steps);
	seen_mix(st, t->last_index);
	seen_mix(st, st->last_pc);
	seen_mix(st, st->last_fn);
	seen_mix(st, parent ? parent->fn : CF_NO_FN);
}

static void seen_push(void *ctx, struct cf_thread *t, const struct cf_frame *parent,
		      const struct cf_frame *f)
{
	struct seen_tables *st = ctx;

	st->pushes++;
	st->calls[f->fn % SEEN_FNS] += f->kind == CF_ENTRY_CALL || f->kind == CF_ENTRY_TAIL;
	seen_thread(st, t, parent);
	seen_mix(st, f->fn);
	seen_mix(st, f->caller_fn);
	seen_mix(st, f->from_fn);
	seen_mix(st, f->kind);
	seen_mix(st, f->ring);
	seen_mix(st, f->cold);
	seen_mix(st, f->ret_addr);
	seen_mix(st, f->entry_steps);
	seen_mix(st, f->entry_index);
	seen_mix(st, f->call_site);
}

static void seen_pop(void *ctx, struct cf_thread *t, const struct cf_frame *parent,
		     const struct cf_frame *f, const struct cf_cost *cost, enum cf_end_kind how)
{
	struct seen_tables *st = ctx;

	st->pops++;
	st->base[f->fn % SEEN_FNS] += cost->self;
	st->cum[f->fn % SEEN_FNS] += cost->fn_cum;
	st->incl[f->fn % SEEN_FNS] += cost->incl;
	seen_thread(st, t, parent);
	seen_mix(st, f->fn);
	seen_mix(st, f->self);
	seen_mix(st, f->entry_index);
	seen_mix(st, how);
	seen_mix(st, cost->incl);
	seen_mix(st, cost->self);
	seen_mix(st, cost->fn_cum);
	seen_mix(st, cost->arc_cum);
	seen_mix(st, cost->last_index);
	seen_mix(st, cost->end_index);
}

static void seen_step(void *ctx, struct cf_thread *t, const struct cf_step *s)
{
	struct seen_tables *st = ctx;

	(void)t;
	st->steps++;
	st->index_sum += s->index;
	st->last_pc = s->pc;
	st->last_fn = s->site->fn;
}

static void seen_bulk(void *ctx, struct cf_thread *t, const struct cf_bulk *b)
{
	struct seen_tables *st = ctx;

	(void)t;
	st->steps += b->n;
	st->index_sum += b->n * b->first + b->n * (b->n - 1) / 2;
	st->last_pc = b->pc;
	st->last_fn = b->site->fn;
}

/*
 * A trace through consumers of two kinds at once: arcs and a counter of
 * calls taken whole, which have replay(), and tables without it.  Stepped
 * one at a time, and through cf_steps: the tables without replay() are
 * the same (each push and pop with what the thread showed then), arcs is
 * the same, and calls were taken whole all the same.  How many checks
 * failed.
 */
static int contract_differs(const struct fake_insn *insns, const struct fake_ev *evs,
			    uint64_t min_whole)
{
	static const struct cf_consumer_ops seen_ops = { .push = seen_push, .pop = seen_pop,
							 .step = seen_step, .bulk = seen_bulk };
	static const struct cf_consumer_ops hc_ops = { .step = hc_step, .bulk = hc_bulk,
						       .push = hc_push, .replay = hc_replay };
	static struct seen_tables slow, fast;
	struct how_counted hc = { 0 };
	struct arcs *one, *whole;
	struct cf_stats st;
	int bad = 0;

	memset(&slow, 0, sizeof(slow));
	memset(&fast, 0, sizeof(fast));
	extra_ops = &seen_ops;
	extra_ctx = &slow;
	one = run_src(insns, evs, false, false, false);
	extra_ctx = &fast;
	extra2_ops = &hc_ops;
	extra2_ctx = &hc;
	whole = run_src(insns, evs, false, true, true);
	extra_ops = extra2_ops = NULL;
	cf_get_stats(arcs_callflow(whole), &st);
	bad += arcs_differ(one, whole) != 0;
	bad += arcs_check(whole) != 0;
	bad += !!memcmp(&slow, &fast, sizeof(slow));
	bad += fast.steps != st.steps || !fast.pushes;
	/* the consumers with replay() got calls whole: as many as were taken */
	bad += hc.replayed != st.calls_whole || hc.replayed < min_whole;
	if (bad)
		fprintf(stderr, "\n  %d checks failed: %lu calls whole (%lu told), %lu/%lu pushes, "
			"%lu/%lu steps", bad, st.calls_whole, hc.replayed, slow.pushes,
			fast.pushes, slow.steps, fast.steps);
	cf_free(arcs_callflow(whole));
	arcs_free(whole);
	cf_free(arcs_callflow(one));
	arcs_free(one);
	return bad;
}

/*
 * One consumer without replay() takes no calls whole from the others: it
 * gets each call taken whole as the push(), pop() and bulk() calls that
 * stepping would give it, while those with replay() get replays; on the
 * whole-call loop and on threads sharing replays.
 */
static void test_replay_contract(void)
{
	unsigned fillers[SHARE_THREADS];

	build_whole();
	CU_ASSERT_EQUAL(contract_differs(whole_insns, whole_evs, 400 * 3), 0);
	for (unsigned i = 0; i < 8; i++)
		fillers[i] = (i * 29) % 71;
	build_share_insns(8);
	build_share(8, fillers, 23);
	CU_ASSERT_EQUAL(contract_differs(share_insns, share_evs, 8), 0);
}

static CU_TestInfo tests[] = {
	{ "scenarios give the hand-counted Base, Cum and calls", test_scenarios },
	{ "runs of a thread's steps count as its steps one by one", test_runs },
	{ "straight code counted in bulk counts as its steps one by one", test_bulk },
	{ "arcs of tail calls and unmatched returns", test_arcs_of_tail_and_unmatched },
	{ "PLT stubs folded into their callers, or kept", test_plt_fold },
	{ "a cold part keeps its call path", test_cold_part_call_paths },
	{ "block-mode traces give the same numbers", test_block_mode },
	{ "recording on and off: one call per activation", test_recording_on_off },
	{ "unexplained transfers nest a bounded depth, signals as deep as they come",
	  test_unexplained_bounded },
	{ "runs keep their pcs while the pool grows", test_runs_keep_their_pcs },
	{ "calls taken whole cost what stepping through them costs", test_replays },
	{ "threads sharing calls taken whole, their tables at every growth",
	  test_replays_shared_by_threads },
	{ "the fast path's limits shrunk: eviction, overflow, the total cap",
	  test_limits_shrunk },
	{ "a consumer without replay() gets calls taken whole as pushes, pops and bulk",
	  test_replay_contract },
	CU_TEST_INFO_NULL,
};

UNIT_SUITE(callflow, tests)
