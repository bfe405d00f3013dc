// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer harness for post: one fuzzed input is a trace directory (its
 * header, tasks file, step streams, vdso, kallsyms, and ELF files for
 * --symfs), read by the trace reader and one report, or every report
 * (PITRACE_FUZZ_ALL=1, the regression inputs).  Each report's output must
 * stay within a bound of the trace's size (output_bound below): a larger
 * one is a finding, reported as a crash.  So is a report of one pass
 * (post --verify's) that prints otherwise one step at a time than through
 * the fast paths, or exits otherwise.
 *
 * Input (tests/fuzz/README.md):
 *   byte 0   flags: FIX_CRC, FIX_COUNTS, FORCE
 *   byte 1   the report (reports[], modulo their number)
 *   then     entries: u8 name length (bit 7: compress the file with zstd
 *            after its 32-byte file header), the name, uleb128 length, data
 * Names: header, tasks, steps.tN, steps.cN, vdso, kallsyms, modules (the
 * trace); b/NAME (a second trace, for diff: without one diff compares the
 * trace with itself); sym/PATH (a file under --symfs, e.g. the program);
 * hostile (its first byte a kind, the rest a file's name: that file of
 * the trace made a FIFO, a symbolic link to one, to /dev/null, to itself,
 * a socket, a directory, a 3 GiB sparse file, or a link to a copy).
 *
 * Each report must leave stderr in shape: when it fails, exactly one
 * line, "post: error: ..."; when it succeeds, no error line.  A hostile
 * header, tasks or steps file must make every report fail (so: one line).
 *
 * FIX_CRC recomputes every CRC (header, tasks, plain streams) after the
 * mutation, so that mutations reach what the CRCs protect; FIX_COUNTS
 * recomputes END's counts, CHECK block numbers and the header's TOTALS
 * as well: a stream with a step inserted or deleted and every check
 * redone, the worst a reader can be given.
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include <pitrace/format.h>
#include "util/log.h"
#include "post/output.h"
#include "post/post.h"
#include "util/stepcodec.h"
#include "post/tui.h"

#define FIX_CRC (1u << 0)
#define FIX_COUNTS (1u << 1)
#define FORCE (1u << 2)

#define MAX_ENTRIES 64
/*
 * A raw zstd stream decoding to more is not a case: a few bytes of RLE
 * blocks decode to megabytes (a 5 KB input to 42 MB), which post then
 * reads through (decompressing and checking each CHECK block: about 2 s
 * under the sanitizers for 64 MiB, and a stream whose checks held would
 * be millions of steps: 30M take arc over 100 s).  Twice -max_len keeps
 * the work of one input within what an uncompressed input can ask.
 */
#define MAX_DECODED (128u << 10)

/*
 * post tui's data, as the viewer loads it before its first screen (the
 * screens need a terminal): the pass, then the profile of every thread
 * and of the first one.
 */
static int tui_load(int argc, char **argv, struct post_opts *opts)
{
	struct session_filter f = SESSION_FILTER_INIT;
	struct tui_data d;
	int ret;

	(void)argc;
	(void)argv;
	ret = tui_data_open(&d, opts, &f, 100000, NULL);
	if (!ret)
		ret = tui_data_run(&d);
	if (!ret) {
		struct tui_sel all = { 0, 0 };
		struct tui_profile *p = tui_profile_new(&d, all);

		tui_profile_free(p);
		if (d.nr_threads) {
			struct tui_sel one = { d.threads[0].pid, d.threads[0].tid };

			tui_profile_free(tui_profile_new(&d, one));
		}
	}
	tui_data_close(&d);
	return ret;
}

/*
 * The reports, and what each may write per byte of trace (and 64 KiB more):
 * a step's line in steps and flow is ~100 bytes for a 1-byte step; tree,
 * arc, profile and the exports a line per call path or function, each of
 * which costs the trace bytes; folded a line of up to --max-stack (16
 * here) frames per call path.
 */
static const struct report {
	int (*fn)(int argc, char **argv, struct post_opts *opts);
	const char *argv[8];
	unsigned per_byte;
	bool diff;		  /* takes the two trace directories as arguments */
	bool verify;		  /* one pass (post --verify): checked one step at a time too */
} reports[] = {
	{ cmd_info, { "info" }, 64, false, false },
	{ cmd_dump, { "dump" }, 256, false, false },
	{ cmd_counts, { "counts", "--by", "symbol" }, 64, false, true },
	{ cmd_counts, { "counts", "--by", "line" }, 64, false, true },
	{ cmd_counts, { "counts", "--by", "insn", "--wide" }, 256, false, true },
	{ cmd_counts, { "counts", "--by", "thread" }, 64, false, true },
	{ cmd_arc, { "arc" }, 256, false, true },
	{ cmd_arc, { "arc", "--check" }, 16, false, true },
	{ cmd_tree, { "tree" }, 512, false, true },
	{ cmd_tree, { "tree", "--merged" }, 512, false, true },
	{ cmd_profile, { "profile" }, 256, false, true },
	/* a window takes every step one at a time already: nothing to verify */
	{ cmd_profile, { "profile", "--from", "5", "--to", "300" }, 256, false, false },
	{ cmd_flow, { "flow" }, 512, false, true },
	{ cmd_flow, { "flow", "--condensed" }, 512, false, true },
	{ cmd_steps, { "steps" }, 512, false, true },
	{ cmd_annotate, { "annotate", "--top", "3" }, 512, false, true },
	{ cmd_export, { "export", "--format", "callgrind", "-o", "-" }, 512, false, true },
	{ cmd_export, { "export", "--format", "folded", "--max-stack", "16", "-o", "-" }, 1024, false,
	  true },
	{ cmd_export, { "export", "--format", "svg", "--max-stack", "64", "-o", "-" }, 2048, false,
	  true },
	{ cmd_export, { "export", "--format", "chrome", "-o", "-" }, 512, false, true },
	{ cmd_diff, { "diff" }, 256, true, false },
	{ tui_load, { "tui" }, 0, false, false },
};
#define NR_REPORTS (sizeof(reports) / sizeof(reports[0]))

struct entry {
	char name[128];
	bool compress;
	const uint8_t *data;
	size_t len;
};

static char root[64], dir_a[96], dir_b[96], dir_sym[96], dir_cache[96];
static int out_fd = -1, err_fd = -1;
/* The trace file the hostile entry made no regular file, if any: every report fails on it. */
static bool hostile_refused;
static bool run_all, show_sizes;

static void die(const char *what)
{
	fprintf(stderr, "fuzz_post: %s: %s\n", what, strerror(errno));
	abort();
}

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	if (ftw->level > 0)
		remove(path);
	return 0;
}

/* Empty dir, keeping it. */
static void clear_dir(const char *dir)
{
	nftw(dir, remove_one, 16, FTW_DEPTH | FTW_PHYS);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *tmp = getenv("TMPDIR");

	(void)argc;
	(void)argv;
	snprintf(root, sizeof(root), "%s/pitrace-fuzz.%d", access("/dev/shm", W_OK) ? tmp ? tmp
				: "/tmp" : "/dev/shm", getpid());
	snprintf(dir_a, sizeof(dir_a), "%s/a", root);
	snprintf(dir_b, sizeof(dir_b), "%s/b", root);
	snprintf(dir_sym, sizeof(dir_sym), "%s/sym", root);
	snprintf(dir_cache, sizeof(dir_cache), "%s/cache", root);
	if (mkdir(root, 0700) && errno != EEXIST)
		die(root);
	mkdir(dir_a, 0700);
	mkdir(dir_b, 0700);
	mkdir(dir_sym, 0700);
	mkdir(dir_cache, 0700);
	/* symbols from the input only: no build-id cache, no server */
	setenv("XDG_CACHE_HOME", dir_cache, 1);
	unsetenv("DEBUGINFOD_URLS");
	setenv("PAGER", "cat", 1);
	run_all = getenv("PITRACE_FUZZ_ALL") && *getenv("PITRACE_FUZZ_ALL") == '1';
	show_sizes = getenv("PITRACE_FUZZ_SIZES") != NULL;
	log_progname = "post";
	out_fd = memfd_create("fuzz-post-out", 0);
	err_fd = memfd_create("fuzz-post-err", 0);
	if (out_fd < 0 || err_fd < 0)
		die("memfd_create");
	return 0;
}

static __attribute__((destructor)) void cleanup(void)
{
	if (root[0] && !getenv("PITRACE_FUZZ_KEEP")) {
		clear_dir(root);
		rmdir(root);
	}
}

/* ---- the input ---- */

static size_t read_uleb(const uint8_t *p, size_t n, size_t *used)
{
	uint64_t v = 0;

	for (size_t i = 0; i < n && i < 5; i++) {
		v |= (uint64_t)(p[i] & 0x7f) << (7 * i);
		if (!(p[i] & 0x80)) {
			*used = i + 1;
			return (size_t)v;
		}
	}
	*used = 0;
	return 0;
}

/* A name the harness writes: letters, digits, '.', '_', '-', '/' between parts, no "..". */
static bool good_name(const char *s)
{
	if (!*s || *s == '/' || strstr(s, "..") || strstr(s, "//") || s[strlen(s) - 1] == '/')
		return false;
	for (; *s; s++)
		if (!(*s == '.' || *s == '_' || *s == '-' || *s == '/' || (*s >= '0' && *s <= '9') ||
		      (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z')))
			return false;
	return true;
}

static size_t parse_entries(const uint8_t *data, size_t size, struct entry *e)
{
	size_t n = 0, off = 0;

	while (off < size && n < MAX_ENTRIES) {
		size_t nlen = data[off] & 0x7f, used, len;
		bool compress = data[off] & 0x80;

		off++;
		if (!nlen || nlen >= sizeof(e->name) || size - off < nlen)
			break;
		memcpy(e[n].name, data + off, nlen);
		e[n].name[nlen] = '\0';
		off += nlen;
		len = read_uleb(data + off, size - off, &used);
		if (!used)
			break;
		off += used;
		if (len > size - off)
			len = size - off;	/* a cut entry keeps what is there */
		e[n].compress = compress;
		e[n].data = data + off;
		e[n].len = len;
		off += len;
		if (good_name(e[n].name))
			n++;
	}
	return n;
}

/* ---- fixing what the mutation broke ---- */

static bool is_stream(const char *name)
{
	const char *base = strrchr(name, '/');

	base = base ? base + 1 : name;
	return !strncmp(base, "steps.", 6);
}

/* The header or tasks file: each CHECK's CRC of the bytes before it. */
static void fix_records(uint8_t *p, size_t len, bool tasks, uint64_t steps, uint64_t counted,
			bool fix_totals)
{
	size_t off = sizeof(struct pt_file_header);

	while (len - off >= sizeof(struct pt_rec_header)) {
		struct pt_rec_header rh;
		size_t plen;

		memcpy(&rh, p + off, sizeof(rh));
		if (rh.size < sizeof(rh) || rh.size > len - off)
			return;
		plen = rh.size - sizeof(rh);
		if (!tasks && rh.type == PT_ATTR_TOTALS && fix_totals &&
		    plen >= PT_ATTR_TOTALS_V1_SIZE) {
			memcpy(p + off + sizeof(rh), &steps, 8);
			if (plen >= sizeof(struct pt_attr_totals))
				memcpy(p + off + sizeof(rh) + offsetof(struct pt_attr_totals, counted),
				       &counted, 8);
		}
		if (!tasks && rh.type == PT_ATTR_CHECK && plen >= 4) {
			uint32_t crc = (uint32_t)crc32(0, p, (uInt)off);

			memcpy(p + off + sizeof(rh), &crc, 4);
		}
		if (tasks && rh.type == PT_TASK_CHECK && plen >= sizeof(struct pt_task_check)) {
			uint32_t crc = (uint32_t)crc32(0, p, (uInt)off);

			memcpy(p + off + sizeof(rh) + offsetof(struct pt_task_check, crc32), &crc, 4);
		}
		off += rh.size;
	}
}

/*
 * A plain stream: each CHECK's CRC, and with counts, END's steps and
 * counted and the CHECK block numbers, re-encoded.  Returns the new
 * length (out has room for twice the input and more).
 */
static size_t fix_stream(const uint8_t *in, size_t len, uint8_t *out, bool counts,
			 uint64_t *steps, uint64_t *counted)
{
	size_t off = sizeof(struct pt_file_header), n = off, blk = off;
	uint64_t last_pc = 0, nsteps = 0, ncounted = 0, blocks = 0;

	memcpy(out, in, off);
	while (off < len) {
		struct step_item it;
		size_t used;
		struct ctl_payload p = { .len = 0 };

		if (step_decode(in + off, len - off, &last_pc, &it, &used) != STEP_DECODE_OK)
			break;
		if (it.kind == STEP_ITEM_STEP) {
			nsteps++;
		} else if (it.ctl_type == PT_CTL_SWITCH) {
			last_pc = 0;
		} else if (it.ctl_type == PT_CTL_COUNT) {
			struct ctl_cursor c = { it.payload, it.payload + it.payload_len };
			uint64_t v;

			if (!ctl_get_uleb(&c, &v))
				ncounted += v;
		} else if (it.ctl_type == PT_CTL_END && counts) {
			ctl_put_uleb(&p, nsteps);
			ctl_put_uleb(&p, ncounted);
			n += pt_ctl_put(out + n, PT_CTL_END, p.buf, p.len);
			off += used;
			continue;
		} else if (it.ctl_type == PT_CTL_CHECK && it.payload_len >= 4) {
			uint32_t crc = (uint32_t)crc32(0, out + blk, (uInt)(n - blk));

			if (counts) {
				ctl_put_u32(&p, crc);
				ctl_put_uleb(&p, blocks++);
				n += pt_ctl_put(out + n, PT_CTL_CHECK, p.buf, p.len);
			} else {
				size_t head = used - it.payload_len;

				memcpy(out + n, in + off, used);
				memcpy(out + n + head, &crc, 4);
				n += used;
			}
			off += used;
			blk = n;
			continue;
		}
		memcpy(out + n, in + off, used);
		n += used;
		off += used;
	}
	memcpy(out + n, in + off, len - off);	/* what does not decode, as it is */
	*steps += nsteps;
	*counted += ncounted;
	return n + (len - off);
}

/* ---- writing the trace ---- */

static int write_file(const char *path, const uint8_t *p, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	ssize_t w = 0;

	if (fd < 0)
		return -1;
	if (len)
		w = write(fd, p, len);
	close(fd);
	return w == (ssize_t)len ? 0 : -1;
}

static void make_parents(char *path)
{
	for (char *s = strchr(path + strlen(root) + 1, '/'); s; s = strchr(s + 1, '/')) {
		*s = '\0';
		mkdir(path, 0700);
		*s = '/';
	}
}

/* Hostile files. */

enum hostile_kind {
	HOSTILE_FIFO, HOSTILE_LINK_FIFO, HOSTILE_LINK_DEVICE, HOSTILE_LINK_LOOP, HOSTILE_SOCKET,
	HOSTILE_DIRECTORY, HOSTILE_SPARSE, HOSTILE_LINK_COPY, NR_HOSTILE
};

/*
 * Is name one of the files post must refuse when it is no regular file:
 * header, tasks, or a step stream by the reader's rule for their names
 * ("steps.t" or "steps.c", an id in decimal without leading zeros)?
 */
static bool is_trace_file(const char *name)
{
	const char *d = name + 7;
	char *end;

	if (!strcmp(name, "header") || !strcmp(name, "tasks"))
		return true;
	if (strncmp(name, "steps.t", 7) && strncmp(name, "steps.c", 7))
		return false;
	if (*d < '0' || *d > '9' || (*d == '0' && d[1]))
		return false;
	errno = 0;
	return strtoul(d, &end, 10) <= UINT32_MAX && !*end && !errno;
}

/*
 * The hostile entry: data[0] % NR_HOSTILE a kind, the rest the name of a
 * file of trace a, which it replaces (what was written there is the
 * sparse file's start, and the copy's contents).
 */
static void make_hostile(const struct entry *e)
{
	char name[64], path[192], other[192];
	enum hostile_kind kind;
	int fd;

	if (e->len < 2 || e->len - 1 >= sizeof(name))
		return;
	kind = e->data[0] % NR_HOSTILE;
	memcpy(name, e->data + 1, e->len - 1);
	name[e->len - 1] = '\0';
	if (strchr(name, '/') || !good_name(name))
		return;
	snprintf(path, sizeof(path), "%s/%s", dir_a, name);
	snprintf(other, sizeof(other), "%s/hostile-%s", root, name);
	if (kind == HOSTILE_SPARSE) {
		fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
		if (fd < 0 || ftruncate(fd, 3ll << 30) < 0)
			die("a sparse file");
		close(fd);
		hostile_refused |= is_trace_file(name);
		return;
	}
	unlink(other);
	if (kind == HOSTILE_LINK_COPY && rename(path, other) < 0 && write_file(other, NULL, 0) < 0)
		die("a file to link to");
	if (kind != HOSTILE_LINK_COPY)
		remove(path);
	switch (kind) {
	case HOSTILE_FIFO:
		if (mkfifo(path, 0600) < 0)
			die("mkfifo");
		break;
	case HOSTILE_LINK_FIFO:
		if (mkfifo(other, 0600) < 0 || symlink(other, path) < 0)
			die("a link to a FIFO");
		break;
	case HOSTILE_LINK_DEVICE:
		if (symlink("/dev/null", path) < 0)
			die("a link to /dev/null");
		break;
	case HOSTILE_LINK_LOOP:
		if (symlink(name, path) < 0)
			die("a link to itself");
		break;
	case HOSTILE_SOCKET: {
		struct sockaddr_un a = { .sun_family = AF_UNIX };

		fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
		snprintf(a.sun_path, sizeof(a.sun_path), "%s", path);
		if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof(a)) < 0)
			die("a socket");
		close(fd);
		break;
	}
	case HOSTILE_DIRECTORY:
		if (mkdir(path, 0700) < 0)
			die("a directory");
		break;
	case HOSTILE_LINK_COPY:
		if (symlink(other, path) < 0)
			die("a link to a copy");
		return;	/* a regular file: read as any */
	default:
		return;
	}
	hostile_refused |= is_trace_file(name);
}

/* The bytes a raw zstd stream decodes to, at most MAX_DECODED (then SIZE_MAX). */
static size_t zstd_decoded_size(const uint8_t *p, size_t len)
{
	ZSTD_DStream *z = ZSTD_createDStream();
	ZSTD_inBuffer in = { p, len, 0 };
	static uint8_t buf[1 << 16];
	size_t total = 0;

	if (!z)
		return SIZE_MAX;
	ZSTD_initDStream(z);
	while (in.pos < in.size) {
		ZSTD_outBuffer out = { buf, sizeof(buf), 0 };
		size_t r = ZSTD_decompressStream(z, &out, &in);

		total += out.pos;
		if (ZSTD_isError(r) || total > MAX_DECODED)
			break;
		if (!out.pos && r)
			break;	/* needs input that is not there */
	}
	ZSTD_freeDStream(z);
	return total > MAX_DECODED ? SIZE_MAX : total;
}

/*
 * Write the entries as trace directories a and b and the symfs tree;
 * returns the trace's size as post decodes it (bytes), or 0 when the
 * input is not a case (nothing to write, or a zstd bomb).
 */
static size_t write_trace(struct entry *e, size_t n, unsigned flags)
{
	uint8_t *fixed[MAX_ENTRIES] = { 0 };
	size_t fixed_len[MAX_ENTRIES];
	uint64_t steps[2] = { 0 }, counted[2] = { 0 };
	size_t total = 0;

	clear_dir(dir_a);
	clear_dir(dir_b);
	clear_dir(dir_sym);
	/* streams first: the header's TOTALS are their sums */
	for (int pass = 0; pass < 2; pass++) {
		for (size_t i = 0; i < n; i++) {
			bool b = !strncmp(e[i].name, "b/", 2), stream = is_stream(e[i].name);
			const char *base = b ? e[i].name + 2 : e[i].name;
			bool plain = e[i].len >= sizeof(struct pt_file_header) &&
				     (e[i].compress ||
				      !(((const struct pt_file_header *)e[i].data)->flags & PT_FLAG_ZSTD));

			if ((pass == 0) != stream || !(flags & (FIX_CRC | FIX_COUNTS)) || !plain ||
			    !strncmp(e[i].name, "sym/", 4))
				continue;
			fixed[i] = malloc(2 * e[i].len + 64);
			if (!fixed[i])
				continue;
			if (stream) {
				fixed_len[i] = fix_stream(e[i].data, e[i].len, fixed[i],
							  flags & FIX_COUNTS, &steps[b], &counted[b]);
			} else {
				memcpy(fixed[i], e[i].data, e[i].len);
				fixed_len[i] = e[i].len;
				fix_records(fixed[i], e[i].len, !strcmp(base, "tasks"), steps[b],
					    counted[b], flags & FIX_COUNTS);
			}
		}
	}
	for (size_t i = 0; i < n; i++) {
		const uint8_t *p = fixed[i] ? fixed[i] : e[i].data;
		size_t len = fixed[i] ? fixed_len[i] : e[i].len;
		const char *d = dir_a, *name = e[i].name;
		uint8_t *z = NULL;
		char path[512];

		if (!strcmp(name, "hostile"))
			continue;	/* once every file is written */
		if (!strncmp(name, "b/", 2)) {
			d = dir_b;
			name += 2;
		} else if (!strncmp(name, "sym/", 4)) {
			d = dir_sym;
			name += 4;
		}
		if (strchr(name, '/') && d != dir_sym)
			continue;
		snprintf(path, sizeof(path), "%s/%s", d, name);
		if (d == dir_sym)
			make_parents(path);
		if (d == dir_sym) {
			/* the traced programs: not the trace */
		} else if (e[i].compress && len > sizeof(struct pt_file_header)) {
			size_t hdr = sizeof(struct pt_file_header), bound = ZSTD_compressBound(len - hdr);

			total += len;
			z = malloc(hdr + bound);
			if (z) {
				size_t zn = ZSTD_compress(z + hdr, bound, p + hdr, len - hdr, 1);

				if (!ZSTD_isError(zn)) {
					memcpy(z, p, hdr);
					p = z;
					len = hdr + zn;
				}
			}
		} else if (is_stream(name) && len > sizeof(struct pt_file_header) &&
			   (((const struct pt_file_header *)p)->flags & PT_FLAG_ZSTD)) {
			size_t dec = zstd_decoded_size(p + sizeof(struct pt_file_header),
						       len - sizeof(struct pt_file_header));

			if (dec == SIZE_MAX) {
				total = 0;
				free(z);
				goto out;
			}
			total += sizeof(struct pt_file_header) + dec;
		} else {
			total += len;
		}
		write_file(path, p, len);
		free(z);
	}
	hostile_refused = false;
	for (size_t i = 0; i < n; i++)
		if (!strcmp(e[i].name, "hostile"))
			make_hostile(&e[i]);
out:
	for (size_t i = 0; i < n; i++)
		free(fixed[i]);
	return total;
}

/* ---- running the reports ---- */

/*
 * stderr's shape: a report that fails says why in one line, an error, its
 * last (not an error and then a warning, nor one line per damaged stream;
 * warnings may come before it: symbols not found, and with --force damage
 * read through); one that succeeds has no error line.  A hostile trace
 * file fails every report.
 */
static void check_stderr(const struct report *r, int ret)
{
	static char err[64 << 10];
	off_t len = lseek(err_fd, 0, SEEK_END);
	ssize_t n = pread(err_fd, err, sizeof(err) - 1, 0);
	size_t lines = 0, errors = 0, warnings = 0;
	const char *why = NULL, *last = err;

	err[n > 0 ? n : 0] = '\0';
	for (const char *p = err; *p; p = strchr(p, '\n') + 1) {
		if (!strchr(p, '\n'))
			break;	/* a line without its newline: lines stays short of it */
		lines++;
		last = p;
		errors += !strncmp(p, "post: error: ", 13);
		warnings += !strncmp(p, "post: warning: ", 15);
	}
	if (ret && (len >= (off_t)sizeof(err) || errors != 1 || strncmp(last, "post: error: ", 13) ||
		    strchr(last, '\n')[1] || lines != 1 + warnings))
		why = "failed, and stderr is not one error line (after warnings)";
	else if (!ret && errors)	/* lines that are errors, not a path that says so */
		why = "succeeded with an error line";
	else if (!ret && hostile_refused)
		why = "read a trace file that is no regular file";
	if (!why)
		return;
	fprintf(stderr, "fuzz_post: post %s %s (exit %d):\n%.4096s", r->argv[0], why, ret, err);
	abort();
}

/* The report's command line on the fuzzed trace, into argv (room for 24); argc. */
static int report_argv(const struct report *r, bool force, char **argv)
{
	int argc = 0;

	for (int i = 0; i < 8 && r->argv[i]; i++)
		argv[argc++] = (char *)r->argv[i];
	argv[argc++] = "--symfs";
	argv[argc++] = dir_sym;
	if (force)
		argv[argc++] = "--force";
	if (r->diff) {
		char hdr[128];

		/* without a second trace: the trace against itself */
		snprintf(hdr, sizeof(hdr), "%s/header", dir_b);
		argv[argc++] = dir_a;
		argv[argc++] = access(hdr, F_OK) == 0 ? dir_b : dir_a;
	} else {
		argv[argc++] = "-i";
		argv[argc++] = dir_a;
	}
	argv[argc] = NULL;
	return argc;
}

/* The report run once (one step at a time or not) into out_fd: its exit status, *size its bytes. */
static int run_once(const struct report *r, bool force, bool one_at_a_time, off_t *size)
{
	char *argv[24];
	int argc = report_argv(r, force, argv), saved_out, saved_err, ret;
	struct post_opts opts = { .input = dir_a, .symfs = dir_sym, .force = force,
				  .one_at_a_time = one_at_a_time };

	fflush(stdout);
	fflush(stderr);
	saved_out = dup(1);
	saved_err = dup(2);
	if (ftruncate(out_fd, 0) < 0 || lseek(out_fd, 0, SEEK_SET) < 0 || dup2(out_fd, 1) < 0 ||
	    ftruncate(err_fd, 0) < 0 || lseek(err_fd, 0, SEEK_SET) < 0 || dup2(err_fd, 2) < 0)
		die("redirecting the output");
	ret = r->fn(argc, argv, &opts);
	output_end();
	fflush(stdout);
	fflush(stderr);
	*size = lseek(out_fd, 0, SEEK_END);
	dup2(saved_out, 1);
	close(saved_out);
	dup2(saved_err, 2);
	close(saved_err);
	return ret;
}

/* out_fd's bytes (size of them), in a buffer the caller frees. */
static char *read_out(off_t size)
{
	char *b = malloc((size_t)size + 1);

	if (!b || pread(out_fd, b, (size_t)size, 0) != size)
		die("reading the output");
	return b;
}

/*
 * post --verify's oracle: the report one step at a time must print what
 * it printed through the fast paths (counts' paths, the engine's runs and
 * calls taken whole), and exit the same.
 */
static void verify_report(const struct report *r, bool force, int ret, off_t out)
{
	char *fast = read_out(out), *slow;
	off_t out1;
	int ret1 = run_once(r, force, true, &out1);

	slow = read_out(out1);
	if (ret1 != ret || out1 != out || memcmp(fast, slow, (size_t)out)) {
		off_t at = 0;

		while (at < out && at < out1 && fast[at] == slow[at])
			at++;
		fprintf(stderr, "fuzz_post: post %s %s: exit %d, %lld bytes through the fast paths; "
			"exit %d, %lld bytes one step at a time; first difference at byte %lld\n",
			r->argv[0], r->argv[1] ? r->argv[1] : "", ret, (long long)out, ret1,
			(long long)out1, (long long)at);
		abort();
	}
	free(fast);
	free(slow);
}

static void run_report(const struct report *r, bool force, size_t trace_size)
{
	off_t out;
	uint64_t bound;
	int ret = run_once(r, force, false, &out);

	check_stderr(r, ret);
	bound = (uint64_t)r->per_byte * trace_size + (64u << 10);
	if (show_sizes)
		fprintf(stderr, "fuzz_post: %-8s %-10s %9lld bytes out, %7zu in: %7.2f per byte\n",
			r->argv[0], r->argv[1] ? r->argv[1] : "", (long long)out, trace_size,
			(double)out / (double)trace_size);
	if (out > 0 && (uint64_t)out > bound) {
		fprintf(stderr, "fuzz_post: post %s wrote %lld bytes from a trace of %zu bytes "
			"(bound %llu)\n", r->argv[0], (long long)out, trace_size,
			(unsigned long long)bound);
		abort();
	}
	if (r->verify)
		verify_report(r, force, ret, out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct entry e[MAX_ENTRIES];
	size_t n, trace_size;
	unsigned flags;

	if (size < 2)
		return 0;
	flags = data[0];
	n = parse_entries(data + 2, size - 2, e);
	if (!n)
		return 0;
	trace_size = write_trace(e, n, flags);
	if (!trace_size)
		return 0;
	if (run_all) {
		for (size_t r = 0; r < NR_REPORTS; r++)
			run_report(&reports[r], flags & FORCE, trace_size);
	} else {
		run_report(&reports[data[1] % NR_REPORTS], flags & FORCE, trace_size);
	}
	return 0;
}
