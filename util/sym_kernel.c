// SPDX-License-Identifier: GPL-2.0
/* Kernel symbols from kallsyms/modules snapshots, plus vmlinux DWARF when it matches. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "arch_sym.h"
#include "log.h"
#include "sym_elf.h"
#include "sym_kernel.h"

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

static char *read_file(const char *path)
{
	FILE *f = fopen(path, "re");
	char *buf = NULL;
	size_t len = 0, cap = 0, n;

	if (!f)
		return NULL;
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

/* A vmlinux is trusted when three kallsyms functions sit at one offset from its symbols. */
static void load_vmlinux(struct sym_kernel *k, const char *path, const char *debug_dir)
{
	struct sym_module *m;
	int checked = 0;
	bool have = false;
	uint64_t kaslr = 0;

	if (access(path, R_OK))
		return;
	m = sym_module_open(path, KERNEL_NAME, NULL, 0, debug_dir);
	if (!m)
		return;
	for (size_t i = 0; i < k->nr_syms && checked < 3; i += k->nr_syms / 7 + 1) {
		const struct sym_entry *e;

		if (k->syms[i].module != KERNEL_NAME)
			continue;
		e = sym_module_find_name(m, k->syms[i].name);
		if (!e)
			continue;
		if (!have)
			kaslr = k->syms[i].addr - e->addr, have = true;
		else if (k->syms[i].addr - e->addr != kaslr)
			break;
		checked++;
	}
	if (checked < 3) {
		pr_warn("%s does not match the trace's kallsyms; no kernel source lines", path);
		sym_module_free(m);
		return;
	}
	k->vmlinux = m;
	k->kaslr = kaslr;
}

struct sym_kernel *sym_kernel_load(const char *dir, const char *vmlinux, const char *debug_dir)
{
	struct sym_kernel *k;
	char path[PATH_MAX];

	if (!dir)
		return NULL;
	k = calloc(1, sizeof(*k));
	if (!k)
		return NULL;
	snprintf(path, sizeof(path), "%s/kallsyms", dir);
	k->text = read_file(path);
	if (!k->text) {
		free(k);
		return NULL;
	}
	snprintf(path, sizeof(path), "%s/modules", dir);
	k->modtext = read_file(path);
	parse_modules(k);
	if (!parse_kallsyms(k)) {
		pr_warn("%s/kallsyms has no usable text symbols (addresses hidden?)", dir);
		sym_kernel_free(k);
		return NULL;
	}
	if (vmlinux) {
		load_vmlinux(k, vmlinux, debug_dir);
	} else {
		struct utsname u;

		if (!uname(&u)) {
			snprintf(path, sizeof(path), "%s/boot/vmlinux-%s",
				 debug_dir ? debug_dir : "/usr/lib/debug", u.release);
			load_vmlinux(k, path, debug_dir);
		}
	}
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
