// SPDX-License-Identifier: GPL-2.0
/* One ELF module's function table from its .symtab or .dynsym and its PLT entries. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arch/arch_sym.h"
#include "util/sym_elf.h"

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
			name = base ? sym_strtab_intern(&m->strs, base) : NULL;
			free(base);
			if (!name)
				continue;
		}
		if (type == STT_NOTYPE) {
			char stub[512];

			/* A linker's call stub: "target@plt" (arch_sym.h). */
			if (arch_sym_stub_name(name, stub, sizeof(stub)) &&
			    !(name = sym_strtab_intern(&m->strs, stub)))
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

/* The symbol a relocation (info, addend; symbols in symdata, names in strndx) binds, or NULL. */
static const char *reloc_name(struct sym_module *m, const struct cand_vec *cv, Elf_Data *symdata,
			      GElf_Word strndx, uint64_t info, int64_t addend)
{
	const char *name;
	GElf_Sym sym;
	char buf[64];

	if (GELF_R_SYM(info) == 0) {
		/*
		 * IRELATIVE: no symbol, only the address of an IFUNC
		 * resolver; named after the function there (memcpy),
		 * else as objdump does.
		 */
		name = cands_name_at(cv, addend);
		if (!name) {
			snprintf(buf, sizeof(buf), "*ABS*+0x%llx", (unsigned long long)addend);
			name = sym_strtab_intern(&m->strs, buf);
		}
		return name;
	}
	if (!gelf_getsym(symdata, GELF_R_SYM(info), &sym))
		return NULL;
	return elf_strptr(m->elf, strndx, sym.st_name);
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
			uint64_t off, info;
			int64_t addend = 0;
			const char *name;

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
			name = reloc_name(m, cv, symdata, symshdr.sh_link, info, addend);
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
		Elf_Scn *scn = sym_elf_section(m->elf, plts[k], &sec[k].shdr);
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
			c.e.name = c.e.raw = sym_strtab_intern(&m->strs, buf);
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
 * One function per address of cv (sorted by cand_cmp) into syms: the
 * winner keeps its name; an unsized winner takes a sized alias's size, and
 * one without a local entry an alias's; still unsized, it extends to the
 * next symbol or the end of its section.  Returns how many.
 */
static size_t pick_functions(const struct cand_vec *cv, struct sym_entry *syms)
{
	size_t out = 0;

	for (size_t i = 0; i < cv->n;) {
		size_t j = i + 1;
		struct sym_cand best = cv->v[i];

		for (; j < cv->n && cv->v[j].e.addr == best.e.addr; j++) {
			if (!best.e.size && cv->v[j].e.size)
				best.e.size = cv->v[j].e.size;
			if (!best.e.local_entry)
				best.e.local_entry = cv->v[j].e.local_entry;
		}
		if (!best.e.size) {
			uint64_t end = best.sec_end;

			if (j < cv->n && cv->v[j].e.addr < end)
				end = cv->v[j].e.addr;
			best.e.size = end > best.e.addr ? end - best.e.addr : 0;
		}
		if (best.e.size)
			syms[out++] = best.e;
		i = j;
	}
	return out;
}

/*
 * Lookup by name finds current versions first: old ones go last
 * (memcpy@GLIBC_2.2.5 is not what "memcpy" means today).  m->aliases
 * are cv's entries, in cv's order.
 */
static void order_aliases(struct sym_module *m, const struct cand_vec *cv)
{
	struct sym_entry *ordered = malloc(cv->n * sizeof(*ordered));
	size_t k = 0;

	if (!ordered)
		return;
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < cv->n; i++)
			if (cv->v[i].old_version == pass)
				ordered[k++] = m->aliases[i];
	free(m->aliases);
	m->aliases = ordered;
}

/*
 * The function table: .symtab of the file, else .symtab of its debuginfo,
 * else .dynsym; plus PLT entries.  Unsized symbols (assembly labels) extend
 * to the next symbol or the end of their section.
 */
void sym_elf_load_symbols(struct sym_module *m)
{
	struct cand_vec cv = { 0 };
	Elf_Scn *scn;
	size_t out;

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
	out = pick_functions(&cv, m->syms);
	m->nr_syms = out;
	/* Aliases take the size of the function at their address. */
	for (size_t i = 0, k = 0; i < m->nr_aliases; i++) {
		while (k < out && m->syms[k].addr < m->aliases[i].addr)
			k++;
		if (k < out && m->syms[k].addr == m->aliases[i].addr)
			m->aliases[i].size = m->syms[k].size;
	}
	order_aliases(m, &cv);
	free(cv.v);
}
