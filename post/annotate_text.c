// SPDX-License-Identifier: GPL-2.0
/* An annotated function's rows as lines of text, for post annotate and the viewer (annotate_text.h). */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "post/annotate_text.h"
#include "post/output.h"
#include "post/report.h"

/* A line being written into a buffer of size bytes: len counts what it needs. */
struct text {
	char *buf;
	size_t size, len;
};

static void put_char(struct text *t, char c)
{
	if (t->len + 1 < t->size)
		t->buf[t->len] = c;
	t->len++;
}

static void put(struct text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void put(struct text *t, const char *fmt, ...)
{
	size_t room = t->len < t->size ? t->size - t->len : 0;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(room ? t->buf + t->len : NULL, room, fmt, ap);
	va_end(ap);
	if (n > 0)
		t->len += (size_t)n;
}

/* Ends the line without its trailing blanks; the length it needs (at least size: it was cut). */
static size_t end(struct text *t)
{
	if (t->len >= t->size) {
		if (t->size)
			t->buf[t->size - 1] = '\0';
		return t->len;
	}
	while (t->len && t->buf[t->len - 1] == ' ')
		t->len--;
	t->buf[t->len] = '\0';
	return t->len;
}

static int digits(uint64_t v, int base)
{
	int n = 1;

	while (v >= (uint64_t)base) {
		v /= (uint64_t)base;
		n++;
	}
	return n;
}

/* The source text with tabs expanded (stops every 8 columns from its start). */
static void put_source(struct text *t, const char *text)
{
	size_t col = 0;

	for (const char *p = text; *p; p++) {
		if (*p == '\t') {
			do
				put_char(t, ' ');
			while (++col % 8);
		} else {
			put_char(t, (unsigned char)*p < 0x20 ? '?' : *p);
			col++;
		}
	}
}

/* The jump or call target's function, objdump's "<f+0x12>". */
static void put_target(struct text *t, const struct annot_insn *in)
{
	if (!(in->flags & ARCH_INSN_HAS_TARGET) || !in->target_sym)
		return;
	if (in->target_off)
		put(t, " <%s+%#" PRIx64 ">", in->target_sym, in->target_off);
	else
		put(t, " <%s>", in->target_sym);
}

struct annot_widths annot_text_widths(const struct annot_view *v)
{
	char label[256], num[32];
	struct annot_widths w = { (int)strlen(output_num(v->f->base, num, sizeof(num))), 0, 0 };

	if (w.count < 7)
		w.count = 7;
	for (size_t r = 0; r < v->nr_rows; r++) {
		const struct annot_row *row = &v->rows[r];
		int n = 0;

		if (row->kind == ANNOT_ROW_LINE)
			n = (int)strlen(annot_line_label(v, row->file, row->line, label,
							  sizeof(label)));
		else if (row->kind == ANNOT_ROW_GAP)
			n = 3;
		if (n > w.line)
			w.line = n;
		if (row->kind == ANNOT_ROW_INSN && digits(row->insn->addr, 16) + 1 > w.addr)
			w.addr = digits(row->insn->addr, 16) + 1;
	}
	if (w.line && w.line < 4)
		w.line = 4;
	if (w.addr && w.addr < 7)
		w.addr = 7;
	return w;
}

void annot_text_heading(const struct annot_view *v, const struct annot_widths *w, char lead,
			char *buf, size_t size)
{
	struct text t = { buf, size, 0 };

	put(&t, "%c%*s %7s  ", lead, w->count - 1, "count", "percent");
	if (w->line)
		put(&t, "  %*s", w->line, "line");
	if (w->addr)
		put(&t, "  %*s", w->addr, "address");
	put(&t, "  %*s%s", (int)v->gutter_width + (v->gutter_width ? 1 : 0), "",
	    v->mode == ANNOT_ASM ? "instruction" : v->mode == ANNOT_SOURCE ? "source" :
	    "source / instruction");
	end(&t);
}

size_t annot_text_row(const struct annot_view *v, const struct annot_row *row,
		      const struct annot_widths *w, uint64_t base, char *buf, size_t size)
{
	struct text t = { buf, size, 0 };
	char count[32] = "", pct[16] = "", line[256] = "", addr[32] = "";

	if (row->kind == ANNOT_ROW_FILE) {
		put(&t, "lines in %s:", row->file);
		return end(&t);
	}
	if (row->counted && (row->kind == ANNOT_ROW_INSN || row->code)) {
		output_num(row->count, count, sizeof(count));
		snprintf(pct, sizeof(pct), "%.2f%%", report_percent(row->count, base));
	} else if (row->kind == ANNOT_ROW_LINE && !row->code) {
		snprintf(count, sizeof(count), ".");
	}
	if (row->kind == ANNOT_ROW_LINE)
		annot_line_label(v, row->file, row->line, line, sizeof(line));
	else if (row->kind == ANNOT_ROW_GAP)
		snprintf(line, sizeof(line), "...");
	else if (row->kind == ANNOT_ROW_INSN)
		snprintf(addr, sizeof(addr), "%" PRIx64 ":", row->insn->addr);
	put(&t, "%*s %7s %c", w->count, count, pct, row->hot ? '*' : ' ');
	if (w->line)
		put(&t, "  %*s", w->line, line);
	if (w->addr)
		put(&t, "  %*s", w->addr, addr);
	put(&t, "  %s%s", row->gutter, v->gutter_width ? " " : "");
	if (row->kind == ANNOT_ROW_LINE && row->text) {
		put_source(&t, row->text);
	} else if (row->kind == ANNOT_ROW_INSN) {
		put(&t, "%s", row->insn->text);
		put_target(&t, row->insn);
	}
	if (row->note[0])
		put(&t, "  # %s", row->note);
	return end(&t);
}

const char *annot_why_no_lines(const struct annot_fn *f, char *buf, size_t size)
{
	size_t n = strlen(f->name);

	if (f->ring == 1 && f->code == ANNOT_CODE_UNREADABLE)
		return "no debug vmlinux: kernel source lines need one (--vmlinux, --debug-dir)";
	if (!strcmp(f->module, "[anon]") || !strcmp(f->module, "[unknown]"))
		return "code outside any file";
	if (n > 4 && !strcmp(f->name + n - 4, "@plt"))
		return "a PLT entry: code the linker made";
	snprintf(buf, size, "no line table covers it in %s (code built without -g, or stripped "
		 "and its debuginfo not found)", f->module_path);
	return buf;
}

const char *annot_why_no_code(const struct annot_fn *f, char *buf, size_t size)
{
	switch (f->code) {
	case ANNOT_CODE_NO_SYMBOL:
		return "no symbol covers it: only the instructions that ran are listed";
	case ANNOT_CODE_UNREADABLE:
		if (f->ring == 1)
			return "the kernel's code needs its vmlinux (--vmlinux, --debug-dir): only "
			       "the addresses that ran are listed";
		snprintf(buf, size, "%s cannot be read: only the addresses that ran are listed",
			 f->module_path);
		return buf;
	case ANNOT_CODE_TRUNCATED:
		snprintf(buf, size, "%" PRIu64 " bytes: its first %u are listed", f->size,
			 ANNOT_MAX_CODE);
		return buf;
	default:
		return NULL;
	}
}
