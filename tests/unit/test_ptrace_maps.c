// SPDX-License-Identifier: GPL-2.0
/*
 * The ptrace backend's mapping tracker (pitrace/ptrace_maps.c) and its arch
 * helpers (arch/arch_ptrace.h), on this test process itself: its own maps,
 * ELF addresses of its own functions, diffs after mmap/munmap.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "arch/arch_ptrace.h"
#include "pitrace/ptrace_maps.h"
#include "util/symbols.h"
#include "util/trace_writer.h"
#include "tests/unit/unit.h"

/* A function of this binary whose address the tracker must find. */
__attribute__((noinline)) void ptm_test_marker(void)
{
	__asm__ volatile("");
}

static const char *mapping_path(const struct ptm_maps *m, const char *suffix)
{
	for (size_t i = 0; i < m->n; i++) {
		size_t n = strlen(m->v[i].path), k = strlen(suffix);

		if (n >= k && !strcmp(m->v[i].path + n - k, suffix))
			return m->v[i].path;
	}
	return NULL;
}

static void test_own_maps(void)
{
	struct ptm_maps m;

	CU_ASSERT_EQUAL_FATAL(ptm_read(getpid(), &m), 0);
	CU_ASSERT(m.n >= 3);
	CU_ASSERT(ptm_contains(&m, (uint64_t)(uintptr_t)ptm_test_marker));
	CU_ASSERT(ptm_contains(&m, (uint64_t)(uintptr_t)getpid));
	CU_ASSERT_PTR_NOT_NULL(mapping_path(&m, "[vdso]"));
	for (size_t i = 0; i < m.n; i++) {
		CU_ASSERT(m.v[i].prot & PROT_EXEC);
		CU_ASSERT(m.v[i].start < m.v[i].end);
		if (i)
			CU_ASSERT(m.v[i - 1].start < m.v[i].start);
	}
	ptm_free(&m);
	CU_ASSERT_EQUAL(ptm_read(999999999, &m), -1);
}

/* name, the module it is in (path suffix), its address in this process */
static const struct {
	const char *name;
	const char *module;
	void (*addr)(void);
} functions[] = {
	{ "ptm_test_marker", NULL, ptm_test_marker },
	{ "getpid", "libc.so.6", (void (*)(void))getpid },
	{ "exit", "libc.so.6", (void (*)(void))exit },
};

static void test_runtime_addr(void)
{
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	struct ptm_maps m;

	CU_ASSERT_FATAL(n > 0);
	exe[n] = '\0';
	CU_ASSERT_EQUAL_FATAL(ptm_read(getpid(), &m), 0);
	for (size_t i = 0; i < sizeof(functions) / sizeof(functions[0]); i++) {
		const char *path = functions[i].module ? mapping_path(&m, functions[i].module)
						       : exe;
		uint64_t vaddr = 0;

		CU_ASSERT_PTR_NOT_NULL_FATAL(path);
		CU_ASSERT_EQUAL_FATAL(sym_lookup_in_file(path, functions[i].name, &vaddr, NULL), 1);
		CU_ASSERT_EQUAL(ptm_runtime_addr(&m, path, vaddr),
				(uint64_t)(uintptr_t)functions[i].addr);
	}
	CU_ASSERT_EQUAL(ptm_runtime_addr(&m, exe, 0), 0);	/* not in a loaded segment */
	ptm_free(&m);
}

static void test_update_diffs(void)
{
	char dir[PATH_MAX], vdso[PATH_MAX + 8];
	struct tw_options o = { .compress = false };
	struct ptm_maps cur = { NULL, 0 };
	struct trace_writer *tw;
	struct stat st;
	int first;
	void *page;

	snprintf(dir, sizeof(dir), "%s/ptm", unit_tmpdir());
	tw = tw_open(dir, &o);
	CU_ASSERT_PTR_NOT_NULL_FATAL(tw);
	first = ptm_update(tw, getpid(), &cur);
	CU_ASSERT(first >= 3);
	CU_ASSERT_EQUAL((size_t)first, cur.n);
	snprintf(vdso, sizeof(vdso), "%s/vdso", tw_dir(tw));
	CU_ASSERT(stat(vdso, &st) == 0 && st.st_size > 0);
	CU_ASSERT_EQUAL(ptm_update(tw, getpid(), &cur), 0);	/* nothing changed */
	page = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CU_ASSERT_FATAL(page != MAP_FAILED);
	CU_ASSERT_EQUAL(ptm_update(tw, getpid(), &cur), 1);
	CU_ASSERT(ptm_contains(&cur, (uint64_t)(uintptr_t)page));
	munmap(page, 4096);
	CU_ASSERT_EQUAL(ptm_update(tw, getpid(), &cur), 0);
	CU_ASSERT(!ptm_contains(&cur, (uint64_t)(uintptr_t)page));
	CU_ASSERT_EQUAL(cur.n, (size_t)first);
	ptm_free(&cur);
	CU_ASSERT_EQUAL(tw_close(tw, "complete"), 0);
	/* a second trace made by the same process gets its own vdso */
	snprintf(dir, sizeof(dir), "%s/ptm2", unit_tmpdir());
	tw = tw_open(dir, &o);
	CU_ASSERT_PTR_NOT_NULL_FATAL(tw);
	CU_ASSERT(ptm_update(tw, getpid(), &cur) >= 3);
	snprintf(vdso, sizeof(vdso), "%s/vdso", tw_dir(tw));
	CU_ASSERT(stat(vdso, &st) == 0 && st.st_size > 0);
	ptm_free(&cur);
	CU_ASSERT_EQUAL(tw_close(tw, "complete"), 0);
}

/* syscall number -> what it means to the tracer */
static const struct {
	int64_t nr;
	enum arch_syscall_kind kind;
} syscalls[] = {
	{ SYS_mmap, ARCH_SC_MAPS },	{ SYS_munmap, ARCH_SC_MAPS },
	{ SYS_mprotect, ARCH_SC_MAPS }, { SYS_mremap, ARCH_SC_MAPS },
	{ SYS_execve, ARCH_SC_EXEC },	{ SYS_execveat, ARCH_SC_EXEC },
	{ SYS_exit, ARCH_SC_EXIT },	{ SYS_exit_group, ARCH_SC_EXIT },
	{ SYS_prctl, ARCH_SC_COMM },	{ SYS_read, ARCH_SC_OTHER },
	{ SYS_getpid, ARCH_SC_OTHER },	{ -1, ARCH_SC_OTHER },
};

static void test_arch_syscalls(void)
{
	for (size_t i = 0; i < sizeof(syscalls) / sizeof(syscalls[0]); i++)
		CU_ASSERT_EQUAL(arch_syscall_kind(syscalls[i].nr), syscalls[i].kind);
}

static void test_arch_syscall_insn(void)
{
	/* The tracer parks other threads only while the next instruction
	 * is not a syscall: a miss here would deadlock a blocking call. */
	uint8_t bytes[] = { 0x0f, 0x05 };	/* syscall */
	uint8_t other[] = { 0x0f, 0x0b };	/* ud2 */

	CU_ASSERT(arch_is_syscall_insn(bytes, 2));
	CU_ASSERT(!arch_is_syscall_insn(bytes, 1));
	CU_ASSERT(!arch_is_syscall_insn(other, 2));
	CU_ASSERT(arch_breakpoint_len >= 1 && arch_breakpoint_len <= ARCH_BREAKPOINT_MAX);
	CU_ASSERT(arch_breakpoint_pc_adjust <= arch_breakpoint_len);
}

static CU_TestInfo tests[] = {
	{ "own executable mappings are read", test_own_maps },
	{ "ELF addresses become process addresses", test_runtime_addr },
	{ "updates report new and vanished mappings", test_update_diffs },
	{ "syscall numbers are classified", test_arch_syscalls },
	{ "the syscall instruction is recognised", test_arch_syscall_insn },
	CU_TEST_INFO_NULL,
};

UNIT_SUITE(ptrace_maps, tests)
