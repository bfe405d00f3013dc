// SPDX-License-Identifier: GPL-2.0
// build: -O2 -D_GNU_SOURCE -Iinclude -I. util/trace_writer.c util/trace_dir.c util/trace_attrs.c util/trace_reader.c util/trace_record.c util/stream_reader.c util/stepcodec.c util/log.c -lzstd -lz
/*
 * Test-only maker of a synthetic kernel-mode trace, as the driver backend
 * writes one: a kallsyms snapshot, the traced kernel's release and build-id
 * in the header, and one per-CPU stream whose steps run in the kernel ring
 * (RING records around them), so post's kernel symbol and line resolution
 * can be tested without a driver or a real kernel.
 *
 *   mkktrace DIR --kallsyms FILE --pcs ADDR*N,... [--release R] [--build-id HEX]
 *
 * Steps run in process 1000 (thread 1000) in the order given, each ADDR N
 * times; kernel-half addresses (bit 63 set) in ring 1, the others in ring 0.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/log.h"
#include "util/trace_writer.h"

#define MAX_PCS 4096
#define PID 1000

static void usage(void)
{
	fprintf(stderr, "usage: mkktrace DIR --kallsyms FILE --pcs ADDR*N,... [--release R] "
			"[--build-id HEX]\n");
	exit(2);
}

static uint64_t num(const char *s)
{
	char *end;
	unsigned long long v = strtoull(s, &end, 0);

	if (end == s || *end)
		usage();
	return v;
}

/* The snapshot goes in as the collector copies /proc/kallsyms: byte for byte. */
static int copy_file(const char *src, const char *dir, const char *name)
{
	char path[4096], buf[65536];
	FILE *in = fopen(src, "rb"), *out;
	size_t n;
	int ret = 0;

	if (!in) {
		pr_err("cannot read %s", src);
		return -1;
	}
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	out = fopen(path, "wb");
	if (!out) {
		fclose(in);
		pr_err("cannot create %s", path);
		return -1;
	}
	while ((n = fread(buf, 1, sizeof(buf), in)) > 0)
		if (fwrite(buf, 1, n, out) != n)
			ret = -1;
	fclose(in);
	if (fclose(out))
		ret = -1;
	return ret;
}

int main(int argc, char **argv)
{
	struct tw_options o = { .features = PT_FEAT_KERNEL | PT_FEAT_KALLSYMS };
	const char *dir, *kallsyms = NULL, *release = "synthetic", *build_id = NULL;
	uint64_t pcs[MAX_PCS], reps[MAX_PCS];
	size_t nr_pcs = 0;
	struct trace_writer *tw;
	struct tw_stream *st;
	struct pt_attr_time t0;
	char cmdline[] = "synthetic\0kernel\0trace";
	int ring = -1;

	log_progname = "mkktrace";
	if (argc < 2 || argv[1][0] == '-')
		usage();
	dir = argv[1];
	for (int i = 2; i + 1 < argc; i += 2) {
		const char *a = argv[i], *v = argv[i + 1];

		if (!strcmp(a, "--kallsyms")) {
			kallsyms = v;
		} else if (!strcmp(a, "--release")) {
			release = v;
		} else if (!strcmp(a, "--build-id")) {
			build_id = v;
		} else if (!strcmp(a, "--pcs")) {
			char *list = strdup(v), *tok, *save;

			for (tok = strtok_r(list, ",", &save); tok && nr_pcs < MAX_PCS;
			     tok = strtok_r(NULL, ",", &save)) {
				char *star = strchr(tok, '*');

				if (star)
					*star = '\0';
				pcs[nr_pcs] = num(tok);
				reps[nr_pcs++] = star ? num(star + 1) : 1;
			}
			free(list);
		} else {
			usage();
		}
	}
	if (!kallsyms || !nr_pcs || argc % 2)
		usage();

	tw = tw_open(dir, &o);
	if (!tw)
		return 1;
	t0.realtime_ns = tw_realtime_ns();
	t0.monotonic_ns = tw_now_ns();
	tw_set_attr_str(tw, PT_ATTR_ARCH, "x86_64");
	tw_set_attr_str(tw, PT_ATTR_BACKEND, "driver");
	tw_set_attr_str(tw, PT_ATTR_MODE, "step");
	tw_set_attr_str(tw, PT_ATTR_KERNEL_RELEASE, release);
	if (build_id)
		tw_set_attr_str(tw, PT_ATTR_KERNEL_BUILD_ID, build_id);
	tw_set_attr(tw, PT_ATTR_CMDLINE, cmdline, sizeof(cmdline));
	tw_set_attr(tw, PT_ATTR_START_TIME, &t0, sizeof(t0));
	tw_set_attr_str(tw, PT_ATTR_NOTE, "synthetic trace written by tests/progs/mkktrace");
	if (copy_file(kallsyms, tw_dir(tw), PT_FILE_KALLSYMS) < 0)
		return 1;
	{
		struct pt_task_exec e = { .c = { t0.monotonic_ns, PT_SEQ_NONE, PID, PID } };
		struct pt_task_comm c = { .c = { t0.monotonic_ns, PT_SEQ_NONE, PID, PID } };

		tw_task(tw, PT_TASK_EXEC, &e, sizeof(e), "/synthetic/prog");
		tw_task(tw, PT_TASK_COMM, &c, sizeof(c), "prog");
		tw_count_task(tw, true);
	}
	st = tw_stream_open(tw, true, 0);
	if (!st)
		return 1;
	tw_switch(st, PID, PID, t0.monotonic_ns, PT_SEQ_NONE);
	for (size_t i = 0; i < nr_pcs; i++) {
		int want = pcs[i] >> 63 ? 1 : 0;

		if (want != ring)
			tw_ring(st, (unsigned)(ring = want));
		for (uint64_t r = 0; r < reps[i]; r++)
			tw_step(st, pcs[i]);
	}
	if (tw_stream_close(st) < 0)
		return 1;
	{
		struct pt_task_exit x = { .c = { tw_now_ns(), PT_SEQ_NONE, PID, PID } };
		struct pt_attr_time t1 = { tw_realtime_ns(), tw_now_ns() };

		tw_task(tw, PT_TASK_EXIT, &x, sizeof(x), NULL);
		tw_set_attr(tw, PT_ATTR_STOP_TIME, &t1, sizeof(t1));
	}
	return tw_close(tw, "complete") < 0;
}
