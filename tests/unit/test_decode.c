// SPDX-License-Identifier: GPL-2.0
/*
 * The instruction decoders (x86_64, ppc64le, aarch64): classes, lengths,
 * targets and text of known encodings.
 */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "arch/arch.h"
#include "arch/arch_decode.h"
#include "tests/unit/unit.h"

#define PC 0x401000ull

/*
 * One row an encoding (bytes from the architecture manual), decoded at PC:
 * the class, length, flags and direct target it must give.
 */
struct decode_case {
	const char *what;
	uint8_t bytes[16];
	size_t n;
	unsigned cls, len, flags;
	uint64_t target;
	const char *text;
};

static const struct decode_case x86_64_cases[] = {
	{ "call rel32", { 0xe8, 0x10, 0, 0, 0 }, 5,
	  ARCH_INSN_CALL, 5, ARCH_INSN_HAS_TARGET, PC + 5 + 0x10, "call 0x401015" },
	{ "call backwards", { 0xe8, 0xfb, 0xff, 0xff, 0xff }, 5,
	  ARCH_INSN_CALL, 5, ARCH_INSN_HAS_TARGET, PC, "call 0x401000" },
	{ "call *%rax", { 0xff, 0xd0 }, 2, ARCH_INSN_CALL, 2, ARCH_INSN_INDIRECT, 0, "call rax" },
	{ "call *0(%rip)", { 0xff, 0x15, 0, 0, 0, 0 }, 6,
	  ARCH_INSN_CALL, 6, ARCH_INSN_INDIRECT, 0, NULL },
	{ "ret", { 0xc3 }, 1, ARCH_INSN_RET, 1, ARCH_INSN_INDIRECT, 0, "ret" },
	{ "ret $8", { 0xc2, 0x08, 0x00 }, 3, ARCH_INSN_RET, 3, ARCH_INSN_INDIRECT, 0, NULL },
	{ "jmp rel8 to itself", { 0xeb, 0xfe }, 2,
	  ARCH_INSN_JUMP, 2, ARCH_INSN_HAS_TARGET, PC, "jmp 0x401000" },
	{ "jmp rel32", { 0xe9, 0x00, 0x01, 0, 0 }, 5,
	  ARCH_INSN_JUMP, 5, ARCH_INSN_HAS_TARGET, PC + 5 + 0x100, NULL },
	{ "jmp *%rax", { 0xff, 0xe0 }, 2, ARCH_INSN_JUMP, 2, ARCH_INSN_INDIRECT, 0, "jmp rax" },
	{ "je rel8", { 0x74, 0x10 }, 2,
	  ARCH_INSN_COND, 2, ARCH_INSN_HAS_TARGET, PC + 2 + 0x10, "je 0x401012" },
	{ "jne rel32", { 0x0f, 0x85, 0x00, 0x02, 0, 0 }, 6,
	  ARCH_INSN_COND, 6, ARCH_INSN_HAS_TARGET, PC + 6 + 0x200, NULL },
	{ "loop", { 0xe2, 0xfe }, 2, ARCH_INSN_COND, 2, ARCH_INSN_HAS_TARGET, PC, NULL },
	{ "jrcxz", { 0xe3, 0x00 }, 2, ARCH_INSN_COND, 2, ARCH_INSN_HAS_TARGET, PC + 2, NULL },
	{ "syscall", { 0x0f, 0x05 }, 2, ARCH_INSN_SYSCALL, 2, 0, 0, "syscall" },
	{ "sysenter", { 0x0f, 0x34 }, 2, ARCH_INSN_SYSCALL, 2, 0, 0, NULL },
	{ "int $0x80", { 0xcd, 0x80 }, 2, ARCH_INSN_INT, 2, 0, 0, NULL },
	{ "int3", { 0xcc }, 1, ARCH_INSN_INT, 1, 0, 0, NULL },
	{ "ud2", { 0x0f, 0x0b }, 2, ARCH_INSN_INT, 2, 0, 0, NULL },
	{ "iretq", { 0x48, 0xcf }, 2, ARCH_INSN_KRET, 2, 0, 0, NULL },
	{ "sysretq", { 0x48, 0x0f, 0x07 }, 3, ARCH_INSN_KRET, 3, 0, 0, NULL },
	{ "nop", { 0x90 }, 1, ARCH_INSN_OTHER, 1, 0, 0, "nop" },
	{ "mov %rsp,%rbp", { 0x48, 0x89, 0xe5 }, 3, ARCH_INSN_OTHER, 3, 0, 0, "mov rbp, rsp" },
	{ "endbr64", { 0xf3, 0x0f, 0x1e, 0xfa }, 4, ARCH_INSN_OTHER, 4, 0, 0, NULL },
	{ "rep movsb", { 0xf3, 0xa4 }, 2, ARCH_INSN_OTHER, 2, ARCH_INSN_REP, 0, NULL },
	{ "extra bytes after the insn are ignored", { 0xc3, 0xe8, 0, 0, 0, 0 }, 6,
	  ARCH_INSN_RET, 1, ARCH_INSN_INDIRECT, 0, NULL },
	{ "push %es is invalid in 64-bit mode", { 0x06 }, 1, ARCH_INSN_INVALID, 0, 0, 0, "(bad)" },
	{ "a call cut short is invalid", { 0xe8, 0x10 }, 2, ARCH_INSN_INVALID, 0, 0, 0, "(bad)" },
	{ "no bytes at all", { 0 }, 0, ARCH_INSN_INVALID, 0, 0, 0, "(bad)" },
};

/* Little-endian words from the Power ISA (Book I, 2.4 branch facility), at PC. */
#define W(w) { (w) & 0xff, ((w) >> 8) & 0xff, ((w) >> 16) & 0xff, (uint8_t)((w) >> 24) }
#define HT ARCH_INSN_HAS_TARGET
#define IND ARCH_INSN_INDIRECT
#define CND ARCH_INSN_CONDITIONAL
static const struct decode_case ppc64le_cases[] = {
	{ "bl +0x10 (a call)", W(0x48000011), 4, ARCH_INSN_CALL, 4, HT, PC + 0x10, "bl 0x401010" },
	{ "bl to the local entry of a function behind it", W(0x4bffffe9), 4,
	  ARCH_INSN_CALL, 4, HT, PC - 0x18, NULL },
	{ "bl $+4 reads the pc: no call", W(0x48000005), 4, ARCH_INSN_OTHER, 4, 0, 0, NULL },
	{ "bcl 20,31,$+4 reads the pc: no call", W(0x429f0005), 4, ARCH_INSN_OTHER, 4, 0, 0, NULL },
	{ "b -8", W(0x4bfffff8), 4, ARCH_INSN_JUMP, 4, HT, PC - 8, "b 0x400ff8" },
	{ "ba (absolute)", W(0x4a000102), 4, ARCH_INSN_JUMP, 4, HT, 0xfffffffffe000100ull, NULL },
	{ "bne cr7 (conditional)", W(0x409e0010), 4, ARCH_INSN_COND, 4, HT, PC + 0x10, NULL },
	{ "bdnz (counter)", W(0x4200fff8), 4, ARCH_INSN_COND, 4, HT, PC - 8, NULL },
	{ "bc 20,0 is branch always", W(0x42800010), 4, ARCH_INSN_JUMP, 4, HT, PC + 0x10, NULL },
	{ "blr (return)", W(0x4e800020), 4, ARCH_INSN_RET, 4, IND, 0, "blr" },
	{ "beqlr (conditional return)", W(0x4d820020), 4, ARCH_INSN_RET, 4, IND | CND, 0, NULL },
	{ "bctrl (indirect call)", W(0x4e800421), 4, ARCH_INSN_CALL, 4, IND, 0, "bctrl" },
	{ "blrl (call through LR)", W(0x4e800021), 4, ARCH_INSN_CALL, 4, IND, 0, NULL },
	{ "bctr (PLT stubs, switch tables)", W(0x4e800420), 4, ARCH_INSN_JUMP, 4, IND, 0, "bctr" },
	{ "bnectr (conditional jump)", W(0x4c820420), 4, ARCH_INSN_JUMP, 4, IND | CND, 0, NULL },
	{ "sc", W(0x44000002), 4, ARCH_INSN_SYSCALL, 4, 0, 0, "sc" },
	{ "scv 0", W(0x44000001), 4, ARCH_INSN_SYSCALL, 4, 0, 0, NULL },
	{ "trap (tw 31,0,0)", W(0x7fe00008), 4, ARCH_INSN_INT, 4, 0, 0, "trap" },
	{ "tdnei (a conditional trap)", W(0x0b240000), 4, ARCH_INSN_INT, 4, 0, 0, NULL },
	{ "rfid", W(0x4c000024), 4, ARCH_INSN_KRET, 4, 0, 0, NULL },
	{ "addi", W(0x38840001), 4, ARCH_INSN_OTHER, 4, 0, 0, "addi r4, r4, 1" },
	{ "lwarx r5,0,r3", W(0x7ca01828), 4, ARCH_INSN_OTHER, 4, 0, 0, "lwarx r5, 0, r3" },
	{ "lwarx with the EH hint (capstone 4 knows no text)", W(0x7fa0f829), 4,
	  ARCH_INSN_OTHER, 4, 0, 0, "lwarx r29, 0, r31, 1" },
	{ "stwcx.", W(0x7ca0192d), 4, ARCH_INSN_OTHER, 4, 0, 0, "stwcx. r5, 0, r3" },
	{ "extra bytes after the word are ignored", { 0x20, 0x00, 0x80, 0x4e, 0x11 }, 5,
	  ARCH_INSN_RET, 4, IND, 0, NULL },
	{ "three bytes are no instruction", { 0x20, 0x00, 0x80 }, 3, ARCH_INSN_INVALID, 0, 0, 0,
	  "(bad)" },
	{ "no bytes at all", { 0 }, 0, ARCH_INSN_INVALID, 0, 0, 0, "(bad)" },
};

/*
 * A64 words (as GNU as -march=armv8.3-a assembles them), at PC.  The text
 * is capstone's (AArch64 mode), or arch/arm64's own where capstone 4 has
 * none (the pointer-authenticating branches, as objdump writes them).
 */
static const struct decode_case aarch64_cases[] = {
	{ "bl +0x10 (a call)", W(0x94000004), 4, ARCH_INSN_CALL, 4, HT, PC + 0x10, "bl #0x401010" },
	{ "bl backwards", W(0x97fffffa), 4, ARCH_INSN_CALL, 4, HT, PC - 0x18, NULL },
	{ "b -8", W(0x17fffffe), 4, ARCH_INSN_JUMP, 4, HT, PC - 8, "b #0x400ff8" },
	{ "b.eq (conditional)", W(0x54000080), 4, ARCH_INSN_COND, 4, HT, PC + 0x10, "b.eq #0x401010" },
	{ "b.al is branch always", W(0x5400008e), 4, ARCH_INSN_JUMP, 4, HT, PC + 0x10, NULL },
	{ "cbz", W(0xb4000040), 4, ARCH_INSN_COND, 4, HT, PC + 8, "cbz x0, #0x401008" },
	{ "cbnz backwards", W(0x35ffff82), 4, ARCH_INSN_COND, 4, HT, PC - 0x10, NULL },
	{ "tbz", W(0x36180100), 4, ARCH_INSN_COND, 4, HT, PC + 0x20, "tbz w0, #3, #0x401020" },
	{ "tbnz backwards", W(0xb7ffffe1), 4, ARCH_INSN_COND, 4, HT, PC - 4, NULL },
	{ "br x17 (PLT entries, veneers, tail calls)", W(0xd61f0220), 4, ARCH_INSN_JUMP, 4, IND, 0,
	  "br x17" },
	{ "blr x1 (indirect call)", W(0xd63f0020), 4, ARCH_INSN_CALL, 4, IND, 0, "blr x1" },
	{ "ret", W(0xd65f03c0), 4, ARCH_INSN_RET, 4, IND, 0, "ret" },
	{ "ret x1", W(0xd65f0020), 4, ARCH_INSN_RET, 4, IND, 0, NULL },
	{ "retaa (PAuth: autiasp and ret)", W(0xd65f0bff), 4, ARCH_INSN_RET, 4, IND, 0, "retaa" },
	{ "retab", W(0xd65f0fff), 4, ARCH_INSN_RET, 4, IND, 0, "retab" },
	{ "braaz x17", W(0xd61f0a3f), 4, ARCH_INSN_JUMP, 4, IND, 0, "braaz x17" },
	{ "blraaz x17", W(0xd63f0a3f), 4, ARCH_INSN_CALL, 4, IND, 0, "blraaz x17" },
	{ "braa x17, x17", W(0xd71f0a31), 4, ARCH_INSN_JUMP, 4, IND, 0, "braa x17, x17" },
	{ "blraa xzr, x17", W(0xd73f0bf1), 4, ARCH_INSN_CALL, 4, IND, 0, "blraa xzr, x17" },
	{ "paciasp (a hint: no transfer)", W(0xd503233f), 4, ARCH_INSN_OTHER, 4, 0, 0, NULL },
	{ "autiasp", W(0xd50323bf), 4, ARCH_INSN_OTHER, 4, 0, 0, NULL },
	{ "bti c", W(0xd503245f), 4, ARCH_INSN_OTHER, 4, 0, 0, NULL },
	{ "svc #0", W(0xd4000001), 4, ARCH_INSN_SYSCALL, 4, 0, 0, "svc #0" },
	{ "brk #0 (the breakpoint)", W(0xd4200000), 4, ARCH_INSN_INT, 4, 0, 0, "brk #0" },
	{ "brk #1000 (__builtin_trap)", W(0xd4207d00), 4, ARCH_INSN_INT, 4, 0, 0, NULL },
	{ "udf #0", W(0x00000000), 4, ARCH_INSN_INT, 4, 0, 0, NULL },
	{ "eret", W(0xd69f03e0), 4, ARCH_INSN_KRET, 4, 0, 0, "eret" },
	{ "nop", W(0xd503201f), 4, ARCH_INSN_OTHER, 4, 0, 0, "nop" },
	{ "add", W(0x91000421), 4, ARCH_INSN_OTHER, 4, 0, 0, "add x1, x1, #1" },
	{ "ldaxr", W(0x885ffc01), 4, ARCH_INSN_OTHER, 4, 0, 0, "ldaxr w1, [x0]" },
	{ "stlxr", W(0x8802fc01), 4, ARCH_INSN_OTHER, 4, 0, 0, "stlxr w2, w1, [x0]" },
	/* LSE and RCpc (capstone 4 has no text for them): as objdump writes them */
	{ "ldaddal (inline __atomic_fetch_add, -march=armv8.1-a)", W(0xb8f802c0), 4,
	  ARCH_INSN_OTHER, 4, 0, 0, "ldaddal w24, w0, [x22]" },
	{ "stadd (ldadd to the zero register)", W(0x382103ff), 4, ARCH_INSN_OTHER, 4, 0, 0,
	  "staddb w1, [sp]" },
	{ "ldadda into xzr stays ldadda", W(0xf8a1007f), 4, ARCH_INSN_OTHER, 4, 0, 0,
	  "ldadda x1, xzr, [x3]" },
	{ "swpal", W(0xf8e18062), 4, ARCH_INSN_OTHER, 4, 0, 0, "swpal x1, x2, [x3]" },
	{ "casal", W(0xc8fefc62), 4, ARCH_INSN_OTHER, 4, 0, 0, "casal x30, x2, [x3]" },
	{ "caspal", W(0x4864ffe6), 4, ARCH_INSN_OTHER, 4, 0, 0, "caspal x4, x5, x6, x7, [sp]" },
	{ "ldaprb", W(0x38bfc120), 4, ARCH_INSN_OTHER, 4, 0, 0, "ldaprb w0, [x9]" },
	{ "extra bytes after the word are ignored", { 0xc0, 0x03, 0x5f, 0xd6, 0x11 }, 5,
	  ARCH_INSN_RET, 4, IND, 0, NULL },
	{ "three bytes are no instruction", { 0xc0, 0x03, 0x5f }, 3, ARCH_INSN_INVALID, 0, 0, 0,
	  "(bad)" },
};

static const struct {
	const char *arch;
	const struct decode_case *cases;
	size_t nr;
} tables[] = {
	{ "x86_64", x86_64_cases, sizeof(x86_64_cases) / sizeof(x86_64_cases[0]) },
	{ "ppc64le", ppc64le_cases, sizeof(ppc64le_cases) / sizeof(ppc64le_cases[0]) },
	{ "aarch64", aarch64_cases, sizeof(aarch64_cases) / sizeof(aarch64_cases[0]) },
};

/* Each architecture's decoder, whatever the host: post reads every architecture's traces. */
static void test_decode_table(void)
{
	for (size_t t = 0; t < sizeof(tables) / sizeof(tables[0]); t++) {
		struct arch_decoder *d;

		CU_ASSERT_EQUAL_FATAL(arch_select(tables[t].arch), 0);
		d = arch_decoder_new();
		CU_ASSERT_PTR_NOT_NULL_FATAL(d);
		for (size_t i = 0; i < tables[t].nr; i++) {
			const struct decode_case *c = &tables[t].cases[i];
			struct arch_insn insn;
			int rc = arch_decode(d, c->bytes, c->n, PC, &insn);

			CU_ASSERT_EQUAL(rc, c->cls == ARCH_INSN_INVALID ? -1 : 0);
			CU_ASSERT_EQUAL(insn.cls, c->cls);
			CU_ASSERT_EQUAL(insn.len, c->len);
			CU_ASSERT_EQUAL(insn.flags, c->flags);
			if (c->flags & ARCH_INSN_HAS_TARGET)
				CU_ASSERT_EQUAL(insn.target, c->target);
			if (insn.cls != c->cls || insn.len != c->len || insn.flags != c->flags)
				fprintf(stderr, "\n  %s decode case '%s': class %s len %u flags %#x\n",
					tables[t].arch, c->what, arch_insn_class_name(insn.cls),
					insn.len, insn.flags);
		}
		arch_decoder_free(d);
	}
	arch_select(arch_native_name());
}

static void test_disasm_text(void)
{
	for (size_t t = 0; t < sizeof(tables) / sizeof(tables[0]); t++) {
		struct arch_decoder *d;

		CU_ASSERT_EQUAL_FATAL(arch_select(tables[t].arch), 0);
		d = arch_decoder_new();
		CU_ASSERT_PTR_NOT_NULL_FATAL(d);
		for (size_t i = 0; i < tables[t].nr; i++) {
			const struct decode_case *c = &tables[t].cases[i];
			char text[64];
			size_t len = arch_disasm(d, c->bytes, c->n, PC, text, sizeof(text));

			CU_ASSERT_EQUAL(len, c->len);
			if (c->text) {
				CU_ASSERT_STRING_EQUAL(text, c->text);
				if (strcmp(text, c->text))
					fprintf(stderr, "\n  %s disasm case '%s': '%s'\n",
						tables[t].arch, c->what, text);
			}
		}
		arch_decoder_free(d);
	}
	arch_select(arch_native_name());
}

/* A decoder keeps the architecture it was made for; unknown names are refused. */
static void test_selection(void)
{
	static const uint8_t blr[] = W(0x4e800020);
	struct arch_decoder *ppc, *x86;
	struct arch_insn insn;

	CU_ASSERT_EQUAL(arch_select("mips64"), -1);
	CU_ASSERT(!arch_known("mips64"));
	CU_ASSERT(arch_known("x86_64") && arch_known("ppc64le") && arch_known("aarch64"));
	CU_ASSERT(!arch_known("arm64"));	/* the make name; traces say uname -m's */
	CU_ASSERT_STRING_EQUAL(arch_known_names(), "x86_64, ppc64le, aarch64");
	CU_ASSERT_EQUAL_FATAL(arch_select("ppc64le"), 0);
	ppc = arch_decoder_new();
	CU_ASSERT_EQUAL_FATAL(arch_select("x86_64"), 0);
	x86 = arch_decoder_new();
	CU_ASSERT_PTR_NOT_NULL_FATAL(ppc);
	CU_ASSERT_PTR_NOT_NULL_FATAL(x86);
	CU_ASSERT_EQUAL(arch_decode(ppc, blr, sizeof(blr), PC, &insn), 0);
	CU_ASSERT_EQUAL(insn.cls, ARCH_INSN_RET);
	/* 20 00 80 4e is "and al, 0; ..." to x86_64: no return there. */
	CU_ASSERT_EQUAL(arch_decode(x86, blr, sizeof(blr), PC, &insn), 0);
	CU_ASSERT_NOT_EQUAL(insn.cls, ARCH_INSN_RET);
	arch_decoder_free(ppc);
	arch_decoder_free(x86);
	arch_select(arch_native_name());
}

static void test_class_names(void)
{
	/* Every class has a distinct name; out-of-range ones don't crash. */
	for (unsigned a = 0; a < ARCH_INSN_NR_CLASSES; a++)
		for (unsigned b = a + 1; b < ARCH_INSN_NR_CLASSES; b++)
			CU_ASSERT(strcmp(arch_insn_class_name(a), arch_insn_class_name(b)) != 0);
	CU_ASSERT_STRING_EQUAL(arch_insn_class_name(ARCH_INSN_NR_CLASSES + 7), "?");
}

/*
 * Which step may follow an instruction (the late step trap rule, docs/record.md,
 * Fidelity): one row an x86_64 encoding at PC and a next step.
 */
static const struct {
	const char *what;
	uint8_t bytes[8];
	size_t n;
	uint64_t next;
	bool may, only_falls;
} follow_cases[] = {
	{ "nop: its fall-through", { 0x90 }, 1, PC + 1, true, true },
	{ "nop: not two on", { 0x90 }, 1, PC + 2, false, true },
	{ "cpuid: its fall-through", { 0x0f, 0xa2 }, 2, PC + 2, true, true },
	{ "cpuid: not itself", { 0x0f, 0xa2 }, 2, PC, false, true },
	{ "je: taken", { 0x74, 0x10 }, 2, PC + 0x12, true, false },
	{ "je: not taken", { 0x74, 0x10 }, 2, PC + 2, true, false },
	{ "je: elsewhere", { 0x74, 0x10 }, 2, PC + 4, false, false },
	{ "jmp rel8: its target", { 0xeb, 0x10 }, 2, PC + 0x12, true, false },
	{ "jmp rel8: not its fall-through", { 0xeb, 0x10 }, 2, PC + 2, false, false },
	{ "call rel32: its target", { 0xe8, 0x10, 0, 0, 0 }, 5, PC + 0x15, true, false },
	{ "call rel32: not its return address", { 0xe8, 0x10, 0, 0, 0 }, 5, PC + 5, false, false },
	{ "ret: the bytes don't say", { 0xc3 }, 1, PC + 1, false, false },
	{ "jmp *%rax: the bytes don't say", { 0xff, 0xe0 }, 2, PC + 2, false, false },
	{ "rep movsb: again", { 0xf3, 0xa4 }, 2, PC, true, false },
	{ "rep movsb: done", { 0xf3, 0xa4 }, 2, PC + 2, true, false },
	{ "syscall: never", { 0x0f, 0x05 }, 2, PC + 2, false, false },
	{ "int3: never", { 0xcc }, 1, PC + 1, false, false },
	{ "invalid bytes: never", { 0x06 }, 1, PC + 1, false, false },
};

static void test_may_follow(void)
{
	struct arch_decoder *d;

	CU_ASSERT_EQUAL_FATAL(arch_select("x86_64"), 0);
	d = arch_decoder_new();
	CU_ASSERT_PTR_NOT_NULL_FATAL(d);
	for (size_t i = 0; i < sizeof(follow_cases) / sizeof(follow_cases[0]); i++) {
		struct arch_insn insn;

		memset(&insn, 0, sizeof(insn));
		arch_decode(d, follow_cases[i].bytes, follow_cases[i].n, PC, &insn);
		if (arch_insn_may_follow(&insn, PC, follow_cases[i].next) != follow_cases[i].may ||
		    arch_insn_only_falls_through(&insn) != follow_cases[i].only_falls)
			CU_FAIL(follow_cases[i].what);
	}
	arch_decoder_free(d);
}

static CU_TestInfo tests[] = {
	{ "encodings decode to their class, length and target", test_decode_table },
	{ "disassembly text and length", test_disasm_text },
	{ "class names are distinct", test_class_names },
	{ "which step may follow an instruction (late step traps)", test_may_follow },
	{ "a decoder decodes the architecture selected when it was made", test_selection },
	CU_TEST_INFO_NULL,
};

UNIT_SUITE(decode, tests)
