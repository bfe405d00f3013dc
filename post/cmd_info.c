// SPDX-License-Identifier: GPL-2.0
/* post info: a trace's header attributes, totals and step streams. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "log.h"
#include "post.h"
#include "stepcodec.h"
#include "trace_reader.h"

static void usage(FILE *f)
{
	fprintf(f, "usage: post [-i DIR] info\n\n"
		   "The trace's header (format, features, command, times, state, notes),\n"
		   "its totals, and each step stream's steps, size and bytes per step.\n"
		   "Every stream is read through: a damaged one is described (and info\n"
		   "exits 1 unless --force).\n");
}

static const char *const feature_names[] = {
	"zstd", "per-thread", "per-cpu", "kernel", "kallsyms", "on-symbol", "count-only",
};

static void print_features(uint64_t f)
{
	printf("%-12s", "features:");
	if (!f)
		printf(" none");
	for (unsigned b = 0; b < 64; b++) {
		if (!(f & (1ull << b)))
			continue;
		if (b < sizeof(feature_names) / sizeof(feature_names[0]))
			printf(" %s", feature_names[b]);
		else
			printf(" bit%u", b);	/* from a newer writer */
	}
	putchar('\n');
}

static void print_time(const char *what, const struct pt_attr_time *t)
{
	char buf[64];
	struct tm tm;
	time_t s = (time_t)(t->realtime_ns / 1000000000ull);

	if (!t->realtime_ns) {
		printf("%-12s -\n", what);
		return;
	}
	gmtime_r(&s, &tm);
	strftime(buf, sizeof(buf), "%Y-%m-%d %H:%M:%S", &tm);
	printf("%-12s %s.%03u UTC\n", what, buf, (unsigned)(t->realtime_ns / 1000000 % 1000));
}

static void print_str(const char *what, const char *s)
{
	printf("%-12s %s\n", what, s[0] ? s : "-");
}

/*
 * Read one stream through: its steps (up to the damage, if any), and what
 * the damage is in damage[] ("" when none).  False if it cannot be read.
 */
static bool stream_steps(const struct trace_stream_info *si, uint64_t *steps, bool *zstd,
			 char *damage, size_t size)
{
	struct stream_reader *r = stream_reader_open(si->path);
	struct step_item it;

	*steps = 0;
	*zstd = false;
	damage[0] = '\0';
	if (!r)
		return false;
	*zstd = stream_reader_header(r)->flags & PT_FLAG_ZSTD;
	/* damage is part of the description here: count up to it, say what it is */
	stream_reader_set_force(r, true);
	stream_reader_set_quiet(r, true);
	while (stream_reader_next(r, &it, NULL) == 1)
		*steps += it.kind == STEP_ITEM_STEP;
	if (stream_reader_damage(r))
		snprintf(damage, size, "%s", stream_reader_damage(r));
	stream_reader_close(r);
	return true;
}

int cmd_info(int argc, char **argv, struct post_opts *opts)
{
	const struct trace_info *in;
	struct trace *t;
	uint64_t all_steps = 0, all_bytes = 0;
	size_t nr_streams;
	size_t damaged = 0;
	bool ok = true;

	for (int i = 1; i < argc; i++) {
		int r = post_common_option(argc, argv, &i, opts);

		if (r < 0)
			return EXIT_USAGE;
		if (r)
			continue;
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			usage(stdout);
			return 0;
		}
		pr_err("info: %s '%s' (see 'post info --help')",
		       argv[i][0] == '-' ? "unknown option" : "unexpected argument", argv[i]);
		return EXIT_USAGE;
	}
	t = trace_open_flags(opts->input, opts->force ? TRACE_OPEN_FORCE : 0);
	if (!t)
		return EXIT_RUNTIME;
	in = trace_info(t);
	print_str("trace:", trace_dir(t));
	printf("%-12s version %u (readable by version %u and newer; this post reads up to %u)\n",
	       "format:", in->version, in->min_reader, PT_FORMAT_VERSION);
	print_features(in->features);
	print_str("arch:", in->arch);
	print_str("backend:", in->backend);
	print_str("mode:", in->mode);
	print_str("kernel:", in->kernel_release);
	print_str("hostname:", in->hostname);
	printf("%-12s", "command:");
	for (size_t i = 0; in->argv[i]; i++)
		printf(" %s", in->argv[i]);
	printf("%s\n", in->argv[0] ? "" : " -");
	print_time("started:", &in->start);
	print_time("stopped:", &in->stop);
	if (in->start.monotonic_ns && in->stop.monotonic_ns >= in->start.monotonic_ns)
		printf("%-12s %.3f s\n", "duration:",
		       (double)(in->stop.monotonic_ns - in->start.monotonic_ns) / 1e9);
	else
		printf("%-12s -\n", "duration:");
	print_str("state:", in->state);
	if (in->nr_cpus)
		printf("%-12s %u\n", "cpus:", in->nr_cpus);
	for (size_t i = 0; in->on_symbols[i]; i++)
		print_str("on symbol:", in->on_symbols[i]);
	for (size_t i = 0; in->notes[i]; i++)
		print_str("note:", in->notes[i]);
	printf("%-12s %" PRIu64 "\n", "steps:", in->totals.steps);
	printf("%-12s %" PRIu64 "\n", "lost:", in->totals.lost);
	printf("%-12s %u\n", "threads:", in->totals.threads);
	printf("%-12s %u\n", "processes:", in->totals.processes);
	printf("%-12s %zu\n", "tasks:", trace_nr_tasks(t));
	nr_streams = trace_nr_streams(t);
	printf("%-12s %zu\n", "streams:", nr_streams);
	for (size_t i = 0; i < nr_streams; i++) {
		const struct trace_stream_info *si = trace_stream(t, i);
		uint64_t steps;
		char damage[256];
		bool zstd, good = stream_steps(si, &steps, &zstd, damage, sizeof(damage));

		printf("  %-14s %12" PRIu64 " steps %12" PRIu64 " bytes", si->name, steps,
		       si->file_size);
		if (steps)
			printf(" %6.2f bytes/step", (double)si->file_size / (double)steps);
		printf("%s", zstd ? "  zstd" : "");
		if (damage[0])
			printf("  DAMAGED: %s", damage);
		putchar('\n');
		ok &= good;
		damaged += damage[0] != '\0';
		all_steps += steps;
		all_bytes += si->file_size;
	}
	if (nr_streams > 1) {
		printf("  %-14s %12" PRIu64 " steps %12" PRIu64 " bytes", "all", all_steps,
		       all_bytes);
		if (all_steps)
			printf(" %6.2f bytes/step", (double)all_bytes / (double)all_steps);
		putchar('\n');
	}
	if (ok && !damaged && all_steps != in->totals.steps)
		printf("%-12s the streams hold %" PRIu64 " steps, the header says %" PRIu64 "\n",
		       "warning:", all_steps, in->totals.steps);
	if (damaged && !opts->force) {
		pr_err("%s: %zu damaged step stream%s (see above; --force reads up to the damage)",
		       trace_dir(t), damaged, damaged > 1 ? "s" : "");
		ok = false;
	}
	trace_close(t);
	if (fflush(stdout) != 0) {
		pr_err("cannot write the report: %s", strerror(errno));
		return EXIT_RUNTIME;
	}
	return ok ? 0 : EXIT_RUNTIME;
}
