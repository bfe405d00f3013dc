// SPDX-License-Identifier: GPL-2.0
/* Executable mappings of ptrace-traced processes: /proc/PID/maps, diffs into task records, vdso. */
#define PR_FMT "maps"
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <pitrace/format.h>
#include "util/log.h"
#include "pitrace/ptrace_maps.h"
#include "util/build_id.h"
#include "util/trace_writer.h"

void ptm_free(struct ptm_maps *m)
{
	for (size_t i = 0; i < m->n; i++)
		free(m->v[i].path);
	free(m->v);
	m->v = NULL;
	m->n = 0;
}

int ptm_copy(struct ptm_maps *dst, const struct ptm_maps *src)
{
	dst->n = 0;
	dst->v = calloc(src->n ? src->n : 1, sizeof(*dst->v));
	if (!dst->v)
		return -1;
	for (size_t i = 0; i < src->n; i++) {
		dst->v[i] = src->v[i];
		dst->v[i].path = strdup(src->v[i].path);
		if (!dst->v[i].path) {
			ptm_free(dst);
			return -1;
		}
		dst->n++;
	}
	return 0;
}

/* Parse one /proc/PID/maps line; returns 1 for an executable mapping. */
static int parse_line(char *line, struct ptm_map *m)
{
	unsigned long long start, end, off;
	char perms[8];
	int pos = 0;
	char *path;

	if (sscanf(line, "%llx-%llx %7s %llx %*s %*s%n", &start, &end, perms, &off, &pos) < 4 ||
	    !pos)
		return 0;
	if (perms[2] != 'x')
		return 0;
	path = line + pos;
	while (*path == ' ' || *path == '\t')
		path++;
	path[strcspn(path, "\n")] = '\0';
	m->start = start;
	m->end = end;
	m->pgoff = off;
	m->prot = (perms[0] == 'r' ? PROT_READ : 0) | (perms[1] == 'w' ? PROT_WRITE : 0) |
		  PROT_EXEC;
	m->shared = perms[3] == 's';
	m->path = strdup(*path ? path : "[anon]");
	return m->path ? 1 : -1;
}

int ptm_read(pid_t pid, struct ptm_maps *out)
{
	char name[64], *line = NULL;
	size_t cap = 0, alloc = 0;
	FILE *f;
	int ret = 0;

	out->v = NULL;
	out->n = 0;
	snprintf(name, sizeof(name), "/proc/%d/maps", pid);
	f = fopen(name, "re");
	if (!f)
		return -1;
	while (getline(&line, &cap, f) > 0) {
		struct ptm_map m;
		int r = parse_line(line, &m);

		if (r < 0) {
			ret = -1;
			break;
		}
		if (!r)
			continue;
		if (out->n == alloc) {
			struct ptm_map *v = realloc(out->v, (alloc = alloc * 2 + 16) * sizeof(*v));

			if (!v) {
				free(m.path);
				ret = -1;
				break;
			}
			out->v = v;
		}
		out->v[out->n++] = m;
	}
	free(line);
	fclose(f);
	/* An empty list from a live process means it is gone (zombie). */
	if (!ret && !out->n) {
		errno = ESRCH;
		ret = -1;
	}
	if (ret)
		ptm_free(out);
	return ret;
}

static bool map_equal(const struct ptm_map *a, const struct ptm_map *b)
{
	return a->start == b->start && a->end == b->end && a->pgoff == b->pgoff &&
	       a->prot == b->prot && !strcmp(a->path, b->path);
}

static bool map_in(const struct ptm_maps *m, const struct ptm_map *x)
{
	/* Mapping lists are short (tens of entries) and change rarely. */
	for (size_t i = 0; i < m->n; i++)
		if (map_equal(&m->v[i], x))
			return true;
	return false;
}

/*
 * Save the vdso image once per trace (the trace's first process that maps
 * one and whose image can be read): post resolves [vdso] addresses from it.
 */
static void save_vdso(struct trace_writer *tw, pid_t pid, const struct ptm_map *m)
{
	size_t len = m->end - m->start;
	char name[64];
	uint8_t *buf;
	ssize_t n;
	int fd;

	if (tw_has_file(tw, PT_FILE_VDSO))
		return;
	buf = malloc(len);
	snprintf(name, sizeof(name), "/proc/%d/mem", pid);
	fd = open(name, O_RDONLY | O_CLOEXEC);
	n = (fd >= 0 && buf) ? pread(fd, buf, len, (off_t)m->start) : -1;
	if (fd >= 0)
		close(fd);
	if (n != (ssize_t)len) {
		pr_warn("cannot read the vdso of %d: %s; [vdso] addresses will not resolve",
			pid, n < 0 ? strerror(errno) : "short read");
		free(buf);
		return;
	}
	tw_write_file(tw, PT_FILE_VDSO, buf, len);
	free(buf);
}

/* Build-ids by path: libraries are mapped by every process, read them once. */
struct bid_cache {
	char *path;
	uint8_t len;
	uint8_t id[PT_BUILD_ID_MAX];
};
static struct bid_cache *bids;
static size_t nr_bids;

static const struct bid_cache *build_id_of(const char *path)
{
	struct bid_cache *n;

	for (size_t i = 0; i < nr_bids; i++)
		if (!strcmp(bids[i].path, path))
			return &bids[i];
	n = realloc(bids, (nr_bids + 1) * sizeof(*n));
	if (!n)
		return NULL;
	bids = n;
	n = &bids[nr_bids];
	n->path = strdup(path);
	if (!n->path)
		return NULL;
	n->len = 0;
	if (path[0] == '/')
		n->len = (uint8_t)sym_file_build_id(path, n->id, sizeof(n->id));
	nr_bids++;
	return n;
}

int ptm_update(struct trace_writer *tw, pid_t pid, struct ptm_maps *cur)
{
	struct ptm_maps fresh;
	uint64_t now = tw_now_ns(), seq = tw_total_steps(tw);
	int added = 0;

	if (ptm_read(pid, &fresh) < 0)
		return -1;
	for (size_t i = 0; i < cur->n; i++) {
		struct pt_task_munmap r = { .c = { now, seq, (uint32_t)pid, 0 } };

		if (map_in(&fresh, &cur->v[i]))
			continue;
		r.start = cur->v[i].start;
		r.len = cur->v[i].end - cur->v[i].start;
		tw_task(tw, PT_TASK_MUNMAP, &r, sizeof(r), NULL);
	}
	for (size_t i = 0; i < fresh.n; i++) {
		const struct ptm_map *m = &fresh.v[i];
		struct pt_task_mmap r = { .c = { now, seq, (uint32_t)pid, 0 } };
		const struct bid_cache *b;

		if (map_in(cur, m))
			continue;
		r.start = m->start;
		r.len = m->end - m->start;
		r.pgoff = m->pgoff;
		r.prot = m->prot;
		b = build_id_of(m->path);
		if (b) {
			r.build_id_len = b->len;
			memcpy(r.build_id, b->id, b->len);
		}
		tw_task(tw, PT_TASK_MMAP, &r, sizeof(r), m->path);
		if (!strcmp(m->path, "[vdso]"))
			save_vdso(tw, pid, m);
		added++;
	}
	ptm_free(cur);
	*cur = fresh;
	return added;
}

/* The file offset of ELF virtual address vaddr (from the PT_LOAD holding it). */
static int vaddr_to_offset(const char *path, uint64_t vaddr, uint64_t *off)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t nr = 0;
	int ret = -1;
	Elf *elf;

	if (fd < 0)
		return -1;
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (elf && elf_getphdrnum(elf, &nr) == 0) {
		for (size_t i = 0; i < nr && ret; i++) {
			GElf_Phdr ph;

			if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
				continue;
			if (vaddr >= ph.p_vaddr && vaddr < ph.p_vaddr + ph.p_filesz) {
				*off = vaddr - ph.p_vaddr + ph.p_offset;
				ret = 0;
			}
		}
	}
	if (elf)
		elf_end(elf);
	close(fd);
	return ret;
}

uint64_t ptm_runtime_addr(const struct ptm_maps *m, const char *path, uint64_t vaddr)
{
	uint64_t off;

	if (vaddr_to_offset(path, vaddr, &off) < 0)
		return 0;
	for (size_t i = 0; i < m->n; i++) {
		const struct ptm_map *x = &m->v[i];

		if (!strcmp(x->path, path) && off >= x->pgoff &&
		    off < x->pgoff + (x->end - x->start))
			return x->start + (off - x->pgoff);
	}
	return 0;
}

bool ptm_contains(const struct ptm_maps *m, uint64_t addr)
{
	return ptm_find(m, addr) != NULL;
}

const struct ptm_map *ptm_find(const struct ptm_maps *m, uint64_t addr)
{
	for (size_t i = 0; i < m->n; i++)
		if (addr >= m->v[i].start && addr < m->v[i].end)
			return &m->v[i];
	return NULL;
}
