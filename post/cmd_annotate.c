// SPDX-License-Identifier: GPL-2.0
/*
 * post annotate: a function's source lines interleaved with its
 * instructions, each with its steps and their percent, the hottest lines
 * marked and the jumps drawn (perf annotate --stdio, callgrind_annotate
 * --auto).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "post/annotate_text.h"
#include "util/log.h"
#include "post/output.h"

static const struct popt_cmd cmd = {
	.name = "annotate", .synopsis = "[--symbol F | --top N | --all] [--source | --asm] [OPTIONS]",
	.description =
	"Each function's source lines interleaved with its instructions, in address\n"
	"order, each line and instruction with its steps and their percent; the\n"
	"hottest lines are named in the function's header and marked '*', and\n"
	"arrows join each jump to its target inside the function, so loops show.\n"
	"Without source lines (no debug info) its instructions only, saying why.\n"
	"Addresses are the binary's own (ELF virtual addresses, as objdump shows\n"
	"them).  Functions by steps (Base), the most first: the 5 hottest unless\n"
	"--symbol, --top or --all says which.",
};

/* Functions shown when nothing says which: perf annotate's few, not a whole program's. */
#define ANNOTATE_TOP_DEFAULT 5

static const char *const percent_names[] = { "function", "total", NULL };
enum { PERCENT_FUNCTION, PERCENT_TOTAL };

struct annotate_opts {
	size_t top;		  /* 0: every function */
	bool all, source, asm_only;
	int percent;
	uint64_t hot;		  /* lines marked hottest */
	const char *source_dir;
	struct output_opts out;
};

/* What the rows' percentages are of. */
static uint64_t percent_base(const struct annotate_opts *o, const struct annot_fn *f,
			     uint64_t total)
{
	return o->percent == PERCENT_TOTAL ? total : f->base;
}

static void print_hot(const struct annot_view *v, uint64_t base)
{
	char label[256];

	if (!v->nr_hot)
		return;
	printf("# hottest %s:", v->mode == ANNOT_ASM ? "instructions" : "lines");
	for (size_t i = 0; i < v->nr_hot; i++) {
		const struct annot_hot *h = &v->hot[i];

		if (h->insn)
			snprintf(label, sizeof(label), "%" PRIx64, h->insn->addr);
		else
			annot_line_label(v, h->file, h->line, label, sizeof(label));
		printf("%s %s (%" PRIu64 ", %.2f%%)", i ? "," : "", label, h->count,
		       report_percent(h->count, base));
	}
	putchar('\n');
}

static void print_function_header(const struct annot_view *v, const struct annotate_opts *o,
				  uint64_t total)
{
	const struct annot_fn *f = v->f;
	const struct source_file *src = v->source;
	char buf[512];
	const char *why;

	/* "[kernel]" and "[vdso]" are bracketed already */
	printf("#\n# function %s %s%s%s", f->name, f->module[0] == '[' ? "" : "[", f->module,
	       f->module[0] == '[' ? "" : "]");
	if (f->size)
		printf(" at %#" PRIx64 ", %" PRIu64 " bytes", f->start, f->size);
	putchar('\n');
	if (f->raw_name)
		printf("# symbol: %s\n", f->raw_name);
	printf("# %" PRIu64 " steps (%.2f%% of the total), %" PRIu64 " call%s; percentages are "
	       "of %s\n", f->base, report_percent(f->base, total), f->calls,
	       f->calls == 1 ? "" : "s",
	       o->percent == PERCENT_TOTAL ? "the total" : "the function's steps");
	if ((why = annot_why_no_code(f, buf, sizeof(buf))))
		printf("# code: %s\n", why);
	if (!f->file) {
		printf("# source: none: %s\n", annot_why_no_lines(f, buf, sizeof(buf)));
	} else if (!src->found) {
		printf("# source: %s: %s (lines by number only; see --source-dir)\n", f->file,
		       src->error);
	} else {
		printf("# source: %s", f->file);
		if (strcmp(src->found, f->file))
			printf(" (read from %s)", src->found);
		if (src->newer)
			printf(" (modified after %s was built: lines may not match)", f->module_path);
		putchar('\n');
	}
	if (v->arrows_left_out)
		printf("# %zu jump targets without an arrow (more than %d side by side): see "
		       "the targets' labels\n", v->arrows_left_out, ANNOT_LANES);
	print_hot(v, percent_base(o, f, total));
}

static int print_rows(const struct annot_view *v, const struct annotate_opts *o, uint64_t total)
{
	struct annot_widths w = annot_text_widths(v);
	uint64_t base = percent_base(o, v->f, total);
	size_t size = 1024, n;
	char *buf = malloc(size);

	if (!buf)
		goto oom;
	annot_text_heading(v, &w, '#', buf, size);
	puts(buf);
	for (size_t r = 0; r < v->nr_rows; r++) {
		const struct annot_row *row = &v->rows[r];

		while ((n = annot_text_row(v, row, &w, base, buf, size)) >= size) {
			char *more = realloc(buf, n + 1);

			if (!more)
				goto oom;
			buf = more;
			size = n + 1;
		}
		if (row->kind == ANNOT_ROW_FILE) {
			printf("# %s\n", buf);
			continue;
		}
		/* on a terminal, hot rows in colour as perf annotate's (of the function's steps) */
		fputs(row->counted ? output_hot(report_percent(row->count, v->f->base)) : "", stdout);
		fputs(buf, stdout);
		fputs(row->counted ? output_reset() : "", stdout);
		putchar('\n');
	}
	free(buf);
	return 0;
oom:
	free(buf);
	pr_err("out of memory printing %s", v->f->name);
	return EXIT_RUNTIME;
}

static int print_report(struct flow_report *r, struct annotate *an, const struct annotate_opts *o)
{
	enum annot_mode mode = o->source ? ANNOT_SOURCE : o->asm_only ? ANNOT_ASM : ANNOT_MIXED;
	struct source_files *sf = source_files_new(o->source_dir);
	uint64_t total = arcs_total(r->arcs);
	size_t n, shown = 0, with_steps = 0, no_lines = 0;
	const struct annot_fn *last_no_lines = NULL;
	char why[512];
	const struct report_sort by_base = { { RK_BASE, RK_CUM }, 2 };
	uint32_t *fns = fr_sorted_functions(r, &by_base, &n);
	int ret = 0;

	if (!fns || !sf) {
		pr_err("out of memory for the annotation");
		free(fns);
		source_files_free(sf);
		return EXIT_RUNTIME;
	}
	report_header(stdout, r->s, "annotate");
	report_total(stdout, r->s, total, fr_selected_base(r));
	for (size_t i = 0; i < n; i++)
		with_steps += arcs_fn(r->arcs, fns[i])->base > 0;
	for (size_t i = 0; i < n && (!o->top || shown < o->top) && !ret; i++) {
		const struct annot_fn *f;
		struct annot_view *v;

		if (!arcs_fn(r->arcs, fns[i])->base)
			continue;	/* nothing of its own ran */
		if (!(f = annotate_fn(an, fns[i], 0)) || !(v = annot_view_new(f, mode, sf, o->hot))) {
			ret = EXIT_RUNTIME;
			break;
		}
		if (!f->file)
			no_lines++, last_no_lines = f;
		print_function_header(v, o, total);
		ret = print_rows(v, o, total);
		annot_view_free(v);
		shown++;
	}
	if (shown < with_steps && !ret)
		printf("#\n# %zu more functions with steps not shown: --top N shows the N hottest, "
		       "--all every one\n", with_steps - shown);
	/* --source asked for what some functions lack: say so where scripts look */
	if (o->source && no_lines == 1)
		pr_warn("annotate: %s has no source lines (%s); its instructions are shown",
			last_no_lines->name, annot_why_no_lines(last_no_lines, why, sizeof(why)));
	else if (o->source && no_lines)
		pr_warn("annotate: %zu of the %zu functions shown have no source lines; their "
			"instructions are shown (each one's '# source:' line says why)", no_lines,
			shown);
	free(fns);
	source_files_free(sf);
	return ret ? ret : report_finish(stdout, "the annotation");
}

int cmd_annotate(int argc, char **argv, struct post_opts *opts)
{
	struct session_filter f = SESSION_FILTER_INIT;
	struct annotate_opts o = { .hot = 5 };
	const struct popt opt[] = {
		OPT_GROUP("What to show"),
		OPT_SIZE(0, "top", &o.top, "N", "the N functions with the most steps (default 5;\n"
			 "--symbol F: every function it matches)"),
		OPT_FLAG(0, "all", &o.all, "every function that ran"),
		OPT_FLAG(0, "source", &o.source, "source lines only, with their counts (as\n"
			 "callgrind_annotate --auto shows them)"),
		OPT_FLAG(0, "asm", &o.asm_only, "instructions only"),
		OPT_CHOICE(0, "percent", &o.percent, "OF", percent_names,
			   "percentages of the function's steps (the default) or of the\n"
			   "total"),
		OPT_U64(0, "hot", &o.hot, "N", "mark the N hottest lines (default 5; 0: none)"),
		OPT_STRING(0, "source-dir", &o.source_dir, "DIR",
			   "look for source files under DIR when their recorded path\n"
			   "does not exist (by its trailing components)"),
		OPT_GROUP("Output"), POST_PAGER_OPTIONS(&o.out),
		POST_FILTER_OPTIONS(&f), POST_WINDOW_OPTIONS(&f), POST_TRACE_OPTIONS(opts), OPT_END
	};
	const struct popt *tables[] = { opt, NULL };
	struct annotate *an = NULL;
	struct flow_report r;
	int ret = post_parse(&cmd, argc, argv, tables, opts, &f, 0, NULL, NULL);

	if (ret)
		return POST_EXIT(ret);
	if (o.source && o.asm_only) {
		pr_err("annotate: --source and --asm exclude each other");
		return EXIT_USAGE;
	}
	if (o.all && o.top) {
		pr_err("annotate: --top and --all exclude each other");
		return EXIT_USAGE;
	}
	if (!o.top && !o.all && !f.symbol)
		o.top = ANNOTATE_TOP_DEFAULT;
	ret = flow_report_open(&r, opts, &f, FR_ARCS, "annotate");
	if (!ret && !(an = annotate_new(&r, ANNOT_SELECTED)))
		ret = EXIT_RUNTIME;
	if (!ret)
		ret = flow_report_run(&r);
	if (!ret) {
		output_start(&o.out);
		ret = print_report(&r, an, &o);
	}
	annotate_free(an);
	flow_report_close(&r);
	return ret;
}
