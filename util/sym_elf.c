// SPDX-License-Identifier: GPL-2.0
/* One ELF module's function symbols, PLT names, DWARF lines and code bytes, via elfutils. */
#include <dwarf.h>
#include <elfutils/libdwelf.h>
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

static const char *strtab_intern(struct sym_strtab **tp, const char *s)
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

static Elf_Scn *find_section(Elf *elf, const char *name, GElf_Shdr *shdr)
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

	return find_section(elf, name, &shdr) && shdr.sh_type != SHT_NOBITS && shdr.sh_size;
}

/* How good a name is among aliases of one address: lower wins. */
static int bind_rank(unsigned char bind)
{
	switch (bind) {
	case STB_GLOBAL:
		return 0;
	case STB_WEAK:
		return 1;
	case STB_LOCAL:
		return 2;
	default:
		return 3;
	}
}

struct sym_cand {
	struct sym_entry e;
	uint64_t sec_end;	  /* end of the containing section: bound for unsized symbols */
	unsigned char bind, type;
	unsigned char old_version; /* "name@V": a non-default symbol version */
};

static int leading_underscores(const char *s)
{
	int n = 0;

	while (s[n] == '_')
		n++;
	return n;
}

/*
 * The alias rule (docs/symbols.md), first difference decides: exported
 * (global or weak) before local, a typed function before a NOTYPE label, a
 * sized symbol before an unsized one, fewer leading underscores, global
 * before weak, a current version before an old one ("f@@V2" before "f@V1"),
 * the shorter name (glibc's "__GI_" aliases), then the alphabetically
 * first.  Version suffixes are dropped from names: exported functions in
 * glibc's .symtab carry them.
 */
static int cand_cmp(const void *pa, const void *pb)
{
	const struct sym_cand *a = pa, *b = pb;
	int d;

	if (a->e.addr != b->e.addr)
		return a->e.addr < b->e.addr ? -1 : 1;
	d = (bind_rank(a->bind) >= 2) - (bind_rank(b->bind) >= 2);
	if (d)
		return d;
	d = (a->type == STT_NOTYPE) - (b->type == STT_NOTYPE);
	if (d)
		return d;
	d = (a->e.size == 0) - (b->e.size == 0);
	if (d)
		return d;
	d = leading_underscores(a->e.name) - leading_underscores(b->e.name);
	if (d)
		return d;
	d = bind_rank(a->bind) - bind_rank(b->bind);
	if (d)
		return d;
	d = a->old_version - b->old_version;
	if (d)
		return d;
	d = (int)strlen(a->e.name) - (int)strlen(b->e.name);
	if (d)
		return d;
	return strcmp(a->e.name, b->e.name);
}

struct cand_vec {
	struct sym_cand *v;
	size_t n, cap;
};

static bool cand_push(struct cand_vec *cv, const struct sym_cand *c)
{
	if (cv->n == cv->cap) {
		size_t ncap = cv->cap ? cv->cap * 2 : 256;
		struct sym_cand *n = realloc(cv->v, ncap * sizeof(*n));

		if (!n)
			return false;
		cv->v = n;
		cv->cap = ncap;
	}
	cv->v[cv->n++] = *c;
	return true;
}

/* Function symbols of one symbol table (elf supplies the section headers). */
static void collect_symtab(struct sym_module *m, Elf *elf, Elf_Scn *scn, struct cand_vec *cv)
{
	GElf_Shdr shdr;
	Elf_Data *data;
	size_t n;

	if (!gelf_getshdr(scn, &shdr) || !shdr.sh_entsize)
		return;
	data = elf_getdata(scn, NULL);
	if (!data)
		return;
	n = shdr.sh_size / shdr.sh_entsize;
	for (size_t i = 1; i < n; i++) {
		GElf_Sym sym;
		GElf_Shdr sec;
		Elf_Scn *secscn;
		struct sym_cand c = { 0 };
		unsigned char type;
		const char *name, *at;

		if (!gelf_getsym(data, i, &sym))
			continue;
		type = GELF_ST_TYPE(sym.st_info);
		if (type != STT_FUNC && type != STT_GNU_IFUNC && type != STT_NOTYPE)
			continue;
		if (sym.st_shndx == SHN_UNDEF || sym.st_shndx >= SHN_LORESERVE)
			continue;
		secscn = elf_getscn(elf, sym.st_shndx);
		if (!secscn || !gelf_getshdr(secscn, &sec) || !(sec.sh_flags & SHF_EXECINSTR))
			continue;
		name = elf_strptr(elf, shdr.sh_link, sym.st_name);
		/* '$' names are mapping symbols on some architectures, not functions. */
		if (!name || !*name || name[0] == '$')
			continue;
		if ((at = strchr(name, '@')) && at > name) {
			char *base = strndup(name, (size_t)(at - name));

			c.old_version = at[1] != '@';
			name = base ? strtab_intern(&m->strs, base) : NULL;
			free(base);
			if (!name)
				continue;
		}
		if (type == STT_NOTYPE) {
			char stub[512];

			/* A linker's call stub: "target@plt" (arch_sym.h). */
			if (arch_sym_stub_name(name, stub, sizeof(stub)) &&
			    !(name = strtab_intern(&m->strs, stub)))
				continue;
		}
		c.e.addr = sym.st_value;
		c.e.size = sym.st_size;
		c.e.name = c.e.raw = name;
		c.e.local_entry = (uint8_t)arch_sym_local_entry(sym.st_other);
		c.e.ifunc = type == STT_GNU_IFUNC;
		c.sec_end = sec.sh_addr + sec.sh_size;
		c.bind = GELF_ST_BIND(sym.st_info);
		c.type = type;
		cand_push(cv, &c);
	}
}

struct got_name {
	uint64_t slot;
	const char *name;
};

static int got_name_cmp(const void *pa, const void *pb)
{
	const struct got_name *a = pa, *b = pb;

	return a->slot < b->slot ? -1 : a->slot > b->slot;
}

/* The chosen name at addr among candidates sorted by cand_cmp, or NULL. */
static const char *cands_name_at(const struct cand_vec *cv, uint64_t addr)
{
	size_t lo = 0, hi = cv->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (cv->v[mid].e.addr < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < cv->n && cv->v[lo].e.addr == addr ? cv->v[lo].e.name : NULL;
}

static int u64_cmp(const void *pa, const void *pb)
{
	const uint64_t *a = pa, *b = pb;

	return *a < *b ? -1 : *a > *b;
}

static bool u64_member(const uint64_t *v, size_t nr, uint64_t x)
{
	size_t lo = 0, hi = nr;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (v[mid] < x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < nr && v[lo] == x;
}

/*
 * The symbol each wanted GOT slot (sorted) is bound to, sorted by slot.
 * Only wanted slots are named: a big program has 10^5 relative relocations.
 */
static struct got_name *load_got_names(struct sym_module *m, const struct cand_vec *cv,
				       const uint64_t *want, size_t nr_want, size_t *nr)
{
	struct got_name *v = NULL;
	size_t cap = 0;
	Elf_Scn *scn = NULL;

	*nr = 0;
	while ((scn = elf_nextscn(m->elf, scn))) {
		GElf_Shdr shdr, symshdr;
		Elf_Data *data, *symdata;
		Elf_Scn *symscn;
		size_t n;

		if (!gelf_getshdr(scn, &shdr) ||
		    (shdr.sh_type != SHT_RELA && shdr.sh_type != SHT_REL))
			continue;
		if (!shdr.sh_entsize || !(data = elf_getdata(scn, NULL)))
			continue;
		symscn = elf_getscn(m->elf, shdr.sh_link);
		if (!symscn || !gelf_getshdr(symscn, &symshdr) ||
		    !(symdata = elf_getdata(symscn, NULL)))
			continue;
		n = shdr.sh_size / shdr.sh_entsize;
		for (size_t i = 0; i < n; i++) {
			GElf_Rela rela;
			GElf_Rel rel;
			GElf_Sym sym;
			uint64_t off, info;
			int64_t addend = 0;
			const char *name;
			char buf[64];

			if (shdr.sh_type == SHT_RELA) {
				if (!gelf_getrela(data, i, &rela))
					continue;
				off = rela.r_offset, info = rela.r_info, addend = rela.r_addend;
			} else {
				if (!gelf_getrel(data, i, &rel))
					continue;
				off = rel.r_offset, info = rel.r_info;
			}
			if (!u64_member(want, nr_want, off))
				continue;
			if (GELF_R_SYM(info) == 0) {
				/*
				 * IRELATIVE: no symbol, only the address of an IFUNC
				 * resolver; named after the function there (memcpy),
				 * else as objdump does.
				 */
				name = cands_name_at(cv, addend);
				if (!name) {
					snprintf(buf, sizeof(buf), "*ABS*+0x%llx",
						 (unsigned long long)addend);
					name = strtab_intern(&m->strs, buf);
				}
			} else if (gelf_getsym(symdata, GELF_R_SYM(info), &sym)) {
				name = elf_strptr(m->elf, symshdr.sh_link, sym.st_name);
			} else {
				continue;
			}
			if (!name || !*name)
				continue;
			if (*nr == cap) {
				struct got_name *nv = realloc(v, (cap * 2 + 64) * sizeof(*nv));

				if (!nv)
					break;
				v = nv;
				cap = cap * 2 + 64;
			}
			v[(*nr)++] = (struct got_name){ off, name };
		}
	}
	if (*nr)
		qsort(v, *nr, sizeof(*v), got_name_cmp);
	return v;
}

static const char *got_name_find(const struct got_name *v, size_t nr, uint64_t slot)
{
	size_t lo = 0, hi = nr;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (v[mid].slot < slot)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < nr && v[lo].slot == slot ? v[lo].name : NULL;
}

/*
 * sym@plt for every PLT entry whose jump goes through a relocated GOT slot;
 * the section's name (".plt") for the others: PLT0, lazy binding's entries.
 */
static void collect_plt(struct sym_module *m, struct cand_vec *cv)
{
	static const char *const plts[] = { ".plt", ".plt.sec", ".plt.got" };
	enum { NR_PLTS = sizeof(plts) / sizeof(plts[0]) };
	struct { GElf_Shdr shdr; struct arch_plt_entry *ents; size_t nr; } sec[NR_PLTS] = { 0 };
	struct got_name *got = NULL;
	uint64_t *want = NULL;
	size_t nr_want = 0, nr_got = 0;

	for (size_t k = 0; k < NR_PLTS; k++) {
		Elf_Scn *scn = find_section(m->elf, plts[k], &sec[k].shdr);
		Elf_Data *data;
		size_t max;

		if (!scn || sec[k].shdr.sh_type == SHT_NOBITS || !(data = elf_rawdata(scn, NULL)))
			continue;
		max = data->d_size / 4 + 1;	/* no entry is shorter than a jump */
		sec[k].ents = calloc(max, sizeof(*sec[k].ents));
		if (!sec[k].ents)
			continue;
		sec[k].nr = arch_sym_plt_entries(data->d_buf, data->d_size, sec[k].shdr.sh_addr,
						 sec[k].shdr.sh_entsize, sec[k].ents, max);
		nr_want += sec[k].nr;
	}
	if (nr_want && (want = malloc(nr_want * sizeof(*want)))) {
		nr_want = 0;
		for (size_t k = 0; k < NR_PLTS; k++)
			for (size_t i = 0; i < sec[k].nr; i++)
				if (sec[k].ents[i].got_slot)
					want[nr_want++] = sec[k].ents[i].got_slot;
		qsort(want, nr_want, sizeof(*want), u64_cmp);
		got = load_got_names(m, cv, want, nr_want, &nr_got);
	}
	for (size_t k = 0; k < NR_PLTS; k++) {
		for (size_t i = 0; i < sec[k].nr; i++) {
			const struct arch_plt_entry *pe = &sec[k].ents[i];
			struct sym_cand c = { 0 };
			const char *target;
			char *buf;

			/* PLT0 and lazy binding's entries: named as the section, as objdump does */
			if (!pe->got_slot || !(target = got_name_find(got, nr_got, pe->got_slot)))
				buf = strdup(plts[k]);
			else if (asprintf(&buf, "%s@plt", target) < 0)
				buf = NULL;
			if (!buf)
				continue;
			c.e.name = c.e.raw = strtab_intern(&m->strs, buf);
			free(buf);
			if (!c.e.name)
				continue;
			c.e.addr = pe->addr;
			c.e.size = pe->size;
			c.sec_end = sec[k].shdr.sh_addr + sec[k].shdr.sh_size;
			c.bind = STB_GLOBAL;
			c.type = STT_FUNC;
			cand_push(cv, &c);
		}
		free(sec[k].ents);
	}
	free(want);
	free(got);
}

static Elf_Scn *find_symtab(Elf *elf, GElf_Word type)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr shdr;

	while (elf && (scn = elf_nextscn(elf, scn)))
		if (gelf_getshdr(scn, &shdr) && shdr.sh_type == type && shdr.sh_size)
			return scn;
	return NULL;
}

/*
 * The function table: .symtab of the file, else .symtab of its debuginfo,
 * else .dynsym; plus PLT entries.  Unsized symbols (assembly labels) extend
 * to the next symbol or the end of their section.
 */
static void load_symbols(struct sym_module *m)
{
	struct cand_vec cv = { 0 };
	Elf_Scn *scn;
	size_t out = 0;

	if ((scn = find_symtab(m->elf, SHT_SYMTAB)))
		collect_symtab(m, m->elf, scn, &cv);
	else if ((scn = find_symtab(m->debug_elf, SHT_SYMTAB)))
		collect_symtab(m, m->debug_elf, scn, &cv);
	else if ((scn = find_symtab(m->stand_in_elf, SHT_SYMTAB)))
		collect_symtab(m, m->stand_in_elf, scn, &cv);
	else if ((scn = find_symtab(m->elf, SHT_DYNSYM)))
		collect_symtab(m, m->elf, scn, &cv);
	/* Sorted before the PLT is named: IRELATIVE entries look names up. */
	if (cv.n)
		qsort(cv.v, cv.n, sizeof(*cv.v), cand_cmp);
	if (m->elf) {
		size_t before = cv.n;

		collect_plt(m, &cv);
		if (cv.n > before)
			qsort(cv.v, cv.n, sizeof(*cv.v), cand_cmp);
	}
	if (!cv.n)
		return;

	m->aliases = malloc(cv.n * sizeof(*m->aliases));
	m->syms = malloc(cv.n * sizeof(*m->syms));
	if (!m->aliases || !m->syms) {
		free(cv.v);
		return;
	}
	for (size_t i = 0; i < cv.n; i++)
		m->aliases[i] = cv.v[i].e;
	m->nr_aliases = cv.n;

	for (size_t i = 0; i < cv.n;) {
		size_t j = i + 1;
		struct sym_cand best = cv.v[i];

		/* The winner keeps its name; an unsized winner takes a sized alias's size. */
		for (; j < cv.n && cv.v[j].e.addr == best.e.addr; j++) {
			if (!best.e.size && cv.v[j].e.size)
				best.e.size = cv.v[j].e.size;
			if (!best.e.local_entry)
				best.e.local_entry = cv.v[j].e.local_entry;
		}
		if (!best.e.size) {
			uint64_t end = best.sec_end;

			if (j < cv.n && cv.v[j].e.addr < end)
				end = cv.v[j].e.addr;
			best.e.size = end > best.e.addr ? end - best.e.addr : 0;
		}
		if (best.e.size)
			m->syms[out++] = best.e;
		i = j;
	}
	m->nr_syms = out;
	/* Aliases take the size of the function at their address. */
	for (size_t i = 0, k = 0; i < m->nr_aliases; i++) {
		while (k < out && m->syms[k].addr < m->aliases[i].addr)
			k++;
		if (k < out && m->syms[k].addr == m->aliases[i].addr)
			m->aliases[i].size = m->syms[k].size;
	}
	/* Lookup by name finds current versions first: old ones go last
	 * (memcpy@GLIBC_2.2.5 is not what "memcpy" means today). */
	struct sym_entry *ordered = malloc(cv.n * sizeof(*ordered));

	if (ordered) {
		size_t k = 0;

		for (int pass = 0; pass < 2; pass++)
			for (size_t i = 0; i < cv.n; i++)
				if (cv.v[i].old_version == pass)
					ordered[k++] = m->aliases[i];
		free(m->aliases);
		m->aliases = ordered;
	}
	free(cv.v);
}

/* ---- functions from unwind tables, for code without symbols ---- */

/* One value of .eh_frame_hdr in the file's byte order; false past the end. */
static bool hdr_read(const uint8_t *p, const uint8_t *end, size_t n, bool msb, uint64_t *v)
{
	if ((size_t)(end - p) < n)
		return false;
	*v = 0;
	for (size_t i = 0; i < n; i++)
		*v |= (uint64_t)p[msb ? n - 1 - i : i] << (8 * i);
	return true;
}

/* Bytes of a DW_EH_PE_* value format used by .eh_frame_hdr, 0 if unsupported. */
static size_t eh_pe_size(uint8_t enc)
{
	switch (enc & 0x0f) {
	case DW_EH_PE_udata4:
	case DW_EH_PE_sdata4:
		return 4;
	case DW_EH_PE_udata8:
	case DW_EH_PE_sdata8:
		return 8;
	default:
		return 0;
	}
}

/* An FDE: the code [start, end) it describes. */
struct fde_range {
	uint64_t start, end;
};

/*
 * The range an FDE at address fde (in .eh_frame, data eh) covers, its
 * initial location being loc (from .eh_frame_hdr).  libdw's dwarf_next_cfi
 * finds the FDE's fields; their pointer encoding is the CIE's, so the
 * 4- and 8-byte forms are tried and the one that reads loc back tells the
 * size of the length that follows.
 */
static bool fde_range(Elf_Data *eh, uint64_t eh_addr, const unsigned char *ident, bool msb,
		      uint64_t fde, uint64_t loc, struct fde_range *r)
{
	Dwarf_CFI_Entry entry;
	Dwarf_Off next;
	const uint8_t *p, *end;
	uint64_t v, at;

	if (fde < eh_addr || fde - eh_addr >= eh->d_size ||
	    dwarf_next_cfi(ident, eh, true, fde - eh_addr, &next, &entry) ||
	    dwarf_cfi_cie_p(&entry))
		return false;
	p = entry.fde.start;
	end = entry.fde.end;
	at = eh_addr + (uint64_t)(p - (const uint8_t *)eh->d_buf);
	for (size_t n = 4; n <= 8; n += 4) {
		if (!hdr_read(p, end, n, msb, &v))
			return false;
		if (n == 4 ? at + (uint64_t)(int64_t)(int32_t)v != loc && v != loc :
			     at + v != loc && v != loc)
			continue;
		if (!hdr_read(p + n, end, n, msb, &v))
			return false;
		r->start = loc;
		r->end = loc + v;
		return true;
	}
	return false;
}

/*
 * Every FDE's range, found from .eh_frame_hdr's sorted search table.
 * Linkers (GNU ld, gold, lld) write it as datarel sdata4 offsets from the
 * section's start; another layout yields nothing.  Returns the number,
 * *out malloc'd.
 */
static size_t fde_ranges(Elf *elf, struct fde_range **out)
{
	GElf_Shdr shdr, eh_shdr;
	GElf_Ehdr ehdr;
	Elf_Scn *scn = find_section(elf, ".eh_frame_hdr", &shdr);
	Elf_Scn *eh_scn = find_section(elf, ".eh_frame", &eh_shdr);
	Elf_Data *d = scn && shdr.sh_type != SHT_NOBITS ? elf_rawdata(scn, NULL) : NULL;
	Elf_Data *eh = eh_scn && eh_shdr.sh_type != SHT_NOBITS ? elf_rawdata(eh_scn, NULL) : NULL;
	const uint8_t *p, *end;
	uint64_t count, v, f;
	size_t ptr_size, count_size, n = 0;
	bool msb;

	*out = NULL;
	if (!d || !eh || d->d_size < 4 || !gelf_getehdr(elf, &ehdr))
		return 0;
	msb = ehdr.e_ident[EI_DATA] == ELFDATA2MSB;
	p = d->d_buf;
	end = p + d->d_size;
	ptr_size = eh_pe_size(p[1]);
	count_size = eh_pe_size(p[2]);
	if (p[0] != 1 || !ptr_size || !count_size || p[3] != (DW_EH_PE_datarel | DW_EH_PE_sdata4))
		return 0;
	p += 4 + ptr_size;
	if (!hdr_read(p, end, count_size, msb, &count) || count > (uint64_t)(end - p) / 8)
		return 0;
	p += count_size;
	*out = malloc((count ? count : 1) * sizeof(**out));
	if (!*out)
		return 0;
	for (; count && hdr_read(p, end, 4, msb, &v) && hdr_read(p + 4, end, 4, msb, &f);
	     count--, p += 8) {
		uint64_t loc = shdr.sh_addr + (uint64_t)(int64_t)(int32_t)v;

		f = shdr.sh_addr + (uint64_t)(int64_t)(int32_t)f;
		if (fde_range(eh, eh_shdr.sh_addr, ehdr.e_ident, msb, f, loc, &(*out)[n]))
			n++;
	}
	return n;
}

/* Whether a function of syms[0..nr) (sorted, disjoint) covers vaddr; *next: first one after. */
static bool syms_cover(const struct sym_entry *syms, size_t nr, uint64_t vaddr, uint64_t *next)
{
	size_t lo = 0, hi = nr;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (syms[mid].addr <= vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	*next = lo < nr ? syms[lo].addr : UINT64_MAX;
	return lo && vaddr - syms[lo - 1].addr < syms[lo - 1].size;
}

static int entry_addr_cmp(const void *pa, const void *pb)
{
	const struct sym_entry *a = pa, *b = pb;

	return a->addr < b->addr ? -1 : a->addr > b->addr;
}

static int fde_range_cmp(const void *pa, const void *pb)
{
	const struct fde_range *a = pa, *b = pb;

	return a->start < b->start ? -1 : a->start > b->start;
}

/*
 * .init and .fini are one function each (DT_INIT, DT_FINI) that crti.o
 * gives no FDE: appended to fdes (room for two more).
 */
static size_t add_init_fini(Elf *elf, struct fde_range *fdes, size_t nr)
{
	static const char *const names[] = { ".init", ".fini" };
	GElf_Shdr shdr;

	for (size_t i = 0; i < 2; i++)
		if (find_section(elf, names[i], &shdr) && shdr.sh_type == SHT_PROGBITS &&
		    (shdr.sh_flags & SHF_EXECINSTR) && shdr.sh_size)
			fdes[nr++] = (struct fde_range){ shdr.sh_addr, shdr.sh_addr + shdr.sh_size };
	return nr;
}

/* The executable segment holding vaddr, or NULL. */
static const GElf_Phdr *code_segment(const struct sym_module *m, uint64_t vaddr)
{
	for (size_t i = 0; i < m->nr_phdrs; i++)
		if ((m->phdrs[i].p_flags & PF_X) && vaddr >= m->phdrs[i].p_vaddr &&
		    vaddr - m->phdrs[i].p_vaddr < m->phdrs[i].p_memsz)
			return &m->phdrs[i];
	return NULL;
}

/*
 * The FDE starting at loc, read from .eh_frame entry by entry: for a
 * module without .eh_frame_hdr's table (static programs have none).
 */
static bool eh_frame_fde_at(Elf *elf, uint64_t loc, struct fde_range *r)
{
	GElf_Shdr shdr;
	GElf_Ehdr ehdr;
	Elf_Scn *scn = find_section(elf, ".eh_frame", &shdr);
	Elf_Data *eh = scn && shdr.sh_type != SHT_NOBITS ? elf_rawdata(scn, NULL) : NULL;
	Dwarf_CFI_Entry entry;
	Dwarf_Off off = 0, next;

	if (!eh || !gelf_getehdr(elf, &ehdr))
		return false;
	for (; !dwarf_next_cfi(ehdr.e_ident, eh, true, off, &next, &entry); off = next)
		if (!dwarf_cfi_cie_p(&entry) &&
		    fde_range(eh, shdr.sh_addr, ehdr.e_ident, ehdr.e_ident[EI_DATA] == ELFDATA2MSB,
			      shdr.sh_addr + off, loc, r))
			return true;
	return false;
}

/*
 * main's own function when no FDE of fdes (sorted, room for one more)
 * starts at it: its FDE found in .eh_frame, else (in a module with FDEs)
 * from main to the next FDE or symbol, cutting an FDE that covers it.
 * Without either its end is unknown and main stays unnamed.  Returns the
 * number of fdes.
 */
static size_t add_main(const struct sym_module *m, struct fde_range *fdes, size_t nr,
		       uint64_t main_addr)
{
	const GElf_Phdr *seg = code_segment(m, main_addr);
	uint64_t end = seg->p_vaddr + seg->p_memsz, next_sym;
	struct fde_range own;

	for (size_t i = 0; i < nr; i++)
		if (fdes[i].start == main_addr)
			return nr;
	if (eh_frame_fde_at(m->elf, main_addr, &own)) {
		end = own.end;
	} else if (nr) {
		for (size_t i = 0; i < nr; i++)
			if (fdes[i].start > main_addr) {
				end = fdes[i].start < end ? fdes[i].start : end;
				break;
			}
		syms_cover(m->syms, m->nr_syms, main_addr, &next_sym);
		if (next_sym < end)
			end = next_sym;
	} else {
		return nr;
	}
	for (size_t i = 0; i < nr; i++)
		if (fdes[i].start < main_addr && fdes[i].end > main_addr)
			fdes[i].end = main_addr;
	fdes[nr++] = (struct fde_range){ main_addr, end };
	return nr;
}

/* Functions of their own, named after their entry: MODULE+0xVADDR. */
static const char *name_by_address(struct sym_module *m, uint64_t vaddr)
{
	char name[PATH_MAX + 24];

	snprintf(name, sizeof(name), "%s+0x%" PRIx64, m->name, vaddr);
	return strtab_intern(&m->strs, name);
}

/* fn[0..n), sorted and disjoint, none covered yet, join the module's functions. */
static void add_functions(struct sym_module *m, const struct sym_entry *fn, size_t n)
{
	struct sym_entry *s, *a;

	if (!n)
		return;
	s = realloc(m->syms, (m->nr_syms + n) * sizeof(*s));
	if (s)
		m->syms = s;
	a = realloc(m->aliases, (m->nr_aliases + n) * sizeof(*a));
	if (a)
		m->aliases = a;
	if (!s || !a)
		return;
	memcpy(m->syms + m->nr_syms, fn, n * sizeof(*fn));
	memcpy(m->aliases + m->nr_aliases, fn, n * sizeof(*fn));
	m->nr_syms += n;
	m->nr_aliases += n;
	qsort(m->syms, m->nr_syms, sizeof(*m->syms), entry_addr_cmp);
	m->last_hit = 0;
}

/*
 * Stripped code is still cut into functions by its unwind table: each FDE
 * (and .init, .fini) whose entry no symbol covers becomes a function named
 * MODULE+0xVADDR (the module_offset of its entry, as single instructions
 * are named), ending where its FDE or the next symbol does.  The one at
 * main_addr (0: none) is main, made up when no FDE starts there.
 */
static void add_fde_functions(struct sym_module *m, uint64_t main_addr)
{
	struct fde_range *fdes = NULL;
	size_t nr = m->elf ? fde_ranges(m->elf, &fdes) : 0, added = 0;
	struct sym_entry *fn;

	if (m->elf) {
		struct fde_range *more = realloc(fdes, (nr + 3) * sizeof(*fdes));

		if (more) {
			fdes = more;
			nr = add_init_fini(m->elf, fdes, nr);
			qsort(fdes, nr, sizeof(*fdes), fde_range_cmp);
			if (main_addr) {
				nr = add_main(m, fdes, nr, main_addr);
				qsort(fdes, nr, sizeof(*fdes), fde_range_cmp);
			}
		}
	}
	fn = nr ? calloc(nr, sizeof(*fn)) : NULL;

	for (size_t i = 0; fn && i < nr; i++) {
		uint64_t start = fdes[i].start, end = fdes[i].end, next;

		if (syms_cover(m->syms, m->nr_syms, start, &next))
			continue;
		if (end > next)
			end = next;
		if (end <= start || (added && start < fn[added - 1].addr + fn[added - 1].size))
			continue;
		fn[added].name = fn[added].raw = start == main_addr ?
			strtab_intern(&m->strs, "main") : name_by_address(m, start);
		if (!fn[added].name)
			continue;
		fn[added].addr = start;
		fn[added].size = end - start;
		added++;
	}
	add_functions(m, fn, added);
	pr_dbg("%s: %zu functions from unwind entries", m->path, added);
	free(fn);
	free(fdes);
}

static int vaddr_cmp(const void *pa, const void *pb)
{
	uint64_t a = *(const uint64_t *)pa, b = *(const uint64_t *)pb;

	return a < b ? -1 : a > b;
}

/* Sort the noted targets and drop repeats; returns how many are left. */
static size_t unique_targets(struct sym_module *m)
{
	size_t n = 0;

	qsort(m->call_targets, m->nr_call_targets, sizeof(*m->call_targets), vaddr_cmp);
	for (size_t i = 0; i < m->nr_call_targets; i++)
		if (!n || m->call_targets[i] != m->call_targets[n - 1])
			m->call_targets[n++] = m->call_targets[i];
	return m->nr_call_targets = n;
}

bool sym_module_note_call(struct sym_module *m, uint64_t vaddr)
{
	if (m->nr_call_targets == m->cap_call_targets) {
		size_t ncap;
		uint64_t *n;

		/* the pass notes a target again after its cache forgot it: repeats go first */
		if (m->cap_call_targets && unique_targets(m) * 2 <= m->cap_call_targets) {
			m->call_targets[m->nr_call_targets++] = vaddr;
			return true;
		}
		ncap = m->cap_call_targets ? 2 * m->cap_call_targets : 64;
		n = reallocarray(m->call_targets, ncap, sizeof(*n));
		if (!n)
			return false;
		m->call_targets = n;
		m->cap_call_targets = ncap;
	}
	m->call_targets[m->nr_call_targets++] = vaddr;
	return true;
}

/* The end of the loadable segment holding vaddr, 0 if none does. */
static uint64_t segment_end(const struct sym_module *m, uint64_t vaddr)
{
	for (size_t i = 0; i < m->nr_phdrs; i++)
		if (vaddr - m->phdrs[i].p_vaddr < m->phdrs[i].p_memsz)
			return m->phdrs[i].p_vaddr + m->phdrs[i].p_memsz;
	return 0;
}

static uint64_t program_entry(const struct sym_module *m);

void sym_module_split_at_calls(struct sym_module *m)
{
	uint64_t entry = m->call_targets ? program_entry(m) : 0;
	size_t n, added = 0;
	struct sym_entry *fn;

	/* A program's entry (_start) starts a function too: nothing calls it. */
	if (entry)
		sym_module_note_call(m, entry);
	n = m->call_targets ? unique_targets(m) : 0;
	fn = n ? calloc(n, sizeof(*fn)) : NULL;

	for (size_t i = 0; fn && i < n; i++) {
		uint64_t start = m->call_targets[i], end = segment_end(m, start), next;

		if (syms_cover(m->syms, m->nr_syms, start, &next))
			continue;	/* a function covers it after all */
		if (end > next)
			end = next;
		if (i + 1 < n && end > m->call_targets[i + 1])
			end = m->call_targets[i + 1];
		if (end <= start)
			continue;
		fn[added].name = fn[added].raw = name_by_address(m, start);
		if (!fn[added].name)
			continue;
		fn[added].addr = start;
		fn[added].size = end - start;
		added++;
	}
	add_functions(m, fn, added);
	pr_dbg("%s: %zu functions from call targets", m->path, added);
	free(fn);
	free(m->call_targets);
	m->call_targets = NULL;
	m->nr_call_targets = m->cap_call_targets = 0;
}

/* ---- main of a stripped program ---- */

static size_t image_read(const void *ctx, uint64_t vaddr, uint8_t *buf, size_t len)
{
	return sym_module_read(ctx, vaddr, buf, len);
}

static bool image_reloc(const void *ctx, uint64_t vaddr, unsigned *type, uint64_t *sym,
			int64_t *addend)
{
	const struct sym_module *m = ctx;
	Elf_Scn *scn = NULL;
	GElf_Shdr shdr;

	while ((scn = elf_nextscn(m->elf, scn))) {
		Elf_Data *data;
		GElf_Rela rela;

		if (!gelf_getshdr(scn, &shdr) || shdr.sh_type != SHT_RELA || !shdr.sh_entsize ||
		    !(data = elf_getdata(scn, NULL)))
			continue;
		for (size_t i = 0; i < shdr.sh_size / shdr.sh_entsize; i++) {
			if (!gelf_getrela(data, i, &rela) || rela.r_offset != vaddr)
				continue;
			*type = GELF_R_TYPE(rela.r_info);
			*sym = GELF_R_SYM(rela.r_info);
			*addend = rela.r_addend;
			return true;
		}
	}
	return false;
}

/* Whether a dynamic entry of elf is tag. */
static bool has_dynamic_tag(Elf *elf, GElf_Sxword tag)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr shdr;
	GElf_Dyn dyn;

	while ((scn = elf_nextscn(elf, scn))) {
		Elf_Data *data;

		if (!gelf_getshdr(scn, &shdr) || shdr.sh_type != SHT_DYNAMIC || !shdr.sh_entsize ||
		    !(data = elf_getdata(scn, NULL)))
			continue;
		for (size_t i = 0; i < shdr.sh_size / shdr.sh_entsize; i++)
			if (gelf_getdyn(data, i, &dyn) && dyn.d_tag == tag)
				return true;
	}
	return false;
}

/*
 * Whether elf is a program, whose entry is _start: a fixed-address
 * executable, or a PIE (it names an interpreter).  A shared library that
 * can run (libc.so.6 names one too) has a soname and another entry.
 */
static bool is_program(Elf *elf, const GElf_Ehdr *ehdr)
{
	size_t n;
	GElf_Phdr ph;
	bool interp = false;

	if (ehdr->e_type == ET_EXEC)
		return true;
	if (ehdr->e_type != ET_DYN || elf_getphdrnum(elf, &n))
		return false;
	for (size_t i = 0; i < n && !interp; i++)
		interp = gelf_getphdr(elf, i, &ph) && ph.p_type == PT_INTERP;
	return interp && !has_dynamic_tag(elf, DT_SONAME);
}

/* A program's entry point, 0 for a library or when unknown. */
static uint64_t program_entry(const struct sym_module *m)
{
	GElf_Ehdr ehdr;

	if (!m->elf || !gelf_getehdr(m->elf, &ehdr) || !is_program(m->elf, &ehdr))
		return 0;
	return ehdr.e_entry;
}

/*
 * Where main is in a program no symbol names it in (stripped, no
 * debuginfo found): its _start passes it to __libc_start_main
 * (arch_sym_entry_main).  0 when unknown, not in executable code, or
 * inside a function a symbol names.
 */
static uint64_t stripped_main(const struct sym_module *m)
{
	struct arch_elf_image img = { .ctx = m, .read = image_read, .reloc = image_reloc };
	GElf_Ehdr ehdr;
	uint64_t addr, next;

	/* Libraries first: their alias lists are the long ones. */
	if (!m->elf || !gelf_getehdr(m->elf, &ehdr) || !is_program(m->elf, &ehdr) ||
	    sym_module_find_name(m, "main"))
		return 0;
	img.machine = ehdr.e_machine;
	img.entry = ehdr.e_entry;
	/* A symbol of another name there (an export) keeps it. */
	if (!arch_sym_entry_main(&img, &addr) || !addr || !code_segment(m, addr) ||
	    syms_cover(m->syms, m->nr_syms, addr, &next))
		return 0;
	pr_dbg("%s: main at 0x%" PRIx64 ", from its entry code", m->path, addr);
	return addr;
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
	load_symbols(m);
	add_fde_functions(m, stripped_main(m));
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
	name = strtab_intern(&m->strs, d);
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
			src = strtab_intern(&m->strs, buf);
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
