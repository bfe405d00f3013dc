// SPDX-License-Identifier: GPL-2.0
/* One ELF module via elfutils: its files found and opened, its functions, lines and bytes. */
#include <dwarf.h>
#include <elfutils/libdwelf.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/demangle.h"
#include "util/hashtab.h"
#include "util/log.h"
#include "util/sym_elf.h"

#define PAGE_MASK_4K 0xfffull

/* A compilation unit's address range, for finding the CU of an address. */
struct sym_cu_range {
	uint64_t start, end;
	uint64_t max_end;	  /* the largest end of this and every earlier range */
	Dwarf_Die cu;
};

/* a typedef: the table's const key would be "const const char *" otherwise */
typedef const char *str_key;

static inline uint64_t str_key_hash(const str_key *s)
{
	return hashtab_str(*s);
}

static inline bool str_key_eq(const str_key *a, const str_key *b)
{
	return !strcmp(*a, *b);
}

HASHTAB_DEFINE(str_set, str_key, uint8_t, str_key_hash, str_key_eq)

/* Strings this module built itself, interned so equal strings share memory (keys owned). */
struct sym_strtab {
	struct str_set set;
};

const char *sym_strtab_intern(struct sym_strtab **tp, const char *s)
{
	struct sym_strtab *t = *tp;
	struct str_set_entry *e;
	bool added;
	char *copy;

	if (!t) {
		t = *tp = calloc(1, sizeof(*t));
		if (!t)
			return NULL;
	}
	e = str_set_find(&t->set, &s);
	if (e)
		return e->key;
	copy = strdup(s);
	if (!copy)
		return NULL;
	e = str_set_insert(&t->set, &(const char *){ copy }, &added);
	if (!e) {
		free(copy);
		return NULL;
	}
	return e->key;
}

static void strtab_free(struct sym_strtab *t)
{
	if (!t)
		return;
	for (struct str_set_entry *e = NULL; (e = str_set_next(&t->set, e));)
		free((char *)e->key);
	str_set_free(&t->set);
	free(t);
}

size_t sym_elf_build_id(Elf *elf, uint8_t *buf, size_t size)
{
	const void *id;
	ssize_t len = dwelf_elf_gnu_build_id(elf, &id);

	if (len <= 0)
		return 0;
	if ((size_t)len > size)
		len = size;
	memcpy(buf, id, len);
	return len;
}

Elf_Scn *sym_elf_section(Elf *elf, const char *name, GElf_Shdr *shdr)
{
	size_t shstrndx;
	Elf_Scn *scn = NULL;

	if (!elf || elf_getshdrstrndx(elf, &shstrndx))
		return NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		const char *n;

		if (!gelf_getshdr(scn, shdr))
			continue;
		n = elf_strptr(elf, shstrndx, shdr->sh_name);
		if (n && !strcmp(n, name))
			return scn;
	}
	return NULL;
}

static bool has_section_data(Elf *elf, const char *name)
{
	GElf_Shdr shdr;

	return sym_elf_section(elf, name, &shdr) && shdr.sh_type != SHT_NOBITS && shdr.sh_size;
}

/* Loadable segments; a debuginfo file keeps the program headers too. */
static void load_phdrs(struct sym_module *m, Elf *elf)
{
	GElf_Ehdr ehdr;
	size_t n;

	if (!elf || m->phdrs || !gelf_getehdr(elf, &ehdr) || elf_getphdrnum(elf, &n))
		return;
	m->e_type = ehdr.e_type;
	m->phdrs = calloc(n ? n : 1, sizeof(*m->phdrs));
	if (!m->phdrs)
		return;
	for (size_t i = 0; i < n; i++)
		if (gelf_getphdr(elf, i, &m->phdrs[m->nr_phdrs]) &&
		    m->phdrs[m->nr_phdrs].p_type == PT_LOAD)
			m->nr_phdrs++;
}

/* Our own handle on the separate debuginfo libdwfl found (for its .symtab). */
static void open_debuginfo(struct sym_module *m)
{
	if (m->debug_elf || m->found.debug_fd < 0)
		return;
	m->debug_elf = elf_begin(m->found.debug_fd, ELF_C_READ_MMAP, NULL);
	if (m->debug_elf && elf_kind(m->debug_elf) != ELF_K_ELF) {
		elf_end(m->debug_elf);
		m->debug_elf = NULL;
	}
}

/* The one warning about a file that is not the one traced, once we know what replaces it. */
static void warn_replaced(const struct sym_module *m)
{
	char hex[2 * sizeof(m->build_id) + 1];

	if (m->found.stand_in)
		pr_warn("%s changed since it was traced (build-id differs); symbols from its "
			"debuginfo %s", m->path, m->found.file);
	else if (m->elf)
		pr_warn("%s changed since it was traced (build-id differs); using %s, of the traced "
			"build", m->path, m->found.file);
	else {
		sym_build_id_hex(m->build_id, m->build_id_len, hex);
		pr_warn("%s changed since it was traced (build-id differs), and build-id %s is in "
			"no build-id cache or debug directory: no symbols ('pitrace archive' "
			"collects a trace's files)", m->path, hex);
	}
}

/*
 * The module's file and, when it lacks .symtab, its separate debuginfo,
 * through libdwfl's callbacks (sym_search.c).  DWARF waits for the first
 * line lookup.
 */
static void find_files(struct sym_module *m)
{
	Dwarf_Addr bias;
	Elf *elf;

	m->dwmod = sym_search_module(&m->found, &m->dwfl);
	if (!m->dwmod)
		return;
	sym_search_begin(&m->found, m->dwfl);
	elf = dwfl_module_getelf(m->dwmod, &bias);
	if (elf && m->found.stand_in) {
		m->stand_in_elf = elf;	/* symbols and lines, never code bytes */
	} else if (elf) {
		uint8_t id[20];
		size_t len = sym_elf_build_id(elf, id, sizeof(id));

		m->elf = elf;
		m->usable = true;
		if (!m->build_id_len) {
			memcpy(m->build_id, id, len);
			m->build_id_len = len;
		}
		if (!has_section_data(elf, ".symtab")) {
			/* libdwfl looks for debuginfo when the file has no .symtab. */
			m->found.searching = true;
			dwfl_module_getsymtab(m->dwmod);
			m->found.searching = false;
			open_debuginfo(m);
		}
	}
	sym_search_end(&m->found);
	if (m->found.replaced)
		warn_replaced(m);
}

struct sym_module *sym_module_open(const char *path, const char *name, const uint8_t *build_id,
				   size_t build_id_len, struct sym_search *search)
{
	struct sym_module *m = calloc(1, sizeof(*m));
	const char *base = strrchr(path, '/');

	if (!m)
		return NULL;
	elf_version(EV_CURRENT);
	m->found.debug_fd = -1;
	m->path = strdup(path);
	m->name = strdup(name ? name : base ? base + 1 : path);
	if (!m->path || !m->name) {
		sym_module_free(m);
		return NULL;
	}
	if (build_id_len > sizeof(m->build_id))
		build_id_len = sizeof(m->build_id);
	if (build_id && build_id_len)
		memcpy(m->build_id, build_id, build_id_len);
	m->build_id_len = build_id_len;
	m->found.search = search ? search : sym_search_default();
	m->found.name = m->name;
	m->found.path = m->path;
	m->found.build_id = m->build_id;
	m->found.build_id_len = m->build_id_len;

	find_files(m);
	load_phdrs(m, m->elf ? m->elf : m->stand_in_elf ? m->stand_in_elf : m->debug_elf);
	if (!m->phdrs)
		load_phdrs(m, m->debug_elf);
	sym_elf_load_symbols(m);
	sym_elf_add_fde_functions(m, sym_elf_stripped_main(m));
	pr_dbg("%s: %zu functions%s%s%s%s", path, m->nr_syms,
	       m->found.file && strcmp(m->found.file, path) ? ", file " : "",
	       m->found.file && strcmp(m->found.file, path) ? m->found.file : "",
	       m->found.debug_file ? ", debuginfo " : "",
	       m->found.debug_file ? m->found.debug_file : "");
	return m;
}

void sym_module_free(struct sym_module *m)
{
	if (!m)
		return;
	if (m->debug_elf)
		elf_end(m->debug_elf);
	/* The file, the stand-in and the DWARF are libdwfl's. */
	if (m->dwfl)
		dwfl_end(m->dwfl);
	sym_found_free(&m->found);
	strtab_free(m->strs);
	free(m->cus);
	free(m->call_targets);
	free(m->syms);
	free(m->aliases);
	free(m->phdrs);
	free(m->path);
	free(m->name);
	free(m);
}

bool sym_module_bias(const struct sym_module *m, uint64_t start, uint64_t pgoff, bool exec,
		     uint64_t *bias)
{
	/* Two passes: segments whose PF_X matches the mapping first, since old
	 * layouts share a page between text and data with different biases. */
	for (int pass = 0; pass < 2; pass++) {
		for (size_t i = 0; i < m->nr_phdrs; i++) {
			const GElf_Phdr *p = &m->phdrs[i];

			if (pass == 0 && !!(p->p_flags & PF_X) != exec)
				continue;
			if (pgoff < (p->p_offset & ~PAGE_MASK_4K) ||
			    pgoff >= p->p_offset + p->p_filesz)
				continue;
			*bias = start - (p->p_vaddr - p->p_offset + pgoff);
			return true;
		}
	}
	return false;
}

const struct sym_entry *sym_module_find(struct sym_module *m, uint64_t vaddr)
{
	size_t lo = 0, hi = m->nr_syms;
	const struct sym_entry *e;

	if (!m->nr_syms)
		return NULL;
	e = &m->syms[m->last_hit];
	if (vaddr - e->addr < e->size)
		return e;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (m->syms[mid].addr <= vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	e = &m->syms[lo - 1];
	if (vaddr - e->addr >= e->size)
		return NULL;
	m->last_hit = lo - 1;
	return e;
}

const struct sym_entry *sym_module_find_name(const struct sym_module *m, const char *name)
{
	for (size_t i = 0; i < m->nr_aliases; i++)
		if (!strcmp(m->aliases[i].name, name) || !strcmp(m->aliases[i].raw, name))
			return &m->aliases[i];
	return NULL;
}

/* The shown name of raw: its demangled form interned in m, else raw itself. */
static const char *demangled_name(struct sym_module *m, const char *raw)
{
	char *d = demangle(raw);
	const char *name;

	if (!d)
		return raw;
	name = sym_strtab_intern(&m->strs, d);
	free(d);
	return name ? name : raw;
}

void sym_module_demangle(struct sym_module *m)
{
	/*
	 * syms holds the chosen name of each address, which aliases hold too:
	 * demangle each once (a big C++ library has 10^4-10^5 functions).
	 */
	for (size_t i = 0; i < m->nr_syms; i++)
		m->syms[i].name = demangled_name(m, m->syms[i].raw);
	for (size_t i = 0; i < m->nr_aliases; i++) {
		const struct sym_entry *e = sym_module_find(m, m->aliases[i].addr);

		if (e && e->raw == m->aliases[i].raw)
			m->aliases[i].name = e->name;
		else
			m->aliases[i].name = demangled_name(m, m->aliases[i].raw);
	}
}

static int cu_cmp(const void *pa, const void *pb)
{
	const struct sym_cu_range *a = pa, *b = pb;

	return a->start < b->start ? -1 : a->start > b->start;
}

/* Address ranges of every CU from their DIEs (DW_AT_ranges / low_pc..high_pc):
 * .debug_aranges is optional and often missing. */
static void load_cus(struct sym_module *m)
{
	Dwarf_CU *cu = NULL;
	Dwarf_Die cudie;
	size_t cap = 0;

	m->cus_loaded = true;
	while (dwarf_get_units(m->dwarf, cu, &cu, NULL, NULL, &cudie, NULL) == 0) {
		Dwarf_Addr base, s, e;
		ptrdiff_t off = 0;

		while ((off = dwarf_ranges(&cudie, off, &base, &s, &e)) > 0) {
			if (e <= s)
				continue;
			if (m->nr_cus == cap) {
				size_t ncap = cap ? cap * 2 : 64;
				struct sym_cu_range *n = realloc(m->cus, ncap * sizeof(*n));

				if (!n)
					return;
				m->cus = n;
				cap = ncap;
			}
			m->cus[m->nr_cus++] = (struct sym_cu_range){ s, e, 0, cudie };
		}
	}
	if (!m->nr_cus)
		return;
	qsort(m->cus, m->nr_cus, sizeof(*m->cus), cu_cmp);
	for (size_t i = 0; i < m->nr_cus; i++) {
		m->cus[i].max_end = m->cus[i].end;
		if (i && m->cus[i - 1].max_end > m->cus[i].end)
			m->cus[i].max_end = m->cus[i - 1].max_end;
	}
}

static struct sym_cu_range *find_cu(struct sym_module *m, uint64_t vaddr)
{
	size_t lo = 0, hi;

	if (!m->cus_loaded)
		load_cus(m);
	if (!m->nr_cus)
		return NULL;
	hi = m->nr_cus;
	if (vaddr - m->cus[m->last_cu].start < m->cus[m->last_cu].end - m->cus[m->last_cu].start)
		return &m->cus[m->last_cu];
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (m->cus[mid].start <= vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	/*
	 * Ranges may overlap (a CU's range can enclose other CUs' pieces):
	 * walk back while some earlier range still reaches past vaddr.
	 */
	for (size_t i = lo; i > 0 && m->cus[i - 1].max_end > vaddr; i--)
		if (vaddr < m->cus[i - 1].end) {
			m->last_cu = i - 1;
			return &m->cus[i - 1];
		}
	return NULL;
}

void sym_module_load_dwarf(struct sym_module *m)
{
	Dwarf_Addr bias;

	if (m->dwarf_tried)
		return;
	m->dwarf_tried = true;
	if (!m->dwmod)
		return;
	/* A file without DWARF: libdwfl looks for debuginfo now. */
	m->found.searching = !m->debug_elf && m->elf && !has_section_data(m->elf, ".debug_info");
	sym_search_begin(&m->found, m->dwfl);
	m->dwarf = dwfl_module_getdwarf(m->dwmod, &bias);
	sym_search_end(&m->found);
	m->found.searching = false;
	pr_dbg("%s: %s%s%s", m->path, m->dwarf ? "DWARF" : "no DWARF",
	       m->found.debug_file ? " in " : "", m->found.debug_file ? m->found.debug_file : "");
}

bool sym_module_line(struct sym_module *m, uint64_t vaddr, const char **file, int *line)
{
	struct sym_cu_range *cu;
	Dwarf_Line *l;
	const char *src;
	int lineno;

	sym_module_load_dwarf(m);
	if (!m->dwarf || !(cu = find_cu(m, vaddr)))
		return false;
	l = dwarf_getsrc_die(&cu->cu, vaddr);
	if (!l || !(src = dwarf_linesrc(l, NULL, NULL)) || dwarf_lineno(l, &lineno))
		return false;
	if (src[0] != '/') {
		Dwarf_Attribute attr;
		const char *dir = dwarf_formstring(dwarf_attr(&cu->cu, DW_AT_comp_dir, &attr));
		char buf[PATH_MAX];

		/* A relative comp_dir (reproducible builds) says nothing more. */
		if (dir && dir[0] == '/') {
			snprintf(buf, sizeof(buf), "%s/%s", dir, src);
			src = sym_strtab_intern(&m->strs, buf);
			if (!src)
				return false;
		}
	}
	*file = src;
	*line = lineno;
	return true;
}

size_t sym_module_read(const struct sym_module *m, uint64_t vaddr, uint8_t *buf, size_t len)
{
	size_t fsize;
	const char *raw;

	if (!m->elf || !(raw = elf_rawfile(m->elf, &fsize)))
		return 0;
	for (size_t i = 0; i < m->nr_phdrs; i++) {
		const GElf_Phdr *p = &m->phdrs[i];
		uint64_t off;

		if (vaddr < p->p_vaddr || vaddr >= p->p_vaddr + p->p_filesz)
			continue;
		off = p->p_offset + (vaddr - p->p_vaddr);
		if (len > p->p_vaddr + p->p_filesz - vaddr)
			len = p->p_vaddr + p->p_filesz - vaddr;
		if (off >= fsize)
			return 0;
		if (len > fsize - off)
			len = fsize - off;
		memcpy(buf, raw + off, len);
		return len;
	}
	return 0;
}
