// SPDX-License-Identifier: GPL-2.0
/*
 * Demangling (util/demangle.h) and what the symbol resolver does with it:
 * the table's demangled forms follow the Itanium C++ ABI's rules and are
 * checked against c++filt; names in a C++ program built here come from nm
 * (raw) and c++filt (demangled).
 */
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "util/demangle.h"
#include "util/symbols.h"
#include "util/trace_reader.h"
#include "tests/unit/unit.h"

/* One symbol name and what reports show for it (NULL: the name as it is). */
static const struct {
	const char *name;
	const char *shown;
} demangle_cases[] = {
	/* C++ names */
	{ "_ZN3foo3barEv", "foo::bar()" },
	{ "_ZL7throweri", "thrower(int)" },			/* static function */
	{ "_Znwm", "operator new(unsigned long)" },
	{ "_ZNKSt6vectorIiSaIiEE4sizeEv", "std::vector<int, std::allocator<int> >::size() const" },
	{ "_ZN12_GLOBAL__N_11fEv", "(anonymous namespace)::f()" },
	{ "_Z1fIiEvT_", "void f<int>(int)" },			/* template: return type */
	{ "_ZZ4mainENKUlvE_clEv", "main::{lambda()#1}::operator()() const" },
	{ "_ZThn8_N1D1fEv", "non-virtual thunk to D::f()" },
	{ "_ZN1SD0Ev", "S::~S()" },				/* deleting and complete */
	{ "_ZN1SD1Ev", "S::~S()" },				/* destructors look alike */
	/* compiler-made pieces and PLT entries keep their suffix */
	{ "_Z3foov.cold", "foo() [clone .cold]" },
	{ "_ZN3foo3barEv.part.0", "foo::bar() [clone .part.0]" },
	{ "_Znwm@plt", "operator new(unsigned long)@plt" },
	/* C names stay as they are, even those that read as type encodings */
	{ "main", NULL },
	{ "_start", NULL },
	{ "i", NULL },						/* would be "int" */
	{ "f", NULL },						/* would be "float" */
	{ "memcpy@plt", NULL },
	{ "*ABS*+0x4a0c0@plt", NULL },
	{ "__libc_start_main", NULL },
	/* broken manglings stay as they are */
	{ "_Z", NULL },
	{ "_ZN3foo", NULL },
	{ "_Z3fooX", NULL },
	{ "_ZN3foo3barEv@", NULL },
	{ "_Z@plt", NULL },
	{ "", NULL },
};

static bool have_tool(const char *tool)
{
	return !strcmp(unit_sh_out("command -v %s >/dev/null && echo yes", tool), "yes");
}

static void test_demangle_table(void)
{
	bool filt = have_tool("c++filt");

	for (size_t i = 0; i < sizeof(demangle_cases) / sizeof(demangle_cases[0]); i++) {
		const char *name = demangle_cases[i].name, *want = demangle_cases[i].shown;
		char *got = demangle(name);
		bool ok = want ? got && !strcmp(got, want) : !got;

		if (!ok)
			fprintf(stderr, "\ndemangle(\"%s\"): got %s%s%s, want %s%s%s\n", name,
				got ? "\"" : "", got ? got : "NULL", got ? "\"" : "",
				want ? "\"" : "", want ? want : "NULL", want ? "\"" : "");
		CU_ASSERT(ok);
		/* The table itself, against binutils' demangler (no "@plt" there). */
		if (filt && *name && !strchr(name, '@') && !strchr(name, '*')) {
			const char *f = unit_sh_out("c++filt '%s'", name);

			if (strcmp(f, want ? want : name))
				fprintf(stderr, "\nc++filt %s: '%s'\n", name, f);
			CU_ASSERT_STRING_EQUAL(f, want ? want : name);
		}
		free(got);
	}
}

static const struct {
	const char *name, *pattern;
	bool match;
} match_cases[] = {
	{ "thrower(int)", "thrower(int)", true },	/* shown demangled, typed so */
	{ "thrower(int)", "_ZL7throweri", true },	/* typed raw */
	{ "_ZL7throweri", "_ZL7throweri", true },	/* --no-demangle, typed raw */
	{ "_ZL7throweri", "thrower(int)", true },	/* --no-demangle, typed demangled */
	{ "thrower(int)", "thrower", false },		/* the whole name, not a prefix */
	{ "thrower(int)", "_ZL7throwerl", false },	/* thrower(long) */
	{ "_ZL7throweri", "thrower(long)", false },
	{ "main", "main", true },
	{ "main", "_Z4mainv", false },			/* main() is not C's main */
	{ "i", "int", false },				/* no type encodings */
	{ "int", "i", false },
	{ "_ZN3foo", "_ZN3foo", true },			/* broken: only itself */
	{ "_ZN3foo", "foo", false },
};

static void test_name_matches(void)
{
	for (size_t i = 0; i < sizeof(match_cases) / sizeof(match_cases[0]); i++) {
		bool got = demangle_name_matches(match_cases[i].name, match_cases[i].pattern);

		if (got != match_cases[i].match)
			fprintf(stderr, "\nname '%s', pattern '%s': %s\n", match_cases[i].name,
				match_cases[i].pattern, got ? "matched" : "no match");
		CU_ASSERT_EQUAL(got, match_cases[i].match);
	}
}

static const char cxx_src[] =
	"namespace ns {\n"
	"int add(int a, int b) { return a + b; }\n"
	"}\n"
	"struct S {\n"
	"\tint v;\n"
	"\tint get() const { return v; }\n"
	"};\n"
	"template <typename T> T twice(T x) { return x + x; }\n"
	"extern \"C\" int c_func(int x) { return x - 1; }\n"
	"static int helper(int x) { return x * 3; }\n"
	"int main(int argc, char **)\n"
	"{\n"
	"\tS s{ argc };\n"
	"\treturn ns::add(s.get(), helper(argc)) + (int)twice<long>(argc) + c_func(argc);\n"
	"}\n";

/* Raw names of cxx_src's functions (and what nm says); c++filt gives the shown ones. */
static const char *const cxx_funcs[] = {
	"_ZN2ns3addEii", "_ZNK1S3getEv", "_Z5twiceIlET_S0_", "c_func", "_ZL6helperi", "main",
};

#define CXX_PID 42

/* Build the C++ program (non-PIE: nm's addresses are process addresses). */
static bool build_cxx(char *exe, size_t size)
{
	char src[PATH_MAX];
	FILE *f;

	snprintf(src, sizeof(src), "%s/demangle.cc", unit_tmpdir());
	snprintf(exe, size, "%s/demangle", unit_tmpdir());
	f = fopen(src, "w");
	if (!f)
		return false;
	fputs(cxx_src, f);
	fclose(f);
	return !strcmp(unit_sh_out("g++ -g -O0 -fno-inline -no-pie -o %s %s 2>&1 && echo ok", exe, src),
		       "ok");
}

static uint64_t nm_addr(const char *exe, const char *raw)
{
	return strtoull(unit_sh_out("nm %s | awk '$3 == \"%s\" { print $1 }'", exe, raw), NULL, 16);
}

/* A session with exe's executable segment mapped in CXX_PID as the loader does. */
static struct sym_session *session_with(const char *exe, bool no_demangle)
{
	struct sym_options o = { .no_demangle = no_demangle };
	struct sym_session *s = sym_session_new(&o);
	struct trace_task_rec r = { .type = PT_TASK_MMAP };
	uint64_t off = 0, vaddr = 0, filesz = 0;

	if (!s)
		return NULL;
	if (sscanf(unit_sh_out("readelf -lW %s | awk '$1 == \"LOAD\" && / R E / "
			  "{ print $2, $3, $5; exit }'", exe),
		   "%" SCNx64 " %" SCNx64 " %" SCNx64, &off, &vaddr, &filesz) != 3) {
		sym_session_free(s);
		return NULL;
	}
	r.c.pid = CXX_PID;
	r.mmap.start = vaddr & ~0xfffull;
	r.mmap.pgoff = off & ~0xfffull;
	r.mmap.len = filesz + (vaddr & 0xfff);
	r.mmap.prot = PROT_READ | PROT_EXEC;
	r.str = exe;
	sym_task_event(s, &r);
	return s;
}

/* Reports show c++filt's names by default, nm's with no_demangle; both find the function. */
static void test_resolver_names(void)
{
	char exe[PATH_MAX];
	struct sym_session *shown, *raw;

	if (!have_tool("g++") || !have_tool("c++filt")) {
		fprintf(stderr, "\nSKIP: g++ or c++filt missing\n");
		return;
	}
	CU_ASSERT_FATAL(build_cxx(exe, sizeof(exe)));
	shown = session_with(exe, false);
	raw = session_with(exe, true);
	CU_ASSERT_FATAL(shown && raw);
	for (size_t i = 0; i < sizeof(cxx_funcs) / sizeof(cxx_funcs[0]); i++) {
		const char *name = cxx_funcs[i];
		uint64_t addr = nm_addr(exe, name), vaddr = 0, vaddr2 = 0;
		char want[512];
		struct sym_loc loc;

		CU_ASSERT_FATAL(addr != 0);
		snprintf(want, sizeof(want), "%s", unit_sh_out("c++filt '%s'", name));
		sym_resolve(shown, CXX_PID, addr + 1, 0, &loc);
		CU_ASSERT(loc.symbol && !strcmp(loc.symbol, want) && loc.sym_offset == 1);
		CU_ASSERT(loc.symbol_raw && !strcmp(loc.symbol_raw, name));
		if (!loc.symbol || strcmp(loc.symbol, want))
			fprintf(stderr, "\n%s: shown '%s', c++filt '%s'\n", name,
				loc.symbol ? loc.symbol : "(none)", want);
		sym_resolve(raw, CXX_PID, addr + 1, 0, &loc);
		CU_ASSERT(loc.symbol && !strcmp(loc.symbol, name));
		CU_ASSERT(loc.symbol_raw && !strcmp(loc.symbol_raw, name));
		/* The recorder's --on SYMBOL: either form names the function. */
		CU_ASSERT_EQUAL(sym_lookup_in_file(exe, name, &vaddr, NULL), 1);
		CU_ASSERT_EQUAL(sym_lookup_in_file(exe, want, &vaddr2, NULL), 1);
		CU_ASSERT(vaddr == addr && vaddr2 == addr);
	}
	sym_session_free(shown);
	sym_session_free(raw);
}

static CU_TestInfo demangle_tests[] = {
	{ "demangle: table (checked by c++filt)", test_demangle_table },
	{ "either form matches", test_name_matches },
	{ "resolver: shown and raw names", test_resolver_names },
	CU_TEST_INFO_NULL,
};
UNIT_SUITE(demangle, demangle_tests);
