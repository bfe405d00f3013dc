// SPDX-License-Identifier: GPL-2.0
/* post dump: every record of a trace's files, one line each, with its byte offset. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "arch/arch_vectors.h"
#include "util/log.h"
#include "post/cmdline.h"
#include "post/post.h"
#include "util/stepcodec.h"
#include "util/trace_arch.h"
#include "util/trace_reader.h"
#include "util/trace_record.h"

static const struct popt_cmd cmd = {
	.name = "dump", .synopsis = "[--header] [--tasks] [--steps] [FILE]",
	.description =
	"Raw records, one a line: byte offset, record type, fields.  Without\n"
	"options every file of the trace; --header, --tasks, --steps pick files;\n"
	"FILE (a name in the trace directory, or a path) dumps that file only.\n"
	"Offsets in compressed step streams count decompressed bytes.",
};

static const char *const attr_names[] = {
	[PT_ATTR_ARCH] = "ARCH", [PT_ATTR_BACKEND] = "BACKEND", [PT_ATTR_MODE] = "MODE",
	[PT_ATTR_KERNEL_RELEASE] = "KERNEL_RELEASE", [PT_ATTR_CMDLINE] = "CMDLINE",
	[PT_ATTR_START_TIME] = "START_TIME", [PT_ATTR_STOP_TIME] = "STOP_TIME",
	[PT_ATTR_TOTALS] = "TOTALS", [PT_ATTR_STATE] = "STATE", [PT_ATTR_NR_CPUS] = "NR_CPUS",
	[PT_ATTR_HOSTNAME] = "HOSTNAME", [PT_ATTR_ON_SYMBOL] = "ON_SYMBOL",
	[PT_ATTR_NOTE] = "NOTE", [PT_ATTR_KERNEL_BUILD_ID] = "KERNEL_BUILD_ID",
	[PT_ATTR_PAD] = "PAD", [PT_ATTR_CHECK] = "CHECK", [PT_ATTR_TASKS_LOST] = "TASKS_LOST",
	[PT_ATTR_RESTORED] = "RESTORED", [PT_ATTR_END_REASON] = "END_REASON",
	[PT_ATTR_SYNCED] = "SYNCED", [PT_ATTR_SYNCED_TIME] = "SYNCED_TIME",
};

/*
 * The CRC-32 of a file's bytes before a record, carried from one record
 * to the next: a CHECK covers every byte before it, and recomputing that
 * from byte 0 at each one made dump quadratic in the records.
 */
struct running_crc {
	uint32_t crc;		  /* zlib's CRC of no bytes is 0 */
	size_t upto;		  /* bytes of the file it covers */
};

static uint32_t crc_upto(struct running_crc *rc, const uint8_t *data, size_t at)
{
	rc->crc = (uint32_t)crc32(rc->crc, data + rc->upto, (uInt)(at - rc->upto));
	rc->upto = at;
	return rc->crc;
}

/* How a file is dumped: what the trace says of it, and --force. */
struct dump_ctx {
	bool force;
	bool cut_short;		  /* the recording was cut short: a partial last record is fine */
	bool opened;		  /* the trace's reader read the file first (and said any damage) */
};

/*
 * Records that end before the file does.  A trace cut short may end in a
 * partial record; damage the trace's reader already reported (with
 * --force: without, there is no dump) is noted in the dump only; else an
 * error, or with --force a warning, as every report gives.
 */
static int dump_damage(const char *path, const struct dump_ctx *dc, bool tasks, const char *what,
		       size_t at)
{
	if (dc->cut_short && tasks) {
		printf("# ends in a partial record at byte %zu (the recording was cut short)\n", at);
		return 0;
	}
	printf("# %s at byte %zu: the rest is not dumped\n", what, at);
	if (dc->opened)
		return 0;
	if (dc->force) {
		pr_warn("%s: %s at byte %zu; reading up to there", path, what, at);
		return 0;
	}
	pr_err("%s: %s at byte %zu (--force reads up to there)", path, what, at);
	return -1;
}

/* A CHECK record's CRC, and whether the bytes it covers still have it. */
static void print_crc(uint32_t want, uint32_t have)
{
	printf("crc32 0x%08x (%s)", want, want == have ? "ok" : "MISMATCH");
}

static void print_file_header(const struct pt_file_header *h)
{
	printf("%10u  FILE        magic %.7s endian %u kind %u version %u min_reader %u "
	       "features 0x%" PRIx64 " stream_id %u flags 0x%x\n",
	       0, h->magic, h->endian, h->kind, h->version, h->min_reader, h->features,
	       h->stream_id, h->flags);
}

/* A string payload, quoted; NULs (argv separators) shown as spaces. */
static void print_quoted(const uint8_t *p, size_t len)
{
	putchar('"');
	while (len && p[len - 1] == '\0')
		len--;
	for (size_t i = 0; i < len; i++) {
		if (p[i] == '\0')
			putchar(' ');
		else if (p[i] == '"' || p[i] == '\\')
			printf("\\%c", p[i]);
		else if (p[i] < 0x20 || p[i] >= 0x7f)
			printf("\\x%02x", p[i]);
		else
			putchar(p[i]);
	}
	putchar('"');
}

static int dump_header_file(const char *path, const struct dump_ctx *dc)
{
	struct pt_file_header h;
	const struct pt_rec_header *rh;
	struct running_crc crc = { 0, 0 };
	uint8_t *data;
	size_t len, off = sizeof(h), at;
	int r;

	if (trace_load_file(path, PT_KIND_HEADER, &h, &data, &len) < 0)
		return -1;
	printf("# %s\n", path);
	print_file_header(&h);
	for (at = off; (r = trace_next_record(data, len, &off, &rh)) == 1; at = off) {
		const uint8_t *p = (const uint8_t *)(rh + 1);
		size_t plen = rh->size - sizeof(*rh);
		const char *name = rh->type < sizeof(attr_names) / sizeof(attr_names[0]) &&
					   attr_names[rh->type] ? attr_names[rh->type] : "UNKNOWN";

		printf("%10zu  ATTR %-14s size %u  ", at, name, rh->size);
		if (rh->type == PT_ATTR_START_TIME || rh->type == PT_ATTR_STOP_TIME) {
			struct pt_attr_time t = { 0 };

			memcpy(&t, p, plen < sizeof(t) ? plen : sizeof(t));
			printf("realtime_ns %" PRIu64 " monotonic_ns %" PRIu64, t.realtime_ns,
			       t.monotonic_ns);
		} else if (rh->type == PT_ATTR_TOTALS) {
			struct pt_attr_totals t = { 0 };

			memcpy(&t, p, plen < sizeof(t) ? plen : sizeof(t));
			printf("steps %" PRIu64 " lost %" PRIu64 " threads %u processes %u",
			       t.steps, t.lost, t.threads, t.processes);
			if (plen >= sizeof(t))
				printf(" counted %" PRIu64, t.counted);
		} else if (rh->type == PT_ATTR_SYNCED && plen >= sizeof(struct pt_attr_synced)) {
			struct pt_attr_synced a;

			memcpy(&a, p, sizeof(a));
			printf("seq %" PRIu64 " tasks_bytes %" PRIu64 " time_ns %" PRIu64, a.seq,
			       a.tasks_bytes, a.time_ns);
		} else if (rh->type == PT_ATTR_SYNCED_TIME &&
			   plen >= sizeof(struct pt_attr_synced_time)) {
			struct pt_attr_synced_time a;

			memcpy(&a, p, sizeof(a));
			printf("cut_ns %" PRIu64 " tasks_bytes %" PRIu64 " time_ns %" PRIu64,
			       a.cut_ns, a.tasks_bytes, a.time_ns);
		} else if (rh->type == PT_ATTR_PAD) {
			printf("%zu bytes of room", plen);
		} else if (rh->type == PT_ATTR_CHECK && plen >= 4) {
			uint32_t v;

			memcpy(&v, p, 4);
			print_crc(v, crc_upto(&crc, data, at));
		} else if ((rh->type == PT_ATTR_TASKS_LOST || rh->type == PT_ATTR_RESTORED) &&
			   plen >= 8) {
			uint64_t v;

			memcpy(&v, p, 8);
			printf("%" PRIu64, v);
		} else if (rh->type == PT_ATTR_NR_CPUS && plen >= 4) {
			uint32_t v;

			memcpy(&v, p, 4);
			printf("%u", v);
		} else if (rh->type < sizeof(attr_names) / sizeof(attr_names[0]) &&
			   attr_names[rh->type]) {
			print_quoted(p, plen);
		} else {
			printf("type %u (newer than this post)", rh->type);
		}
		putchar('\n');
	}
	free(data);
	return r < 0 ? dump_damage(path, dc, false, "truncated or corrupt record", at) : 0;
}

static void prot_str(uint32_t prot, char *buf)
{
	buf[0] = prot & 1 ? 'r' : '-';
	buf[1] = prot & 2 ? 'w' : '-';
	buf[2] = prot & 4 ? 'x' : '-';
	buf[3] = '\0';
}

static int dump_tasks_file(const char *path, const struct dump_ctx *dc)
{
	struct pt_file_header h;
	const struct pt_rec_header *rh;
	struct running_crc crc = { 0, 0 };
	uint8_t *data;
	size_t len, off = sizeof(h), at;
	int r;

	if (trace_load_file(path, PT_KIND_TASKS, &h, &data, &len) < 0)
		return -1;
	printf("# %s\n", path);
	print_file_header(&h);
	for (at = off; (r = trace_next_record(data, len, &off, &rh)) == 1; at = off) {
		struct trace_task_rec t;
		char seq[24], prot[4];

		printf("%10zu  %-10s  ", at, trace_task_type_name(rh->type));
		if (trace_task_decode(rh, &t) < 0) {
			printf("malformed (type %u, size %u)\n", rh->type, rh->size);
			continue;
		}
		if (t.type == PT_TASK_CHECK) {
			/* its time and seq only repeat the record's before it */
			print_crc(t.check.crc32, crc_upto(&crc, data, at));
			putchar('\n');
			continue;
		}
		if (t.c.seq == PT_SEQ_NONE)
			snprintf(seq, sizeof(seq), "none");
		else
			snprintf(seq, sizeof(seq), "%" PRIu64, t.c.seq);
		printf("time %" PRIu64 " seq %s pid %u tid %u", t.c.time_ns, seq, t.c.pid,
		       t.c.tid);
		switch (t.type) {
		case PT_TASK_FORK:
			printf(" ppid %u ptid %u flags 0x%x%s", t.fork.ppid, t.fork.ptid,
			       t.fork.flags, t.fork.flags & PT_FORK_THREAD ? " (thread)" : "");
			break;
		case PT_TASK_EXEC:
			printf(" path %s", t.str);
			break;
		case PT_TASK_COMM:
			printf(" comm %s", t.str);
			break;
		case PT_TASK_EXIT:
			printf(" status %d", t.exit.status);
			break;
		case PT_TASK_MMAP:
			prot_str(t.mmap.prot, prot);
			printf(" start 0x%" PRIx64 " len 0x%" PRIx64 " pgoff 0x%" PRIx64 " prot %s",
			       t.mmap.start, t.mmap.len, t.mmap.pgoff, prot);
			if (t.mmap.build_id_len) {
				printf(" build-id ");
				for (unsigned i = 0; i < t.mmap.build_id_len; i++)
					printf("%02x", t.mmap.build_id[i]);
			}
			printf(" path %s", t.str);
			break;
		case PT_TASK_MUNMAP:
			printf(" start 0x%" PRIx64 " len 0x%" PRIx64, t.munmap.start, t.munmap.len);
			break;
		default:
			printf(" (type %u, newer than this post)", t.type);
			break;
		}
		putchar('\n');
	}
	free(data);
	return r < 0 ? dump_damage(path, dc, true, "truncated record", at) : 0;
}

/* An ASYNC record: kind and number named, then the v3 detail when there is one. */
static void print_async(const struct step_item *it)
{
	static const char *const rings[] = { "user", "kernel", "unknown" };
	struct trace_async as;
	const char *name = NULL;
	char why[128];

	if (trace_async_decode(it->payload, it->payload_len, &as) < 0) {
		printf("malformed (%zu bytes of payload)", it->payload_len);
		return;
	}
	if (as.kind == PT_ASYNC_INTERRUPT)
		name = arch_interrupt_name(as.number);
	else if (as.kind == PT_ASYNC_EXCEPTION)
		name = arch_exception_name(as.number);
	printf("kind %" PRIu64 " number %" PRIu64 " (%s%s%s)", as.kind, as.number,
	       trace_async_kind_name(as.kind), name ? ": " : "", name ? name : "");
	if (!as.detail)
		return;
	printf(" ring %u (%s) pc 0x%" PRIx64 " address 0x%" PRIx64 " error 0x%" PRIx64, as.ring,
	       rings[as.ring], as.pc, as.address, as.error);
	if (as.kind == PT_ASYNC_EXCEPTION && arch_exception_is_page_fault(as.number))
		printf(" (%s)", arch_page_fault_describe(as.error, why, sizeof(why)));
}

/* An ATOMIC record: how a read-modify-write ended, where, after how many steps. */
static void print_ctl_atomic(struct ctl_cursor *c)
{
	static const char *const kinds[] = { "stored", "failed", "left", "native", "inexact" };
	uint64_t a = 0, b = 0, tm = 0;

	ctl_get_uleb(c, &a);
	ctl_get_u64(c, &tm);
	ctl_get_uleb(c, &b);
	printf("kind %" PRIu64 " (%s) pc %#" PRIx64 " steps %" PRIu64, a,
	       a < 5 ? kinds[a] : "newer", tm, b);
}

/* A NATIVE record: code run untraced, from pc to end, and its steps when counted. */
static void print_ctl_native(struct ctl_cursor *c)
{
	uint64_t a = 0, b = 0, tm = 0, end = 0, flags = 0;

	ctl_get_uleb(c, &a);
	ctl_get_u64(c, &tm);
	ctl_get_u64(c, &end);
	ctl_get_uleb(c, &flags);
	ctl_get_uleb(c, &b);
	printf("kind %" PRIu64 " (%s) pc %#" PRIx64 " end %#" PRIx64 " %s", a,
	       a == PT_NATIVE_VDSO ? "vdso" : "newer", tm, end,
	       flags & PT_NATIVE_RETURNED ? "returned" : "stopped");
	if (flags & PT_NATIVE_COUNTED)
		printf(" count %" PRIu64, b);
	else
		printf(" count unknown");
}

/* A FORK, EXEC or EXIT record: the task, its type's fields, the time (EXEC: the path). */
static void print_ctl_task(const struct step_item *it, struct ctl_cursor *c)
{
	static const char *const fields[3][3] = {
		{ "ppid", "ptid", "flags" }, { "old_tid" }, { "status", "steps" },
	};
	unsigned k = it->ctl_type - PT_CTL_FORK;
	uint64_t a = 0, b = 0, tm = 0;

	ctl_get_uleb(c, &a);
	ctl_get_uleb(c, &b);
	printf("pid %" PRIu64 " tid %" PRIu64, a, b);
	for (unsigned i = 0; i < 3 && fields[k][i]; i++) {
		ctl_get_uleb(c, &a);
		printf(" %s %" PRIu64, fields[k][i], a);
	}
	ctl_get_u64(c, &tm);
	printf(" time %" PRIu64, tm);
	if (it->ctl_type == PT_CTL_EXEC)
		printf(" path %.*s", (int)(c->end - c->p), (const char *)c->p);
}

static void print_ctl(const struct step_item *it)
{
	struct ctl_cursor c = { it->payload, it->payload + it->payload_len };
	uint64_t a = 0, b = 0, tm = 0, seq = 0;
	uint32_t crc = 0;
	uint8_t ring = 0;

	switch (it->ctl_type) {
	case PT_CTL_SWITCH:
		ctl_get_uleb(&c, &a);
		ctl_get_uleb(&c, &b);
		ctl_get_u64(&c, &tm);
		ctl_get_uleb(&c, &seq);
		printf("pid %" PRIu64 " tid %" PRIu64 " time %" PRIu64 " seq %" PRIu64, a, b, tm,
		       seq);
		break;
	case PT_CTL_TIME:
		ctl_get_u64(&c, &tm);
		ctl_get_uleb(&c, &seq);
		printf("time %" PRIu64 " seq %" PRIu64, tm, seq);
		break;
	case PT_CTL_LOST:
	case PT_CTL_COUNT:
		ctl_get_uleb(&c, &a);
		printf("count %" PRIu64, a);
		break;
	case PT_CTL_ON:
	case PT_CTL_OFF:
		ctl_get_u64(&c, &tm);
		printf("time %" PRIu64, tm);
		break;
	case PT_CTL_RING:
		ctl_get_u8(&c, &ring);
		printf("ring %u (%s)", ring, ring ? "kernel" : "user");
		break;
	case PT_CTL_ASYNC:
		print_async(it);
		break;
	case PT_CTL_GAP:
	case PT_CTL_RESTORED:
		ctl_get_uleb(&c, &a);
		printf("reason %" PRIu64, a);
		break;
	case PT_CTL_CHECK:
		ctl_get_u32(&c, &crc);
		printf("crc32 0x%08x", crc);
		if (ctl_get_uleb(&c, &a) == 0)
			printf(" block %" PRIu64, a);
		break;
	case PT_CTL_END:
		ctl_get_uleb(&c, &a);
		printf("steps %" PRIu64, a);
		if (ctl_get_uleb(&c, &a) == 0)
			printf(" counted %" PRIu64, a);
		break;
	case PT_CTL_ATOMIC:
		print_ctl_atomic(&c);
		break;
	case PT_CTL_NATIVE:
		print_ctl_native(&c);
		break;
	case PT_CTL_FORK:
	case PT_CTL_EXEC:
	case PT_CTL_EXIT:
		print_ctl_task(it, &c);
		break;
	default:
		printf("type %u, %zu bytes of payload (newer than this post)", it->ctl_type,
		       it->payload_len);
		break;
	}
}

/*
 * A step stream's records; its damage, when it has some, as a line of the
 * dump and in *damage (malloc'ed): the caller says it, once for all the
 * streams it dumps.  -1 after an error (damage without --force, or one
 * printed: the stream cannot be read).
 */
static int dump_steps_file(const char *path, bool force, bool cut_short, char **damage)
{
	/* with --force a stream whose file header cannot be read is one without records */
	struct stream_reader *r = stream_reader_open_quiet(path, force);
	struct step_item it;
	uint64_t off, last_pc = 0, steps = 0;
	int ret;

	*damage = NULL;
	if (!r)
		return -1;
	stream_reader_set_cut_short(r, cut_short);
	printf("# %s%s\n", path, stream_reader_header(r)->flags & PT_FLAG_ZSTD
				       ? " (zstd: decompressed offsets)" : "");
	print_file_header(stream_reader_header(r));
	while ((ret = stream_reader_next(r, &it, &off)) == 1) {
		uint64_t size = stream_reader_offset(r) - off;

		if (it.kind == STEP_ITEM_STEP) {
			int64_t d = (int64_t)(it.pc - last_pc);

			printf("%10" PRIu64 "  STEP        pc 0x%" PRIx64 " delta %s0x%" PRIx64
			       " bytes %" PRIu64 "\n", off, it.pc, d < 0 ? "-" : "+",
			       d < 0 ? -(uint64_t)d : (uint64_t)d, size);
			last_pc = it.pc;
			steps++;
			continue;
		}
		printf("%10" PRIu64 "  %-10s  ", off, trace_ctl_type_name(it.ctl_type));
		print_ctl(&it);
		printf(" bytes %" PRIu64 "\n", size);
		if (it.ctl_type == PT_CTL_SWITCH)
			last_pc = 0;
	}
	if (stream_reader_damage(r)) {
		printf("# %s: the rest is not dumped\n", stream_reader_damage(r));
		*damage = strdup(stream_reader_damage(r));
	}
	printf("# %" PRIu64 " steps%s\n", steps,
	       stream_reader_cut(r) ? " (cut short: the stream ends without END)" : "");
	stream_reader_close(r);
	return ret < 0 ? -1 : 0;
}

/*
 * Step streams (one, or the trace's): the damage of them all in one line,
 * -v listing each; -1 once one failed.
 */
static int dump_streams(const char *const *paths, size_t n, bool force, bool cut_short)
{
	char *first = NULL, *damage;
	size_t first_i = 0, damaged = 0;
	int ret = 0;

	for (size_t i = 0; i < n && !ret; i++) {
		ret = dump_steps_file(paths[i], force, cut_short, &damage);
		if (!damage)
			continue;
		pr_dbg("%s: %s", paths[i], damage);
		if (!damaged++) {
			first = damage;
			first_i = i;
		} else {
			free(damage);
		}
	}
	if (damaged)
		trace_say_stream_damage(paths[first_i], first, damaged - 1, force);
	free(first);
	return ret;
}

/* Dump one file, whatever its kind says it is. */
static int dump_file(const char *path, bool force)
{
	const struct dump_ctx dc = { .force = force };
	struct pt_file_header h;
	uint64_t size;
	int fd = trace_open_file(path, &size);
	ssize_t n;

	if (fd < 0)
		return -1;
	do
		n = read(fd, &h, sizeof(h));
	while (n < 0 && errno == EINTR);
	close(fd);
	if (n < 0) {
		pr_err("cannot read %s: %s", path, strerror(errno));
		return -1;
	}
	if (trace_check_file_header(path, &h, (size_t)n, 0) < 0)
		return -1;
	switch (h.kind) {
	case PT_KIND_HEADER: return dump_header_file(path, &dc);
	case PT_KIND_TASKS: return dump_tasks_file(path, &dc);
	case PT_KIND_STEPS: return dump_streams(&path, 1, force, false);
	}
	pr_err("%s: unknown file kind %u", path, h.kind);
	return -1;
}

int cmd_dump(int argc, char **argv, struct post_opts *opts)
{
	bool header = false, tasks = false, steps = false;
	const char *file = NULL;
	struct dump_ctx dc;
	const struct popt opt[] = {
		OPT_GROUP("Options"),
		OPT_FLAG(0, "header", &header, "the header file"),
		OPT_FLAG(0, "tasks", &tasks, "the tasks file"),
		OPT_FLAG(0, "steps", &steps, "the step streams"),
		POST_TRACE_OPTIONS(opts), OPT_END
	};
	const struct popt *tables[] = { opt, NULL };
	struct trace *t;
	char **args;
	int nargs, ret = post_parse(&cmd, argc, argv, tables, opts, NULL, 1, &args, &nargs);

	if (ret)
		return POST_EXIT(ret);
	if (nargs)
		file = args[0];
	if (file) {
		struct stat st;
		size_t n = strlen(opts->input) + strlen(file) + 2;
		char *path = malloc(n);

		if (!path)
			return EXIT_RUNTIME;
		/* a name inside the trace directory first, else a path */
		snprintf(path, n, "%s/%s", opts->input, file);
		if (stat(path, &st) < 0)
			snprintf(path, n, "%s", file);
		ret = dump_file(path, opts->force);
		free(path);
		return ret < 0 ? EXIT_RUNTIME : 0;
	}
	if (!header && !tasks && !steps)
		header = tasks = steps = true;
	/* opening validates the directory, the header and the tasks file */
	t = trace_open_arch(opts->input, opts->force ? TRACE_OPEN_FORCE : 0);
	if (!t)
		return EXIT_RUNTIME;
	dc = (struct dump_ctx){ opts->force, trace_cut_short(t), true };
	if (header) {
		char *p = malloc(strlen(trace_dir(t)) + sizeof("/" PT_FILE_HEADER));

		sprintf(p, "%s/%s", trace_dir(t), PT_FILE_HEADER);
		ret |= dump_header_file(p, &dc);
		free(p);
	}
	if (tasks) {
		char *p = malloc(strlen(trace_dir(t)) + sizeof("/" PT_FILE_TASKS));

		sprintf(p, "%s/%s", trace_dir(t), PT_FILE_TASKS);
		ret |= dump_tasks_file(p, &dc);
		free(p);
	}
	if (steps && !ret) {
		size_t n = trace_nr_streams(t);
		const char **paths = calloc(n ? n : 1, sizeof(*paths));

		if (!paths) {
			pr_err("out of memory");
			ret = -1;
		}
		for (size_t i = 0; paths && i < n; i++)
			paths[i] = trace_stream(t, i)->path;
		if (paths)
			ret = dump_streams(paths, n, opts->force, trace_cut_short(t));
		free(paths);
	}
	trace_close(t);
	if (fflush(stdout) != 0) {
		pr_err("cannot write the dump: %s", strerror(errno));
		return EXIT_RUNTIME;
	}
	return ret ? EXIT_RUNTIME : 0;
}
