// SPDX-License-Identifier: GPL-2.0
/* post counts: instruction counts by process, thread, module, symbol, line or instruction. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arcflow.h"
#include "counts.h"
#include "log.h"
#include "post.h"
#include "report.h"
#include "symbols.h"
#include "trace_reader.h"

static void usage(FILE *f)
{
	fprintf(f, "usage: post [-i DIR] counts [--by process|thread|module|symbol|line|insn]\n"
		   "                   [--pid PID] [--tid TID] [--module MODULE] [--top N]\n"
		   "                   [--ring user|kernel|all]\n\n"
		   "Instruction counts, sorted by count.  One count is one executed instruction;\n"
		   "a rep-prefixed string instruction counts once per iteration.\n\n"
		   "  --by KEY       what a row is (default symbol)\n"
		   "  --pid PID      only steps of process PID\n"
		   "  --tid TID      only steps of thread TID\n"
		   "  --module M     only steps in module M (short name or path)\n"
		   "  --ring R       only user-mode or kernel-mode steps (default all; count-only\n"
		   "                 traces can't be split by ring)\n"
		   "  --top N        print the N largest rows (the total still counts all)\n");
}

static void print_filters(const struct counts_options *o)
{
	char buf[512] = "";
	size_t n = 0;

	if (o->pid)
		n += (size_t)snprintf(buf + n, sizeof(buf) - n, ", pid %u", o->pid);
	if (o->tid && n < sizeof(buf))
		n += (size_t)snprintf(buf + n, sizeof(buf) - n, ", tid %u", o->tid);
	if (o->module && n < sizeof(buf))
		n += (size_t)snprintf(buf + n, sizeof(buf) - n, ", module %s", o->module);
	if (o->ring && n < sizeof(buf))
		snprintf(buf + n, sizeof(buf) - n, ", %s steps",
			 o->ring == COUNTS_RING_KERNEL ? "kernel" : "user");
	if (buf[0])
		report_comment(stdout, "only: %s", buf + 2);
}

static void print_report(struct counts *c, const struct counts_options *o, struct trace *t,
			 size_t top)
{
	const struct counts_row *crows;
	struct report_row *rows;
	const char *const *names;
	size_t nr_cols = counts_columns(o->by, &names);
	size_t n = counts_result(c, &crows);
	uint64_t recorded = trace_info(t)->totals.steps;
	bool block = !strcmp(trace_info(t)->mode, "block");
	struct report_table table = {
		.col_names = names, .nr_cols = nr_cols, .count_name = "count",
		.total = counts_total(c), .top = top,
	};

	rows = calloc(n ? n : 1, sizeof(*rows));
	if (!rows) {
		pr_err("out of memory");
		return;
	}
	for (size_t i = 0; i < n; i++) {
		rows[i].count = crows[i].count;
		for (size_t k = 0; k < nr_cols && k < REPORT_MAX_COLS; k++)
			rows[i].cols[k] = crows[i].cols[k];
	}
	report_comment(stdout, "counts by %s: one count is one executed instruction "
		       "(a rep-prefixed string instruction counts once per iteration)",
		       counts_by_name(o->by));
	report_trace_header(stdout, t);
	print_filters(o);
	if (block)
		report_comment(stdout, "block mode: %" PRIu64 " block records expanded into %" PRIu64
			       " instructions", recorded, counts_seen(c));
	report_comment(stdout, "steps: %" PRIu64 " read, %" PRIu64 " counted", counts_seen(c),
		       counts_total(c));
	if (counts_lost(c))
		report_comment(stdout, "lost: %" PRIu64 " steps the recorder could not keep "
			       "(in no row)", counts_lost(c));
	if (!block && recorded != counts_seen(c))
		report_comment(stdout, "note: the header says %" PRIu64 " steps were recorded",
			       recorded);
	report_print_table(stdout, &table, rows, n);
	free(rows);
}

/*
 * Block-mode traces hold one record per run of instructions ending at a
 * taken branch.  The call-flow engine expands each run into its
 * instructions; counting then sees every instruction, as in step mode.
 */
static void block_expanded_step(void *ctx, struct cf_thread *th, const struct cf_step *s)
{
	struct trace_event ev = {
		.kind = TEV_STEP, .pid = th->pid, .tid = th->tid, .cpu = UINT32_MAX,
		.ring = s->ring, .pc = s->pc, .index = s->index, .time_ns = s->time_ns,
	};

	counts_event(ctx, &ev);
}

static void block_other_event(void *ctx, const struct trace_event *ev)
{
	if (ev->kind != TEV_STEP)
		counts_event(ctx, ev);
}

static int count_block_trace(struct counts *c, const struct post_opts *opts)
{
	static const struct cf_consumer_ops ops = { .step = block_expanded_step };
	struct af_session s = { 0 };
	int r = af_open(&s, opts, false);

	if (!r && cf_add_consumer(s.cf, &ops, c) < 0)
		r = EXIT_RUNTIME;
	if (!r) {
		s.on_event = block_other_event;
		s.event_ctx = c;
		r = af_run(&s);
	}
	af_close(&s);
	return r ? -1 : 0;
}

int cmd_counts(int argc, char **argv, struct post_opts *opts)
{
	struct counts_options o = { .by = COUNTS_BY_SYMBOL };
	struct sym_options so = { 0 };
	struct counts_resolver res;
	struct counts_sym_arg arg = { 0 };
	struct counts *c = NULL;
	struct trace *t;
	size_t top = 0;
	int ret = EXIT_RUNTIME;

	for (int i = 1; i < argc; i++) {
		const char *v = NULL;
		int r = post_common_option(argc, argv, &i, opts);

		if (r < 0)
			return EXIT_USAGE;
		if (r)
			continue;
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			usage(stdout);
			return 0;
		}
		if ((r = report_opt_value(argc, argv, &i, "--by", &v))) {
			if (r < 0)
				return EXIT_USAGE;
			if (counts_parse_by(v, &o.by) < 0) {
				pr_err("counts: --by '%s' is not one of process, thread, module, "
				       "symbol, line, insn", v);
				return EXIT_USAGE;
			}
		} else if ((r = report_opt_value(argc, argv, &i, "--pid", &v))) {
			if (r < 0 || report_parse_u32("--pid", v, &o.pid) < 0)
				return EXIT_USAGE;
		} else if ((r = report_opt_value(argc, argv, &i, "--tid", &v))) {
			if (r < 0 || report_parse_u32("--tid", v, &o.tid) < 0)
				return EXIT_USAGE;
		} else if ((r = report_opt_value(argc, argv, &i, "--module", &v))) {
			if (r < 0)
				return EXIT_USAGE;
			o.module = v;
		} else if ((r = report_opt_value(argc, argv, &i, "--ring", &v))) {
			if (r < 0)
				return EXIT_USAGE;
			if (counts_parse_ring(v, &o.ring) < 0) {
				pr_err("counts: --ring '%s' is not one of user, kernel, all", v);
				return EXIT_USAGE;
			}
		} else if ((r = report_opt_value(argc, argv, &i, "--top", &v))) {
			if (r < 0 || report_parse_top("--top", v, &top) < 0)
				return EXIT_USAGE;
		} else if (argv[i][0] == '-') {
			pr_err("counts: unknown option '%s' (see 'post counts --help')", argv[i]);
			return EXIT_USAGE;
		} else {
			pr_err("counts: unexpected argument '%s' (see 'post counts --help')",
			       argv[i]);
			return EXIT_USAGE;
		}
	}
	t = trace_open_flags(opts->input, opts->force ? TRACE_OPEN_FORCE : 0);
	if (!t)
		return EXIT_RUNTIME;
	so.trace_dir = trace_dir(t);
	so.vmlinux = opts->vmlinux;
	so.debug_dir = opts->debug_dir;
	so.no_demangle = opts->no_demangle;
	arg.trace = t;
	arg.sym = sym_session_new(&so);
	if (!arg.sym) {
		pr_err("cannot set up symbol resolution for %s", trace_dir(t));
		goto out;
	}
	counts_sym_resolver(&res, &arg);
	c = counts_new(&o, &res);
	if (!c)
		goto out;
	if (!strcmp(trace_info(t)->mode, "block") ? count_block_trace(c, opts) < 0
						  : counts_run(c, t) < 0)
		goto out;
	print_report(c, &o, t, top);
	if (fflush(stdout) != 0 || ferror(stdout))
		pr_err("cannot write the report: %s", strerror(errno));
	else
		ret = 0;
out:
	counts_free(c);
	if (arg.sym)
		sym_session_free(arg.sym);
	trace_close(t);
	return ret;
}
