// SPDX-License-Identifier: GPL-2.0
/*
 * The symbol resolver, on small ELF files built here with the system
 * compiler: names and offsets at a load bias, source lines, @plt names,
 * debuginfo by build-id and debuglink, address spaces through mmap, munmap,
 * fork and exec, [vdso]/[anon]/[unknown], kallsyms.  Expected addresses come
 * from binutils (nm, objdump, addr2line, readelf), lines from the sources.
 */
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "arch/arch.h"
#include "util/build_id.h"
#include "util/symbols.h"
#include "util/trace_reader.h"
#include "tests/unit/unit.h"

#define PIE_BIAS 0x555555554000ull
#define LIB_BIAS 0x7f1234560000ull
#define PAGE 4096ull

/* ---- the test files ---- */

static const char prog_src[] =
	"#include <stdio.h>\n"
	"#include <stdlib.h>\n"
	"static int helper_local(int x)\n"
	"{\t/* L:helper_local */\n"
	"\treturn x * 3;\n"
	"}\n"
	"int target_global(int x)\n"
	"{\t/* L:target_global */\n"
	"\tint y = helper_local(x);\n"
	"\treturn y + 1;\n"
	"}\n"
	"int main(int argc, char **argv)\n"
	"{\n"
	"\t(void)argv;\n"
	"\tputs(\"symbols test\");\n"
	"\tprintf(\"%d\\n\", target_global(argc));\n"
	"\treturn 0;\n"
	"}\n";

static const char lib_src[] =
	"static int lib_static(int x)\n"
	"{\t/* L:lib_static */\n"
	"\treturn x ^ 0x5a;\n"
	"}\n"
	"int lib_api(int x)\n"
	"{\t/* L:lib_api */\n"
	"\treturn lib_static(x) + 2;\n"
	"}\n"
	"__attribute__((aligned(4096))) int lib_far(int x)\n"
	"{\t/* L:lib_far */\n"
	"\treturn lib_api(x) * 2;\n"
	"}\n";

/* A second compilation unit of libt.so: line lookups must find the right CU. */
static const char lib2_src[] =
	"int lib_second(int x)\n"
	"{\t/* L:lib_second */\n"
	"\treturn x - 1;\n"
	"}\n";

/* Symbol versions: the old vfunc@V1 comes first in the file, vfunc@@V2 is current. */
static const char ver_src[] =
	"__asm__(\".symver old_impl, vfunc@V1\");\n"
	"__asm__(\".symver new_impl, vfunc@@V2\");\n"
	"int old_impl(void) { return 1; }\n"
	"int new_impl(void) { return 2; }\n";
static const char ver_map[] = "V1 { global: vfunc; local: *; };\nV2 { global: vfunc; } V1;\n";

/* A stand-in vmlinux: freestanding code linked where the kernel's text is. */
static const char kern_src[] =
	"int kfunc_a(int x)\n{\n\treturn x * 2 + 1;\n}\n"
	"int kfunc_b(int x)\n{\n\treturn kfunc_a(x) - 3;\n}\n"
	"int kfunc_c(int x)\n{\n\treturn kfunc_b(x) ^ kfunc_a(x);\n}\n"
	"void _start(void)\n{\n\tkfunc_c(1);\n\tfor (;;)\n\t\t;\n}\n";

/* Labels without .type/.size, as hand-written assembly has them. */
static const char asm_src[] =
	"\t.text\n"
	"\t.globl _start\n"
	"_start:\n"
	"\tcall f_first\n"
	"\tcall f_second\n"
	"\tcall alias_global\n"
	"\tmov $60, %eax\n"
	"\txor %edi, %edi\n"
	"\tsyscall\n"
	"f_first:\n"
	"\tnop\n"
	"\tnop\n"
	"\tret\n"
	"\t.globl alias_global\n"
	"\t.weak alias_weak\n"
	"alias_local:\n"
	"alias_weak:\n"
	"alias_global:\n"
	"\tnop\n"
	"\tret\n"
	"\t.globl __under_name, under_name\n"
	"__under_name:\n"
	"under_name:\n"
	"\tret\n"
	"f_second:\n"
	"\tnop\n"
	"\tret\n";

static char dir[PATH_MAX / 2];	  /* unit_tmpdir()/sym */
static bool built, build_ok;

static const char *tpath(const char *name)
{
	static char bufs[8][PATH_MAX];
	static int next;
	char *b = bufs[next++ & 7];

	snprintf(b, PATH_MAX, "%s/%s", dir, name);
	return b;
}

static int sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int sh(const char *fmt, ...)
{
	char cmd[4096];
	va_list ap;
	int rc;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	rc = system(cmd);
	if (rc)
		fprintf(stderr, "\ncommand failed (%d): %s\n", rc, cmd);
	return rc;
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fputs(text, f);
	fclose(f);
}

static const char *build_id_hex(const char *file)
{
	return unit_sh_out("readelf -n %s 2>/dev/null | sed -n 's/.*Build ID: *//p'", file);
}

/* Compile every test file once; the cases below only read them. */
static bool build(void)
{
	const char *cc = "cc -g -O0 -fno-inline -fno-omit-frame-pointer";
	char bid[128];
	int rc = 0;

	if (built)
		return build_ok;
	built = true;
	snprintf(dir, sizeof(dir), "%s/sym", unit_tmpdir());
	mkdir(dir, 0755);
	write_file(tpath("prog.c"), prog_src);
	write_file(tpath("lib.c"), lib_src);
	write_file(tpath("lib2.c"), lib2_src);
	write_file(tpath("ver.c"), ver_src);
	write_file(tpath("ver.map"), ver_map);
	write_file(tpath("asm.S"), asm_src);
	write_file(tpath("kern.c"), kern_src);
	rc |= sh("cd %s && %s -fPIE -pie -Wl,--build-id -o prog-pie prog.c", dir, cc);
	rc |= sh("cd %s && %s -fno-pie -no-pie -Wl,--build-id -o prog-nopie prog.c", dir, cc);
	rc |= sh("cd %s && %s -fcf-protection=full -Wl,-z,ibtplt -o prog-ibt prog.c", dir, cc);
	rc |= sh("cd %s && %s -static -o prog-static prog.c", dir, cc);
	rc |= sh("cd %s && %s -shared -fPIC -o libt.so lib.c lib2.c", dir, cc);
	rc |= sh("cd %s && strip --strip-all -o libt-stripped.so libt.so", dir);
	rc |= sh("cd %s && %s -shared -fPIC -Wl,--version-script=ver.map -o libver.so ver.c",
		 dir, cc);
	rc |= sh("cd %s && cc -nostdlib -static -Wl,--build-id=none -o asm asm.S", dir);
	rc |= sh("cd %s && strip --strip-all -o asm-stripped asm", dir);
	rc |= sh("cd %s && cc -g -O0 -ffreestanding -fno-pic -mcmodel=kernel -nostdlib -static "
		 "-no-pie -Wl,-Ttext-segment=0xffffffff81000000 -o kern kern.c", dir);
	/* Separate debuginfo: one found by build-id, one by .gnu_debuglink. */
	rc |= sh("cd %s && strip --strip-all -o prog-stripped prog-pie", dir);
	snprintf(bid, sizeof(bid), "%s", build_id_hex(tpath("prog-pie")));
	if (strlen(bid) < 4) {
		fprintf(stderr, "\nno build-id in %s\n", tpath("prog-pie"));
		return false;
	}
	rc |= sh("cd %s && mkdir -p dbg/.build-id/%.2s empty && "
		 "objcopy --only-keep-debug prog-pie dbg/.build-id/%.2s/%s.debug",
		 dir, bid, bid, bid + 2);
	rc |= sh("cd %s && mkdir -p linked && "
		 "objcopy --only-keep-debug prog-pie linked/prog.debug && cd linked && "
		 "strip --strip-all --remove-section=.note.gnu.build-id "
		 "-o prog-linked ../prog-pie && "
		 "objcopy --add-gnu-debuglink=prog.debug prog-linked",
		 dir);
	/* The same link, but the file under that name is another build's: same
	 * layout, other names (so using it would name helper_local wrongly). */
	rc |= sh("cd %s && mkdir -p badlink && cp linked/prog-linked badlink/ && "
		 "%s -fPIE -pie -Dhelper_local=wrong_name -o badlink/other prog.c && "
		 "objcopy --only-keep-debug badlink/other badlink/prog.debug", dir, cc);
	/*
	 * Where a file is found when not at its traced path: a build-id cache
	 * holding the file (and one holding only the stripped file's
	 * debuginfo), and a copy of the traced machine's files under a prefix
	 * (--symfs) with its own /usr/lib/debug.
	 */
	rc |= sh("cd %s && mkdir -p cache/.build-id/%.2s cachedbg/.build-id/%.2s "
		 "root/usr/bin root/usr/lib/debug/.build-id/%.2s && "
		 "cp prog-pie cache/.build-id/%.2s/%s && "
		 "cp dbg/.build-id/%.2s/%s.debug cachedbg/.build-id/%.2s/ && "
		 "cp prog-pie prog-stripped root/usr/bin/ && "
		 "cp dbg/.build-id/%.2s/%s.debug root/usr/lib/debug/.build-id/%.2s/",
		 dir, bid, bid, bid, bid, bid + 2, bid, bid + 2, bid, bid, bid + 2, bid);
	build_ok = rc == 0;
	return build_ok;
}

/* ---- oracles ---- */

/* Address of a symbol: nm for functions, objdump's <name@plt> labels for PLT entries. */
static uint64_t oracle_addr(const char *file, const char *sym)
{
	const char *out;

	if (strstr(sym, "@plt"))
		out = unit_sh_out("objdump -d %s | sed -n 's/^\\([0-9a-f]*\\) <%s>:$/\\1/p'", file, sym);
	else
		out = unit_sh_out("nm %s | awk '$3 == \"%s\" { print $1 }'", file, sym);
	return strtoull(out, NULL, 16);
}

static uint64_t oracle_size(const char *file, const char *sym)
{
	return strtoull(unit_sh_out("nm -S %s | awk '$4 == \"%s\" { print $2 }'", file, sym), NULL, 16);
}

static int oracle_line(const char *file, uint64_t vaddr)
{
	const char *out = unit_sh_out("addr2line -e %s 0x%" PRIx64, file, vaddr);
	const char *colon = strrchr(out, ':');

	return colon ? atoi(colon + 1) : 0;
}

/* Line of "L:marker" in a source we wrote: the expected line by construction. */
static int marker_line(const char *src, const char *marker)
{
	char tag[64];
	const char *p;
	int line = 1;

	snprintf(tag, sizeof(tag), "/* L:%s */", marker);
	p = strstr(src, tag);
	if (!p)
		return -1;
	for (const char *q = src; q < p; q++)
		line += *q == '\n';
	return line;
}

/* n (<= 16) code bytes at vaddr of file as hex, as objdump -s shows them. */
static const char *objdump_bytes(const char *file, uint64_t vaddr, size_t n)
{
	static char hex[40];
	/* " ADDR " then four 8-digit groups in fixed columns, then ASCII */
	const char *dump = unit_sh_out("objdump -s --start-address=0x%" PRIx64
				  " --stop-address=0x%" PRIx64 " %s | grep '^ [0-9a-f]* '",
				  vaddr, vaddr + n, file);
	const char *cols = strchr(dump + 1, ' ');
	size_t w = 0;

	for (size_t k = 1; cols && cols[k] && k <= 36 && w < 2 * n; k++)
		if (cols[k] != ' ')
			hex[w++] = cols[k];
	hex[w] = 0;
	return hex;
}

static const char *to_hex(const uint8_t *b, size_t n)
{
	static char hex[2 * 64 + 1];

	hex[0] = 0;
	for (size_t k = 0; k < n && k < 64; k++)
		sprintf(hex + 2 * k, "%02x", b[k]);
	return hex;
}

/* ---- feeding task records ---- */

/* hex: the build-id the mapping recorded, NULL for none. */
static void rec_mmap_id(struct sym_session *s, uint32_t pid, uint64_t start, uint64_t len,
			uint64_t pgoff, uint32_t prot, const char *path, const char *hex)
{
	struct trace_task_rec r = { .type = PT_TASK_MMAP };

	for (size_t i = 0; hex && hex[2 * i] && hex[2 * i + 1] && i < PT_BUILD_ID_MAX; i++) {
		sscanf(hex + 2 * i, "%2hhx", &r.mmap.build_id[i]);
		r.mmap.build_id_len = i + 1;
	}
	r.c.pid = pid;
	r.mmap.start = start;
	r.mmap.len = len;
	r.mmap.pgoff = pgoff;
	r.mmap.prot = prot;
	r.str = path;
	sym_task_event(s, &r);
}

static void rec_mmap(struct sym_session *s, uint32_t pid, uint64_t start, uint64_t len,
		     uint64_t pgoff, uint32_t prot, const char *path)
{
	struct trace_task_rec r = { .type = PT_TASK_MMAP };

	r.c.pid = pid;
	r.mmap.start = start;
	r.mmap.len = len;
	r.mmap.pgoff = pgoff;
	r.mmap.prot = prot;
	r.str = path;
	sym_task_event(s, &r);
}

/*
 * Map every loadable segment of file as the dynamic loader does, at bias,
 * recording path and the build-id hex (NULL: none) as the trace would.
 */
static void map_file_as(struct sym_session *s, uint32_t pid, const char *file, uint64_t bias,
			const char *path, const char *hex)
{
	int fd = open(file, O_RDONLY);
	Elf *elf;
	size_t n;

	CU_ASSERT_FATAL(fd >= 0);
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	CU_ASSERT_FATAL(elf && !elf_getphdrnum(elf, &n));
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr p;
		uint64_t start, end;
		uint32_t prot = 0;

		if (!gelf_getphdr(elf, i, &p) || p.p_type != PT_LOAD)
			continue;
		start = (bias + p.p_vaddr) & ~(PAGE - 1);
		end = (bias + p.p_vaddr + p.p_filesz + PAGE - 1) & ~(PAGE - 1);
		prot |= p.p_flags & PF_R ? PROT_READ : 0;
		prot |= p.p_flags & PF_W ? PROT_WRITE : 0;
		prot |= p.p_flags & PF_X ? PROT_EXEC : 0;
		rec_mmap_id(s, pid, start, end - start, p.p_offset & ~(PAGE - 1), prot, path, hex);
	}
	elf_end(elf);
	close(fd);
}

static void map_file(struct sym_session *s, uint32_t pid, const char *file, uint64_t bias)
{
	map_file_as(s, pid, file, bias, file, NULL);
}

static struct sym_session *session(const char *debug_sub)
{
	struct sym_options o = {
		.trace_dir = dir,
		.debug_dir = tpath(debug_sub ? debug_sub : "empty"),
		.vmlinux = "/nonexistent",
	};

	return sym_session_new(&o);
}

/* ---- resolution of functions, PLT entries and lines ---- */

/* A want of code without a symbol: named by its FDE, "FILE+0xVADDR" (docs/symbols.md). */
static const char FDE_NAME[] = "FILE+0xVADDR";

static const struct {
	const char *what;
	const char *file;	  /* mapped file */
	const char *oracle;	  /* unstripped file that nm/objdump read (NULL: file) */
	uint64_t bias;
	const char *at;		  /* symbol the address is taken from */
	uint64_t off;		  /* bytes into it */
	const char *want;	  /* expected symbol, NULL: none */
	const char *source;	  /* source holding the marker, NULL: no line check */
	const char *marker;	  /* expected line at off 0 */
	const char *debug;	  /* debug_dir below dir, NULL: an empty one */
} resolves[] = {
	/* what, mapped file, oracle file, bias, at, off, want, source, line marker, debug dir */
	{ "PIE: global function at its start", "prog-pie", NULL, PIE_BIAS, "target_global", 0,
	  "target_global", prog_src, "target_global", NULL },
	{ "PIE: static function, inside", "prog-pie", NULL, PIE_BIAS, "helper_local", 4,
	  "helper_local", prog_src, NULL, NULL },
	{ "PIE: main", "prog-pie", NULL, PIE_BIAS, "main", 1, "main", prog_src, NULL, NULL },
	{ "non-PIE: global function", "prog-nopie", NULL, 0, "target_global", 0, "target_global",
	  prog_src, "target_global", NULL },
	{ "non-PIE: static function", "prog-nopie", NULL, 0, "helper_local", 0, "helper_local",
	  prog_src, "helper_local", NULL },
	{ "lazy .plt entry", "prog-pie", NULL, PIE_BIAS, "puts@plt", 0, "puts@plt", NULL, NULL,
	  NULL },
	{ "lazy .plt entry, inside", "prog-nopie", NULL, 0, "printf@plt", 6, "printf@plt", NULL,
	  NULL, NULL },
	{ ".plt.got entry", "prog-pie", NULL, PIE_BIAS, "__cxa_finalize@plt", 0,
	  "__cxa_finalize@plt", NULL, NULL, NULL },
	{ "IBT .plt.sec entry", "prog-ibt", NULL, PIE_BIAS, "puts@plt", 4, "puts@plt", NULL, NULL,
	  NULL },
	{ "IBT .plt.sec entry 2", "prog-ibt", NULL, PIE_BIAS, "printf@plt", 0, "printf@plt", NULL,
	  NULL, NULL },
	{ "shared library: exported", "libt.so", NULL, LIB_BIAS, "lib_api", 3, "lib_api", lib_src,
	  NULL, NULL },
	{ "shared library: aligned to a page", "libt.so", NULL, LIB_BIAS, "lib_far", 0, "lib_far",
	  lib_src, "lib_far", NULL },
	{ "shared library: second compilation unit", "libt.so", NULL, LIB_BIAS, "lib_second", 0,
	  "lib_second", lib2_src, "lib_second", NULL },
	{ "shared library: static", "libt.so", NULL, LIB_BIAS, "lib_static", 2, "lib_static",
	  lib_src, NULL, NULL },
	{ "stripped: .dynsym names exports", "libt-stripped.so", "libt.so", LIB_BIAS, "lib_api", 1,
	  "lib_api", NULL, NULL, NULL },
	{ "stripped: a static is named by its FDE", "libt-stripped.so", "libt.so", LIB_BIAS,
	  "lib_static", 0, FDE_NAME, NULL, NULL, NULL },
	{ "debuginfo by build-id: static", "prog-stripped", "prog-pie", PIE_BIAS, "helper_local", 2,
	  "helper_local", prog_src, NULL, "dbg" },
	{ "debuginfo by build-id: lines", "prog-stripped", "prog-pie", PIE_BIAS, "target_global",
	  0, "target_global", prog_src, "target_global", "dbg" },
	{ "no debuginfo: stripped exe, functions by FDE", "prog-stripped", "prog-pie", PIE_BIAS,
	  "target_global", 0, FDE_NAME, NULL, NULL, NULL },
	{ "debuglink next to the file", "linked/prog-linked", "prog-pie", PIE_BIAS, "helper_local",
	  0, "helper_local", prog_src, "helper_local", NULL },
	{ "versions: old implementation named without its version", "libver.so", NULL, LIB_BIAS,
	  "vfunc@V1", 1, "vfunc", NULL, NULL, NULL },
	{ "versions: current implementation", "libver.so", NULL, LIB_BIAS, "vfunc@@V2", 0, "vfunc",
	  NULL, NULL, NULL },
	{ "debuglink to another build's file: refused (CRC)", "badlink/prog-linked", "prog-pie",
	  PIE_BIAS, "helper_local", 0, FDE_NAME, NULL, NULL, NULL },
	{ "assembly: unsized label, inside", "asm", NULL, 0, "f_first", 2, "f_first", NULL, NULL,
	  NULL },
	{ "assembly: unsized label at section end", "asm", NULL, 0, "f_second", 1, "f_second", NULL,
	  NULL, NULL },
	{ "assembly: _start", "asm", NULL, 0, "_start", 5, "_start", NULL, NULL, NULL },
	{ "aliases: global over weak and local", "asm", NULL, 0, "alias_weak", 1, "alias_global",
	  NULL, NULL, NULL },
	{ "aliases: fewer leading underscores", "asm", NULL, 0, "__under_name", 0, "under_name",
	  NULL, NULL, NULL },
};

static void test_resolve_table(void)
{
	CU_ASSERT_FATAL(build());
	for (size_t i = 0; i < sizeof(resolves) / sizeof(resolves[0]); i++) {
		const char *file = tpath(resolves[i].file);
		const char *oracle = tpath(resolves[i].oracle ? resolves[i].oracle
							      : resolves[i].file);
		const char *base = strrchr(resolves[i].file, '/');
		struct sym_session *s = session(resolves[i].debug);
		uint64_t sym = oracle_addr(oracle, resolves[i].at);
		uint64_t vaddr = sym + resolves[i].off;
		struct sym_loc loc;
		bool ok;

		CU_ASSERT_FATAL(s != NULL);
		map_file(s, 42, file, resolves[i].bias);
		sym_resolve(s, 42, resolves[i].bias + vaddr, SYM_LINES, &loc);
		ok = sym && loc.kind == SYM_KIND_FILE && loc.module_offset == vaddr &&
		     !strcmp(loc.module, base ? base + 1 : resolves[i].file);
		char fde_name[256];
		const char *want = resolves[i].want;

		if (want == FDE_NAME) {
			snprintf(fde_name, sizeof(fde_name), "%s+0x%" PRIx64,
				 base ? base + 1 : resolves[i].file, vaddr);
			want = fde_name;
		}
		if (want)
			ok = ok && loc.symbol && !strcmp(loc.symbol, want) &&
			     loc.sym_offset == resolves[i].off &&
			     loc.sym_addr == resolves[i].bias + sym;
		else
			ok = ok && !loc.symbol;
		if (resolves[i].source) {
			int want = resolves[i].marker ? marker_line(resolves[i].source,
								    resolves[i].marker)
						      : oracle_line(oracle, vaddr);

			ok = ok && loc.line == want && loc.file && loc.file[0] == '/';
		}
		if (!ok)
			fprintf(stderr, "\n%s: at %s+%" PRIu64 " (0x%" PRIx64 "): got %s+%" PRIu64
				" in %s+0x%" PRIx64 " line %s:%d\n",
				resolves[i].what, resolves[i].at,
				resolves[i].off, vaddr, loc.symbol ? loc.symbol : "(none)",
				loc.sym_offset, loc.module, loc.module_offset,
				loc.file ? loc.file : "-", loc.line);
		CU_ASSERT(ok);
		sym_session_free(s);
	}
}

/* Every byte of a few functions: the same line as addr2line says. */
static void test_lines_match_addr2line(void)
{
	static const struct { const char *file; uint64_t bias; const char *fn; } fns[] = {
		{ "prog-pie", PIE_BIAS, "target_global" },
		{ "prog-nopie", 0, "main" },
		{ "libt.so", LIB_BIAS, "lib_far" },
	};

	CU_ASSERT_FATAL(build());
	for (size_t i = 0; i < sizeof(fns) / sizeof(fns[0]); i++) {
		struct sym_session *s = session(NULL);
		const char *file = tpath(fns[i].file);
		uint64_t start = oracle_addr(file, fns[i].fn), size = oracle_size(file, fns[i].fn);
		int bad = 0;

		CU_ASSERT_FATAL(start && size);
		map_file(s, 7, file, fns[i].bias);
		for (uint64_t a = start; a < start + size; a++) {
			struct sym_loc loc;
			int want = oracle_line(file, a);

			sym_resolve(s, 7, fns[i].bias + a, SYM_LINES, &loc);
			if (loc.line != want || !loc.file || !strstr(loc.file, ".c")) {
				if (!bad++)
					fprintf(stderr, "\n%s 0x%" PRIx64
						": line %d, addr2line %d\n",
						fns[i].file, a, loc.line, want);
			}
		}
		CU_ASSERT_EQUAL(bad, 0);
		sym_session_free(s);
	}
}

/*
 * A static executable's .plt: 8-byte entries (no sh_entsize) reaching IFUNC
 * implementations through IRELATIVE slots, which have no symbol; objdump
 * gives them no name.  We name them after the IFUNC symbol at the
 * resolver's address.  Oracle: objdump's jmp targets and readelf's
 * relocations.
 */
static void test_static_irelative_plt(void)
{
	uint64_t plt[2], slot[2], resolver;
	struct sym_session *s;
	struct sym_loc loc, ifunc;
	char cmd[PATH_MAX + 256], want[160];
	const char *file;
	FILE *p;

	CU_ASSERT_FATAL(build());
	file = tpath("prog-static");
	/* "  401018:\tff 25 ..\tjmp    *0xa3fe2(%rip)        # 4a5000 <...>" */
	snprintf(cmd, sizeof(cmd),
		 "objdump -d -j .plt %s | awk '/jmp +\\*/ { a = $1; sub(\":\", \"\", a); "
		 "for (i = 1; i < NF; i++) if ($i == \"#\") print a, $(i + 1) }'", file);
	p = popen(cmd, "r");
	CU_ASSERT_PTR_NOT_NULL_FATAL(p);
	for (int i = 0; i < 2; i++)
		CU_ASSERT_FATAL(fscanf(p, "%" SCNx64 " %" SCNx64, &plt[i], &slot[i]) == 2);
	pclose(p);
	resolver = strtoull(unit_sh_out("readelf -rW %s | awk '$1 == \"%016" PRIx64 "\" && "
				   "/IRELATIVE/ { print $NF }'", file, slot[0]), NULL, 16);
	CU_ASSERT_FATAL(resolver != 0);

	s = session(NULL);
	map_file(s, 12, file, 0);
	sym_resolve(s, 12, resolver, 0, &ifunc);
	CU_ASSERT_FATAL(ifunc.symbol != NULL);
	snprintf(want, sizeof(want), "%s@plt", ifunc.symbol);
	/* the name is one nm gives the resolver's address */
	CU_ASSERT_STRING_EQUAL(unit_sh_out("nm %s | awk '$1 == \"%016" PRIx64 "\" && $3 == \"%s\" "
				      "{ print $3 }'", file, resolver, ifunc.symbol), ifunc.symbol);
	for (uint64_t off = 0; off < plt[1] - plt[0]; off++) {
		sym_resolve(s, 12, plt[0] + off, 0, &loc);
		if (!loc.symbol || strcmp(loc.symbol, want) || loc.sym_offset != off)
			fprintf(stderr, "\nplt 0x%" PRIx64 "+%" PRIu64 ": %s+%" PRIu64
				", want %s\n", plt[0], off, loc.symbol ? loc.symbol : "(none)",
				loc.sym_offset, want);
		CU_ASSERT(loc.symbol && !strcmp(loc.symbol, want) && loc.sym_offset == off);
	}
	/* the next entry starts where objdump's next jump is */
	sym_resolve(s, 12, plt[1], 0, &loc);
	CU_ASSERT(loc.symbol && strcmp(loc.symbol, want) && strstr(loc.symbol, "@plt") &&
		  loc.sym_offset == 0);
	sym_session_free(s);
}

/* ---- address spaces ---- */

enum as_op { AS_MAP, AS_UNMAP_PAGE, AS_FORK, AS_THREAD, AS_EXEC, AS_EXIT, AS_CHECK };

/*
 * A scenario in trace order.  Addresses are "symbol in file at bias";
 * AS_UNMAP_PAGE removes the page holding that address.
 */
static const struct as_step {
	enum as_op op;
	uint32_t pid, ppid;
	const char *file;
	uint64_t bias;
	const char *at;
	enum sym_kind kind;	  /* AS_CHECK */
	const char *want;	  /* AS_CHECK: symbol, NULL: none */
#define MAP(pid, file, bias) { AS_MAP, pid, 0, file, bias, NULL, 0, NULL }
#define UNMAP_PAGE(pid, file, bias, at) { AS_UNMAP_PAGE, pid, 0, file, bias, at, 0, NULL }
#define FORK(pid, ppid) { AS_FORK, pid, ppid, NULL, 0, NULL, 0, NULL }
#define THREAD(pid) { AS_THREAD, pid, pid, NULL, 0, NULL, 0, NULL }
#define EXEC(pid) { AS_EXEC, pid, 0, NULL, 0, NULL, 0, NULL }
#define EXIT(pid) { AS_EXIT, pid, 0, NULL, 0, NULL, 0, NULL }
#define CHECK(pid, file, bias, at, kind, want) { AS_CHECK, pid, 0, file, bias, at, kind, want }
} scenario[] = {
	MAP(10, "libt.so", LIB_BIAS),
	MAP(10, "prog-pie", PIE_BIAS),
	CHECK(10, "libt.so", LIB_BIAS, "lib_api", SYM_KIND_FILE, "lib_api"),
	CHECK(10, "prog-pie", PIE_BIAS, "main", SYM_KIND_FILE, "main"),
	CHECK(11, "prog-pie", PIE_BIAS, "main", SYM_KIND_UNKNOWN, NULL),
	/* fork copies; the child's later changes are its own */
	FORK(11, 10),
	CHECK(11, "libt.so", LIB_BIAS, "lib_far", SYM_KIND_FILE, "lib_far"),
	UNMAP_PAGE(11, "libt.so", LIB_BIAS, "lib_api"),
	CHECK(11, "libt.so", LIB_BIAS, "lib_api", SYM_KIND_UNKNOWN, NULL),
	CHECK(11, "libt.so", LIB_BIAS, "lib_far", SYM_KIND_FILE, "lib_far"),
	CHECK(10, "libt.so", LIB_BIAS, "lib_api", SYM_KIND_FILE, "lib_api"),
	/* a thread adds no address space of its own */
	THREAD(10),
	CHECK(10, "prog-pie", PIE_BIAS, "helper_local", SYM_KIND_FILE, "helper_local"),
	/* exec empties the space; its mmaps refill it */
	EXEC(11),
	CHECK(11, "libt.so", LIB_BIAS, "lib_far", SYM_KIND_UNKNOWN, NULL),
	MAP(11, "asm", 0),
	CHECK(11, "asm", 0, "f_first", SYM_KIND_FILE, "f_first"),
	CHECK(10, "libt.so", LIB_BIAS, "lib_far", SYM_KIND_FILE, "lib_far"),
	/* a new mapping over an old one replaces it */
	MAP(10, "prog-nopie", LIB_BIAS - 0x400000),
	CHECK(10, "prog-nopie", LIB_BIAS - 0x400000, "main", SYM_KIND_FILE, "main"),
	EXIT(11),
	CHECK(10, "prog-pie", PIE_BIAS, "target_global", SYM_KIND_FILE, "target_global"),
};

static void test_address_spaces(void)
{
	struct sym_session *s;

	CU_ASSERT_FATAL(build());
	s = session(NULL);
	for (size_t i = 0; i < sizeof(scenario) / sizeof(scenario[0]); i++) {
		const struct as_step *st = &scenario[i];
		struct trace_task_rec r = { 0 };
		uint64_t addr = 0;
		struct sym_loc loc;

		if (st->at)
			addr = st->bias + oracle_addr(tpath(st->file), st->at);
		r.c.pid = r.c.tid = st->pid;
		switch (st->op) {
		case AS_MAP:
			map_file(s, st->pid, tpath(st->file), st->bias);
			break;
		case AS_UNMAP_PAGE:
			r.type = PT_TASK_MUNMAP;
			r.munmap.start = addr & ~(PAGE - 1);
			r.munmap.len = PAGE;
			sym_task_event(s, &r);
			break;
		case AS_FORK:
		case AS_THREAD:
			r.type = PT_TASK_FORK;
			r.fork.ppid = r.fork.ptid = st->ppid;
			if (st->op == AS_THREAD) {
				r.c.tid = st->pid + 1000;
				r.fork.flags = PT_FORK_THREAD;
			}
			sym_task_event(s, &r);
			break;
		case AS_EXEC:
			r.type = PT_TASK_EXEC;
			r.str = "/bin/true";
			sym_task_event(s, &r);
			break;
		case AS_EXIT:
			r.type = PT_TASK_EXIT;
			sym_task_event(s, &r);
			break;
		case AS_CHECK:
			sym_resolve(s, st->pid, addr, 0, &loc);
			if (loc.kind != st->kind ||
			    (st->want ? !loc.symbol || strcmp(loc.symbol, st->want) : !!loc.symbol))
				fprintf(stderr, "\nstep %zu: pid %u %s: kind %d symbol %s\n",
					i, st->pid, st->at, loc.kind,
					loc.symbol ? loc.symbol : "(none)");
			CU_ASSERT_EQUAL(loc.kind, st->kind);
			if (st->want) {
				CU_ASSERT(loc.symbol && !strcmp(loc.symbol, st->want));
			} else {
				CU_ASSERT_PTR_NULL(loc.symbol);
			}
			if (st->kind == SYM_KIND_UNKNOWN)
				CU_ASSERT_STRING_EQUAL(loc.module, "[unknown]");
			break;
		}
	}
	sym_session_free(s);
}

/* A partial munmap in the middle keeps both ends with the right file offsets. */
static void test_munmap_split(void)
{
	struct sym_session *s;
	struct trace_task_rec r = { .type = PT_TASK_MUNMAP };
	static const struct { uint64_t at; enum sym_kind kind; } probes[] = {
		{ 0x10000, SYM_KIND_FILE },
		{ 0x10fff, SYM_KIND_FILE },
		{ 0x11000, SYM_KIND_UNKNOWN },	/* the hole */
		{ 0x12fff, SYM_KIND_UNKNOWN },
		{ 0x13000, SYM_KIND_FILE },
		{ 0x14fff, SYM_KIND_FILE },
		{ 0x15000, SYM_KIND_UNKNOWN },	/* past the end */
	};

	CU_ASSERT_FATAL(build());
	s = session(NULL);
	/* 5 pages of libt.so at file offset 0 (past its end is fine: offsets only) */
	rec_mmap(s, 3, 0x10000, 0x5000, 0, PROT_READ, tpath("libt.so"));
	r.c.pid = 3;
	r.munmap.start = 0x11000;
	r.munmap.len = 0x2000;
	sym_task_event(s, &r);
	for (size_t i = 0; i < sizeof(probes) / sizeof(probes[0]); i++) {
		struct sym_loc loc;

		sym_resolve(s, 3, probes[i].at, 0, &loc);
		CU_ASSERT_EQUAL(loc.kind, probes[i].kind);
		if (probes[i].kind == SYM_KIND_FILE)
			CU_ASSERT_EQUAL(loc.module_offset, probes[i].at - 0x10000);
	}
	sym_session_free(s);
}

/*
 * Random mmap/munmap sequences against a page model: after every operation
 * each page must resolve to the file mapped there (its module name) at the
 * right file offset, or to [unknown].  The files do not exist, so
 * module_offset is the file offset.  A final pass checks every page.
 */
static void test_address_space_model(void)
{
	enum { NR_PAGES = 48, NR_OPS = 3000 };
	static const char *const paths[] = { "/nonexistent/m0", "/nonexistent/m1",
					     "/nonexistent/m2" };
	struct { int file; uint64_t off; } model[NR_PAGES];
	const uint64_t base = 0x40000000;
	struct sym_session *s = session(NULL);
	unsigned seed = 12345;
	int bad = 0;

	for (int p = 0; p < NR_PAGES; p++)
		model[p].file = -1;
	for (int op = 0; op < NR_OPS && !bad; op++) {
		int first = rand_r(&seed) % NR_PAGES;
		int n = 1 + rand_r(&seed) % (NR_PAGES - first < 12 ? NR_PAGES - first : 12);
		struct trace_task_rec r = { 0 };

		r.c.pid = 4;
		if (rand_r(&seed) % 3) {
			int file = rand_r(&seed) % 3;
			uint64_t pgoff = (uint64_t)(rand_r(&seed) % 16) * PAGE;

			rec_mmap(s, 4, base + first * PAGE, n * PAGE, pgoff, PROT_READ | PROT_EXEC,
				 paths[file]);
			for (int p = first; p < first + n; p++) {
				model[p].file = file;
				model[p].off = pgoff + (p - first) * PAGE;
			}
		} else {
			r.type = PT_TASK_MUNMAP;
			r.munmap.start = base + first * PAGE;
			r.munmap.len = n * PAGE;
			sym_task_event(s, &r);
			for (int p = first; p < first + n; p++)
				model[p].file = -1;
		}
		/* A few pages each time: ranges are often cut before their first
		 * lookup (a lookup caches the bias, which hides wrong offsets). */
		for (int p = op % 7; p < NR_PAGES; p += 7) {
			struct sym_loc loc;
			uint64_t in = (op * 97 + p * 13) % PAGE;

			sym_resolve(s, 4, base + p * PAGE + in, 0, &loc);
			if (model[p].file < 0 ? loc.kind == SYM_KIND_UNKNOWN
					      : loc.kind == SYM_KIND_FILE &&
						!strcmp(loc.module, paths[model[p].file] + 13) &&
						loc.module_offset == model[p].off + in)
				continue;
			fprintf(stderr, "\nop %d page %d: %s+0x%" PRIx64 ", model m%d+0x%" PRIx64
				"\n", op, p, loc.module, loc.module_offset, model[p].file,
				model[p].off + in);
			bad++;
			break;
		}
	}
	for (int p = 0; p < NR_PAGES && !bad; p++) {
		struct sym_loc loc;

		sym_resolve(s, 4, base + p * PAGE, 0, &loc);
		bad += model[p].file < 0 ? loc.kind != SYM_KIND_UNKNOWN
					 : loc.kind != SYM_KIND_FILE ||
						   loc.module_offset != model[p].off;
	}
	CU_ASSERT_EQUAL(bad, 0);
	sym_session_free(s);
}

/* EXIT records of n processes from pid first on, each with a mapping. */
static void exit_processes(struct sym_session *s, uint32_t first, uint32_t n)
{
	struct trace_task_rec ex = { .type = PT_TASK_EXIT };

	for (uint32_t pid = first; pid < first + n; pid++) {
		rec_mmap(s, pid, 0x10000, 0x1000, 0, PROT_READ | PROT_EXEC, "/nonexistent/lib.so");
		ex.c.pid = ex.c.tid = pid;
		sym_task_event(s, &ex);
	}
}

static enum sym_kind kind_at(struct sym_session *s, uint32_t pid)
{
	struct sym_loc loc;

	sym_resolve(s, pid, 0x10010, 0, &loc);
	return loc.kind;
}

/*
 * An exited process keeps its space for a while (records of other tasks may
 * still be ordered before steps nobody takes), and is freed once 1024 more
 * processes have exited: the memory of a trace of many short processes
 * stays bounded.  A process has exited when its leader and every thread
 * FORK records created have; a thread's exit alone frees nothing.
 */
static void test_exited_processes(void)
{
	struct sym_session *s = session(NULL);
	struct trace_task_rec ex = { .type = PT_TASK_EXIT };
	struct trace_task_rec th = { .type = PT_TASK_FORK };

	/* 500: a thread without a FORK record exits, then the leader */
	rec_mmap(s, 500, 0x10000, 0x1000, 0, PROT_READ | PROT_EXEC, "/nonexistent/lib.so");
	ex.c.pid = 500;
	ex.c.tid = 501;
	sym_task_event(s, &ex);
	ex.c.tid = 500;
	sym_task_event(s, &ex);
	CU_ASSERT_EQUAL(kind_at(s, 500), SYM_KIND_FILE);
	/* 600: the leader exits (pthread_exit) while thread 601 runs on */
	rec_mmap(s, 600, 0x10000, 0x1000, 0, PROT_READ | PROT_EXEC, "/nonexistent/lib.so");
	th.c.pid = 600;
	th.c.tid = 601;
	th.fork.ppid = 600;
	th.fork.ptid = 600;
	th.fork.flags = PT_FORK_THREAD;
	sym_task_event(s, &th);
	ex.c.pid = ex.c.tid = 600;
	sym_task_event(s, &ex);

	exit_processes(s, 1000, 1023);
	CU_ASSERT_EQUAL(kind_at(s, 500), SYM_KIND_FILE);	/* 1023 exits later: kept */
	exit_processes(s, 2023, 1);
	CU_ASSERT_EQUAL(kind_at(s, 500), SYM_KIND_UNKNOWN);	/* 1024 exits later: freed */
	CU_ASSERT_EQUAL(kind_at(s, 2023), SYM_KIND_FILE);
	CU_ASSERT_EQUAL(kind_at(s, 600), SYM_KIND_FILE);	/* 601 still runs */

	ex.c.tid = 601;
	sym_task_event(s, &ex);
	exit_processes(s, 3000, 1023);
	CU_ASSERT_EQUAL(kind_at(s, 600), SYM_KIND_FILE);
	exit_processes(s, 4023, 1);
	CU_ASSERT_EQUAL(kind_at(s, 600), SYM_KIND_UNKNOWN);
	sym_session_free(s);
}

/* ---- special mappings ---- */

/* The process's own vdso, saved as the recorder does, named by the image's own symbols. */
static void test_vdso(void)
{
	uint64_t base = getauxval(AT_SYSINFO_EHDR), start = 0, end = 0, vaddr;
	char line[512];
	struct sym_session *s;
	struct sym_loc loc;
	const char *name;
	FILE *maps, *out;

	CU_ASSERT_FATAL(build());
	if (!base) {
		fprintf(stderr, "\nno vdso in this process: vdso case not run\n");
		return;
	}
	maps = fopen("/proc/self/maps", "r");
	CU_ASSERT_PTR_NOT_NULL_FATAL(maps);
	while (fgets(line, sizeof(line), maps))
		if (strstr(line, "[vdso]"))
			sscanf(line, "%" SCNx64 "-%" SCNx64, &start, &end);
	fclose(maps);
	CU_ASSERT_FATAL(start == base && end > start);
	out = fopen(tpath("vdso"), "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(out);
	fwrite((void *)(uintptr_t)start, 1, end - start, out);
	fclose(out);

	/*
	 * The address of the global clock_gettime implementation (objdump -T),
	 * and the name the alias rule gives it: among the dynamic symbols there,
	 * the one with the fewest leading underscores (clock_gettime, weak,
	 * over __vdso_clock_gettime, global).
	 */
	name = unit_sh_out("objdump -T %s | awk '$2 == \"g\" && /clock_gettime/ { print $1 }' | head -1",
		      tpath("vdso"));
	CU_ASSERT_FATAL(name[0] != 0);
	vaddr = strtoull(name, NULL, 16);
	char want[128];
	snprintf(want, sizeof(want), "%s",
		 unit_sh_out("objdump -T %s | awk '$1 == \"%016" PRIx64 "\" { n = $NF; "
			"match(n, /^_*/); print RLENGTH, n }' | sort -k1,1n -k2 | head -1 | "
			"cut -d' ' -f2", tpath("vdso"), vaddr));
	CU_ASSERT_FATAL(want[0] != 0);
	s = session(NULL);
	rec_mmap(s, 5, start, end - start, 0, PROT_READ | PROT_EXEC, "[vdso]");
	sym_resolve(s, 5, start + vaddr + 3, 0, &loc);
	CU_ASSERT_EQUAL(loc.kind, SYM_KIND_VDSO);
	CU_ASSERT_STRING_EQUAL(loc.module, "[vdso]");
	CU_ASSERT(loc.symbol && !strcmp(loc.symbol, want));
	CU_ASSERT_EQUAL(loc.sym_offset, 3);
	/* and its code bytes come from the saved image */
	uint8_t code[16];
	CU_ASSERT_EQUAL(sym_read_code(s, 5, start + vaddr, code, sizeof(code)), sizeof(code));
	CU_ASSERT(!memcmp(code, (void *)(uintptr_t)(start + vaddr), sizeof(code)));
	sym_session_free(s);
}

static const struct {
	const char *what;
	const char *path;	  /* mapped path; NULL: nothing mapped */
	uint64_t probe;		  /* offset into the mapping */
	enum sym_kind kind;
	const char *module;
	uint64_t module_offset;
} specials[] = {
	{ "anonymous executable memory", "[anon]", 0x10, SYM_KIND_ANON, "[anon]", 0x600010 },
	{ "heap", "[heap]", 0x20, SYM_KIND_ANON, "[anon]", 0x600020 },
	{ "nameless mapping", "", 0x30, SYM_KIND_ANON, "[anon]", 0x600030 },
	{ "anonymous inode", "anon_inode:[perf_event]", 0x30, SYM_KIND_ANON, "[anon]", 0x600030 },
	{ "memfd (JIT code)", "/memfd:jit (deleted)", 0x30, SYM_KIND_ANON, "[anon]", 0x600030 },
	{ "deleted file: module + file offset", "/nonexistent/libgone.so (deleted)", 0x40,
	  SYM_KIND_FILE, "libgone.so", 0x2040 },
	{ "nothing mapped", NULL, 0x50, SYM_KIND_UNKNOWN, "[unknown]", 0x600050 },
};

static void test_special_mappings(void)
{
	CU_ASSERT_FATAL(build());
	for (size_t i = 0; i < sizeof(specials) / sizeof(specials[0]); i++) {
		struct sym_session *s = session(NULL);
		struct sym_loc loc;

		if (specials[i].path)
			rec_mmap(s, 9, 0x600000, 0x1000, 0x2000, PROT_READ | PROT_EXEC,
				 specials[i].path);
		sym_resolve(s, 9, 0x600000 + specials[i].probe, SYM_LINES, &loc);
		CU_ASSERT_EQUAL(loc.kind, specials[i].kind);
		CU_ASSERT_STRING_EQUAL(loc.module, specials[i].module);
		CU_ASSERT_EQUAL(loc.module_offset, specials[i].module_offset);
		CU_ASSERT_PTR_NULL(loc.symbol);
		CU_ASSERT_PTR_NULL(loc.file);
		CU_ASSERT_EQUAL(sym_read_code(s, 9, 0x600000 + specials[i].probe, (uint8_t[4]){ 0 },
					      4), 0);
		sym_session_free(s);
	}
}

/* ---- kernel ---- */

static const char kallsyms[] =
	"ffffffff81000000 T _stext\n"
	"ffffffff81000000 T _text\n"
	"ffffffff81000040 T __ia32_sys_getpid\n"
	"ffffffff81000040 t __do_sys_getpid\n"
	"ffffffff81000040 T __x64_sys_getpid\n"
	"ffffffff81000100 t local_helper\n"
	"ffffffff81000200 T do_work\n"
	"ffffffff81000200 t __do_work_alias\n"
	"ffffffff81000300 D some_data\n"
	"ffffffff81000400 W weak_fn\n"
	"ffffffff81000480 T __indirect_thunk_start\n"
	"ffffffff81000480 T __x86_indirect_thunk_rax\n"
	"ffffffff81000500 T _etext\n"
	"ffffffffc0001000 t mod_init\t[mymod]\n"
	"ffffffffc0001080 T mod_entry\t[mymod]\n"
	"ffffffffc0009000 t other_fn\t[othermod]\n";

static const char modules[] =
	"mymod 16384 0 - Live 0xffffffffc0001000\n"
	"othermod 8192 0 - Live 0xffffffffc0009000 (O)\n";

static const struct {
	uint64_t addr;
	enum sym_kind kind;
	const char *module;
	const char *symbol;
	uint64_t sym_offset, module_offset;
} kernel_cases[] = {
	{ 0xffffffff81000010, SYM_KIND_KERNEL, "[kernel]", "_stext", 0x10, 0xffffffff81000010 },
	{ 0xffffffff810001ff, SYM_KIND_KERNEL, "[kernel]", "local_helper", 0xff,
	  0xffffffff810001ff },
	{ 0xffffffff81000204, SYM_KIND_KERNEL, "[kernel]", "do_work", 4, 0xffffffff81000204 },
	/* data symbols are not functions: do_work runs on to the next function */
	{ 0xffffffff81000310, SYM_KIND_KERNEL, "[kernel]", "do_work", 0x110, 0xffffffff81000310 },
	{ 0xffffffff81000401, SYM_KIND_KERNEL, "[kernel]", "weak_fn", 1, 0xffffffff81000401 },
	/* aliases: the native syscall entry name; a function over a section marker */
	{ 0xffffffff81000044, SYM_KIND_KERNEL, "[kernel]", "__x64_sys_getpid", 4,
	  0xffffffff81000044 },
	{ 0xffffffff81000482, SYM_KIND_KERNEL, "[kernel]", "__x86_indirect_thunk_rax", 2,
	  0xffffffff81000482 },
	{ 0xffffffffc0001084, SYM_KIND_KERNEL, "mymod", "mod_entry", 4, 0x84 },
	{ 0xffffffffc0004fff, SYM_KIND_KERNEL, "mymod", "mod_entry", 0x3f7f, 0x3fff },
	/* between modules (mymod ends at c0005000): kernel, but no function */
	{ 0xffffffffc0006000, SYM_KIND_KERNEL, "[kernel]", NULL, 0, 0xffffffffc0006000 },
	{ 0xffffffffc0009010, SYM_KIND_KERNEL, "othermod", "other_fn", 0x10, 0x10 },
	/* past the end of the last module */
	{ 0xffffffffc000b000, SYM_KIND_KERNEL, "[kernel]", NULL, 0, 0xffffffffc000b000 },
	/* below the lowest kernel text: nothing known */
	{ 0xffffffff80000000, SYM_KIND_UNKNOWN, "[unknown]", NULL, 0, 0xffffffff80000000 },
	/* user addresses never resolve in the kernel */
	{ 0x401000, SYM_KIND_UNKNOWN, "[unknown]", NULL, 0, 0x401000 },
};

static void test_kernel_symbols(void)
{
	struct sym_options o = { .vmlinux = "/nonexistent" };
	struct sym_session *s;
	char kdir[PATH_MAX];

	CU_ASSERT_FATAL(build());
	snprintf(kdir, sizeof(kdir), "%s/ktrace", dir);
	mkdir(kdir, 0755);
	o.trace_dir = kdir;
	snprintf(kdir + strlen(kdir), sizeof(kdir) - strlen(kdir), "/kallsyms");
	write_file(kdir, kallsyms);
	strcpy(strrchr(kdir, '/'), "/modules");
	write_file(kdir, modules);
	*strrchr(kdir, '/') = 0;

	s = sym_session_new(&o);
	for (size_t i = 0; i < sizeof(kernel_cases) / sizeof(kernel_cases[0]); i++) {
		const char *want = kernel_cases[i].symbol;
		struct sym_loc loc;

		sym_resolve(s, 1, kernel_cases[i].addr, SYM_LINES, &loc);
		if (loc.kind != kernel_cases[i].kind ||
		    strcmp(loc.module, kernel_cases[i].module) ||
		    (want ? !loc.symbol || strcmp(loc.symbol, want) : !!loc.symbol))
			fprintf(stderr, "\nkernel 0x%" PRIx64 ": %d %s %s\n", kernel_cases[i].addr,
				loc.kind, loc.module, loc.symbol ? loc.symbol : "(none)");
		CU_ASSERT_EQUAL(loc.kind, kernel_cases[i].kind);
		CU_ASSERT_STRING_EQUAL(loc.module, kernel_cases[i].module);
		if (want) {
			CU_ASSERT(loc.symbol && !strcmp(loc.symbol, want));
			CU_ASSERT_EQUAL(loc.sym_offset, kernel_cases[i].sym_offset);
		} else {
			CU_ASSERT_PTR_NULL(loc.symbol);
		}
		CU_ASSERT_EQUAL(loc.module_offset, kernel_cases[i].module_offset);
	}
	sym_session_free(s);
}

/*
 * A vmlinux with DWARF: a small freestanding program linked at the kernel's
 * address, and a kallsyms made from its symbols moved by a KASLR slide.
 * Lines must be addr2line's at the unslid address; a vmlinux whose symbols
 * do not match is not used.
 */
static void test_kernel_vmlinux(void)
{
	static const char *const fns[] = { "kfunc_a", "kfunc_b", "kfunc_c" };
	const uint64_t slide = 0x3400000;
	char kdir[PATH_MAX], ks[4096] = "";
	struct sym_options o = { 0 };
	struct sym_session *s;
	uint64_t addr[3];

	CU_ASSERT_FATAL(build());
	snprintf(kdir, sizeof(kdir), "%s/kvm", dir);
	mkdir(kdir, 0755);
	for (int i = 0; i < 3; i++) {
		addr[i] = oracle_addr(tpath("kern"), fns[i]);
		CU_ASSERT_FATAL(addr[i] >= 0xffffffff81000000ull);
		snprintf(ks + strlen(ks), sizeof(ks) - strlen(ks), "%016" PRIx64 " T %s\n",
			 addr[i] + slide, fns[i]);
	}
	write_file(tpath("kvm/kallsyms"), ks);
	o.trace_dir = kdir;
	for (int matching = 1; matching >= 0; matching--) {
		o.vmlinux = tpath(matching ? "kern" : "prog-nopie");
		s = sym_session_new(&o);
		for (int i = 0; i < 3; i++) {
			for (uint64_t off = 0; off < 12; off += 3) {
				struct sym_loc loc;
				uint8_t code[8];
				size_t n;

				sym_resolve(s, 1, addr[i] + slide + off, SYM_LINES, &loc);
				CU_ASSERT_EQUAL(loc.kind, SYM_KIND_KERNEL);
				CU_ASSERT(loc.symbol && !strcmp(loc.symbol, fns[i]) &&
					  loc.sym_offset == off);
				CU_ASSERT_STRING_EQUAL(loc.module, "[kernel]");
				n = sym_read_code(s, 1, addr[i] + slide + off, code, sizeof(code));
				if (matching) {
					CU_ASSERT_EQUAL(loc.line,
							oracle_line(tpath("kern"), addr[i] + off));
					CU_ASSERT_EQUAL(loc.module_offset, addr[i] + off);
					CU_ASSERT_EQUAL(n, sizeof(code));
					CU_ASSERT_STRING_EQUAL(
						to_hex(code, n),
						objdump_bytes(tpath("kern"), addr[i] + off, 8));
				} else {
					CU_ASSERT_EQUAL(loc.line, 0);
					CU_ASSERT_PTR_NULL(loc.file);
					CU_ASSERT_EQUAL(n, 0);
				}
			}
		}
		sym_session_free(s);
	}
}

/* ---- standalone functions for the recorder ---- */

static const struct {
	const char *file;
	const char *name;
	int ret;
	const char *nm_name;	  /* the name nm shows for the expected symbol, NULL: name */
} lookups[] = {
	{ "prog-pie", "target_global", 1, NULL },
	{ "prog-pie", "helper_local", 1, NULL },
	{ "prog-nopie", "main", 1, NULL },
	{ "prog-pie", "puts@plt", 1, NULL },
	{ "libt.so", "lib_far", 1, NULL },
	{ "asm", "f_first", 1, NULL },
	{ "asm", "alias_weak", 1, NULL },	  /* an alias is found by its own name */
	{ "libver.so", "vfunc", 1, "vfunc@@V2" }, /* the current version, not the first */
	{ "prog-pie", "no_such_function", 0, NULL },
	{ "prog.c", "main", -1, NULL },	  /* not ELF */
	{ "does-not-exist", "main", -1, NULL },
};

static void test_lookup_in_file(void)
{
	CU_ASSERT_FATAL(build());
	for (size_t i = 0; i < sizeof(lookups) / sizeof(lookups[0]); i++) {
		uint64_t vaddr = 0, size = 0;
		const char *file = tpath(lookups[i].file);
		int ret = sym_lookup_in_file(file, lookups[i].name, &vaddr, &size);
		const char *nm_name;

		if (ret != lookups[i].ret)
			fprintf(stderr, "\nlookup %s in %s: %d\n", lookups[i].name,
				lookups[i].file, ret);
		CU_ASSERT_EQUAL(ret, lookups[i].ret);
		if (ret != 1)
			continue;
		nm_name = lookups[i].nm_name ? lookups[i].nm_name : lookups[i].name;
		CU_ASSERT_EQUAL(vaddr, oracle_addr(file, nm_name));
		if (!strstr(nm_name, "@plt") && oracle_size(file, nm_name))
			CU_ASSERT_EQUAL(size, oracle_size(file, nm_name));
		CU_ASSERT(size > 0);
	}
}

/* ---- main of a stripped program, from its entry code ---- */

static const char main_src[] =
	"#include <stdio.h>\n"
	"#include <stdlib.h>\n"
	"static __attribute__((noinline)) int twice(int x)\n"
	"{\n"
	"\treturn 2 * x + (int)(random() & 1);\n"
	"}\n"
	"int main(int argc, char **argv)\n"
	"{\n"
	"\tprintf(\"%d %s\\n\", twice(argc), argv[0]);\n"
	"\treturn 0;\n"
	"}\n";

#define PPC "powerpc64le-linux-gnu-"
#define A64 "aarch64-linux-gnu-"

static const struct {
	const char *what;
	const char *arch;	  /* the file's (arch_select) */
	const char *tools;	  /* prefix of its binutils: "", PPC or A64 */
	const char *cc;		  /* compiler and flags */
	bool whole;		  /* main has its own FDE: its size is the symbol's too */
} mains[] = {
	/* what, arch, binutils prefix, compiler and flags, FDE of its own */
	{ "gcc, PIE", "x86_64", "", "gcc -O2 -fPIE -pie", true },
	{ "gcc, fixed address", "x86_64", "", "gcc -O2 -fno-pie -no-pie", true },
	{ "gcc, static", "x86_64", "", "gcc -O2 -static", true },
	{ "clang, PIE", "x86_64", "", "clang -O2 -fPIE -pie", true },
	{ "clang, fixed address", "x86_64", "", "clang -O2 -fno-pie -no-pie", true },
	{ "gcc, no unwind tables: main to the next FDE", "x86_64", "",
	  "gcc -O2 -fno-asynchronous-unwind-tables -fno-unwind-tables", false },
	{ "ppc64le gcc, PIE", "ppc64le", PPC, PPC "gcc -O2 -fPIE -pie", true },
	{ "ppc64le gcc, fixed address", "ppc64le", PPC, PPC "gcc -O2 -fno-pie -no-pie", true },
	{ "ppc64le gcc, static", "ppc64le", PPC, PPC "gcc -O2 -static", true },
	/* lld leaves a relocated word 0 in the file: main is the relocation's addend. */
	{ "ppc64le clang and lld, PIE", "ppc64le", PPC,
	  "clang --target=powerpc64le-linux-gnu -O2 -fPIE -pie -fuse-ld=lld", true },
	{ "aarch64 gcc, PIE", "aarch64", A64, A64 "gcc -O2 -fPIE -pie", true },
	{ "aarch64 gcc, fixed address", "aarch64", A64, A64 "gcc -O2 -fno-pie -no-pie", true },
	{ "aarch64 gcc, static", "aarch64", A64, A64 "gcc -O2 -static", true },
	{ "aarch64 gcc, branch protection", "aarch64", A64,
	  A64 "gcc -O2 -mbranch-protection=standard", true },
};

/* Whether the compiler of a row of mains[] (its first word) is here. */
static bool have_compiler(const char *cc)
{
	return unit_sh_out("command -v %.*s", (int)strcspn(cc, " "), cc)[0] != 0;
}

/*
 * Stripped, a program keeps no symbol of main: it is found where _start
 * passes it to __libc_start_main, at the address the unstripped copy's
 * symbol says, for each architecture's file on any host.
 */
static void test_stripped_main(void)
{
	char sub[PATH_MAX];

	snprintf(sub, sizeof(sub), "%s/main", unit_tmpdir());
	mkdir(sub, 0755);
	snprintf(sub + strlen(sub), sizeof(sub) - strlen(sub), "/main.c");
	write_file(sub, main_src);
	*strrchr(sub, '/') = 0;
	for (size_t i = 0; i < sizeof(mains) / sizeof(mains[0]); i++) {
		char prog[PATH_MAX], stripped[PATH_MAX];
		uint64_t vaddr = 0, size = 0, want, want_size;
		int ret;

		if (!have_compiler(mains[i].cc)) {
			fprintf(stderr, "\n  SKIP: %s: no %.*s here\n", mains[i].what,
				(int)strcspn(mains[i].cc, " "), mains[i].cc);
			continue;
		}
		snprintf(prog, sizeof(prog), "%s/prog%zu", sub, i);
		snprintf(stripped, sizeof(stripped), "%s/prog%zu-stripped", sub, i);
		CU_ASSERT_EQUAL_FATAL(sh("cd %s && %s -o %s main.c && %sstrip -o %s %s", sub,
					 mains[i].cc, prog, mains[i].tools, stripped, prog), 0);
		want = oracle_addr(prog, "main");
		want_size = oracle_size(prog, "main");
		CU_ASSERT_EQUAL_FATAL(arch_select(mains[i].arch), 0);
		CU_ASSERT_EQUAL(sym_lookup_in_file(prog, "main", &vaddr, &size), 1);
		CU_ASSERT_EQUAL(vaddr, want);
		vaddr = size = 0;
		ret = sym_lookup_in_file(stripped, "main", &vaddr, &size);
		arch_select(arch_native_name());
		if (ret != 1 || vaddr != want || (mains[i].whole && size != want_size))
			fprintf(stderr, "\n%s: main of the stripped copy: %d, 0x%" PRIx64 " size %"
				PRIu64 "; its symbol: 0x%" PRIx64 " size %" PRIu64 "\n",
				mains[i].what, ret, vaddr, size, want, want_size);
		CU_ASSERT_EQUAL(ret, 1);
		CU_ASSERT(want && vaddr == want);
		CU_ASSERT(!mains[i].whole || size == want_size);
		CU_ASSERT(size > 0);
	}
}

/*
 * No main where there is none: a shared library, and the C library, which
 * has an entry (it prints its version) and names an interpreter, as a PIE
 * does.
 */
static void test_no_main_in_libraries(void)
{
	char libc[PATH_MAX];
	uint64_t vaddr, size;

	CU_ASSERT_FATAL(build());
	CU_ASSERT_EQUAL(sym_lookup_in_file(tpath("libt-stripped.so"), "main", &vaddr, &size), 0);
	snprintf(libc, sizeof(libc), "%s", unit_sh_out("cc -print-file-name=libc.so.6"));
	if (libc[0] != '/' || access(libc, R_OK)) {
		fprintf(stderr, "\n  SKIP: the C library: cc does not say where libc.so.6 is\n");
		return;
	}
	CU_ASSERT_NOT_EQUAL(unit_sh_out("readelf -lW %s | grep -c INTERP", libc)[0], '0');
	CU_ASSERT_EQUAL(sym_lookup_in_file(libc, "main", &vaddr, &size), 0);
}

static void test_file_build_id(void)
{
	static const char *const files[] = { "prog-pie", "prog-nopie", "libt.so", "asm", "prog.c" };

	CU_ASSERT_FATAL(build());
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		uint8_t id[PT_BUILD_ID_MAX];
		char hex[2 * PT_BUILD_ID_MAX + 1] = "";
		size_t len = sym_file_build_id(tpath(files[i]), id, sizeof(id));

		for (size_t k = 0; k < len; k++)
			sprintf(hex + 2 * k, "%02x", id[k]);
		/* readelf prints nothing for asm (--build-id=none) and prog.c */
		CU_ASSERT_STRING_EQUAL(hex, build_id_hex(tpath(files[i])));
	}
}

/* Code bytes at a process address are the file's, as objdump shows them. */
static void test_read_code(void)
{
	struct sym_session *s;
	uint64_t at;
	uint8_t code[64];
	size_t n;

	CU_ASSERT_FATAL(build());
	s = session(NULL);
	map_file(s, 8, tpath("prog-pie"), PIE_BIAS);
	at = oracle_addr(tpath("prog-pie"), "target_global");
	n = sym_read_code(s, 8, PIE_BIAS + at, code, 8);
	CU_ASSERT_EQUAL(n, 8);
	CU_ASSERT_STRING_EQUAL(to_hex(code, n), objdump_bytes(tpath("prog-pie"), at, 8));
	/* Reads stop at the end of the mapping. */
	rec_mmap(s, 8, 0x700000, 0x1000, 0, PROT_READ | PROT_EXEC, tpath("asm"));
	CU_ASSERT(sym_read_code(s, 8, 0x700ff0, code, sizeof(code)) <= 0x10);
	sym_session_free(s);
}

/* ---- files not at their traced path ---- */

static const struct {
	const char *what;
	const char *path;	  /* as the trace recorded it: below dir, or absolute ("/...") */
	bool id;		  /* the mapping recorded prog-pie's build-id */
	const char *symfs;	  /* below dir, NULL: none */
	const char *buildid_dir;  /* below dir, NULL: none */
	const char *debug;	  /* debug_dir below dir, NULL: an empty one */
	bool named;		  /* helper_local is named, with its line */
	bool code;		  /* code bytes come from a file of the traced build */
} finds[] = {
	/* what, traced path, build-id recorded, symfs, build-id dir, debug dir, named, code */
	{ "at its path", "prog-pie", true, NULL, NULL, NULL, true, true },
	{ "gone: by build-id in a build-id cache", "/nonexistent/prog-pie", true, NULL, "cache",
	  NULL, true, true },
	{ "gone, in no cache: nothing", "/nonexistent/prog-pie", true, NULL, NULL, NULL, false,
	  false },
	{ "gone, no build-id recorded: nothing", "/nonexistent/prog-pie", false, NULL, "cache",
	  NULL, false, false },
	{ "replaced: refused, the cache's file of the traced build", "badlink/other", true, NULL,
	  "cache", NULL, true, true },
	{ "replaced: refused, its debuginfo stands in (no code)", "badlink/other", true, NULL,
	  NULL, "dbg", true, false },
	{ "replaced: refused, nothing of its build", "badlink/other", true, NULL, NULL, NULL,
	  false, false },
	{ "stripped: debuginfo in a build-id cache", "prog-stripped", true, NULL, "cachedbg",
	  NULL, true, true },
	{ "symfs: the traced path under the prefix", "/usr/bin/prog-pie", true, "root", NULL,
	  NULL, true, true },
	{ "symfs: not at the plain path", "/usr/bin/prog-pie", true, NULL, NULL, NULL, false,
	  false },
	{ "symfs: debuginfo under the prefix's /usr/lib/debug", "/usr/bin/prog-stripped", true,
	  "root", NULL, NULL, true, true },
};

static void test_files_elsewhere(void)
{
	char bid[128];
	uint64_t at;

	CU_ASSERT_FATAL(build());
	snprintf(bid, sizeof(bid), "%s", build_id_hex(tpath("prog-pie")));
	at = oracle_addr(tpath("prog-pie"), "helper_local");
	CU_ASSERT_FATAL(at != 0);
	for (size_t i = 0; i < sizeof(finds) / sizeof(finds[0]); i++) {
		char path[PATH_MAX], symfs[PATH_MAX], bdir[PATH_MAX];
		struct sym_options o = {
			.trace_dir = dir, .vmlinux = "/nonexistent",
			.debug_dir = tpath(finds[i].debug ? finds[i].debug : "empty"),
		};
		struct sym_session *s;
		struct sym_loc loc;
		uint8_t code[8];
		size_t n;
		bool ok;

		snprintf(path, sizeof(path), "%s", finds[i].path[0] == '/' ? finds[i].path
									    : tpath(finds[i].path));
		snprintf(symfs, sizeof(symfs), "%s", finds[i].symfs ? tpath(finds[i].symfs) : "");
		snprintf(bdir, sizeof(bdir), "%s",
			 finds[i].buildid_dir ? tpath(finds[i].buildid_dir) : "");
		o.sysroot = finds[i].symfs ? symfs : NULL;
		o.buildid_dir = finds[i].buildid_dir ? bdir : NULL;
		s = sym_session_new(&o);
		CU_ASSERT_FATAL(s != NULL);
		/* the traced build's layout, whatever file is at the path now */
		map_file_as(s, 9, tpath("prog-pie"), PIE_BIAS, path, finds[i].id ? bid : NULL);
		sym_resolve(s, 9, PIE_BIAS + at, SYM_LINES, &loc);
		n = sym_read_code(s, 9, PIE_BIAS + at, code, sizeof(code));
		ok = loc.kind == SYM_KIND_FILE && loc.module_offset == at &&
		     !strcmp(loc.module_path, path);
		if (finds[i].named)
			ok = ok && loc.symbol && !strcmp(loc.symbol, "helper_local") &&
			     loc.line == marker_line(prog_src, "helper_local");
		else
			ok = ok && !loc.symbol && !loc.line;
		if (finds[i].code)
			ok = ok && n == sizeof(code) &&
			     !strcmp(to_hex(code, n), objdump_bytes(tpath("prog-pie"), at, n));
		else
			ok = ok && n == 0;
		if (!ok)
			fprintf(stderr, "\n%s: got %s line %d in %s, %zu code bytes\n",
				finds[i].what, loc.symbol ? loc.symbol : "(none)", loc.line,
				loc.module_path, n);
		CU_ASSERT(ok);
		sym_session_free(s);
	}
}

/* ---- cost ---- */

/* CPU time of this process: the figure holds up while other jobs share the machine. */
static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Figures, not a pass/fail: resolves per second over a hot set of addresses. */
static void test_resolve_cost(void)
{
	static const struct { const char *file, *fn; uint64_t bias; } hot[] = {
		{ "prog-pie", "main", PIE_BIAS }, { "prog-pie", "target_global", PIE_BIAS },
		{ "prog-pie", "helper_local", PIE_BIAS }, { "prog-pie", "puts@plt", PIE_BIAS },
		{ "libt.so", "lib_api", LIB_BIAS }, { "libt.so", "lib_far", LIB_BIAS },
		{ "libt.so", "lib_static", LIB_BIAS },
	};
	uint64_t addrs[64];
	struct sym_session *s;

	CU_ASSERT_FATAL(build());
	s = session(NULL);
	map_file(s, 77, tpath("prog-pie"), PIE_BIAS);
	map_file(s, 77, tpath("libt.so"), LIB_BIAS);
	for (size_t i = 0; i < 64; i++) {
		size_t h = i % (sizeof(hot) / sizeof(hot[0]));

		addrs[i] = hot[h].bias + oracle_addr(tpath(hot[h].file), hot[h].fn) + i / 8;
	}
	for (int lines = 0; lines < 2; lines++) {
		const size_t n = lines ? 1000000 : 10000000;
		size_t named = 0;
		double t0 = now_s(), dt;

		for (size_t i = 0; i < n; i++) {
			struct sym_loc loc;

			/* runs of 4 like straight-line code, then a jump elsewhere */
			sym_resolve(s, 77, addrs[(i / 4 * 7 + i % 4) & 63], lines ? SYM_LINES : 0,
				    &loc);
			named += loc.symbol != NULL;
		}
		dt = now_s() - t0;
		CU_ASSERT_EQUAL(named, n);
		printf("\n    resolve cost%s: %.1f M resolves per CPU second (%zu in %.3f s, "
		       "64 hot addresses)",
		       lines ? " with SYM_LINES" : "", n / dt / 1e6, n, dt);
	}
	sym_session_free(s);
}

/*
 * The kernel's build-id from a bare note area (/sys/kernel/notes): notes
 * built here field by field, padded as the ELF spec says.
 */
struct note_spec {
	const char *name;	  /* NULL: no note */
	uint32_t type;
	uint32_t desc_len;
};

static size_t put_note(uint8_t *buf, const struct note_spec *n, uint8_t fill)
{
	uint32_t hdr[3] = { (uint32_t)strlen(n->name) + 1, n->desc_len, n->type };
	size_t off = sizeof(hdr);

	memcpy(buf, hdr, sizeof(hdr));
	memcpy(buf + off, n->name, hdr[0]);
	off += (hdr[0] + 3) & ~3u;
	for (uint32_t i = 0; i < n->desc_len; i++)
		buf[off + i] = (uint8_t)(fill + i);
	return off + ((n->desc_len + 3) & ~3u);
}

static const struct {
	const char *what;
	struct note_spec notes[3];
	int cut;		  /* bytes cut off the end */
	size_t want;		  /* build-id length found; its bytes are 0x40 + i */
} notes_cases[] = {
	{ "one GNU build-id note", { { "GNU", 3, 20 } }, 0, 20 },
	{ "after Xen and Linux notes",
	  { { "Xen", 6, 4 }, { "Linux", 0x100, 30 }, { "GNU", 3, 20 } }, 0, 20 },
	{ "a short build-id, padded", { { "GNU", 3, 6 } }, 0, 6 },
	{ "another GNU note type", { { "GNU", 1, 16 } }, 0, 0 },
	{ "type 3 of another owner", { { "Linux", 3, 20 } }, 0, 0 },
	{ "descriptor cut short", { { "GNU", 3, 20 } }, 4, 0 },
	{ "header only", { { "GNU", 3, 20 } }, 24, 0 },
	{ "no notes", { { NULL } }, 0, 0 },
};

static void test_notes_build_id(void)
{
	for (size_t c = 0; c < sizeof(notes_cases) / sizeof(notes_cases[0]); c++) {
		uint8_t buf[512], id[PT_BUILD_ID_MAX];
		size_t len = 0, got;

		for (int i = 0; i < 3 && notes_cases[c].notes[i].name; i++) {
			const struct note_spec *n = &notes_cases[c].notes[i];

			len += put_note(buf + len, n, n->type == 3 ? 0x40 : 0x10);
		}
		len -= (size_t)notes_cases[c].cut;
		got = sym_notes_build_id(buf, len, id, sizeof(id));
		if (got != notes_cases[c].want)
			fprintf(stderr, "\n%s: %zu bytes, expected %zu\n", notes_cases[c].what, got,
				notes_cases[c].want);
		CU_ASSERT_EQUAL(got, notes_cases[c].want);
		for (size_t i = 0; i < got; i++)
			CU_ASSERT_EQUAL(id[i], 0x40 + i);
	}
}

/* ---- code without symbols, cut at call targets ---- */

struct uncovered_hook {
	struct sym_session *s;
	const char *file;
	const char *const *targets;  /* called functions of asm, by their names there */
	int calls;
};

/* What the pass over a trace does (util/call_targets.c): note the targets through a fork. */
static void note_targets(void *ctx)
{
	struct uncovered_hook *h = ctx;
	struct sym_session *f = sym_session_fork(h->s);

	h->calls++;
	CU_ASSERT_FATAL(f != NULL);
	map_file(f, 7, h->file, 0);
	for (size_t i = 0; h->targets[i]; i++) {
		CU_ASSERT_TRUE(sym_note_call_target(f, 7, oracle_addr(tpath("asm"), h->targets[i])));
		/* again: noted once, whatever the pass's cache forgets */
		CU_ASSERT_TRUE(sym_note_call_target(f, 7, oracle_addr(tpath("asm"), h->targets[i])));
	}
	sym_session_free(f);
	sym_split_at_call_targets(h->s);
}

static void test_call_targets(void)
{
	static const char *const targets[] = { "f_first", "alias_global", "f_second", NULL };
	static const struct {
		const char *what, *at;	  /* a function of asm */
		int off;
		const char *fn;		  /* the function of the stripped file there, "" none */
		const char *to;		  /* ... ending where this one starts (NULL: further) */
	} cases[] = {
		{ "called: its own function", "f_first", 0, "f_first", "alias_global" },
		{ "inside it, to the next target", "f_first", 2, "f_first", "alias_global" },
		{ "an uncalled label: the target before", "under_name", 0, "alias_global",
		  "f_second" },
		{ "the last target: to the segment's end", "f_second", 1, "f_second", NULL },
		{ "the entry, which nothing calls: its own function", "_start", 5, "_start", NULL },
	};
	struct uncovered_hook h = { .file = tpath("asm-stripped"), .targets = targets };
	struct sym_loc loc;

	if (!build())
		CU_FAIL_FATAL("could not build test files");
	/* all covered: the hook is never called */
	h.s = session(NULL);
	map_file(h.s, 7, tpath("asm"), 0);
	sym_on_uncovered(h.s, note_targets, &h);
	sym_resolve(h.s, 7, oracle_addr(tpath("asm"), "f_second") + 1, 0, &loc);
	CU_ASSERT_STRING_EQUAL(loc.symbol, "f_second");
	CU_ASSERT_EQUAL(h.calls, 0);
	sym_session_free(h.s);

	h.s = session(NULL);
	map_file(h.s, 7, h.file, 0);
	sym_on_uncovered(h.s, note_targets, &h);
	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		uint64_t at = oracle_addr(tpath("asm"), cases[c].at) + cases[c].off;
		char want[PATH_MAX];

		sym_resolve(h.s, 7, at, 0, &loc);
		if (!*cases[c].fn) {
			CU_ASSERT_PTR_NULL(loc.symbol);
			continue;
		}
		snprintf(want, sizeof(want), "asm-stripped+0x%" PRIx64,
			 oracle_addr(tpath("asm"), cases[c].fn));
		if (!loc.symbol || strcmp(loc.symbol, want))
			fprintf(stderr, "\n%s: %s, expected %s\n", cases[c].what,
				loc.symbol ? loc.symbol : "(none)", want);
		CU_ASSERT_PTR_NOT_NULL_FATAL(loc.symbol);
		CU_ASSERT_STRING_EQUAL(loc.symbol, want);
		CU_ASSERT_EQUAL(loc.sym_offset, at - oracle_addr(tpath("asm"), cases[c].fn));
		if (cases[c].to) {
			CU_ASSERT_EQUAL(loc.sym_addr + loc.sym_size,
					oracle_addr(tpath("asm"), cases[c].to));
		} else {
			CU_ASSERT_TRUE(loc.sym_addr + loc.sym_size > at);
		}
	}
	CU_ASSERT_EQUAL(h.calls, 1);
	sym_session_free(h.s);
}

static CU_TestInfo tests[] = {
	{ "names, offsets and lines at a load bias", test_resolve_table },
	{ "lines agree with addr2line", test_lines_match_addr2line },
	{ "static executable: IRELATIVE PLT entries", test_static_irelative_plt },
	{ "address spaces: mmap, munmap, fork, exec", test_address_spaces },
	{ "partial munmap splits a mapping", test_munmap_split },
	{ "address spaces agree with a page model", test_address_space_model },
	{ "exited processes are freed lazily", test_exited_processes },
	{ "[vdso] from the trace directory", test_vdso },
	{ "[anon], [unknown], deleted files", test_special_mappings },
	{ "kernel symbols from kallsyms", test_kernel_symbols },
	{ "kernel lines from a matching vmlinux", test_kernel_vmlinux },
	{ "sym_lookup_in_file", test_lookup_in_file },
	{ "stripped programs: main from the entry code", test_stripped_main },
	{ "stripped libraries: no main", test_no_main_in_libraries },
	{ "sym_file_build_id", test_file_build_id },
	{ "sym_notes_build_id", test_notes_build_id },
	{ "sym_read_code", test_read_code },
	{ "files not at their traced path: build-id caches, symfs", test_files_elsewhere },
	{ "code without symbols cut at call targets", test_call_targets },
	{ "resolve cost", test_resolve_cost },
	CU_TEST_INFO_NULL,
};

UNIT_SUITE(symbols, tests)
