// SPDX-License-Identifier: GPL-2.0
/* Symbol sessions: per-process address spaces from task records, resolved through ELF modules. */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "arch/arch_sym.h"
#include "util/hashtab.h"
#include "util/log.h"
#include "util/sym_elf.h"
#include "util/sym_kernel.h"
#include "util/sym_search.h"
#include "util/symbols.h"
#include "util/trace_reader.h"

#define DELETED_SUFFIX " (deleted)"

/*
 * Exited processes keep their address space until this many more have
 * exited (and nothing about them was recorded since): no step follows an exit, so this only bounds memory for traces of
 * many short-lived processes (shell scripts) while tolerating records that
 * arrive slightly out of order.
 */
#define EXITED_KEEP 1024

/* One mapping of a process; module and bias are found on first use. */
struct sym_range {
	uint64_t start, end;
	uint64_t pgoff;
	uint32_t prot;
	enum sym_kind kind;
	const char *path;	  /* interned in the session */
	uint8_t build_id_len;
	uint8_t build_id[PT_BUILD_ID_MAX];
	bool resolved;		  /* mod and bias below are valid */
	struct sym_module *mod;
	uint64_t bias;
};

struct sym_space {
	bool exited;		  /* every thread exited, nothing happened since */
	bool leader_gone;	  /* the leader's EXIT was seen (pthread_exit in main) */
	int threads;		  /* other threads alive, as FORK/EXIT records tell */
	struct sym_range *r;	  /* sorted by start, not overlapping */
	size_t n, cap;
	size_t last;		  /* index of the last range hit */
};

static inline uint64_t pid_hash(const uint32_t *pid)
{
	return hashtab_mix64(*pid);
}

static inline bool pid_eq(const uint32_t *a, const uint32_t *b)
{
	return *a == *b;
}

/* The address spaces by pid. */
HASHTAB_DEFINE(space_map, uint32_t, struct sym_space, pid_hash, pid_eq)

struct sym_session {
	struct sym_session *owner; /* sym_session_fork: whose modules, options and search these
				    * are (NULL: its own) */
	char *trace_dir, *debug_dir, *vmlinux, *sysroot;
	bool demangle;		  /* C++ names demangled (the default) */
	struct space_map spaces;
	struct space_map_entry *last_space; /* in spaces (updated whenever entries move) */
	struct sym_module *modules;
	char **paths;		  /* interned mapping paths */
	size_t nr_paths, cap_paths;
	struct sym_search *search; /* where modules' files are looked for */
	struct sym_kernel *kernel;
	bool kernel_tried;
	bool warned_missing;	  /* a traced file not found here was named (once) */
	uint32_t exited[EXITED_KEEP]; /* pids of exited processes, oldest at exited_next */
	size_t exited_next, nr_exited;
	void (*uncovered)(void *ctx); /* sym_on_uncovered: called once, then NULL */
	void *uncovered_ctx;
};

static char *dup_opt(const char *s)
{
	return s ? strdup(s) : NULL;
}

struct sym_session *sym_session_new(const struct sym_options *opts)
{
	struct sym_session *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->demangle = !opts || !opts->no_demangle;
	if (opts) {
		s->trace_dir = dup_opt(opts->trace_dir);
		s->debug_dir = dup_opt(opts->debug_dir);
		s->vmlinux = dup_opt(opts->vmlinux);
		s->sysroot = dup_opt(opts->sysroot);
	}
	s->search = sym_search_new(s->debug_dir, opts ? opts->buildid_dir : NULL, s->sysroot);
	if (!s->search) {
		sym_session_free(s);
		return NULL;
	}
	return s;
}

struct sym_session *sym_session_fork(struct sym_session *parent)
{
	struct sym_session *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->owner = parent->owner ? parent->owner : parent;
	s->demangle = s->owner->demangle;
	s->trace_dir = s->owner->trace_dir;
	s->debug_dir = s->owner->debug_dir;
	s->vmlinux = s->owner->vmlinux;
	s->sysroot = s->owner->sysroot;
	s->search = s->owner->search;
	s->kernel_tried = true;	/* user code only: no kernel symbols to load */
	return s;
}

void sym_session_free(struct sym_session *s)
{
	if (!s)
		return;
	for (struct space_map_entry *e = NULL; (e = space_map_next(&s->spaces, e));)
		free(e->val.r);
	space_map_free(&s->spaces);
	for (size_t i = 0; i < s->nr_paths; i++)
		free(s->paths[i]);
	free(s->paths);
	if (s->owner) {
		free(s);
		return;
	}
	while (s->modules) {
		struct sym_module *m = s->modules;

		s->modules = m->next;
		sym_module_free(m);
	}
	sym_kernel_free(s->kernel);
	sym_search_free(s->search);
	free(s->trace_dir);
	free(s->debug_dir);
	free(s->vmlinux);
	free(s->sysroot);
	free(s);
}

/* Mapping paths repeat across processes (fork, exec of the same program). */
static const char *intern_path(struct sym_session *s, const char *p)
{
	for (size_t i = s->nr_paths; i-- > 0;)
		if (!strcmp(s->paths[i], p))
			return s->paths[i];
	if (s->nr_paths == s->cap_paths) {
		size_t ncap = s->cap_paths ? s->cap_paths * 2 : 32;
		char **n = realloc(s->paths, ncap * sizeof(*n));

		if (!n)
			return NULL;
		s->paths = n;
		s->cap_paths = ncap;
	}
	s->paths[s->nr_paths] = strdup(p);
	return s->paths[s->nr_paths] ? s->paths[s->nr_paths++] : NULL;
}

/* ---- address spaces ---- */

static struct sym_space *space_find(struct sym_session *s, uint32_t pid)
{
	struct space_map_entry *e;

	if (s->last_space && s->last_space->key == pid)
		return &s->last_space->val;
	e = space_map_find(&s->spaces, &pid);
	if (!e)
		return NULL;
	s->last_space = e;
	return &e->val;
}

/* pid's space, made empty if there is none.  May move every space: pointers to them go stale. */
static struct sym_space *space_get(struct sym_session *s, uint32_t pid)
{
	struct space_map_entry *e;
	bool added;

	if (s->last_space && s->last_space->key == pid)
		return &s->last_space->val;
	e = space_map_insert(&s->spaces, &pid, &added);
	s->last_space = e;
	return e ? &e->val : NULL;
}

static bool space_reserve(struct sym_space *sp, size_t extra)
{
	if (sp->n + extra > sp->cap) {
		size_t ncap = sp->cap ? sp->cap * 2 : 32;
		struct sym_range *n;

		while (ncap < sp->n + extra)
			ncap *= 2;
		n = realloc(sp->r, ncap * sizeof(*n));
		if (!n)
			return false;
		sp->r = n;
		sp->cap = ncap;
	}
	return true;
}

/* First range whose end is above addr. */
static size_t range_lower(const struct sym_space *sp, uint64_t addr)
{
	size_t lo = 0, hi = sp->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (sp->r[mid].end <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Remove [start, end) from a space, keeping the pieces of ranges cut across. */
static void space_punch(struct sym_space *sp, uint64_t start, uint64_t end)
{
	size_t i = range_lower(sp, start), j;

	if (i < sp->n && sp->r[i].start < start && sp->r[i].end > end) {
		/* One range split in two around the hole. */
		struct sym_range right;

		if (!space_reserve(sp, 1))
			return;
		right = sp->r[i];
		right.pgoff += end - right.start;
		right.start = end;
		sp->r[i].end = start;
		memmove(&sp->r[i + 2], &sp->r[i + 1], (sp->n - i - 1) * sizeof(*sp->r));
		sp->r[i + 1] = right;
		sp->n++;
		sp->last = 0;
		return;
	}
	if (i < sp->n && sp->r[i].start < start) {
		sp->r[i].end = start;
		i++;
	}
	for (j = i; j < sp->n && sp->r[j].end <= end; j++)
		;
	if (j < sp->n && sp->r[j].start < end) {
		sp->r[j].pgoff += end - sp->r[j].start;
		sp->r[j].start = end;
	}
	if (j > i) {
		memmove(&sp->r[i], &sp->r[j], (sp->n - j) * sizeof(*sp->r));
		sp->n -= j - i;
	}
	sp->last = 0;
}

/* Files have absolute paths in /proc/PID/maps; "[heap]", "anon_inode:..." do not. */
enum sym_kind sym_path_kind(const char *path)
{
	if (!strcmp(path, "[vdso]"))
		return SYM_KIND_VDSO;
	if (path[0] != '/' || !strncmp(path, "//anon", 6) || !strncmp(path, "/memfd:", 7))
		return SYM_KIND_ANON;
	return SYM_KIND_FILE;
}

static void space_map(struct sym_session *s, struct sym_space *sp, const struct trace_task_rec *rec)
{
	struct sym_range r = { 0 };
	size_t i;

	if (!rec->mmap.len || rec->mmap.start + rec->mmap.len < rec->mmap.start)
		return;
	r.start = rec->mmap.start;
	r.end = rec->mmap.start + rec->mmap.len;
	r.pgoff = rec->mmap.pgoff;
	r.prot = rec->mmap.prot;
	r.path = intern_path(s, rec->str ? rec->str : "");
	if (!r.path)
		return;
	r.kind = sym_path_kind(r.path);
	r.build_id_len = rec->mmap.build_id_len <= PT_BUILD_ID_MAX ? rec->mmap.build_id_len : 0;
	memcpy(r.build_id, rec->mmap.build_id, r.build_id_len);

	space_punch(sp, r.start, r.end);
	if (!space_reserve(sp, 1))
		return;
	i = range_lower(sp, r.start);
	memmove(&sp->r[i + 1], &sp->r[i], (sp->n - i) * sizeof(*sp->r));
	sp->r[i] = r;
	sp->n++;
}

/*
 * A thread of pid exited.  The process is gone when its leader and every
 * thread created since have; then the space of the process that exited
 * EXITED_KEEP exits ago is freed.
 */
static void space_thread_exit(struct sym_session *s, uint32_t pid, uint32_t tid)
{
	struct sym_space *sp = space_find(s, pid);

	if (!sp || sp->exited)
		return;
	if (tid == pid)
		sp->leader_gone = true;
	else
		sp->threads--;
	if (!sp->leader_gone || sp->threads > 0)
		return;
	sp->exited = true;
	if (s->nr_exited == EXITED_KEEP) {
		struct sym_space *old = space_find(s, s->exited[s->exited_next]);

		if (old && old->exited) {
			free(old->r);
			old->r = NULL;
			old->n = old->cap = old->last = 0;
		}
	} else {
		s->nr_exited++;
	}
	s->exited[s->exited_next] = pid;
	s->exited_next = (s->exited_next + 1) % EXITED_KEEP;
}

void sym_task_event(struct sym_session *s, const struct trace_task_rec *rec)
{
	struct sym_space *sp, *parent;

	switch (rec->type) {
	case PT_TASK_MMAP:
		sp = space_get(s, rec->c.pid);
		if (sp) {
			sp->exited = false;	/* alive after all (records out of order) */
			space_map(s, sp, rec);
		}
		break;
	case PT_TASK_MUNMAP:
		sp = space_find(s, rec->c.pid);
		if (sp && rec->munmap.len)
			space_punch(sp, rec->munmap.start, rec->munmap.start + rec->munmap.len);
		break;
	case PT_TASK_FORK:
		/* A thread shares its process's space, found by pid already. */
		if ((rec->fork.flags & PT_FORK_THREAD) || rec->c.pid == rec->fork.ppid) {
			sp = space_get(s, rec->c.pid);
			if (sp)
				sp->threads++;
			break;
		}
		sp = space_get(s, rec->c.pid);
		if (!sp)
			break;
		/* Looked up after space_get, which may move the table. */
		parent = space_find(s, rec->fork.ppid);
		sp = space_find(s, rec->c.pid);
		sp->n = 0;
		sp->last = 0;
		sp->exited = sp->leader_gone = false;
		sp->threads = 0;
		if (parent && parent->n && space_reserve(sp, parent->n)) {
			memcpy(sp->r, parent->r, parent->n * sizeof(*sp->r));
			sp->n = parent->n;
		}
		break;
	case PT_TASK_EXEC:
		/* Whichever thread called execve is the only one left, as the leader. */
		sp = space_find(s, rec->c.pid);
		if (sp) {
			sp->n = 0;
			sp->last = 0;
			sp->exited = sp->leader_gone = false;
			sp->threads = 0;
		}
		break;
	case PT_TASK_EXIT:
		space_thread_exit(s, rec->c.pid, rec->c.tid);
		break;
	default:
		break;
	}
}

static struct sym_range *space_lookup(struct sym_space *sp, uint64_t addr)
{
	size_t i;

	if (!sp->n)
		return NULL;
	if (sp->last < sp->n) {
		const struct sym_range *last = &sp->r[sp->last];

		if (addr - last->start < last->end - last->start)
			return &sp->r[sp->last];
	}
	i = range_lower(sp, addr);
	if (i >= sp->n || sp->r[i].start > addr)
		return NULL;
	sp->last = i;
	return &sp->r[i];
}

/* ---- modules ---- */

/* Where modules are kept: a fork's are its owner's. */
static struct sym_session *modules_of(struct sym_session *s)
{
	return s->owner ? s->owner : s;
}

/*
 * A traced file that is not where it was and was found nowhere else: its
 * rows become "name+0x..." with no word why unless said.  One line for the
 * first such file, with the ways out; the others under -v.
 */
static void warn_missing(struct sym_session *s, const struct sym_module *m,
			 const char *open_path)
{
	if (m->usable || m->stand_in_elf || m->debug_elf || m->nr_syms || m->found.replaced ||
	    access(open_path, F_OK) == 0 || errno != ENOENT)
		return;
	if (s->warned_missing) {
		pr_dbg("%s: not found: no symbols", open_path);
		return;
	}
	s->warned_missing = true;
	pr_warn("%s: not found (moved or deleted since it was traced): its code shows as "
		"%s+0x...; --symfs DIR reads it under DIR, and 'pitrace archive' keeps a "
		"trace's files while they are there", open_path, m->name);
}

static struct sym_module *module_get(struct sym_session *s, const char *path, const char *name,
				     const uint8_t *bid, size_t bid_len)
{
	struct sym_module *m;
	char open_path[PATH_MAX];
	size_t plen = strlen(path), slen = strlen(DELETED_SUFFIX);

	s = modules_of(s);
	for (m = s->modules; m; m = m->next) {
		if (strcmp(m->name, name ? name : m->name) || (!name && strcmp(m->path, path)))
			continue;
		if (bid_len && m->build_id_len &&
		    (bid_len != m->build_id_len || memcmp(bid, m->build_id, bid_len)))
			continue;
		return m;
	}
	/* The file was replaced while mapped: the old one is gone, try the name. */
	if (plen > slen && !strcmp(path + plen - slen, DELETED_SUFFIX))
		plen -= slen;
	snprintf(open_path, sizeof(open_path), "%s%.*s",
		 s->sysroot && path[0] == '/' ? s->sysroot : "", (int)plen, path);
	m = sym_module_open(open_path, name, bid, bid_len, s->search);
	if (!m)
		return NULL;
	if (!name)
		warn_missing(s, m, open_path);
	if (s->demangle)
		sym_module_demangle(m);
	if (!name) {
		/* Keep the traced path as the identity, not the sysroot one. */
		free(m->path);
		m->path = strdup(path);
		m->found.path = m->path;
		if (!m->path) {
			sym_module_free(m);
			return NULL;
		}
	}
	m->next = s->modules;
	s->modules = m;
	return m;
}

static void range_resolve(struct sym_session *s, struct sym_range *r)
{
	char vdso[PATH_MAX];

	r->resolved = true;
	if (r->kind == SYM_KIND_VDSO) {
		s = modules_of(s);
		if (!s->trace_dir)
			return;
		snprintf(vdso, sizeof(vdso), "%s/%s", s->trace_dir, PT_FILE_VDSO);
		/* No sysroot for the saved image: module_get applies it only to
		 * absolute paths, so pass the name and open the full path. */
		for (r->mod = s->modules; r->mod; r->mod = r->mod->next)
			if (!strcmp(r->mod->name, "[vdso]") && !strcmp(r->mod->path, vdso))
				break;
		if (!r->mod) {
			r->mod = sym_module_open(vdso, "[vdso]", r->build_id, r->build_id_len,
						 s->search);
			if (r->mod) {
				r->mod->next = s->modules;
				s->modules = r->mod;
			}
		}
	} else if (r->kind == SYM_KIND_FILE) {
		r->mod = module_get(s, r->path, NULL, r->build_id, r->build_id_len);
	}
	if (!r->mod || !sym_module_bias(r->mod, r->start, r->pgoff, r->prot & PROT_EXEC, &r->bias))
		r->bias = r->start - r->pgoff;	/* unreadable: offsets are file offsets */
}

/* ---- resolution ---- */

static void resolve_kernel(struct sym_session *s, uint64_t addr, unsigned flags,
			   struct sym_loc *loc)
{
	const struct sym_kentry *e = sym_kernel_find(s->kernel, addr);
	struct sym_module *vm;
	uint64_t kaslr;

	loc->kind = SYM_KIND_KERNEL;
	loc->module = loc->module_path = "[kernel]";
	loc->module_offset = addr;
	if (!e)
		return;
	loc->module = loc->module_path = e->module;
	loc->module_offset = addr - e->module_base;
	/* Kernel names are C: shown as they are. */
	loc->symbol = loc->symbol_raw = e->name;
	loc->sym_addr = e->addr;
	loc->sym_offset = addr - e->addr;
	loc->entry = loc->sym_offset == 0;
	loc->sym_size = e->size;
	vm = sym_kernel_vmlinux(s->kernel, &kaslr);
	if (vm && !e->module_base) {
		const struct sym_entry *ve = sym_module_find(vm, addr - kaslr);

		loc->mod = vm;
		loc->module_path = vm->path;
		loc->module_offset = addr - kaslr;
		/* kallsyms has no sizes: the vmlinux's symbol has the function's own */
		if (ve && ve->addr + kaslr == e->addr)
			loc->sym_size = ve->size;
		if (flags & SYM_LINES)
			sym_module_line(vm, addr - kaslr, &loc->file, &loc->line);
	}
}

static bool kernel_candidate(struct sym_session *s, uint64_t addr)
{
	if (!arch_sym_is_kernel_addr(addr))
		return false;
	if (!s->kernel_tried) {
		s->kernel_tried = true;
		s->kernel = sym_kernel_load(s->trace_dir, s->vmlinux, s->debug_dir);
	}
	return sym_kernel_covers(s->kernel, addr);
}

void sym_resolve(struct sym_session *s, uint32_t pid, uint64_t addr, unsigned flags,
		 struct sym_loc *loc)
{
	struct sym_space *sp = space_find(s, pid);
	struct sym_range *r = sp ? space_lookup(sp, addr) : NULL;
	const struct sym_entry *e;
	uint64_t vaddr;

	memset(loc, 0, sizeof(*loc));
	if (!r) {
		if (kernel_candidate(s, addr)) {
			resolve_kernel(s, addr, flags, loc);
			return;
		}
		loc->kind = SYM_KIND_UNKNOWN;
		loc->module = loc->module_path = "[unknown]";
		loc->module_offset = addr;
		return;
	}
	loc->kind = r->kind;
	if (r->kind == SYM_KIND_ANON) {
		loc->module = "[anon]";
		loc->module_path = r->path[0] ? r->path : "[anon]";
		loc->module_offset = addr;
		return;
	}
	if (!r->resolved)
		range_resolve(s, r);
	vaddr = addr - r->bias;
	loc->module_offset = vaddr;
	if (!r->mod) {
		loc->module = r->kind == SYM_KIND_VDSO ? "[vdso]" : r->path;
		loc->module_path = r->path;
		if (r->kind == SYM_KIND_FILE && strrchr(r->path, '/'))
			loc->module = strrchr(r->path, '/') + 1;
		return;
	}
	loc->mod = r->mod;
	loc->module = r->mod->name;
	loc->module_path = r->kind == SYM_KIND_VDSO ? "[vdso]" : r->mod->path;
	e = sym_module_find(r->mod, vaddr);
	if (!e && s->uncovered && r->mod->nr_phdrs) {	/* code that can be cut */
		void (*fn)(void *ctx) = s->uncovered;

		s->uncovered = NULL;
		fn(s->uncovered_ctx);
		e = sym_module_find(r->mod, vaddr);
	}
	if (e) {
		loc->symbol = e->name;
		loc->symbol_raw = e->raw;
		loc->sym_addr = e->addr + r->bias;
		loc->sym_offset = vaddr - e->addr;
		loc->entry = loc->sym_offset == 0 ||
			     (e->local_entry && loc->sym_offset == e->local_entry);
		loc->sym_size = e->size;
	}
	if (flags & SYM_LINES)
		sym_module_line(r->mod, vaddr, &loc->file, &loc->line);
}

void sym_on_uncovered(struct sym_session *s, void (*fn)(void *ctx), void *ctx)
{
	s->uncovered = fn;
	s->uncovered_ctx = ctx;
}

bool sym_note_call_target(struct sym_session *s, uint32_t pid, uint64_t addr)
{
	struct sym_space *sp = space_find(s, pid);
	struct sym_range *r = sp ? space_lookup(sp, addr) : NULL;

	if (!r || (r->kind != SYM_KIND_FILE && r->kind != SYM_KIND_VDSO))
		return true;
	if (!r->resolved)
		range_resolve(s, r);
	if (!r->mod || sym_module_find(r->mod, addr - r->bias))
		return true;
	return sym_module_note_call(r->mod, addr - r->bias);
}

void sym_split_at_call_targets(struct sym_session *s)
{
	for (struct sym_module *m = modules_of(s)->modules; m; m = m->next)
		if (m->nr_call_targets)
			sym_module_split_at_calls(m);
}

size_t sym_read_code(struct sym_session *s, uint32_t pid, uint64_t addr, uint8_t *buf, size_t len)
{
	struct sym_space *sp = space_find(s, pid);
	struct sym_range *r = sp ? space_lookup(sp, addr) : NULL;

	if (!r) {
		struct sym_module *vm;
		uint64_t kaslr;

		if (kernel_candidate(s, addr) && (vm = sym_kernel_vmlinux(s->kernel, &kaslr)))
			return sym_module_read(vm, addr - kaslr, buf, len);
		return 0;
	}
	if (r->kind == SYM_KIND_ANON)
		return 0;
	if (!r->resolved)
		range_resolve(s, r);
	if (!r->mod)
		return 0;
	/* Never read past the mapping: the next bytes may belong to another file. */
	if (len > r->end - addr)
		len = r->end - addr;
	return sym_module_read(r->mod, addr - r->bias, buf, len);
}

/* ---- standalone ---- */

int sym_lookup_in_file(const char *path, const char *name, uint64_t *vaddr, uint64_t *size)
{
	return sym_lookup_entries_in_file(path, name, vaddr, size, NULL);
}

/* A file's module on its own, outside any session; NULL unless usable. */
static struct sym_module *open_file(const char *path)
{
	struct sym_module *m = sym_module_open(path, NULL, NULL, 0, NULL);

	if (m && !m->usable) {
		sym_module_free(m);
		return NULL;
	}
	return m;
}

int sym_lookup_entries_in_file(const char *path, const char *name, uint64_t *vaddr,
			       uint64_t *size, unsigned *local_entry)
{
	struct sym_module *m = open_file(path);
	const struct sym_entry *e;
	int ret;

	if (!m)
		return -1;
	/* So that "ns::f(int)" finds _ZN2ns1fEi as well. */
	sym_module_demangle(m);
	e = sym_module_find_name(m, name);
	ret = e ? 1 : 0;
	if (e) {
		*vaddr = e->addr;
		if (size)
			*size = e->size;
		if (local_entry)
			*local_entry = e->local_entry;
	}
	sym_module_free(m);
	return ret;
}

bool sym_session_ifunc(struct sym_session *s, const char *name)
{
	for (struct sym_module *m = s->modules; m; m = m->next)
		for (size_t i = 0; i < m->nr_aliases; i++)
			if (m->aliases[i].ifunc && !strcmp(m->aliases[i].raw, name))
				return true;
	return false;
}

int sym_file_entries(const char *path,
		     void (*fn)(const char *name, const char *raw, uint64_t vaddr,
				unsigned local_entry, bool ifunc, void *arg),
		     void *arg)
{
	struct sym_module *m = open_file(path);
	int n;

	if (!m)
		return -1;
	sym_module_demangle(m);
	for (size_t i = 0; i < m->nr_aliases; i++)
		fn(m->aliases[i].name, m->aliases[i].raw, m->aliases[i].addr,
		   m->aliases[i].local_entry, m->aliases[i].ifunc, arg);
	n = (int)m->nr_aliases;
	sym_module_free(m);
	return n;
}

int sym_file_functions(const char *path, bool raw, void (*fn)(const char *name, void *arg),
		       void *arg)
{
	struct sym_module *m = open_file(path);
	int n;

	if (!m)
		return -1;
	if (!raw)
		sym_module_demangle(m);
	for (size_t i = 0; i < m->nr_syms; i++)
		fn(m->syms[i].name, arg);
	n = (int)m->nr_syms;
	sym_module_free(m);
	return n;
}

/*
 * A bare note area has no ELF header to hand to libelf's note reader
 * (gelf_getnote needs a section of an open Elf), so walk it: each note is an
 * Elf64_Nhdr (three u32, the same in both ELF classes), the name padded to
 * 4 bytes, the descriptor padded to 4 bytes.
 */
size_t sym_notes_build_id(const void *notes, size_t len, uint8_t *buf, size_t size)
{
	const uint8_t *p = notes;
	size_t off = 0;

	while (len - off >= sizeof(Elf64_Nhdr)) {
		Elf64_Nhdr nh;
		size_t name_len, desc_len;

		memcpy(&nh, p + off, sizeof(nh));
		off += sizeof(nh);
		name_len = ((size_t)nh.n_namesz + 3) & ~(size_t)3;
		desc_len = ((size_t)nh.n_descsz + 3) & ~(size_t)3;
		if (name_len > len - off || desc_len > len - off - name_len)
			return 0;
		if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == sizeof(ELF_NOTE_GNU) &&
		    !memcmp(p + off, ELF_NOTE_GNU, sizeof(ELF_NOTE_GNU)) && nh.n_descsz) {
			size_t n = nh.n_descsz < size ? nh.n_descsz : size;

			memcpy(buf, p + off + name_len, n);
			return n;
		}
		off += name_len + desc_len;
	}
	return 0;
}
