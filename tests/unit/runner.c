// SPDX-License-Identifier: GPL-2.0
/* Runs every registered CUnit suite; `unit-tests SUITE` runs one. */
#include <CUnit/Basic.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/unit/unit.h"

static struct unit_suite *suites;
static char tmpdir[] = "/tmp/pitrace-unit.XXXXXX";

void unit_register(struct unit_suite *s)
{
	struct unit_suite **p = &suites;

	while (*p && strcmp((*p)->name, s->name) < 0)
		p = &(*p)->next;
	s->next = *p;
	*p = s;
}

const char *unit_sh_out(const char *fmt, ...)
{
	static char line[4096];
	char cmd[4096];
	va_list ap;
	FILE *p;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	line[0] = 0;
	p = popen(cmd, "r");
	if (!p)
		return line;
	if (!fgets(line, sizeof(line), p))
		line[0] = 0;
	pclose(p);
	line[strcspn(line, "\n")] = 0;
	return line;
}

const char *unit_tmpdir(void)
{
	return tmpdir;
}

int main(int argc, char **argv)
{
	unsigned failed;
	char cmd[128];

	if (!mkdtemp(tmpdir)) {
		perror("unit-tests: mkdtemp");
		return 1;
	}
	/* Symbols come from the tests' own files: not the user's build-id cache, no server. */
	snprintf(cmd, sizeof(cmd), "%s/cache", tmpdir);
	setenv("XDG_CACHE_HOME", cmd, 1);
	unsetenv("DEBUGINFOD_URLS");
	if (CU_initialize_registry() != CUE_SUCCESS)
		return 1;
	for (struct unit_suite *s = suites; s; s = s->next) {
		CU_pSuite cs;

		if (argc > 1 && strcmp(argv[1], s->name))
			continue;
		cs = CU_add_suite(s->name, NULL, NULL);
		for (const CU_TestInfo *t = s->tests; cs && t->pName; t++)
			CU_add_test(cs, t->pName, t->pTestFunc);
	}
	CU_basic_set_mode(CU_BRM_VERBOSE);
	CU_basic_run_tests();
	failed = CU_get_number_of_failures() + CU_get_number_of_tests_failed();
	CU_cleanup_registry();
	snprintf(cmd, sizeof(cmd), "rm -rf %s", tmpdir);
	if (system(cmd) != 0)
		fprintf(stderr, "unit-tests: could not remove %s\n", tmpdir);
	return failed ? 1 : 0;
}
