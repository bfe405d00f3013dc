/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Instruction decoding for call-flow reconstruction: what kind of control
 * transfer an instruction is, where it goes, how long it is, and its text.
 * One implementation per architecture in arch/<arch>/decode.c; a decoder
 * decodes the architecture selected when it was made (arch/arch.h).  Common
 * code knows instructions only through this interface.
 */
#ifndef PT_ARCH_DECODE_H
#define PT_ARCH_DECODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Longest instruction of any supported architecture, in bytes. */
#define ARCH_INSN_MAX_LEN 16

enum arch_insn_class {
	ARCH_INSN_INVALID = 0,	  /* bytes that don't decode (or aren't available) */
	ARCH_INSN_OTHER,	  /* no control transfer: next is pc + len */
	ARCH_INSN_CALL,		  /* pushes a return address (pc + len) and transfers */
	ARCH_INSN_RET,		  /* returns to an address taken from the stack */
	ARCH_INSN_JUMP,		  /* unconditional jump */
	ARCH_INSN_COND,		  /* conditional branch: target or pc + len */
	ARCH_INSN_SYSCALL,	  /* enters the kernel; user code resumes at pc + len */
	ARCH_INSN_INT,		  /* software interrupt or trap (int, int3, ud2, ...) */
	ARCH_INSN_KRET,		  /* returns from the kernel (iret, sysret, ...) */
	ARCH_INSN_NR_CLASSES
};

/* arch_insn.flags */
#define ARCH_INSN_INDIRECT (1u << 0)  /* target comes from a register or memory */
#define ARCH_INSN_HAS_TARGET (1u << 1) /* target is known from the bytes alone */
#define ARCH_INSN_REP (1u << 2)	      /* repeated string insn: may step several times */
/*
 * A call, return or indirect jump that may also not be taken, going on at
 * pc + len (ppc64: beqlr, bnectr, a conditional bcl).  Conditional direct
 * jumps are ARCH_INSN_COND instead.
 */
#define ARCH_INSN_CONDITIONAL (1u << 3)

struct arch_insn {
	uint8_t cls;		  /* enum arch_insn_class */
	uint8_t len;		  /* length in bytes (0 when INVALID) */
	uint8_t flags;		  /* ARCH_INSN_* */
	uint64_t target;	  /* with ARCH_INSN_HAS_TARGET: the direct target */
};

struct arch_decoder;

/*
 * A decoder for user and kernel code of the selected architecture
 * (NULL on failure, printed).
 */
struct arch_decoder *arch_decoder_new(void);
/* Frees d (NULL is fine). */
void arch_decoder_free(struct arch_decoder *d);

/*
 * Classify the instruction whose first byte is code[0], located at
 * pc; avail bytes are readable.  Returns 0 with *out filled, -1 when the bytes
 * don't form an instruction (out->cls = ARCH_INSN_INVALID, out->len = 0).
 */
int arch_decode(struct arch_decoder *d, const uint8_t *code, size_t avail, uint64_t pc,
		struct arch_insn *out);

/*
 * The instruction's assembly text ("call 0x401020"), written to
 * buf (always NUL terminated).  Returns the instruction length, 0 when the
 * bytes don't decode (buf then says "(bad)").
 */
size_t arch_disasm(struct arch_decoder *d, const uint8_t *code, size_t avail, uint64_t pc,
		   char *buf, size_t size);

/*
 * The step after the instruction in, at pc, may be at next: its
 * fall-through (not after an unconditional transfer), another iteration
 * of a repeated one, or its direct target.  False when the bytes don't say
 * (indirect transfers, returns, system calls, traps, invalid bytes).
 */
bool arch_insn_may_follow(const struct arch_insn *in, uint64_t pc, uint64_t next);
/* in can only go on at pc + len: no transfer, system call, trap or repetition. */
bool arch_insn_only_falls_through(const struct arch_insn *in);

/* A short name for a class ("call", "ret", ...), for reports and tests. */
const char *arch_insn_class_name(unsigned cls);

#endif /* PT_ARCH_DECODE_H */
