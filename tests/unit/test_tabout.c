// SPDX-License-Identifier: GPL-2.0
/*
 * The reports' JSON and CSV (post/tabout.h): strings escaped and quoted,
 * one case a row (plain, quotes, commas, control characters, UTF-8 valid
 * and not: overlong, surrogate, past U+10FFFF, cut short), and a whole
 * document and CSV table with facts, null cells, deltas and a table CSV
 * leaves out.
 */
#include <stdlib.h>
#include <string.h>

#include "post/tabout.h"
#include "tests/unit/unit.h"

#define FFFD "\xef\xbf\xbd"

static const struct {
	const char *in;
	const char *json;	  /* with its quotes */
	const char *csv;
} cases[] = {
	{ "main", "\"main\"", "main" },
	{ "", "\"\"", "" },
	{ "a,\"b\"", "\"a,\\\"b\\\"\"", "\"a,\"\"b\"\"\"" },
	{ "back\\slash", "\"back\\\\slash\"", "back\\slash" },
	{ "tab\there", "\"tab\\there\"", "tab\there" },
	{ "line\nbreak\r", "\"line\\nbreak\\r\"", "\"line\nbreak\r\"" },
	{ "bell\x07 esc\x1b del\x7f", "\"bell\\u0007 esc\\u001b del\\u007f\"",
	  "bell\x07 esc\x1b del\x7f" },
	{ "caf\xc3\xa9", "\"caf\xc3\xa9\"", "caf\xc3\xa9" },	  /* UTF-8 passes */
	{ "\xe2\x82\xac \xf0\x9f\x98\x80", "\"\xe2\x82\xac \xf0\x9f\x98\x80\"",
	  "\xe2\x82\xac \xf0\x9f\x98\x80" },			  /* 3 and 4 bytes */
	{ "x\xffy", "\"x" FFFD "y\"", "x" FFFD "y" },		  /* never in UTF-8 */
	{ "\xc0\xaf", "\"" FFFD FFFD "\"", FFFD FFFD },		  /* overlong '/' */
	{ "\xe0\x80\xaf", "\"" FFFD FFFD FFFD "\"", FFFD FFFD FFFD }, /* overlong, 3 bytes */
	{ "\xed\xa0\x80", "\"" FFFD FFFD FFFD "\"", FFFD FFFD FFFD }, /* a surrogate */
	{ "\xf4\x90\x80\x80", "\"" FFFD FFFD FFFD FFFD "\"", FFFD FFFD FFFD FFFD }, /* > 10FFFF */
	{ "cut\xc3", "\"cut" FFFD "\"", "cut" FFFD },		  /* a sequence cut short */
	{ "\x80", "\"" FFFD "\"", FFFD },			  /* a lone continuation */
};

/* What write(f, s) writes, malloc'ed. */
static char *written(void (*write)(FILE *, const char *), const char *s)
{
	char *buf = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&buf, &size);

	write(f, s);
	fclose(f);
	return buf;
}

static void test_strings(void)
{
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *json = written(tab_json_string, cases[i].in);
		char *csv = written(tab_csv_field, cases[i].in);

		if (strcmp(json, cases[i].json) || strcmp(csv, cases[i].csv))
			fprintf(stderr, "case %zu: json [%s] csv [%s]\n", i, json, csv);
		CU_ASSERT_STRING_EQUAL(json, cases[i].json);
		CU_ASSERT_STRING_EQUAL(csv, cases[i].csv);
		free(json);
		free(csv);
	}
}

static const char *const cols[] = { "count", "percent", "name" };

/* A small report in format: facts, two rows, a table of its own. */
static char *report(enum tab_format format)
{
	static const char *const argv[] = { "prog", "a\"b", NULL };
	static const char *const other[] = { "runs" };
	char *buf = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&buf, &size);
	struct tabout t;

	tab_start(&t, f, format, "test");
	tab_fact_u64(&t, "total", 30);
	tab_fact_strv(&t, "command", argv);
	tab_object_begin(&t, "filter");
	tab_object_end(&t);
	tab_rows_begin(&t, NULL, cols, 3);
	tab_row_begin(&t);
	tab_u64(&t, 20);
	tab_pct(&t, 66.666);
	tab_str(&t, "x,y");
	tab_row_end(&t);
	tab_row_begin(&t);
	tab_delta(&t, 12, 2);
	tab_f64(&t, 1.0 / 0.0, 2);
	tab_str(&t, NULL);
	tab_row_end(&t);
	tab_rows_end(&t);
	tab_rows_begin(&t, "native", other, 1);
	tab_row_begin(&t);
	tab_bool(&t, true);
	tab_row_end(&t);
	tab_rows_end(&t);
	tab_fact_str(&t, "last", NULL);
	tab_end(&t);
	fclose(f);
	return buf;
}

static void test_documents(void)
{
	char *json = report(TAB_JSON), *csv = report(TAB_CSV), *text = report(TAB_TEXT);

	CU_ASSERT_STRING_EQUAL(json,
			       "{\n\"schema\":\"pitrace-report\",\n\"version\":1,\n"
			       "\"report\":\"test\",\n\"total\":30,\n"
			       "\"command\":[\"prog\",\"a\\\"b\"],\n\"filter\":{},\n"
			       "\"columns\":[\"count\",\"percent\",\"name\"],\n\"rows\":[\n"
			       "[20,66.67,\"x,y\"],\n[-10,null,null]\n],\n"
			       "\"native\":{\"columns\":[\"runs\"],\"rows\":[\n[true]\n]},\n"
			       "\"last\":null\n}\n");
	CU_ASSERT_STRING_EQUAL(csv, "count,percent,name\n20,66.67,\"x,y\"\n-10,,\n");
	CU_ASSERT_STRING_EQUAL(text, "");	/* text is the report's own */
	free(json);
	free(csv);
	free(text);
}

static CU_TestInfo tabout_tests[] = {
	{ "strings in JSON and CSV, one case a row", test_strings },
	{ "a document, a CSV table", test_documents },
	CU_TEST_INFO_NULL,
};

UNIT_SUITE(tabout, tabout_tests);
