// SPDX-License-Identifier: GPL-2.0
/* Finding the steps a late step trap skipped, from the code (restore.h). */
#define PR_FMT "restore"
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "arch/arch_decode.h"
#include "util/log.h"
#include "util/restore.h"
#include "util/trace_reader.h"

/* Per (process, address): the length of an instruction that only falls through. */
#define RESTORE_CACHE 4096
#define LEN_EMPTY 0xff

struct restore_slot {
	uint64_t pc;
	uint32_t pid;
	uint8_t len;		  /* 0: anything else, or no code; LEN_EMPTY: slot empty */
};

struct restorer {
	struct sym_session *sym;
	struct arch_decoder *dec;
	struct restore_slot cache[RESTORE_CACHE];
};

struct restorer *restorer_new(struct sym_session *sym)
{
	struct restorer *r = calloc(1, sizeof(*r));

	if (!r || !sym) {
		pr_err("out of memory setting up the restoration of late step traps");
		free(r);
		sym_session_free(sym);
		return NULL;
	}
	r->sym = sym;
	r->dec = arch_decoder_new();
	if (!r->dec) {
		restorer_free(r);
		return NULL;
	}
	memset(r->cache, LEN_EMPTY, sizeof(r->cache));
	return r;
}

void restorer_free(struct restorer *r)
{
	if (!r)
		return;
	arch_decoder_free(r->dec);
	sym_session_free(r->sym);
	free(r);
}

void restorer_task(struct restorer *r, const struct trace_task_rec *rec)
{
	sym_task_event(r->sym, rec);
	/* the same address may now hold other code */
	if (rec->type == PT_TASK_EXEC || rec->type == PT_TASK_MUNMAP ||
	    (rec->type == PT_TASK_MMAP && (rec->mmap.prot & PROT_EXEC)))
		memset(r->cache, LEN_EMPTY, sizeof(r->cache));
}

/* The instruction at pc in pid: false when its bytes are not known. */
static bool insn_at(struct restorer *r, uint32_t pid, uint64_t pc, struct arch_insn *in)
{
	uint8_t code[ARCH_INSN_MAX_LEN];
	size_t n = sym_read_code(r->sym, pid, pc, code, sizeof(code));

	memset(in, 0, sizeof(*in));
	return n && arch_decode(r->dec, code, n, pc, in) == 0;
}

/* The length of the instruction at pc when it can only fall through, else 0 (cached). */
static uint8_t plain_len(struct restorer *r, uint32_t pid, uint64_t pc)
{
	struct restore_slot *s = &r->cache[(pc ^ (pc >> 12) ^ pid) % RESTORE_CACHE];
	struct arch_insn in;

	if (s->len != LEN_EMPTY && s->pc == pc && s->pid == pid)
		return s->len;
	s->pc = pc;
	s->pid = pid;
	s->len = insn_at(r, pid, pc, &in) && arch_insn_only_falls_through(&in) ? in.len : 0;
	return s->len;
}

enum restore_verdict restorer_check(struct restorer *r, uint32_t pid, uint64_t prev, uint64_t pc,
				    uint64_t *missing)
{
	uint8_t len = plain_len(r, pid, prev);
	struct arch_insn in;

	if (!len || pc == prev + len)
		return RESTORE_NONE;
	*missing = prev + len;
	if (insn_at(r, pid, *missing, &in) && arch_insn_may_follow(&in, *missing, pc))
		return RESTORE_ONE;
	return RESTORE_GAP;
}
