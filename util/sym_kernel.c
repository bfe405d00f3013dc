// SPDX-License-Identifier: GPL-2.0
/* Kernel symbols from kallsyms/modules snapshots, plus vmlinux DWARF when it matches. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "arch/arch_sym.h"
#include "util/build_id.h"
#include "util/log.h"
#include "util/sym_elf.h"
#include "util/sym_kernel.h"
#include "util/trace_reader.h"
#include "util/trace_record.h"

/* One instance: entries of the core kernel point at it (compared by address). */
static const char KERNEL_NAME[] = "[kernel]";

struct kmod_extent {
	const char *name;
	uint64_t start, end;
};

struct sym_kernel {
	char *text;		  /* kallsyms contents; names point into it */
	char *modtext;		  /* modules contents */
	struct sym_kentry *syms;
	size_t nr_syms;
	size_t last_hit;
	struct kmod_extent *mods;
	size_t nr_mods;
	uint64_t lowest;
	struct sym_module *vmlinux;
	uint64_t kaslr;
};

/* kallsyms runs to a few MiB with every module loaded: far more is no copy of it */
#define SYM_KERNEL_FILE_MAX (256 << 20)

/* A text file of the trace, whole; NULL when there is none (or it is no regular file). */
static char *read_file(const char *path)
{
	/* never blocking: a FIFO would wait for a writer */
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	char *buf = NULL;
	size_t len = 0, cap = 0, n;
	struct stat st;
	FILE *f;

	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) ||
	    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) < 0 || !(f = fdopen(fd, "r"))) {
		pr_warn("%s: not a regular file: ignored", path);
		close(fd);
		return NULL;
	}
	if (st.st_size > SYM_KERNEL_FILE_MAX) {
		pr_warn("%s: %lld bytes, more than a copy of /proc/kallsyms can be: ignored", path,
			(long long)st.st_size);
		fclose(f);
		return NULL;
	}
	do {
		if (cap - len < 65536) {
			char *nb = realloc(buf, cap = cap * 2 + 65536);

			if (!nb) {
				free(buf);
				fclose(f);
				return NULL;
			}
			buf = nb;
		}
		n = fread(buf + len, 1, cap - len - 1, f);
		len += n;
	} while (n);
	fclose(f);
	buf[len] = 0;
	return buf;
}

/* Lines "name size refs deps state 0xaddr ...": each module's text extent. */
static void parse_modules(struct sym_kernel *k)
{
	size_t cap = 0;

	for (char *line = k->modtext, *next; line && *line; line = next) {
		char *save, *name, *size, *addr;

		next = strchr(line, '\n');
		if (next)
			*next++ = 0;
		name = strtok_r(line, " \t", &save);
		size = strtok_r(NULL, " \t", &save);
		for (int i = 0; i < 3; i++)
			strtok_r(NULL, " \t", &save);
		addr = strtok_r(NULL, " \t", &save);
		if (!name || !size || !addr)
			continue;
		if (k->nr_mods == cap) {
			struct kmod_extent *n = realloc(k->mods, (cap = cap * 2 + 16) * sizeof(*n));

			if (!n)
				return;
			k->mods = n;
		}
		k->mods[k->nr_mods].name = name;
		k->mods[k->nr_mods].start = strtoull(addr, NULL, 16);
		k->mods[k->nr_mods].end = k->mods[k->nr_mods].start + strtoull(size, NULL, 10);
		k->nr_mods++;
	}
}

static const struct kmod_extent *module_extent(const struct sym_kernel *k, const char *name)
{
	for (size_t i = 0; i < k->nr_mods; i++)
		if (!strcmp(k->mods[i].name, name))
			return &k->mods[i];
	return NULL;
}

static int leading_underscores(const char *s)
{
	int n = 0;

	while (s[n] == '_')
		n++;
	return n;
}

/* Section bounds (__indirect_thunk_start, __softirqentry_text_end) name no function. */
static bool is_section_marker(const char *name)
{
	size_t n = strlen(name);

	return !strncmp(name, "__", 2) &&
	       ((n > 6 && !strcmp(name + n - 6, "_start")) || (n > 4 && !strcmp(name + n - 4, "_end")));
}

/*
 * Same alias rule as ELF modules: global (upper case type) first; then
 * a function's name over a section marker at its address, and the arch's
 * preferred system call names (arch_sym_kernel_alias_rank).
 */
static int kentry_cmp(const void *pa, const void *pb)
{
	const struct sym_kentry *a = pa, *b = pb;
	int d;

	if (a->addr != b->addr)
		return a->addr < b->addr ? -1 : 1;
	/* size holds the global flag until sizes are computed */
	d = (int)b->size - (int)a->size;
	if (d)
		return d;
	d = (int)is_section_marker(a->name) - (int)is_section_marker(b->name);
	if (d)
		return d;
	d = arch_sym_kernel_alias_rank(b->name) - arch_sym_kernel_alias_rank(a->name);
	if (d)
		return d;
	d = leading_underscores(a->name) - leading_underscores(b->name);
	return d ? d : strcmp(a->name, b->name);
}

static bool parse_kallsyms(struct sym_kernel *k)
{
	size_t cap = 0, out = 0;

	for (char *line = k->text, *next; line && *line; line = next) {
		char *save, *addr, *type, *name, *mod;
		struct sym_kentry e = { 0 };

		next = strchr(line, '\n');
		if (next)
			*next++ = 0;
		addr = strtok_r(line, " \t", &save);
		type = strtok_r(NULL, " \t", &save);
		name = strtok_r(NULL, " \t", &save);
		mod = strtok_r(NULL, " \t", &save);
		if (!addr || !type || !name || !strchr("tTwW", type[0]) || type[1])
			continue;
		e.addr = strtoull(addr, NULL, 16);
		if (!e.addr)
			continue;
		e.name = name;
		e.size = type[0] == 'T' || type[0] == 'W';
		e.module = KERNEL_NAME;
		if (mod && mod[0] == '[') {
			char *end = strchr(mod, ']');

			if (end)
				*end = 0;
			e.module = mod + 1;
		}
		if (k->nr_syms == cap) {
			struct sym_kentry *n = realloc(k->syms, (cap * 2 + 4096) * sizeof(*n));

			if (!n)
				return false;
			k->syms = n;
			cap = cap * 2 + 4096;
		}
		k->syms[k->nr_syms++] = e;
	}
	if (!k->nr_syms)
		return false;
	qsort(k->syms, k->nr_syms, sizeof(*k->syms), kentry_cmp);

	/*
	 * kallsyms has no sizes: a function ends at the next address, but never
	 * past its module's end (modules snapshot) nor into another module, and
	 * the core kernel's last function ends at _etext.  A module without
	 * a modules snapshot extends its last function to the next symbol.
	 */
	uint64_t etext = 0;

	for (size_t i = 0; i < k->nr_syms; i++)
		if (!strcmp(k->syms[i].name, "_etext") && k->syms[i].module == KERNEL_NAME)
			etext = k->syms[i].addr;
	for (size_t i = 0; i < k->nr_syms;) {
		size_t j = i + 1;
		struct sym_kentry e = k->syms[i];
		const struct kmod_extent *me = NULL;
		uint64_t end = UINT64_MAX;

		while (j < k->nr_syms && k->syms[j].addr == e.addr)
			j++;
		if (j < k->nr_syms)
			end = k->syms[j].addr;
		if (e.module != KERNEL_NAME && (me = module_extent(k, e.module))) {
			e.module_base = me->start;
			if (me->end > e.addr && me->end < end)
				end = me->end;
		}
		if (e.module == KERNEL_NAME && etext > e.addr && etext < end)
			end = etext;
		/* The very last function, extent unknown: up to its page's end. */
		e.size = end == UINT64_MAX ? 4096 - (e.addr & 4095) : end - e.addr;
		k->syms[out++] = e;
		i = j;
	}
	k->nr_syms = out;
	k->lowest = k->syms[0].addr;
	return true;
}

/* What the trace's header says about the traced kernel ("" when it does not). */
struct kernel_id {
	char release[256];
	uint8_t build_id[PT_BUILD_ID_MAX];
	size_t build_id_len;
};

static int hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static size_t parse_build_id(const char *hex, size_t len, uint8_t *out)
{
	size_t n = 0;

	for (; len >= 2 && n < PT_BUILD_ID_MAX; hex += 2, len -= 2) {
		int hi = hex_digit(hex[0]), lo = hex_digit(hex[1]);

		if (hi < 0 || lo < 0)
			break;
		out[n++] = (uint8_t)(hi << 4 | lo);
	}
	return len && *hex ? 0 : n;	/* anything left over: malformed, not trusted */
}

/*
 * KERNEL_RELEASE and KERNEL_BUILD_ID from dir/header.  Read here rather than
 * passed in, so every user of a symbol session gets them from trace_dir.  A
 * directory without a header (kallsyms alone, as unit tests make) has none.
 */
static void read_kernel_id(const char *dir, struct kernel_id *id)
{
	const struct pt_rec_header *rh;
	struct pt_file_header h;
	char path[PATH_MAX];
	uint8_t *data;
	size_t len, off = sizeof(h);

	memset(id, 0, sizeof(*id));
	snprintf(path, sizeof(path), "%s/%s", dir, PT_FILE_HEADER);
	if (access(path, R_OK) || trace_load_file(path, PT_KIND_HEADER, &h, &data, &len) < 0)
		return;
	while (trace_next_record(data, len, &off, &rh) == 1) {
		const char *p = (const char *)(rh + 1);
		size_t plen = strnlen(p, rh->size - sizeof(*rh));

		if (rh->type == PT_ATTR_KERNEL_RELEASE && plen < sizeof(id->release)) {
			memcpy(id->release, p, plen);
			id->release[plen] = 0;
		} else if (rh->type == PT_ATTR_KERNEL_BUILD_ID) {
			id->build_id_len = parse_build_id(p, plen, id->build_id);
		}
	}
	free(data);
}

static void hex_string(const uint8_t *b, size_t n, char *out)
{
	for (size_t i = 0; i < n; i++)
		snprintf(out + 2 * i, 3, "%02x", b[i]);
	out[2 * n] = 0;
}

#define SLIDE_SAMPLES 64	/* kallsyms functions looked up in a candidate vmlinux */
#define SLIDE_AGREE 3		/* at least this many must sit at the majority offset */

/*
 * The KASLR slide of vmlinux m against kallsyms: the offset most sampled
 * kallsyms functions sit at from m's symbol of the same name.  Local names
 * repeat across files (a static "cleanup" in many), so one lookup may find
 * another function: the majority decides, and it must be a real majority
 * of at least SLIDE_AGREE.  Returns false (with *agree, *found) otherwise.
 */
static bool find_slide(const struct sym_kernel *k, const struct sym_module *m, uint64_t *slide,
		       int *agree, int *found)
{
	uint64_t off[SLIDE_SAMPLES];
	size_t core = 0, step;
	int n = 0, best = 0;

	for (size_t i = 0; i < k->nr_syms; i++)
		core += k->syms[i].module == KERNEL_NAME;
	step = core / SLIDE_SAMPLES + 1;
	for (size_t i = 0, seen = 0; i < k->nr_syms && n < SLIDE_SAMPLES; i++) {
		const struct sym_entry *e;

		if (k->syms[i].module != KERNEL_NAME || seen++ % step)
			continue;
		e = sym_module_find_name(m, k->syms[i].name);
		if (e)
			off[n++] = k->syms[i].addr - e->addr;
	}
	for (int i = 0; i < n; i++) {
		int c = 0;

		for (int j = 0; j < n; j++)
			c += off[j] == off[i];
		if (c > best) {
			best = c;
			*slide = off[i];
		}
	}
	*agree = best;
	*found = n;
	return best >= SLIDE_AGREE && 2 * best > n;
}

/*
 * Use path as the traced kernel's vmlinux if it is that kernel: the same
 * build-id when both the trace and the file have one, and kallsyms functions
 * at one KASLR slide from its symbols (which also gives the slide).  quiet:
 * a candidate found by searching, whose absence is no news; a file that is
 * there but is another kernel is always worth one warning, saying why.
 */
static bool try_vmlinux(struct sym_kernel *k, const char *path, const struct kernel_id *id,
			bool quiet)
{
	static const char consequence[] = "kernel functions from kallsyms, no kernel source lines";
	uint8_t bid[PT_BUILD_ID_MAX];
	char have[2 * PT_BUILD_ID_MAX + 1], want[2 * PT_BUILD_ID_MAX + 1];
	struct sym_module *m;
	size_t bid_len;
	uint64_t slide = 0;
	int agree, found;

	if (access(path, R_OK)) {
		if (!quiet)
			pr_warn("vmlinux %s: %s; %s", path, strerror(errno), consequence);
		return false;
	}
	bid_len = sym_file_build_id(path, bid, sizeof(bid));
	if (id->build_id_len && bid_len &&
	    (bid_len != id->build_id_len || memcmp(bid, id->build_id, bid_len))) {
		hex_string(bid, bid_len, have);
		hex_string(id->build_id, id->build_id_len, want);
		pr_warn("vmlinux %s is another kernel (build-id %s, the traced kernel's is %s); %s",
			path, have, want, consequence);
		return false;
	}
	m = sym_module_open(path, KERNEL_NAME, NULL, 0, NULL);
	if (!m)
		return false;
	if (!m->usable || !m->nr_syms) {
		pr_warn("vmlinux %s: not an ELF file with symbols; %s", path, consequence);
		sym_module_free(m);
		return false;
	}
	if (!find_slide(k, m, &slide, &agree, &found)) {
		pr_warn("vmlinux %s does not match the trace's kallsyms (%d of %d sampled "
			"functions at one offset); %s", path, agree, found, consequence);
		sym_module_free(m);
		return false;
	}
	pr_dbg("kernel lines from %s (%s, KASLR slide %#" PRIx64 ")", path,
	       id->build_id_len && bid_len ? "build-id matches" : "symbols match", slide);
	k->vmlinux = m;
	k->kaslr = slide;
	return true;
}

/*
 * Without --vmlinux: by the recorded build-id in each debug directory, then
 * DEBUG_DIR/boot/vmlinux-RELEASE with the traced kernel's release (Debian's
 * linux-image-*-dbg layout), the given debug directory before the default.
 */
static void find_vmlinux(struct sym_kernel *k, const struct kernel_id *id, const char *debug_dir)
{
	const char *dirs[2] = { debug_dir, NULL };
	char path[PATH_MAX], hex[2 * PT_BUILD_ID_MAX + 1];
	size_t nr_dirs = 1;

	if (!debug_dir)
		dirs[0] = SYM_DEFAULT_DEBUG_DIR;
	else if (strcmp(debug_dir, SYM_DEFAULT_DEBUG_DIR))
		dirs[nr_dirs++] = SYM_DEFAULT_DEBUG_DIR;
	if (id->build_id_len) {
		hex_string(id->build_id, id->build_id_len, hex);
		for (size_t i = 0; i < nr_dirs; i++) {
			snprintf(path, sizeof(path), "%s/.build-id/%.2s/%s.debug", dirs[i], hex,
				 hex + 2);
			if (try_vmlinux(k, path, id, true))
				return;
		}
	}
	if (!id->release[0])
		return;
	for (size_t i = 0; i < nr_dirs; i++) {
		snprintf(path, sizeof(path), "%s/boot/vmlinux-%s", dirs[i], id->release);
		if (try_vmlinux(k, path, id, true))
			return;
	}
	pr_dbg("no vmlinux for kernel %s%s%s: no kernel source lines", id->release,
	       id->build_id_len ? " build-id " : "", id->build_id_len ? hex : "");
}

struct sym_kernel *sym_kernel_load(const char *dir, const char *vmlinux, const char *debug_dir)
{
	struct kernel_id id;
	struct sym_kernel *k;
	char path[PATH_MAX];

	if (!dir)
		return NULL;
	k = calloc(1, sizeof(*k));
	if (!k)
		return NULL;
	snprintf(path, sizeof(path), "%s/%s", dir, PT_FILE_KALLSYMS);
	k->text = read_file(path);
	if (!k->text) {
		free(k);
		return NULL;
	}
	snprintf(path, sizeof(path), "%s/%s", dir, PT_FILE_MODULES);
	k->modtext = read_file(path);
	parse_modules(k);
	if (!parse_kallsyms(k)) {
		pr_warn("%s/%s has no usable text symbols (addresses hidden?)", dir, PT_FILE_KALLSYMS);
		sym_kernel_free(k);
		return NULL;
	}
	read_kernel_id(dir, &id);
	if (vmlinux)
		try_vmlinux(k, vmlinux, &id, false);
	else
		find_vmlinux(k, &id, debug_dir);
	return k;
}

void sym_kernel_free(struct sym_kernel *k)
{
	if (!k)
		return;
	sym_module_free(k->vmlinux);
	free(k->syms);
	free(k->mods);
	free(k->text);
	free(k->modtext);
	free(k);
}

bool sym_kernel_covers(const struct sym_kernel *k, uint64_t addr)
{
	return k && addr >= k->lowest;
}

const struct sym_kentry *sym_kernel_find(struct sym_kernel *k, uint64_t addr)
{
	size_t lo = 0, hi = k->nr_syms;
	const struct sym_kentry *e = &k->syms[k->last_hit];

	if (addr - e->addr < e->size)
		return e;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (k->syms[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || addr - k->syms[lo - 1].addr >= k->syms[lo - 1].size)
		return NULL;
	k->last_hit = lo - 1;
	return &k->syms[lo - 1];
}

struct sym_module *sym_kernel_vmlinux(const struct sym_kernel *k, uint64_t *kaslr)
{
	*kaslr = k->kaslr;
	return k->vmlinux;
}
