// SPDX-License-Identifier: GPL-2.0
/* Functions of code no symbol names: from unwind entries, call targets, a stripped main. */
#include <dwarf.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arch/arch_sym.h"
#include "util/log.h"
#include "util/sym_elf.h"

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
	Elf_Scn *scn = sym_elf_section(elf, ".eh_frame_hdr", &shdr);
	Elf_Scn *eh_scn = sym_elf_section(elf, ".eh_frame", &eh_shdr);
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
		if (sym_elf_section(elf, names[i], &shdr) && shdr.sh_type == SHT_PROGBITS &&
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
	Elf_Scn *scn = sym_elf_section(elf, ".eh_frame", &shdr);
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
	return sym_strtab_intern(&m->strs, name);
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
void sym_elf_add_fde_functions(struct sym_module *m, uint64_t main_addr)
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
			sym_strtab_intern(&m->strs, "main") : name_by_address(m, start);
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
uint64_t sym_elf_stripped_main(const struct sym_module *m)
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
