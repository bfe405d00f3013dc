// SPDX-License-Identifier: GPL-2.0
/* Load-reserve/store-conditional sequences run natively to their exits (ptrace_atomic.h). */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <pitrace/format.h>

#include "util/log.h"
#include "pitrace/ptrace_atomic.h"

static int poke(int memfd, uint64_t addr, const uint8_t *bytes, size_t len)
{
	return pwrite(memfd, bytes, len, (off_t)addr) == (ssize_t)len ? 0 : -1;
}

static void unplant(struct ptrace_atomic *a, int memfd)
{
	while (a->nr_planted) {
		a->nr_planted--;
		poke(memfd, a->seq.exits[a->nr_planted].addr, a->saved[a->nr_planted],
		     arch_breakpoint_len);
	}
	a->active = false;
}

int ptrace_atomic_find(struct ptrace_atomic *a, int memfd, uint64_t pc)
{
	static bool said;
	uint8_t code[ARCH_ATOMIC_MAX_CODE];
	ssize_t n = pread(memfd, code, sizeof(code), (off_t)pc);
	int r;

	if (n <= 0)
		return 0;
	r = arch_atomic_sequence(code, (size_t)n, pc, &a->seq);
	if (r < 0 && !said) {
		said = true;
		fprintf(stderr, "pitrace: an atomic sequence at %#llx cannot run as a unit: "
				"it is single-stepped and may never complete\n",
			(unsigned long long)pc);
	}
	return r;
}

/* The private writable mapping of pid holding addr, from /proc/PID/maps: 0, or -1. */
static int private_range(pid_t pid, uint64_t addr, struct ptrace_private_range *r)
{
	char name[64], line[512];
	int found = -1;
	FILE *f;

	snprintf(name, sizeof(name), "/proc/%d/maps", pid);
	f = fopen(name, "re");
	while (f && found < 0 && fgets(line, sizeof(line), f)) {
		uint64_t lo, hi;
		char perms[8];

		if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %7s", &lo, &hi, perms) != 3 ||
		    addr < lo || addr >= hi)
			continue;
		if (perms[1] == 'w' && perms[3] == 'p') {
			r->lo = lo;
			r->hi = hi;
			found = 0;
		}
		break;
	}
	if (f)
		fclose(f);
	return found;
}

int ptrace_atomic_populate(int memfd, pid_t pid, uint64_t addr,
			   struct ptrace_private_range *cache)
{
	uint8_t word[16];
	/* The reserved word is aligned: it lies within one page, read whole. */
	off_t at = (off_t)(addr & ~(uint64_t)(sizeof(word) - 1));

	if ((addr < cache->lo || addr >= cache->hi) && private_range(pid, addr, cache) < 0)
		return -1;
	/* Through /proc/PID/mem the write is a fault for writing of its own. */
	if (pread(memfd, word, sizeof(word), at) != (ssize_t)sizeof(word) ||
	    pwrite(memfd, word, sizeof(word), at) != (ssize_t)sizeof(word))
		return -1;
	return 0;
}

int ptrace_atomic_plant(struct ptrace_atomic *a, int memfd)
{
	for (a->nr_planted = 0; a->nr_planted < a->seq.nr_exits; a->nr_planted++) {
		uint64_t at = a->seq.exits[a->nr_planted].addr;

		if (pread(memfd, a->saved[a->nr_planted], arch_breakpoint_len, (off_t)at) !=
			    (ssize_t)arch_breakpoint_len ||
		    poke(memfd, at, arch_breakpoint_insn, arch_breakpoint_len) < 0) {
			unplant(a, memfd);
			return -1;
		}
	}
	a->active = true;
	return 0;
}

int ptrace_atomic_run_to(struct ptrace_atomic *a, int memfd, uint64_t start, uint64_t stop)
{
	memset(&a->seq, 0, sizeof(a->seq));
	a->seq.start = start;
	a->seq.nr_exits = 1;
	a->seq.exits[0].addr = stop;
	a->nr_planted = 0;
	if (pread(memfd, a->saved[0], arch_breakpoint_len, (off_t)stop) !=
		    (ssize_t)arch_breakpoint_len ||
	    poke(memfd, stop, arch_breakpoint_insn, arch_breakpoint_len) < 0)
		return -1;
	a->nr_planted = 1;
	a->active = true;
	return 0;
}

void ptrace_atomic_cancel(struct ptrace_atomic *a, int memfd)
{
	unplant(a, memfd);
}

bool ptrace_atomic_holds(const struct ptrace_atomic *a, uint64_t pc)
{
	for (unsigned i = 0; a->active && i < a->nr_planted; i++)
		if (a->seq.exits[i].addr == pc)
			return true;
	return false;
}

bool ptrace_atomic_end(struct ptrace_atomic *a, int memfd, pid_t tid, uint64_t pc,
		       unsigned *steps, int *kind)
{
	const struct arch_atomic_seq *q = &a->seq;
	uint64_t last = q->start + (uint64_t)q->exits[0].path * q->insn_len;

	unplant(a, memfd);
	*kind = -1;
	for (unsigned i = 0; i < q->nr_exits; i++) {
		if (q->exits[i].addr != pc)
			continue;
		*steps = q->exits[i].path;
		if (q->exits[i].ambiguous)
			*kind = PT_ATOMIC_INEXACT;
		else if (!q->exits[i].store)
			*kind = PT_ATOMIC_LEFT;
		else
			*kind = arch_atomic_stored(tid, q) == 1 ? PT_ATOMIC_STORED : PT_ATOMIC_FAILED;
		return true;
	}
	/* A signal stopped it inside: what ran is the straight line up to pc. */
	*steps = pc >= q->start && pc < last ? (unsigned)((pc - q->start) / q->insn_len) : 0;
	if (!*steps)
		pr_dbg("atomic sequence at %#llx stopped outside it, at %#llx",
		       (unsigned long long)q->start, (unsigned long long)pc);
	return false;
}
