// SPDX-License-Identifier: GPL-2.0
/* The words of the call flow's lines (flowtext.h). */
#include <inttypes.h>

#include "arch_vectors.h"
#include "flowtext.h"

/* Names whole: a flow line is not a table column. */
static const char *name(const struct callflow *cf, uint32_t fn)
{
	return fn == CF_NO_FN ? "?" : cf_func(cf, fn)->name;
}

void flow_text_push(FILE *out, const struct callflow *cf, uint8_t kind, uint32_t fn,
		    uint32_t other)
{
	switch (kind) {
	case CF_ENTRY_ROOT:
		fprintf(out, "> %s (first step of the thread)", name(cf, fn));
		break;
	case CF_ENTRY_CALL:
		fprintf(out, "> %s", name(cf, fn));
		break;
	case CF_ENTRY_TAIL:
		fprintf(out, "> %s (tail call from %s)", name(cf, fn), name(cf, other));
		break;
	case CF_ENTRY_JUMP:
		fprintf(out, "> %s (jump from %s)", name(cf, fn), name(cf, other));
		break;
	case CF_ENTRY_ASYNC:
		fprintf(out, "! %s (asynchronous entry)", name(cf, fn));
		break;
	case CF_ENTRY_KERNEL:
		fprintf(out, "> %s (kernel)", name(cf, fn));
		break;
	default:
		fprintf(out, "> %s (%s)", name(cf, fn), cf_entry_kind_name(kind));
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
	fprintf(out, "< %s (incl %" PRIu64 ", self %" PRIu64 "%s)", name(cf, fn), incl, self,
		flow_text_end_note(how));
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
