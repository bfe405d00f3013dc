// SPDX-License-Identifier: GPL-2.0
/* post steps: every step: thread, address, symbol+offset, source line, bytes, disassembly. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "arcflow.h"
#include "log.h"

struct steps {
	struct af_session *s;
	uint64_t from, to;
};

static void usage(FILE *f)
{
	fprintf(f, "usage: post steps [OPTIONS]\n\n"
		   "Every step: index, thread, address, symbol+offset, source file:line,\n"
		   "instruction bytes and disassembly.  Options:\n"
		   "  -i DIR           trace directory (default pitrace.data)\n"
		   "  --from N         start at step index N\n"
		   "  --to M           stop after step index M\n"
		   "%s", af_filter_help);
}

static void on_step(void *ctx, struct cf_thread *t, const struct cf_step *st)
{
	struct steps *p = ctx;
	const struct cf_site_info *in;
	char where[256], src[256], bytes[3 * ARCH_INSN_MAX_LEN + 1] = "";
	const char *file;

	if (st->index < p->from || st->index > p->to || !af_fn_selected(p->s, st->site->fn))
		return;
	in = cf_sites_info(p->s->sites, p->s->cf, t->pid, st->pc, st->ring);
	if (in->symbol)
		snprintf(where, sizeof(where), "%s+0x%" PRIx64, in->symbol, in->sym_offset);
	else
		snprintf(where, sizeof(where), "[%s]", in->module);
	file = in->file ? strrchr(in->file, '/') : NULL;
	file = file ? file + 1 : in->file;
	if (file)
		snprintf(src, sizeof(src), "%s:%d", file, in->line);
	else
		snprintf(src, sizeof(src), "??");
	for (unsigned b = 0, at = 0; b < in->site.insn.len && b < in->nr_bytes; b++)
		at += (unsigned)snprintf(bytes + at, sizeof(bytes) - at, "%s%02x", b ? " " : "",
					 in->bytes[b]);
	printf("%10" PRIu64 " %7u %18" PRIx64 "  %-28s %-20s %-24s %s\n", st->index, t->tid,
	       st->pc, where, src, bytes[0] ? bytes : "??", in->text);
}

static const struct cf_consumer_ops steps_ops = { .step = on_step };

int cmd_steps(int argc, char **argv, struct post_opts *opts)
{
	struct af_session s = { 0 };
	struct steps p = { .s = &s, .to = UINT64_MAX };
	int ret;

	for (int i = 1; i < argc; i++) {
		int r = af_common_option(argc, argv, &i, opts, &s.filter);

		if (r < 0)
			return EXIT_USAGE;
		if (r)
			continue;
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			usage(stdout);
			return 0;
		}
		if ((r = af_window_option("steps", argc, argv, &i, &p.from, &p.to))) {
			if (r < 0)
				return EXIT_USAGE;
			continue;
		}
		pr_err("steps: unknown option '%s' (see 'post steps --help')", argv[i]);
		return EXIT_USAGE;
	}
	if (af_window_check("steps", p.from, p.to) < 0)
		return EXIT_USAGE;
	ret = af_open(&s, opts, false);
	if (!ret) {
		cf_add_consumer(s.cf, &steps_ops, &p);
		af_print_header(stdout, &s, "steps");
		printf("#%9s %7s %18s  %-28s %-20s %-24s %s\n", "step", "tid", "address",
		       "symbol+offset", "source", "bytes", "disassembly");
		ret = af_run(&s);
	}
	if (!ret)
		ret = af_finish_output(stdout, "the step listing");
	af_close(&s);
	return ret;
}
