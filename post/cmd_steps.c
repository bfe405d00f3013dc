// SPDX-License-Identifier: GPL-2.0
/* post steps: every step: thread, address, symbol+offset, source line, bytes, disassembly. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "post/flowreport.h"
#include "util/log.h"

struct steps {
	struct flow_report *r;
};

static const struct popt_cmd cmd = {
	.name = "steps", .synopsis = "[OPTIONS]",
	.description =
	"Every step: index, thread, address, symbol+offset, source file:line,\n"
	"instruction bytes and disassembly.",
};

static void on_step(void *ctx, struct cf_thread *t, const struct cf_step *st)
{
	struct steps *p = ctx;
	const struct cf_site_info *in;
	char bytes[3 * ARCH_INSN_MAX_LEN + 1] = "", *where = NULL, *src = NULL;
	const char *file;
	int r;

	if (!session_in_window(p->r->s, st->index, st->time_ns) || !fr_selected(p->r, st->site->fn))
		return;
	in = cf_sites_info(session_sites(p->r->s), p->r->cf, t->pid, st->pc, st->ring);
	/* names and paths whole, however long */
	if (in->symbol)
		r = asprintf(&where, "%s+0x%" PRIx64, in->symbol, in->sym_offset);
	else
		r = asprintf(&where, "[%s]", in->module);
	if (r < 0)
		where = NULL;
	file = in->file ? strrchr(in->file, '/') : NULL;
	file = file ? file + 1 : in->file;
	if (file && asprintf(&src, "%s:%d", file, in->line) < 0)
		src = NULL;
	for (unsigned b = 0, at = 0; b < in->site.insn.len && b < in->nr_bytes; b++)
		at += (unsigned)snprintf(bytes + at, sizeof(bytes) - at, "%s%02x", b ? " " : "",
					 in->bytes[b]);
	printf("%10" PRIu64 " %7u %18" PRIx64 "  ", st->index, t->tid, st->pc);
	report_pad(stdout, where ? where : "?", 28);
	putchar(' ');
	report_pad(stdout, src ? src : "??", 20);
	printf(" %-24s %s\n", bytes[0] ? bytes : "??", in->text);
	free(where);
	free(src);
}

static const struct cf_consumer_ops steps_ops = { .step = on_step };

int cmd_steps(int argc, char **argv, struct post_opts *opts)
{
	struct session_filter f = SESSION_FILTER_INIT;
	struct flow_report r;
	struct steps p = { .r = &r };
	struct output_opts oo = { 0 };
	const struct popt opt[] = {
		OPT_GROUP("Output"), POST_PAGER_OPTIONS(&oo),
		POST_FILTER_OPTIONS(&f), POST_WINDOW_OPTIONS(&f), POST_TRACE_OPTIONS(opts), OPT_END
	};
	const struct popt *tables[] = { opt, NULL };
	int ret = post_parse(&cmd, argc, argv, tables, opts, &f, 0, NULL, NULL);

	if (ret)
		return POST_EXIT(ret);
	ret = flow_report_open(&r, opts, &f, 0, "steps");
	if (!ret && cf_add_consumer(r.cf, &steps_ops, &p) < 0)
		ret = EXIT_RUNTIME;
	if (!ret) {
		output_start(&oo);
		report_header(stdout, r.s, "steps");
		printf("#%9s %7s %18s  %-28s %-20s %-24s %s\n", "step", "tid", "address",
		       "symbol+offset", "source", "bytes", "disassembly");
		ret = flow_report_run(&r);
	}
	if (!ret)
		ret = report_finish(stdout, "the step listing");
	flow_report_close(&r);
	return ret;
}
