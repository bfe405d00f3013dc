/* SPDX-License-Identifier: GPL-2.0 */
/*
 * An annotated function's rows (annotate_view.h) as lines of text, the
 * same in post annotate's output and in the viewer's annotate view: the
 * count and percent, the hot mark, the line label, the address, the jump
 * arrows, the source text or instruction and how its jumps went; and why a
 * function's code or lines could not be shown.
 */
#ifndef POST_ANNOTATE_TEXT_H
#define POST_ANNOTATE_TEXT_H

#include <stddef.h>
#include <stdint.h>

#include "post/annotate_view.h"

/* The columns of a view's rows (0: a column without any row of its own). */
struct annot_widths {
	int count, line, addr;
};

/* The widths of v's rows: counts as wide as its Base is with output_num(). */
struct annot_widths annot_text_widths(const struct annot_view *v);

/*
 * The heading of v's columns into buf, its first character lead (post
 * annotate's '#', a viewer's ' ').
 */
void annot_text_heading(const struct annot_view *v, const struct annot_widths *w, char lead,
			char *buf, size_t size);

/*
 * Row's text into buf, without trailing blanks, percentages of base; its
 * length, or when it was cut at size - 1 the length it needs (snprintf's
 * contract).  A source line's tabs are expanded, its control characters
 * shown as '?'.  ANNOT_ROW_FILE: "lines in FILE:".
 */
size_t annot_text_row(const struct annot_view *v, const struct annot_row *row,
		      const struct annot_widths *w, uint64_t base, char *buf, size_t size);

/* Why f has no source lines (f->file NULL), in buf or a constant. */
const char *annot_why_no_lines(const struct annot_fn *f, char *buf, size_t size);

/* Why f's code is not listed whole, in buf or a constant; NULL when it is. */
const char *annot_why_no_code(const struct annot_fn *f, char *buf, size_t size);

#endif /* POST_ANNOTATE_TEXT_H */
