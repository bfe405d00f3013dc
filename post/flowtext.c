// SPDX-License-Identifier: GPL-2.0
/* The words of the call flow's lines (flowtext.h). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "arch/arch_vectors.h"
#include "post/flowtext.h"
#include "post/report.h"
#include "post/textout.h"

/* Names whole: a flow line is not a table column. */
static const char *name(const struct callflow *cf, uint32_t fn)
{
	return fn == CF_NO_FN ? "?" : cf_func(cf, fn)->name;
}

#define NATIVE_NOTE ", ran natively: count unknown"

/* fn ran natively, untraced (a frame of it with no steps is such a run). */
static bool native(const struct callflow *cf, uint32_t fn)
{
	return fn != CF_NO_FN && cf_func(cf, fn)->native;
}

/*
 * "MARK NAME", " [MODULE]" when module is not NULL and, when note is not
 * NULL, " (NOTE)" or " (NOTE OTHER)", at p.
 */
static char *entry_put(char *p, char mark, const char *fn, const char *module, const char *note,
		       const char *other)
{
	*p++ = mark;
	*p++ = ' ';
	p = text_str(p, fn);
	if (module) {
		bool bracketed = module[0] == '[' && module[strlen(module) - 1] == ']';

		*p++ = ' ';
		if (!bracketed)
			*p++ = '[';
		p = text_str(p, module);
		if (!bracketed)
			*p++ = ']';
	}
	if (!note)
		return p;
	*p++ = ' ';
	*p++ = '(';
	p = text_str(p, note);
	if (other) {
		*p++ = ' ';
		p = text_str(p, other);
	}
	*p++ = ')';
	return p;
}

/* The longest note an entry line has (cf_entry_kind_name's too). */
#define NOTE_MAX 64

size_t flow_text_push_room(const struct callflow *cf, uint8_t kind, uint32_t fn, uint32_t other,
			   bool module)
{
	size_t n = strlen(name(cf, fn)) + NOTE_MAX + 8;

	if (module)
		n += strlen(cf_func(cf, fn)->module) + 3;

	if (kind == CF_ENTRY_TAIL || kind == CF_ENTRY_JUMP)
		n += strlen(name(cf, other));
	return n;
}

char *flow_text_push_put(char *p, const struct callflow *cf, uint8_t kind, uint32_t fn,
			 uint32_t other, bool module)
{
	const char *n = name(cf, fn), *m = module && fn != CF_NO_FN ? cf_func(cf, fn)->module : NULL;

	switch (kind) {
	case CF_ENTRY_ROOT:
		return entry_put(p, '>', n, m, "first step of the thread", NULL);
	case CF_ENTRY_CALL:
		return entry_put(p, '>', n, m, native(cf, fn) ? "native" : NULL, NULL);
	case CF_ENTRY_TAIL:
		return entry_put(p, '>', n, m, "tail call from", name(cf, other));
	case CF_ENTRY_JUMP:
		return entry_put(p, '>', n, m, "jump from", name(cf, other));
	case CF_ENTRY_ASYNC:
		return entry_put(p, '!', n, m, "asynchronous entry", NULL);
	case CF_ENTRY_KERNEL:
		return entry_put(p, '>', n, m, "kernel", NULL);
	default:
		return entry_put(p, '>', n, m, cf_entry_kind_name(kind), NULL);
	}
}

/* A buffer of room bytes: small (the caller's) when it does, else its own; NULL without memory. */
static char *scratch(char *small, size_t small_size, size_t room)
{
	return room <= small_size ? small : malloc(room);
}

/* The text put at buf up to end, to out; buf is freed unless it is small. */
static void put_out(FILE *out, char *buf, const char *end, const char *small)
{
	fwrite_unlocked(buf, 1, (size_t)(end - buf), out);
	if (buf != small)
		free(buf);
}

void flow_text_push(FILE *out, const struct callflow *cf, uint8_t kind, uint32_t fn,
		    uint32_t other, bool module)
{
	char small[512],
		*buf = scratch(small, sizeof(small), flow_text_push_room(cf, kind, fn, other, module));

	if (buf)
		put_out(out, buf, flow_text_push_put(buf, cf, kind, fn, other, module), small);
}

void flow_text_adopt(FILE *out, const struct callflow *cf, uint32_t fn)
{
	char mt[REPORT_MODULE_TAG_SIZE];

	fprintf(out, "? %s%s (unmatched return: its caller, from before the trace)", name(cf, fn),
		report_module_tag(fn == CF_NO_FN ? "?" : cf_func(cf, fn)->module, mt, sizeof(mt)));
}

const char *flow_text_end_note(enum cf_end_kind how)
{
	switch (how) {
	case CF_END_UNWIND:
		return ", unwound";
	case CF_END_REPLACED:
		return ", replaced";
	case CF_END_FLUSH:
		return ", still running at the end";
	case CF_END_OFF:
		return ", recording off";
	default:
		return "";
	}
}

size_t flow_text_pop_room(const struct callflow *cf, uint32_t fn)
{
	return strlen(name(cf, fn)) + 2 * TEXT_U64_MAX + 48 + sizeof(NATIVE_NOTE);
}

char *flow_text_pop_put(char *p, const struct callflow *cf, uint32_t fn, uint64_t incl,
			uint64_t self, enum cf_end_kind how)
{
	p = text_str(p, "< ");
	p = text_str(p, name(cf, fn));
	p = text_str(p, " (incl ");
	p = text_u64(p, incl);
	p = text_str(p, ", self ");
	p = text_u64(p, self);
	p = text_str(p, flow_text_end_note(how));
	if (native(cf, fn) && !incl)
		p = text_str(p, NATIVE_NOTE);
	*p++ = ')';
	return p;
}

void flow_text_pop(FILE *out, const struct callflow *cf, uint32_t fn, uint64_t incl,
		   uint64_t self, enum cf_end_kind how)
{
	char small[512], *buf = scratch(small, sizeof(small), flow_text_pop_room(cf, fn));

	if (buf)
		put_out(out, buf, flow_text_pop_put(buf, cf, fn, incl, self, how), small);
}

void flow_text_interrupt(FILE *out, const struct callflow *cf, const struct trace_async *as,
			 uint32_t fn)
{
	const char *what;
	char why[128];

	switch (as->kind) {
	case PT_ASYNC_EXCEPTION:
		if (arch_exception_is_page_fault(as->number) && as->detail) {
			fprintf(out, "~ page fault at 0x%" PRIx64 " (%s)", as->address,
				arch_page_fault_describe(as->error, why, sizeof(why)));
			break;
		}
		what = arch_exception_name(as->number);
		fprintf(out, "~ exception %" PRIu64 "%s%s%s", as->number, what ? " (" : "",
			what ? what : "", what ? ")" : "");
		break;
	case PT_ASYNC_INTERRUPT:
		what = arch_interrupt_name(as->number);
		fprintf(out, "~ interrupt vector %" PRIu64 "%s%s%s", as->number, what ? " (" : "",
			what ? what : "", what ? ")" : "");
		break;
	default:
		fprintf(out, "~ irq %" PRIu64, as->number);
		break;
	}
	if (fn != CF_NO_FN)
		fprintf(out, " in %s", name(cf, fn));
}
