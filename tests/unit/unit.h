/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Unit-test registration: each tests/unit/test_MODULE.c declares its suite
 * with UNIT_SUITE(name, tests...) and the runner finds it; no central list.
 */
#ifndef PT_UNIT_H
#define PT_UNIT_H

#include <CUnit/CUnit.h>

struct unit_suite {
	const char *name;
	const CU_TestInfo *tests;
	struct unit_suite *next;
};

void unit_register(struct unit_suite *s);

#define UNIT_SUITE(sname, table)                                              \
	static struct unit_suite unit_suite_##sname = { #sname, table, NULL }; \
	__attribute__((constructor)) static void unit_register_##sname(void)  \
	{                                                                      \
		unit_register(&unit_suite_##sname);                            \
	}

/* Directory for scratch files of one test run (created by the runner). */
const char *unit_tmpdir(void);

/* First line of a shell command's output, trimmed ("" when none); the
 * result lives until the next call. */
const char *unit_sh_out(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif /* PT_UNIT_H */
