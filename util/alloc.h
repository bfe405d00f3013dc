/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Checked allocation: the one policy for running out of memory where a
 * command cannot go on without the memory.  Each says "PROG: error: out
 * of memory" in one line and exits EXIT_RUNTIME; this is the only place
 * that exits for want of memory.  Code that can go on without the memory
 * (a cache, a report that can say what it lost) calls malloc and copes.
 */
#ifndef PT_ALLOC_H
#define PT_ALLOC_H

#include <stddef.h>

/* Says "out of memory" and exits: for an allocator that returned NULL (a table's insert). */
void xalloc_die(void) __attribute__((noreturn, cold));

void *xmalloc(size_t size) __attribute__((malloc, returns_nonnull));
void *xcalloc(size_t n, size_t size) __attribute__((malloc, returns_nonnull));
void *xrealloc(void *p, size_t size) __attribute__((returns_nonnull));
/* realloc of n * size bytes, the product checked for overflow (reallocarray). */
void *xreallocarray(void *p, size_t n, size_t size) __attribute__((returns_nonnull));
void *xaligned_alloc(size_t align, size_t size) __attribute__((malloc, returns_nonnull));
char *xstrdup(const char *s) __attribute__((malloc, returns_nonnull));

#endif /* PT_ALLOC_H */
