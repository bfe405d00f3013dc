/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Executable mappings of traced processes for the ptrace backend: read from
 * /proc/PID/maps, diffed into MMAP/MUNMAP task records, the vdso saved, and
 * ELF virtual addresses turned into process addresses (for --on).
 */
#ifndef PITRACE_PTRACE_MAPS_H
#define PITRACE_PTRACE_MAPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct trace_writer;

struct ptm_map {
	uint64_t start, end;
	uint64_t pgoff;		  /* file offset of start */
	uint32_t prot;		  /* PROT_* */
	bool shared;		  /* MAP_SHARED: another mapping may write its code */
	char *path;		  /* file, "[vdso]", "[anon]", ... */
};

/* A process's executable mappings, sorted by start. */
struct ptm_maps {
	struct ptm_map *v;
	size_t n;
};

/* Read pid's executable mappings; -1 (errno set) when /proc can't be read. */
int ptm_read(pid_t pid, struct ptm_maps *out);
void ptm_free(struct ptm_maps *m);
/* A deep copy (a forked child starts with its parent's mappings). */
int ptm_copy(struct ptm_maps *dst, const struct ptm_maps *src);

/*
 * Re-read pid's mappings and write a MUNMAP record for every mapping of
 * *cur that is gone or changed and an MMAP record for every new or changed
 * one (with file offset and build-id); *cur becomes the fresh set.  The
 * first [vdso] seen is saved into the trace (PT_FILE_VDSO).  Returns the
 * number of new mappings (so callers know to look for symbols), -1 when
 * the process's maps can no longer be read (it is gone).
 */
int ptm_update(struct trace_writer *tw, pid_t pid, struct ptm_maps *cur);

/*
 * The process address of ELF virtual address vaddr of file path, using the
 * file's program headers and its mappings in m; 0 when it isn't mapped
 * executable there.
 */
uint64_t ptm_runtime_addr(const struct ptm_maps *m, const char *path, uint64_t vaddr);

/* True when addr lies in a mapping of m. */
bool ptm_contains(const struct ptm_maps *m, uint64_t addr);
/* The mapping of m holding addr, or NULL. */
const struct ptm_map *ptm_find(const struct ptm_maps *m, uint64_t addr);

#endif /* PITRACE_PTRACE_MAPS_H */
