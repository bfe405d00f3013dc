// SPDX-License-Identifier: GPL-2.0
/* The instruction decoder: classes, lengths, targets and text of known encodings. */
#include <stdint.h>
#include <string.h>

#include "arch_decode.h"
#include "unit.h"

#define PC 0x401000ull

/*
 * One row an encoding (bytes from the architecture manual), decoded at PC:
 * the class, length, flags and direct target it must give.
 */
static const struct {
	const char *what;
	uint8_t bytes[16];
	size_t n;
	unsigned cls, len, flags;
	uint64_t target;
	const char *text;
} cases[] = {
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

static void test_decode_table(void)
{
	struct arch_decoder *d = arch_decoder_new();

	CU_ASSERT_PTR_NOT_NULL_FATAL(d);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct arch_insn insn;
		int rc = arch_decode(d, cases[i].bytes, cases[i].n, PC, &insn);

		CU_ASSERT_EQUAL(rc, cases[i].cls == ARCH_INSN_INVALID ? -1 : 0);
		CU_ASSERT_EQUAL(insn.cls, cases[i].cls);
		CU_ASSERT_EQUAL(insn.len, cases[i].len);
		CU_ASSERT_EQUAL(insn.flags, cases[i].flags);
		if (cases[i].flags & ARCH_INSN_HAS_TARGET)
			CU_ASSERT_EQUAL(insn.target, cases[i].target);
		if (insn.cls != cases[i].cls || insn.len != cases[i].len ||
		    insn.flags != cases[i].flags)
			fprintf(stderr, "\n  decode case '%s': class %s len %u flags %#x\n",
				cases[i].what, arch_insn_class_name(insn.cls), insn.len,
				insn.flags);
	}
	arch_decoder_free(d);
}

static void test_disasm_text(void)
{
	struct arch_decoder *d = arch_decoder_new();

	CU_ASSERT_PTR_NOT_NULL_FATAL(d);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char text[64];
		size_t len = arch_disasm(d, cases[i].bytes, cases[i].n, PC, text, sizeof(text));

		CU_ASSERT_EQUAL(len, cases[i].len);
		if (cases[i].text) {
			CU_ASSERT_STRING_EQUAL(text, cases[i].text);
			if (strcmp(text, cases[i].text))
				fprintf(stderr, "\n  disasm case '%s': '%s'\n", cases[i].what,
					text);
		}
	}
	arch_decoder_free(d);
}

static void test_class_names(void)
{
	/* Every class has a distinct name; out-of-range ones don't crash. */
	for (unsigned a = 0; a < ARCH_INSN_NR_CLASSES; a++)
		for (unsigned b = a + 1; b < ARCH_INSN_NR_CLASSES; b++)
			CU_ASSERT(strcmp(arch_insn_class_name(a), arch_insn_class_name(b)) != 0);
	CU_ASSERT_STRING_EQUAL(arch_insn_class_name(ARCH_INSN_NR_CLASSES + 7), "?");
}

static CU_TestInfo tests[] = {
	{ "encodings decode to their class, length and target", test_decode_table },
	{ "disassembly text and length", test_disasm_text },
	{ "class names are distinct", test_class_names },
	CU_TEST_INFO_NULL,
};

UNIT_SUITE(decode, tests)
