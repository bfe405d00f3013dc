// SPDX-License-Identifier: GPL-2.0
/* The words of the call flow's lines (flowtext.h). */
#include <inttypes.h>

#include "arch_vectors.h"
#include "flowtext.h"
#include "textout.h"

/* Names whole: a flow line is not a table column. */
static const char *name(const struct callflow *cf, uint32_t fn)
{
	return fn == CF_NO_FN ? "?" : cf_func(cf, fn)->name;
}

/* "MARK NAME" and, when note is not NULL, " (NOTE)" or " (NOTE OTHER)". */
static void entry_line(FILE *out, char mark, const char *fn, const char *note, const char *other)
{
	putc_unlocked(mark, out);
	putc_unlocked(' ', out);
	fputs_unlocked(fn, out);
	if (!note)
		return;
	fputs_unlocked(" (", out);
	fputs_unlocked(note, out);
	if (other) {
		putc_unlocked(' ', out);
		fputs_unlocked(other, out);
	}
	putc_unlocked(')', out);
}

/* A line per call: stdio's unlocked calls, not printf's format parsing. */
void flow_text_push(FILE *out, const struct callflow *cf, uint8_t kind, uint32_t fn,
		    uint32_t other)
{
	switch (kind) {
	case CF_ENTRY_ROOT:
		entry_line(out, '>', name(cf, fn), "first step of the thread", NULL);
		break;
	case CF_ENTRY_CALL:
		entry_line(out, '>', name(cf, fn), NULL, NULL);
		break;
	case CF_ENTRY_TAIL:
		entry_line(out, '>', name(cf, fn), "tail call from", name(cf, other));
		break;
	case CF_ENTRY_JUMP:
		entry_line(out, '>', name(cf, fn), "jump from", name(cf, other));
		break;
	case CF_ENTRY_ASYNC:
		entry_line(out, '!', name(cf, fn), "asynchronous entry", NULL);
		break;
	case CF_ENTRY_KERNEL:
		entry_line(out, '>', name(cf, fn), "kernel", NULL);
		break;
	default:
		entry_line(out, '>', name(cf, fn), cf_entry_kind_name(kind), NULL);
		break;
	}
}

void flow_text_adopt(FILE *out, const struct callflow *cf, uint32_t fn)
{
	fprintf(out, "? %s (unmatched return: its caller, from before the trace)", name(cf, fn));
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

void flow_text_pop(FILE *out, const struct callflow *cf, uint32_t fn, uint64_t incl,
		   uint64_t self, enum cf_end_kind how)
{
	char buf[2 * TEXT_U64_MAX + 16], *p = buf;

	fputs_unlocked("< ", out);
	fputs_unlocked(name(cf, fn), out);
	p = text_str(p, " (incl ");
	p = text_u64(p, incl);
	p = text_str(p, ", self ");
	p = text_u64(p, self);
	fwrite_unlocked(buf, 1, (size_t)(p - buf), out);
	fputs_unlocked(flow_text_end_note(how), out);
	putc_unlocked(')', out);
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
