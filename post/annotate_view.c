// SPDX-License-Identifier: GPL-2.0
/* An annotated function as rows, with the hottest marked and jump arrows (annotate_view.h). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "post/annotate_view.h"
#include "util/log.h"

/* One source line with code of the function. */
struct annot_line {
	const char *file;
	int line;
	uint64_t count;		  /* steps of its instructions */
	bool hot, shown;
	size_t row;		  /* ANNOT_SOURCE: its row */
};

static int str_cmp(const char *a, const char *b)
{
	return a == b ? 0 : strcmp(a, b);
}

static int line_cmp(const void *pa, const void *pb)
{
	const struct annot_line *a = pa, *b = pb;

	return str_cmp(a->file, b->file) ?: (a->line > b->line) - (a->line < b->line);
}

static struct annot_line *find_line(const struct annot_view *v, const char *file, int line)
{
	struct annot_line key = { .file = file, .line = line };

	if (!file)
		return NULL;
	return bsearch(&key, v->lines, v->nr_lines, sizeof(*v->lines), line_cmp);
}

/* The function's lines with code, and each one's steps. */
static int collect_lines(struct annot_view *v)
{
	const struct annot_fn *f = v->f;
	size_t n = 0;

	v->lines = calloc(f->nr_insns + 1, sizeof(*v->lines));
	if (!v->lines)
		return -1;
	for (size_t i = 0; i < f->nr_insns; i++)
		if (f->insns[i].file && f->insns[i].line > 0)
			v->lines[n++] = (struct annot_line){ .file = f->insns[i].file,
							     .line = f->insns[i].line,
							     .count = f->insns[i].count };
	qsort(v->lines, n, sizeof(*v->lines), line_cmp);
	for (size_t i = 0; i < n; i++) {
		if (v->nr_lines && !line_cmp(&v->lines[v->nr_lines - 1], &v->lines[i]))
			v->lines[v->nr_lines - 1].count += v->lines[i].count;
		else
			v->lines[v->nr_lines++] = v->lines[i];
	}
	return 0;
}

static int hot_cmp(const void *pa, const void *pb)
{
	const struct annot_hot *a = pa, *b = pb;

	if (a->count != b->count)
		return a->count > b->count ? -1 : 1;
	if (a->insn && b->insn)
		return a->insn->addr < b->insn->addr ? -1 : a->insn->addr > b->insn->addr;
	return str_cmp(a->file ? a->file : "", b->file ? b->file : "") ?:
	       (a->line > b->line) - (a->line < b->line);
}

/*
 * The nr hottest lines (instructions in ANNOT_ASM) that ran, for a summary;
 * rows are marked hot when they have at least the last one's count, at
 * least ANNOT_HOT_PERCENT of the function's steps, and more than the
 * coolest that ran (so nothing is marked when all ran alike).
 */
static int find_hot(struct annot_view *v, size_t nr, bool *insn_hot)
{
	const struct annot_fn *f = v->f;
	size_t n = 0;
	uint64_t least;

	v->hot = calloc((v->mode == ANNOT_ASM ? f->nr_insns : v->nr_lines) + 1, sizeof(*v->hot));
	if (!v->hot)
		return -1;
	if (v->mode == ANNOT_ASM) {
		for (size_t i = 0; i < f->nr_insns; i++)
			if (f->insns[i].count)
				v->hot[n++] = (struct annot_hot){ .insn = &f->insns[i],
								  .count = f->insns[i].count };
	} else {
		for (size_t i = 0; i < v->nr_lines; i++)
			if (v->lines[i].count)
				v->hot[n++] = (struct annot_hot){ v->lines[i].file, v->lines[i].line,
								  NULL, v->lines[i].count };
	}
	qsort(v->hot, n, sizeof(*v->hot), hot_cmp);
	v->nr_hot = n < nr ? n : nr;
	if (!v->nr_hot)
		return 0;
	least = v->hot[n - 1].count;
	for (size_t i = 0; i < n && v->hot[i].count >= v->hot[v->nr_hot - 1].count; i++) {
		if (v->hot[i].count == least ||
		    100 * v->hot[i].count < ANNOT_HOT_PERCENT * (f->base ? f->base : 1))
			break;
		if (v->hot[i].insn)
			insn_hot[v->hot[i].insn - f->insns] = true;
		else
			find_line(v, v->hot[i].file, v->hot[i].line)->hot = true;
	}
	return 0;
}

static struct annot_row *add_row(struct annot_view *v, size_t *size, enum annot_row_kind kind)
{
	struct annot_row *r;

	if (v->nr_rows == *size) {
		size_t n = *size ? 2 * *size : 256;
		struct annot_row *more = realloc(v->rows, n * sizeof(*more));

		if (!more)
			return NULL;
		v->rows = more;
		*size = n;
	}
	r = &v->rows[v->nr_rows++];
	memset(r, 0, sizeof(*r));
	r->kind = kind;
	return r;
}

static void line_row(struct annot_view *v, struct annot_row *r, const char *file, int line,
		     const struct source_file *src)
{
	struct annot_line *l = find_line(v, file, line);

	r->file = file;
	r->line = line;
	r->text = source_line(src, line);
	if (l) {
		r->code = true;
		r->counted = !l->shown;
		r->count = l->count;
		r->hot = l->hot && !l->shown;
		l->shown = true;
	}
}

/* Source lines interleaved with the instructions, in address order, or instructions only. */
static int rows_by_address(struct annot_view *v, struct source_files *sf, const bool *insn_hot,
			   size_t *insn_row)
{
	const struct annot_fn *f = v->f;
	const char *file = NULL;
	int line = 0;
	size_t size = 0;

	for (size_t i = 0; i < f->nr_insns; i++) {
		const struct annot_insn *in = &f->insns[i];
		struct annot_row *r;

		if (v->mode == ANNOT_MIXED && in->file && in->line > 0 &&
		    (in->line != line || str_cmp(in->file, file ? file : ""))) {
			if (!(r = add_row(v, &size, ANNOT_ROW_LINE)))
				return -1;
			line_row(v, r, in->file, in->line, source_file(sf, in->file, f->module_path));
		}
		file = in->file;
		line = in->line;
		if (!(r = add_row(v, &size, ANNOT_ROW_INSN)))
			return -1;
		r->insn = in;
		r->counted = true;
		r->count = in->count;
		r->hot = insn_hot[i];
		insn_row[i] = v->nr_rows - 1;
	}
	return 0;
}

static uint64_t file_count(const struct annot_view *v, const char *file)
{
	uint64_t n = 0;

	for (size_t i = 0; i < v->nr_lines; i++)
		if (!str_cmp(v->lines[i].file, file))
			n += v->lines[i].count;
	return n;
}

/* One file's lines with code and ANNOT_CONTEXT lines around them; gaps as one row. */
static int rows_of_file(struct annot_view *v, size_t *size, const char *file,
			const struct source_file *src)
{
	size_t first = 0, end;
	int shown_to = 0;

	while (first < v->nr_lines && str_cmp(v->lines[first].file, file))
		first++;
	for (end = first; end < v->nr_lines && !str_cmp(v->lines[end].file, file); end++)
		;
	for (size_t i = first; i < end; i++) {
		int from = v->lines[i].line - ANNOT_CONTEXT, to = v->lines[i].line + ANNOT_CONTEXT;
		struct annot_row *r;

		/* extend to the next line with code while the context joins them */
		while (i + 1 < end && v->lines[i + 1].line - ANNOT_CONTEXT <= to + 1)
			to = v->lines[++i].line + ANNOT_CONTEXT;
		if (from < 1)
			from = 1;
		if (from <= shown_to)
			from = shown_to + 1;
		if (!src || !src->lines) {	/* no text: only the lines with code */
			from = v->lines[first].line;
			to = v->lines[i].line;
		} else if (to > src->nr_lines) {
			to = src->nr_lines < from ? from : src->nr_lines;
		}
		if (shown_to && from > shown_to + 1) {
			if (!(r = add_row(v, size, ANNOT_ROW_GAP)))
				return -1;
			r->line = shown_to + 1;
		}
		for (int n = from; n <= to; n++) {
			if ((!src || !src->lines) && !find_line(v, file, n))
				continue;
			if (!(r = add_row(v, size, ANNOT_ROW_LINE)))
				return -1;
			line_row(v, r, file, n, src);
			if (r->code)
				find_line(v, file, n)->row = v->nr_rows - 1;
		}
		shown_to = to;
		first = i + 1;
	}
	return 0;
}

struct file_rank {
	const char *file;
	uint64_t count;
};

static int file_rank_cmp(const void *pa, const void *pb)
{
	const struct file_rank *a = pa, *b = pb;

	if (a->count != b->count)
		return a->count > b->count ? -1 : 1;
	return strcmp(a->file, b->file);
}

/* The source lines only: the function's own file first, then the others by steps. */
static int rows_by_line(struct annot_view *v, struct source_files *sf)
{
	struct file_rank *files = calloc(v->nr_lines + 1, sizeof(*files));
	size_t nfiles = 0, size = 0;
	int ret = 0;

	if (!files)
		return -1;
	for (size_t i = 0; i < v->nr_lines; i++)
		if ((!i || str_cmp(v->lines[i - 1].file, v->lines[i].file)) &&
		    str_cmp(v->lines[i].file, v->f->file))
			files[nfiles++] = (struct file_rank){ v->lines[i].file,
							      file_count(v, v->lines[i].file) };
	qsort(files, nfiles, sizeof(*files), file_rank_cmp);
	ret = rows_of_file(v, &size, v->f->file, v->source);
	for (size_t k = 0; k < nfiles && !ret; k++) {
		struct annot_row *r = add_row(v, &size, ANNOT_ROW_FILE);

		if (!r) {
			ret = -1;
			break;
		}
		r->file = files[k].file;
		ret = rows_of_file(v, &size, files[k].file,
				   source_file(sf, files[k].file, v->f->module_path));
	}
	free(files);
	return ret;
}

/* ---- jump arrows ---- */

struct edge {
	size_t from, to;	  /* rows */
};

static int edge_cmp(const void *pa, const void *pb)
{
	const struct edge *a = pa, *b = pb;

	if (a->to != b->to)
		return a->to < b->to ? -1 : 1;
	return a->from < b->from ? -1 : a->from > b->from;
}

/* The jumps to one row: drawn in one lane from the farthest source to the target. */
struct arrow {
	size_t target, lo, hi;
	size_t first, n;	  /* its edges */
	int lane;		  /* -1: not drawn */
};

static int arrow_cmp(const void *pa, const void *pb)
{
	const struct arrow *a = pa, *b = pb;
	size_t sa = a->hi - a->lo, sb = b->hi - b->lo;

	if (sa != sb)
		return sa < sb ? -1 : 1;
	return a->lo < b->lo ? -1 : a->lo > b->lo;
}

/* The edges between rows that arrows show. */
static struct edge *find_edges(struct annot_view *v, const size_t *insn_row, size_t *n)
{
	const struct annot_fn *f = v->f;
	struct edge *e = calloc(f->nr_insns + f->nr_jumps + 1, sizeof(*e));

	*n = 0;
	if (!e)
		return NULL;
	if (v->mode != ANNOT_SOURCE) {
		/* every direct jump and branch inside the function, and the indirect ones taken */
		for (size_t i = 0; i < f->nr_insns; i++) {
			const struct annot_insn *in = &f->insns[i], *t;

			if ((in->cls == ARCH_INSN_JUMP || in->cls == ARCH_INSN_COND) &&
			    (in->flags & ARCH_INSN_HAS_TARGET) && (t = annot_insn_at(f, in->target)))
				e[(*n)++] = (struct edge){ insn_row[i], insn_row[t - f->insns] };
		}
		for (size_t j = 0; j < f->nr_jumps; j++) {
			const struct annot_insn *from = annot_insn_at(f, f->jumps[j].from);
			const struct annot_insn *to = annot_insn_at(f, f->jumps[j].to);

			if (from && to && !(from->flags & ARCH_INSN_HAS_TARGET))
				e[(*n)++] = (struct edge){ insn_row[from - f->insns],
							   insn_row[to - f->insns] };
		}
	} else {
		/* the jumps taken from one line to another */
		for (size_t j = 0; j < f->nr_jumps; j++) {
			const struct annot_insn *from = annot_insn_at(f, f->jumps[j].from);
			const struct annot_insn *to = annot_insn_at(f, f->jumps[j].to);
			struct annot_line *lf = from ? find_line(v, from->file, from->line) : NULL;
			struct annot_line *lt = to ? find_line(v, to->file, to->line) : NULL;

			if (lf && lt && lf != lt && !str_cmp(lf->file, lt->file))
				e[(*n)++] = (struct edge){ lf->row, lt->row };
		}
	}
	qsort(e, *n, sizeof(*e), edge_cmp);
	return e;
}

/* Lanes: the shortest arrows nearest the text, none sharing a row with another in its lane. */
static size_t assign_lanes(struct arrow *a, size_t n, size_t nr_rows, size_t *left_out)
{
	uint8_t *busy = calloc(ANNOT_LANES * nr_rows + 1, 1);
	size_t used = 0;

	*left_out = 0;
	if (!busy)
		return SIZE_MAX;
	qsort(a, n, sizeof(*a), arrow_cmp);
	for (size_t i = 0; i < n; i++) {
		a[i].lane = -1;
		for (int k = 0; k < ANNOT_LANES && a[i].lane < 0; k++) {
			uint8_t *b = busy + (size_t)k * nr_rows;
			size_t r = a[i].lo;

			while (r <= a[i].hi && !b[r])
				r++;
			if (r <= a[i].hi)
				continue;
			memset(b + a[i].lo, 1, a[i].hi - a[i].lo + 1);
			a[i].lane = k;
			if ((size_t)k + 1 > used)
				used = (size_t)k + 1;
		}
		if (a[i].lane < 0)
			(*left_out)++;
	}
	free(busy);
	return used;
}

static void draw(struct annot_view *v, const struct arrow *a, size_t n, const struct edge *e,
		 size_t lanes)
{
	size_t w = v->gutter_width, stride = w + 1;
	char *g = v->gutters;

	for (size_t i = 0; i < n; i++) {
		size_t c = 2 * (lanes - 1 - (size_t)a[i].lane);

		if (a[i].lane < 0)
			continue;
		for (size_t r = a[i].lo + 1; r < a[i].hi; r++)
			g[r * stride + c] = '|';
	}
	for (size_t i = 0; i < n; i++) {
		size_t c = 2 * (lanes - 1 - (size_t)a[i].lane);

		if (a[i].lane < 0)
			continue;
		for (size_t k = 0; k <= a[i].n; k++) {
			size_t r = k < a[i].n ? e[a[i].first + k].from : a[i].target;
			char *row = g + r * stride;

			row[c] = a[i].lo == a[i].hi ? '+' : r == a[i].lo ? '/' : r == a[i].hi ? '\\' : '+';
			for (size_t x = c + 1; x < w; x++)
				if (row[x] == ' ')
					row[x] = '-';
			if (r == a[i].target)
				row[w - 1] = '>';
		}
	}
}

static int arrows(struct annot_view *v, const size_t *insn_row)
{
	size_t ne, na = 0, lanes;
	struct edge *e = find_edges(v, insn_row, &ne);
	struct arrow *a = e ? calloc(ne + 1, sizeof(*a)) : NULL;

	if (!a) {
		free(e);
		return -1;
	}
	for (size_t i = 0; i < ne; i++) {
		if (i && e[i].to == e[i - 1].to && e[i].from == e[i - 1].from)
			continue;	/* a direct jump also taken: one edge */
		if (!na || a[na - 1].target != e[i].to)
			a[na++] = (struct arrow){ e[i].to, e[i].to, e[i].to, i, 0, -1 };
		struct arrow *cur = &a[na - 1];

		/* edges of one arrow stay contiguous: duplicates moved out of the way */
		e[cur->first + cur->n] = e[i];
		cur->n++;
		if (e[i].from < cur->lo)
			cur->lo = e[i].from;
		if (e[i].from > cur->hi)
			cur->hi = e[i].from;
	}
	lanes = assign_lanes(a, na, v->nr_rows, &v->arrows_left_out);
	if (lanes == SIZE_MAX) {
		free(a);
		free(e);
		return -1;
	}
	v->arrows = na - v->arrows_left_out;
	v->gutter_width = lanes ? 2 * lanes + 1 : 0;
	v->gutters = malloc(v->nr_rows * (v->gutter_width + 1) + 1);
	if (!v->gutters) {
		free(a);
		free(e);
		return -1;
	}
	for (size_t r = 0; r < v->nr_rows; r++) {
		char *row = v->gutters + r * (v->gutter_width + 1);

		memset(row, ' ', v->gutter_width);
		row[v->gutter_width] = '\0';
		v->rows[r].gutter = row;
	}
	draw(v, a, na, e, lanes);
	free(a);
	free(e);
	return 0;
}

/* ---- notes: how the jumps went ---- */

static int jump_count_cmp(const void *pa, const void *pb)
{
	const struct annot_jump *a = *(const struct annot_jump *const *)pa;
	const struct annot_jump *b = *(const struct annot_jump *const *)pb;

	if (a->count != b->count)
		return a->count > b->count ? -1 : 1;
	return a->to < b->to ? -1 : a->to > b->to;
}

/* "-> 0x1170 5x, 0x1180 3x, ..." for the taken jumps in js[0..n), most taken first. */
static void note_targets(char *note, size_t size, const struct annot_jump **js, size_t n,
			 const struct annot_view *v, bool by_line)
{
	size_t len = (size_t)snprintf(note, size, "->");

	qsort(js, n, sizeof(*js), jump_count_cmp);
	for (size_t k = 0; k < n && len < size; k++) {
		const struct annot_insn *to = annot_insn_at(v->f, js[k]->to);
		char label[64];

		if (k == 3) {
			snprintf(note + len, size - len, ", ...");
			break;
		}
		if (by_line && to)
			annot_line_label(v, to->file, to->line, label, sizeof(label));
		else
			snprintf(label, sizeof(label), "%#" PRIx64, js[k]->to);
		len += (size_t)snprintf(note + len, size - len, "%s %s %" PRIu64 "x", k ? "," : "",
					label, js[k]->count);
	}
}

static int notes(struct annot_view *v)
{
	const struct annot_fn *f = v->f;
	const struct annot_jump **js = calloc(f->nr_jumps + 1, sizeof(*js));

	if (!js)
		return -1;
	for (size_t r = 0; r < v->nr_rows; r++) {
		struct annot_row *row = &v->rows[r];
		const struct annot_insn *in = row->insn;
		uint64_t taken = 0;
		size_t n = 0;

		if (row->kind == ANNOT_ROW_INSN) {
			for (size_t j = 0; j < f->nr_jumps; j++)
				if (f->jumps[j].from == in->addr)
					js[n++] = &f->jumps[j], taken += f->jumps[j].count;
			if (in->cls == ARCH_INSN_COND && (in->flags & ARCH_INSN_HAS_TARGET) &&
			    annot_insn_at(f, in->target) && in->count)
				snprintf(row->note, sizeof(row->note), "taken %" PRIu64 " of %" PRIu64,
					 taken, in->count);
			else if (!(in->flags & ARCH_INSN_HAS_TARGET) && n)
				note_targets(row->note, sizeof(row->note), js, n, v, false);
		} else if (row->kind == ANNOT_ROW_LINE && row->code && row->counted &&
			   v->mode == ANNOT_SOURCE) {
			for (size_t j = 0; j < f->nr_jumps; j++) {
				const struct annot_insn *a = annot_insn_at(f, f->jumps[j].from);
				const struct annot_insn *b = annot_insn_at(f, f->jumps[j].to);

				if (a && b && a->line == row->line && !str_cmp(a->file, row->file) &&
				    (b->line != row->line || str_cmp(b->file, row->file)))
					js[n++] = &f->jumps[j];
			}
			if (n)
				note_targets(row->note, sizeof(row->note), js, n, v, true);
		}
	}
	free(js);
	return 0;
}

const char *annot_line_label(const struct annot_view *v, const char *file, int line, char *buf,
			     size_t size)
{
	const char *base = file ? strrchr(file, '/') : NULL;

	if (!file || !str_cmp(file, v->f->file))
		snprintf(buf, size, "%d", line);
	else
		snprintf(buf, size, "%s:%d", base ? base + 1 : file, line);
	return buf;
}

struct annot_view *annot_view_new(const struct annot_fn *f, enum annot_mode mode,
				  struct source_files *sf, size_t nr_hot)
{
	struct annot_view *v = calloc(1, sizeof(*v));
	bool *insn_hot = calloc(f->nr_insns + 1, sizeof(*insn_hot));
	size_t *insn_row = calloc(f->nr_insns + 1, sizeof(*insn_row));
	int ret = -1;

	if (!v || !insn_hot || !insn_row)
		goto out;
	v->f = f;
	v->mode = f->file ? mode : ANNOT_ASM;
	if (f->file && !(v->source = source_file(sf, f->file, f->module_path)))
		goto out;
	if (collect_lines(v) < 0 || find_hot(v, nr_hot, insn_hot) < 0)
		goto out;
	if (v->mode == ANNOT_SOURCE ? rows_by_line(v, sf) : rows_by_address(v, sf, insn_hot, insn_row))
		goto out;
	ret = arrows(v, insn_row) < 0 || notes(v) < 0 ? -1 : 0;
out:
	free(insn_hot);
	free(insn_row);
	if (ret < 0) {
		pr_err("out of memory laying out %s", f->name);
		annot_view_free(v);
		return NULL;
	}
	return v;
}

void annot_view_free(struct annot_view *v)
{
	if (!v)
		return;
	free(v->rows);
	free(v->gutters);
	free(v->lines);
	free(v->hot);
	free(v);
}
