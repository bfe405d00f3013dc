/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The words of the call flow's lines, for every place that shows the flow
 * (post flow, the viewer's flow view): one owner for what a call, a
 * return, an interrupt or a mark says.
 */
#ifndef POST_FLOWTEXT_H
#define POST_FLOWTEXT_H

#include <stdint.h>
#include <stdio.h>

#include "util/callflow.h"
#include "util/trace_reader.h"

/*
 * A frame's entry: "> f", "> g (tail call from f)", "! h (asynchronous
 * entry)", ...; kind is its enum cf_entry_kind, other the function it
 * came from (TAIL: the caller credited; JUMP: the frame it replaced,
 * CF_NO_FN unknown); module: fn's module after its name, "> printf
 * [libc.so.6]" (report_module_shown says where).
 */
void flow_text_push(FILE *out, const struct callflow *cf, uint8_t kind, uint32_t fn,
		    uint32_t other, bool module);
/* The same at p, which has flow_text_push_room() bytes of room: its end. */
size_t flow_text_push_room(const struct callflow *cf, uint8_t kind, uint32_t fn, uint32_t other,
			   bool module);
char *flow_text_push_put(char *p, const struct callflow *cf, uint8_t kind, uint32_t fn,
			 uint32_t other, bool module);

/*
 * A caller reconstructed below the oldest frame, the thread's first
 * function now: "? f [module] (unmatched return: ...)".
 */
void flow_text_adopt(FILE *out, const struct callflow *cf, uint32_t fn);

/* A frame's end: "< f (incl N, self M[, how])". */
void flow_text_pop(FILE *out, const struct callflow *cf, uint32_t fn, uint64_t incl,
		   uint64_t self, enum cf_end_kind how);
/* The same at p, which has flow_text_pop_room() bytes of room: its end. */
size_t flow_text_pop_room(const struct callflow *cf, uint32_t fn);
char *flow_text_pop_put(char *p, const struct callflow *cf, uint32_t fn, uint64_t incl,
			uint64_t self, enum cf_end_kind how);

/* ", unwound", ", replaced", ", still running at the end", or "" for a return. */
const char *flow_text_end_note(enum cf_end_kind how);

/* An interrupt or exception the thread took: "~ page fault at 0x... (...) in f". */
void flow_text_interrupt(FILE *out, const struct callflow *cf, const struct trace_async *as,
			 uint32_t fn);

#endif /* POST_FLOWTEXT_H */
