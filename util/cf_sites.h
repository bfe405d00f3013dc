/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The call-flow engine's site source for real traces: instruction classes
 * from the arch decoder over code bytes read through the symbol session,
 * functions from symbol resolution; one cache entry per (process, address),
 * dropped when the process's mappings change.  Also gives reports the full
 * location, bytes and text of an address.
 */
#ifndef PT_CF_SITES_H
#define PT_CF_SITES_H

#include <stdint.h>

#include "util/callflow.h"
#include "util/symbols.h"

struct cf_sites;

/* NULL on failure (printed).  sym must outlive the cache. */
struct cf_sites *cf_sites_new(struct sym_session *sym);
void cf_sites_free(struct cf_sites *s);

/* The engine's source over this cache (task records go to sym_task_event too). */
void cf_sites_source(struct cf_sites *s, struct cf_source *src);

/* Everything reports show about one address. */
struct cf_site_info {
	struct cf_site site;
	const char *module;	  /* short module name */
	uint64_t module_offset;	  /* sym_loc.module_offset: the ELF virtual address */
	const char *symbol;	  /* NULL when no symbol covers the address */
	const char *symbol_raw;	  /* as in the symbol table (mangled) */
	uint64_t sym_offset;
	uint64_t sym_size;	  /* the symbol's size in bytes */
	const char *file;	  /* source file, NULL if unknown */
	int line;
	uint8_t bytes[ARCH_INSN_MAX_LEN];
	uint8_t nr_bytes;	  /* 0: code bytes not available */
	char text[64];		  /* disassembly, "(unavailable)" without bytes */
};

/* Details for pc in pid (looked up and cached on first use). */
const struct cf_site_info *cf_sites_info(struct cf_sites *s, struct callflow *cf, uint32_t pid,
					 uint64_t pc, uint8_t ring);

/*
 * The same without file, line and text (they are left as they are): for a
 * consumer of every step that wants its bytes, not its source line.
 */
const struct cf_site_info *cf_sites_code(struct cf_sites *s, struct callflow *cf, uint32_t pid,
					 uint64_t pc, uint8_t ring);

#endif /* PT_CF_SITES_H */
