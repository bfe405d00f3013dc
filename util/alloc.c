// SPDX-License-Identifier: GPL-2.0
/* Checked allocation: out of memory is one line and exit 1, here only (alloc.h). */
#include <stdlib.h>
#include <string.h>

#include "util/alloc.h"
#include "util/log.h"

void xalloc_die(void)
{
	log_quiet = 0;	/* a quiet pass's thread must still say why the command stops */
	pr_err("out of memory");
	exit(EXIT_RUNTIME);
}

/* The allocation p, or the end of the command when it failed. */
static void *checked(void *p)
{
	if (!p)
		xalloc_die();
	return p;
}

void *xmalloc(size_t size)
{
	return checked(malloc(size ? size : 1));
}

void *xcalloc(size_t n, size_t size)
{
	return checked(calloc(n ? n : 1, size ? size : 1));
}

void *xrealloc(void *p, size_t size)
{
	return checked(realloc(p, size ? size : 1));
}

void *xreallocarray(void *p, size_t n, size_t size)
{
	return checked(reallocarray(p, n ? n : 1, size ? size : 1));
}

void *xaligned_alloc(size_t align, size_t size)
{
	return checked(aligned_alloc(align, size ? size : align));
}

char *xstrdup(const char *s)
{
	return checked(strdup(s));
}
