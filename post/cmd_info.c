// SPDX-License-Identifier: GPL-2.0
/* post info: a trace's header attributes, totals and step streams. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "arch/arch_vectors.h"
#include "util/log.h"
#include "post/cmdline.h"
#include "post/post.h"
#include "post/report.h"
#include "util/stepcodec.h"
#include "util/trace_arch.h"
#include "util/trace_reader.h"

static const struct popt_cmd cmd = {
	.name = "info", .synopsis = "[OPTIONS]",
	.description =
	"The trace's header (format, features, command, times, state, notes),\n"
	"its totals, each step stream's steps, size and bytes per step, and the\n"
	"interrupts, exceptions and signals the traced threads took.\n"
	"Every stream is read through: a damaged one is described (and info\n"
	"exits 1 unless --force).  With --read, the streams are then read once\n"
	"more as every report reads them (decoded on --threads, merged in\n"
	"order) with no report, and the CPU time that took is printed: the\n"
	"floor of every report's speed.",
};

/* --read: one pass of the report session with no consumer, timed in CPU seconds. */
static int read_pass(const struct post_opts *opts, struct tabout *t)
{
	struct session_source src = post_source(opts);
	struct session_filter none = SESSION_FILTER_INIT;
	struct session_restored rs;
	struct session *s;
	double secs;
	int r = session_open(&s, &src, &none, 0, "read");

	if (r)
		return r;
	r = session_run(s);
	secs = session_pass_cpu(s);
	session_restored(s, &rs);
	if (!r && t->fmt != TAB_TEXT) {
		tab_object_begin(t, "read");
		tab_fact_u64(t, "steps", session_steps_seen(s));
		tab_fact_f64(t, "cpu_s", secs, 4);
		if (!rs.recorder_checked) {
			tab_fact_u64(t, "restored", rs.by_pass);
			tab_fact_u64(t, "restore_gaps", rs.gaps);
		}
		tab_object_end(t);
		session_close(s);
		return r;
	}
	if (!r)
		printf("%-12s %" PRIu64 " steps merged in %.4f s of CPU (%.1fM steps/s)\n", "read:",
		       session_steps_seen(s), secs,
		       secs > 0 ? (double)session_steps_seen(s) / secs / 1e6 : 0.0);
	if (!r && !rs.recorder_checked)
		printf("%-12s %" PRIu64 " steps a late step trap skipped, by the read; %" PRIu64
		       " gaps where one could not be\n", "restored:", rs.by_pass, rs.gaps);
	session_close(s);
	return r;
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

/* ASYNC records of every stream, by kind (and interrupts by vector). */
#define INFO_MAX_VECTORS 64
struct async_counts {
	uint64_t kind[PT_ASYNC_IRQ + 2];  /* the last: kinds newer than this post */
	struct {
		uint64_t vector, n;
	} vectors[INFO_MAX_VECTORS];	  /* interrupts, in vector order */
	size_t nr_vectors;
	uint64_t faults[3];		  /* page faults by ring: user, kernel, unknown */
	uint64_t atomic[PT_ATOMIC_INEXACT + 2]; /* ATOMIC records by kind (v4), last: newer */
	uint64_t gaps[PT_GAP_NATIVE + 2]; /* GAP records by reason, last: newer */
	uint64_t restored;		  /* RESTORED records (v7) */
	uint64_t native[2];		  /* NATIVE records (v7): returned, stopped short */
	uint64_t native_counted;	  /* ... of those, with a known count */
};

static void count_vector(struct async_counts *ac, uint64_t vector)
{
	size_t i = 0;

	while (i < ac->nr_vectors && ac->vectors[i].vector < vector)
		i++;
	if (i < ac->nr_vectors && ac->vectors[i].vector == vector) {
		ac->vectors[i].n++;
		return;
	}
	if (ac->nr_vectors == INFO_MAX_VECTORS)
		return;
	memmove(&ac->vectors[i + 1], &ac->vectors[i], (ac->nr_vectors - i) * sizeof(ac->vectors[0]));
	ac->vectors[i].vector = vector;
	ac->vectors[i].n = 1;
	ac->nr_vectors++;
}

/* ATOMIC (kind) and GAP (reason) records: both start with a uleb. */
static void count_kind(uint64_t *counts, size_t newer, const struct step_item *it)
{
	struct ctl_cursor c = { it->payload, it->payload + it->payload_len };
	uint64_t k;

	if (ctl_get_uleb(&c, &k) == 0)
		counts[k < newer ? k : newer]++;
}

/* NATIVE records: kind, u64 pc, u64 end, flags, count. */
static void count_native(struct async_counts *ac, const struct step_item *it)
{
	struct ctl_cursor c = { it->payload, it->payload + it->payload_len };
	uint64_t kind, pc, end, flags = 0;

	if (ctl_get_uleb(&c, &kind) < 0 || ctl_get_u64(&c, &pc) < 0 || ctl_get_u64(&c, &end) < 0)
		return;
	ctl_get_uleb(&c, &flags);
	ac->native[!(flags & PT_NATIVE_RETURNED)]++;
	ac->native_counted += !!(flags & PT_NATIVE_COUNTED);
}

/* Code run natively (NATIVE records, v7): how many runs, and whether their counts are known. */
static void print_native(const struct async_counts *ac)
{
	uint64_t all = ac->native[0] + ac->native[1];

	if (!all)
		return;
	printf("%-12s %" PRIu64 " vDSO runs untraced (%" PRIu64 " returned, %" PRIu64
	       " stopped by a signal or event); instructions: %" PRIu64 " known, %" PRIu64
	       " unknown\n", "native:", all, ac->native[0], ac->native[1], ac->native_counted,
	       all - ac->native_counted);
}

static void count_async(struct async_counts *ac, const struct step_item *it)
{
	struct trace_async as;

	if (trace_async_decode(it->payload, it->payload_len, &as) < 0)
		return;
	ac->kind[as.kind <= PT_ASYNC_IRQ ? as.kind : PT_ASYNC_IRQ + 1]++;
	if (as.kind == PT_ASYNC_INTERRUPT)
		count_vector(ac, as.number);
	if (as.kind == PT_ASYNC_EXCEPTION && arch_exception_is_page_fault(as.number))
		ac->faults[as.detail ? as.ring : PT_ASYNC_RING_UNKNOWN]++;
}

static void print_async(const struct async_counts *ac)
{
	uint64_t faults = ac->faults[0] + ac->faults[1] + ac->faults[2];
	const char *sep = " ";

	printf("%-12s interrupts %" PRIu64 ", irqs %" PRIu64 ", exceptions %" PRIu64
	       ", signals %" PRIu64 ", sigreturns %" PRIu64, "async:",
	       ac->kind[PT_ASYNC_INTERRUPT], ac->kind[PT_ASYNC_IRQ], ac->kind[PT_ASYNC_EXCEPTION],
	       ac->kind[PT_ASYNC_SIGNAL], ac->kind[PT_ASYNC_SIGRETURN]);
	if (ac->kind[PT_ASYNC_IRQ + 1])
		printf(", newer kinds %" PRIu64, ac->kind[PT_ASYNC_IRQ + 1]);
	putchar('\n');
	if (ac->kind[PT_ASYNC_INTERRUPT]) {
		printf("%-12s", "interrupts:");
		for (size_t i = 0; i < ac->nr_vectors; i++) {
			const char *name = arch_interrupt_name(ac->vectors[i].vector);

			printf("%svector %" PRIu64 "%s%s%s %" PRIu64, sep, ac->vectors[i].vector,
			       name ? " (" : "", name ? name : "", name ? ")" : "", ac->vectors[i].n);
			sep = ", ";
		}
		putchar('\n');
	}
	if (faults)
		printf("%-12s %" PRIu64 " (user %" PRIu64 ", kernel %" PRIu64 ", unknown %" PRIu64
		       ")\n", "page faults:", faults, ac->faults[0], ac->faults[1], ac->faults[2]);
}

/* Load-reserve/store-conditional sequences run as one unit (docs/trace-format.md). */
static void print_atomic(const struct async_counts *ac)
{
	const uint64_t *a = ac->atomic;

	uint64_t all = 0;

	for (size_t k = 0; k <= PT_ATOMIC_INEXACT + 1; k++)
		all += a[k];
	if (!all)
		return;
	printf("%-12s %" PRIu64 " sequences: %" PRIu64 " stored, %" PRIu64
	       " failed and retried, %" PRIu64 " left early; not exact: %" PRIu64
	       " ran untraced, %" PRIu64 " path guessed", "atomic:", all, a[PT_ATOMIC_STORED],
	       a[PT_ATOMIC_FAILED], a[PT_ATOMIC_LEFT], a[PT_ATOMIC_NATIVE], a[PT_ATOMIC_INEXACT]);
	if (a[PT_ATOMIC_INEXACT + 1])
		printf(", newer kinds %" PRIu64, a[PT_ATOMIC_INEXACT + 1]);
	putchar('\n');
}

static void print_gaps(const struct async_counts *ac)
{
	static const char *const reasons[] = {
		[PT_GAP_UNKNOWN] = "unknown",	  [PT_GAP_DETACH] = "detached",
		[PT_GAP_KERNEL_LIMIT] = "kernel step limit",
		[PT_GAP_KERNEL_SLEEP] = "slept in the kernel",
		[PT_GAP_UNSAFE] = "unsteppable code", [PT_GAP_ATOMIC_NATIVE] = "atomic sequence untraced",
		[PT_GAP_LATE_TRAP] = "late step trap", [PT_GAP_NATIVE] = "ran natively",
		[PT_GAP_NATIVE + 1] = "newer reasons",
	};
	bool any = false;

	for (size_t r = 0; r <= PT_GAP_NATIVE + 1; r++) {
		if (!ac->gaps[r])
			continue;
		if (!any)
			printf("%-12s", "gaps:");
		printf("%s%s %" PRIu64, any ? ", " : " ", reasons[r], ac->gaps[r]);
		any = true;
	}
	if (any)
		putchar('\n');
}

/* Steps late step traps skipped (docs/record.md, Fidelity): restored when recorded, or not checked. */
static void print_restored(const struct trace_info *in, const struct async_counts *ac)
{
	if (in->restore_checked)
		printf("%-12s %" PRIu64 " steps a late step trap skipped (the recorder checked "
		       "every step)\n", "restored:", ac->restored);
	else if (!strcmp(in->mode, "step"))
		printf("%-12s not checked when recorded: reports restore the steps late step "
		       "traps skipped (--read counts them)\n", "restored:");
}

/* The header's attributes and totals, a line each. */
static void print_header(const struct trace *t, const struct trace_info *in)
{
	char *cmdline;

	print_str("trace:", trace_dir(t));
	printf("%-12s version %u (readable by version %u and newer; this post reads up to %u)\n",
	       "format:", in->version, in->min_reader, PT_FORMAT_VERSION);
	print_features(in->features);
	print_str("arch:", in->arch);
	print_str("backend:", in->backend);
	print_str("mode:", in->mode);
	print_str("kernel:", in->kernel_release);
	if (in->kernel_build_id[0])
		print_str("build-id:", in->kernel_build_id);
	print_str("hostname:", in->hostname);
	cmdline = report_command_line(in->argv, 0);	/* whole: info is where to read it */
	printf("%-12s %s\n", "command:", cmdline && cmdline[0] ? cmdline : "-");
	free(cmdline);
	print_time("started:", &in->start);
	print_time("stopped:", &in->stop);
	if (in->start.monotonic_ns && in->stop.monotonic_ns >= in->start.monotonic_ns)
		printf("%-12s %.3f s\n", "duration:",
		       (double)(in->stop.monotonic_ns - in->start.monotonic_ns) / 1e9);
	else
		printf("%-12s -\n", "duration:");
	print_str("state:", in->state);
	if (in->end_reason[0])	/* format 8: why the recording ended */
		print_str("ended:", in->end_reason);
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
	printf("%-12s %zu\n", "streams:", trace_nr_streams(t));
}

/* A step stream's line. */
static void print_stream(const char *name, uint64_t steps, uint64_t bytes, bool zstd,
			 const char *damage, bool cut)
{
	printf("  %-14s %12" PRIu64 " steps %12" PRIu64 " bytes", name, steps, bytes);
	if (steps)
		printf(" %6.2f bytes/step", (double)bytes / (double)steps);
	printf("%s", zstd ? "  zstd" : "");
	if (damage[0])
		printf("  DAMAGED: %s", damage);
	else if (cut)
		printf("  cut short");
	putchar('\n');
}

/* ---- for programs (tabout.h): what the text's lines say, as facts ---- */

static void tab_header(struct tabout *t, const struct trace *tr, const struct trace_info *in)
{
	const char *features[65];
	char bits[64][8];
	size_t nf = 0;

	tab_fact_str(t, "trace", trace_dir(tr));
	tab_fact_u64(t, "format_version", in->version);
	tab_fact_u64(t, "min_reader", in->min_reader);
	for (unsigned b = 0; b < 64; b++) {
		if (!(in->features & (1ull << b)))
			continue;
		snprintf(bits[b], sizeof(bits[b]), "bit%u", b);
		features[nf++] = b < sizeof(feature_names) / sizeof(feature_names[0]) ?
				 feature_names[b] : bits[b];
	}
	features[nf] = NULL;
	tab_fact_strv(t, "features", features);
	tab_fact_str(t, "arch", in->arch);
	tab_fact_str(t, "backend", in->backend);
	tab_fact_str(t, "mode", in->mode);
	tab_fact_str(t, "kernel", in->kernel_release);
	tab_fact_str(t, "build_id", in->kernel_build_id[0] ? in->kernel_build_id : NULL);
	tab_fact_str(t, "hostname", in->hostname);
	tab_fact_strv(t, "command", (const char *const *)in->argv);
	tab_fact_u64(t, "started_ns", in->start.realtime_ns);
	tab_fact_u64(t, "stopped_ns", in->stop.realtime_ns);
	tab_fact_f64(t, "duration_s", in->start.monotonic_ns &&
		     in->stop.monotonic_ns >= in->start.monotonic_ns ?
		     (double)(in->stop.monotonic_ns - in->start.monotonic_ns) / 1e9 : NAN, 3);
	tab_fact_str(t, "state", in->state);
	tab_fact_str(t, "ended", in->end_reason[0] ? in->end_reason : NULL);
	tab_fact_u64(t, "cpus", in->nr_cpus);
	tab_fact_strv(t, "on_symbols", (const char *const *)in->on_symbols);
	tab_fact_strv(t, "notes", (const char *const *)in->notes);
	tab_fact_u64(t, "steps", in->totals.steps);
	tab_fact_u64(t, "lost", in->totals.lost);
	tab_fact_u64(t, "threads", in->totals.threads);
	tab_fact_u64(t, "processes", in->totals.processes);
	tab_fact_u64(t, "tasks", trace_nr_tasks(tr));
	tab_fact_u64(t, "streams", trace_nr_streams(tr));
}

static const char *const tab_stream_cols[] = { "stream", "steps", "bytes", "bytes_per_step",
					       "zstd", "damage", "cut_short" };

static void tab_stream(struct tabout *t, const char *name, uint64_t steps, uint64_t bytes,
		       bool zstd, const char *damage, bool cut)
{
	tab_row_begin(t);
	tab_str(t, name);
	tab_u64(t, steps);
	tab_u64(t, bytes);
	tab_f64(t, steps ? (double)bytes / (double)steps : NAN, 2);
	tab_bool(t, zstd);
	tab_str(t, damage[0] ? damage : NULL);
	tab_bool(t, cut);
	tab_row_end(t);
}

static void tab_records(struct tabout *t, const struct trace_info *in,
			const struct async_counts *ac)
{
	static const char *const gaps[] = {
		[PT_GAP_UNKNOWN] = "unknown", [PT_GAP_DETACH] = "detached",
		[PT_GAP_KERNEL_LIMIT] = "kernel_step_limit",
		[PT_GAP_KERNEL_SLEEP] = "kernel_sleep", [PT_GAP_UNSAFE] = "unsteppable",
		[PT_GAP_ATOMIC_NATIVE] = "atomic_untraced", [PT_GAP_LATE_TRAP] = "late_trap",
		[PT_GAP_NATIVE] = "native", [PT_GAP_NATIVE + 1] = "newer",
	};

	tab_object_begin(t, "async");
	tab_fact_u64(t, "interrupts", ac->kind[PT_ASYNC_INTERRUPT]);
	tab_fact_u64(t, "irqs", ac->kind[PT_ASYNC_IRQ]);
	tab_fact_u64(t, "exceptions", ac->kind[PT_ASYNC_EXCEPTION]);
	tab_fact_u64(t, "signals", ac->kind[PT_ASYNC_SIGNAL]);
	tab_fact_u64(t, "sigreturns", ac->kind[PT_ASYNC_SIGRETURN]);
	tab_fact_u64(t, "newer", ac->kind[PT_ASYNC_IRQ + 1]);
	tab_fact_u64(t, "page_faults_user", ac->faults[0]);
	tab_fact_u64(t, "page_faults_kernel", ac->faults[1]);
	tab_fact_u64(t, "page_faults_unknown", ac->faults[2]);
	tab_object_end(t);
	tab_object_begin(t, "atomic");
	tab_fact_u64(t, "stored", ac->atomic[PT_ATOMIC_STORED]);
	tab_fact_u64(t, "failed", ac->atomic[PT_ATOMIC_FAILED]);
	tab_fact_u64(t, "left", ac->atomic[PT_ATOMIC_LEFT]);
	tab_fact_u64(t, "native", ac->atomic[PT_ATOMIC_NATIVE]);
	tab_fact_u64(t, "inexact", ac->atomic[PT_ATOMIC_INEXACT]);
	tab_fact_u64(t, "newer", ac->atomic[PT_ATOMIC_INEXACT + 1]);
	tab_object_end(t);
	tab_object_begin(t, "native");
	tab_fact_u64(t, "returned", ac->native[0]);
	tab_fact_u64(t, "stopped", ac->native[1]);
	tab_fact_u64(t, "counted", ac->native_counted);
	tab_object_end(t);
	tab_object_begin(t, "gaps");
	for (size_t r = 0; r <= PT_GAP_NATIVE + 1; r++)
		tab_fact_u64(t, gaps[r], ac->gaps[r]);
	tab_object_end(t);
	if (in->restore_checked)
		tab_fact_u64(t, "restored", ac->restored);
	else
		tab_fact_str(t, "restored", NULL);
}

/*
 * Read one stream through: its steps (up to the damage, if any), and what
 * the damage is in damage[] ("" when none).  False if it cannot be read.
 */
static bool stream_steps(const struct trace *t, size_t i, uint64_t *steps, bool *zstd, bool *cut,
			 char *damage, size_t size, struct async_counts *ac)
{
	const struct trace_stream_info *si = trace_stream(t, i);
	/* damage is part of the description here (a file header too): count up to
	 * it, say what it is, in the stream's line */
	struct stream_reader *r = stream_reader_open_quiet(si->path, true);
	uint64_t pcs[1024];	/* steps are only counted: decoded in batches */
	struct step_item it;

	*steps = 0;
	*zstd = *cut = false;
	damage[0] = '\0';
	if (!r)
		return false;
	*zstd = stream_reader_header(r)->flags & PT_FLAG_ZSTD;
	stream_reader_set_cut_short(r, trace_cut_short(t));
	stream_reader_expect(r, t, si);
	for (;;) {
		size_t got = stream_reader_steps(r, pcs, sizeof(pcs) / sizeof(pcs[0]));

		if (got) {
			*steps += got;
			continue;
		}
		if (stream_reader_next(r, &it, NULL) != 1)
			break;
		*steps += it.kind == STEP_ITEM_STEP;
		if (it.kind == STEP_ITEM_CTL && it.ctl_type == PT_CTL_ASYNC)
			count_async(ac, &it);
		else if (it.kind == STEP_ITEM_CTL && it.ctl_type == PT_CTL_ATOMIC)
			count_kind(ac->atomic, PT_ATOMIC_INEXACT + 1, &it);
		else if (it.kind == STEP_ITEM_CTL && it.ctl_type == PT_CTL_GAP)
			count_kind(ac->gaps, PT_GAP_NATIVE + 1, &it);
		else if (it.kind == STEP_ITEM_CTL && it.ctl_type == PT_CTL_RESTORED)
			ac->restored++;
		else if (it.kind == STEP_ITEM_CTL && it.ctl_type == PT_CTL_NATIVE)
			count_native(ac, &it);
	}
	if (stream_reader_damage(r))
		snprintf(damage, size, "%s", stream_reader_damage(r));
	*cut = stream_reader_cut(r);
	stream_reader_close(r);
	return true;
}

/* What the step streams add up to. */
struct stream_totals {
	uint64_t steps, bytes;
	size_t nr, damaged;	  /* streams, damaged ones */
	bool ok;		  /* every stream could be read */
};

/* Each stream read through, its line (or row) given, added to *st and *ac. */
static void info_streams(const struct trace *t, int format, struct tabout *tab,
			 struct async_counts *ac, struct stream_totals *st)
{
	st->nr = trace_nr_streams(t);
	for (size_t i = 0; i < st->nr; i++) {
		const struct trace_stream_info *si = trace_stream(t, i);
		uint64_t steps;
		char damage[256];
		bool zstd, cut, good = stream_steps(t, i, &steps, &zstd, &cut, damage,
						    sizeof(damage), ac);

		if (format != TAB_TEXT)
			tab_stream(tab, si->name, steps, si->file_size, zstd, damage, cut);
		else
			print_stream(si->name, steps, si->file_size, zstd, damage, cut);
		st->ok &= good;
		st->damaged += damage[0] != '\0';
		st->steps += steps;
		st->bytes += si->file_size;
	}
}

/* The streams' totals and the records counted in them, after the streams' lines (or rows). */
static void info_totals(struct tabout *tab, int format, const struct trace_info *in,
			const struct async_counts *ac, const struct stream_totals *st)
{
	if (format != TAB_TEXT) {
		tab_rows_end(tab);
		tab_fact_u64(tab, "stream_steps", st->steps);
		tab_fact_u64(tab, "stream_bytes", st->bytes);
		tab_records(tab, in, ac);
		return;
	}
	if (st->nr > 1) {
		printf("  %-14s %12" PRIu64 " steps %12" PRIu64 " bytes", "all", st->steps,
		       st->bytes);
		if (st->steps)
			printf(" %6.2f bytes/step", (double)st->bytes / (double)st->steps);
		putchar('\n');
	}
	print_async(ac);
	print_atomic(ac);
	print_native(ac);
	print_gaps(ac);
	print_restored(in, ac);
}

/*
 * Whether the streams are whole and hold the steps the header counts:
 * a difference is a warning, an error in a complete trace of format 6 or
 * later; damage is an error, a warning with --force.
 */
static bool info_verdict(const struct trace *t, const struct trace_info *in, int format,
			 const struct stream_totals *st, bool force)
{
	bool ok = st->ok;

	if (ok && !st->damaged && st->steps != in->totals.steps) {
		if (format == TAB_TEXT)
			printf("%-12s the streams hold %" PRIu64 " steps, the header says %"
			       PRIu64 "\n", "warning:", st->steps, in->totals.steps);
		/* format 6 promises they agree in a complete trace */
		if (in->version >= PT_FORMAT_CHECKED && !trace_cut_short(t) && !force) {
			pr_err("%s/%s: TOTALS counts %" PRIu64 " steps, the streams hold %" PRIu64
			       " (--force reads them as they are)", trace_dir(t), PT_FILE_HEADER,
			       in->totals.steps, st->steps);
			ok = false;
		}
	}
	if (st->damaged && !force) {
		pr_err("%s: %zu damaged step stream%s (see above; --force reads up to the damage)",
		       trace_dir(t), st->damaged, st->damaged > 1 ? "s" : "");
		ok = false;
	} else if (st->damaged) {
		pr_warn("%s: %zu damaged step stream%s (see above); reading up to the damage",
			trace_dir(t), st->damaged, st->damaged > 1 ? "s" : "");
	}
	return ok;
}

int cmd_info(int argc, char **argv, struct post_opts *opts)
{
	static struct async_counts ac;
	const struct trace_info *in;
	struct trace *t;
	struct stream_totals st = { .ok = true };
	bool ok;

	bool read = false;
	int format = TAB_TEXT;
	struct tabout tab;
	const struct popt opt[] = {
		POST_TRACE_OPTIONS(opts),
		OPT_GROUP("Reading"),
		OPT_FLAG(0, "read", &read, "read every step as the reports do, with no report, "
			 "and say\nhow much CPU time that took"),
		OPT_GROUP("Output"),
		POST_FORMAT_OPTION(&format),
		OPT_END,
	};
	const struct popt *tables[] = { opt, NULL };
	int r = post_parse(&cmd, argc, argv, tables, opts, NULL, 0, NULL, NULL);

	if (r)
		return POST_EXIT(r);
	t = trace_open_arch(opts->input, opts->force ? TRACE_OPEN_FORCE : 0);
	if (!t)
		return EXIT_RUNTIME;
	in = trace_info(t);
	tab_start(&tab, stdout, format, "info");
	if (format != TAB_TEXT) {
		tab_header(&tab, t, in);
		tab_rows_begin(&tab, NULL, tab_stream_cols,
			       sizeof(tab_stream_cols) / sizeof(tab_stream_cols[0]));
	} else {
		print_header(t, in);
	}
	info_streams(t, format, &tab, &ac, &st);
	info_totals(&tab, format, in, &ac, &st);
	ok = info_verdict(t, in, format, &st, opts->force);
	trace_close(t);
	if (read && (ok || opts->force) && read_pass(opts, &tab))
		ok = false;
	tab_end(&tab);
	if (fflush(stdout) != 0) {
		pr_err("cannot write the report: %s", strerror(errno));
		return EXIT_RUNTIME;
	}
	return ok ? 0 : EXIT_RUNTIME;
}
