/* SPDX-License-Identifier: GPL-2.0 */
/*
 * An annotated function laid out as rows (annotate.h has the data): its
 * source lines interleaved with its instructions in address order (as perf
 * annotate shows them), its source lines only (as callgrind_annotate
 * does), or its instructions only; each row with its count, the hottest
 * ones marked, and a gutter of arrows from each jump to its target inside
 * the function (as objdump --visualize-jumps draws them), so loops show.
 * post annotate prints the rows; a viewer can draw them.
 */
#ifndef POST_ANNOTATE_VIEW_H
#define POST_ANNOTATE_VIEW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "post/annotate.h"
#include "post/source.h"

enum annot_mode {
	ANNOT_MIXED,		  /* source lines interleaved with instructions */
	ANNOT_SOURCE,		  /* source lines only */
	ANNOT_ASM,		  /* instructions only */
};

#define ANNOT_LANES 8		  /* jump arrows drawn at most side by side (the others:
				   * their target's label says where they go) */
#define ANNOT_HOT_PERCENT 5	  /* hot rows hold at least this % of the function's steps
				   * (where perf annotate starts colouring red) */
#define ANNOT_CONTEXT 3		  /* ANNOT_SOURCE: lines shown around lines with code */

enum annot_row_kind {
	ANNOT_ROW_LINE,		  /* a source line */
	ANNOT_ROW_INSN,		  /* an instruction */
	ANNOT_ROW_GAP,		  /* source lines left out (ANNOT_SOURCE) */
	ANNOT_ROW_FILE,		  /* the lines that follow are another file's (ANNOT_SOURCE) */
};

struct annot_row {
	enum annot_row_kind kind;
	const struct annot_insn *insn; /* INSN */
	const char *file;	  /* LINE, FILE: the source file */
	int line;		  /* LINE: its number; GAP: the first line left out */
	const char *text;	  /* LINE: the source text, NULL when not available */
	bool code;		  /* LINE: instructions of the function are on it */
	bool counted;		  /* the count belongs here (a line's first row, every insn) */
	uint64_t count;		  /* steps of the line (all its instructions) or instruction */
	bool hot;		  /* among the hottest (lines; instructions in ANNOT_ASM) */
	const char *gutter;	  /* the arrows' column, annot_view.gutter_width chars */
	char note[96];		  /* how the jump went: "taken 3 of 4", "-> 0x1170 5x, ..." */
};

/* A line or instruction among the hottest, for a summary. */
struct annot_hot {
	const char *file;	  /* the line (ANNOT_ASM: NULL, insn set) */
	int line;
	const struct annot_insn *insn;
	uint64_t count;
};

struct annot_view {
	const struct annot_fn *f;
	enum annot_mode mode;	  /* as asked, ANNOT_ASM when the function has no lines */
	const struct source_file *source; /* its own file (NULL: no lines) */
	struct annot_row *rows;
	size_t nr_rows;
	size_t gutter_width;	  /* 0: no jump to draw */
	size_t arrows, arrows_left_out; /* jumps drawn, and left out for want of lanes */
	struct annot_hot *hot;	  /* hottest first */
	size_t nr_hot;
	/* private */
	char *gutters;
	struct annot_line *lines;
	size_t nr_lines;
};

/*
 * Lay out f in mode, reading its sources through sf.  hot[] gets the
 * nr_hot hottest lines (instructions in ANNOT_ASM) that ran; rows with at
 * least the last one's count and ANNOT_HOT_PERCENT of the function's steps
 * are marked hot, unless they ran no more than the coolest line (nothing
 * is marked when all ran alike).  NULL when out
 * of memory (printed).
 */
struct annot_view *annot_view_new(const struct annot_fn *f, enum annot_mode mode,
				  struct source_files *sf, size_t nr_hot);
void annot_view_free(struct annot_view *v);

/* "27" for a line of the function's own file, else "stdio2.h:45", into buf. */
const char *annot_line_label(const struct annot_view *v, const char *file, int line, char *buf,
			     size_t size);

#endif /* POST_ANNOTATE_VIEW_H */
