// SPDX-License-Identifier: GPL-2.0
/* One step stream of a trace: read in chunks, decompressed, each CHECK block verified and checked. */
#define PR_FMT "reader"
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include "util/log.h"
#include "util/stepcodec.h"
#include "util/trace_reader.h"

/*
 * Step streams are read in chunks of at most this size (a plain stream's
 * buffer starts no larger than its file); a CHECK block must fit, and the
 * buffer grows if one does not.  Every stream of a trace is open at once
 * while merging, so the reader's memory is this, plus a zstd stream's
 * window, times the number of streams.
 */
#define SR_CHUNK (128u << 10)
#define SR_MIN_BUF 4096u
/* Writers CHECK every 64 KiB; a block longer than this is corruption. */
#define SR_MAX_BLOCK (16u << 20)
/* pitrace compresses with windows of 2 MiB: a frame asking for more than 8 MiB is refused. */
#define SR_ZSTD_WINDOW_LOG_MAX 23

/*
 * A stretch of steps in a verified block: where (a stream offset), how
 * long, the sum of its deltas.
 */
struct sr_seg {
	uint64_t off;
	uint32_t len, steps;
	int64_t sum;
};

struct stream_reader {
	char *path;
	int fd;
	struct pt_file_header hdr;
	bool force;
	bool quiet;		  /* damage is not printed, only kept in damage */
	char *damage;		  /* what was wrong, once something was */
	ZSTD_DStream *zstd;
	uint8_t *zin;		  /* compressed input */
	size_t zin_cap, zin_len, zin_pos;
	size_t zret;		  /* last ZSTD_decompressStream result: 0 = frame complete */
	uint64_t file_pos;	  /* bytes of the file consumed (for messages) */
	bool input_eof;
	bool zdry;		  /* zstd gave nothing since the input ran out */
	uint8_t *buf;		  /* decoded stream bytes */
	size_t cap, len, pos;
	size_t blk_end;		  /* records before this offset in buf are verified */
	uint64_t base;		  /* stream offset of buf[0] (the file header counts) */
	uint64_t last_pc;
	uint64_t steps;		  /* STEP records returned */
	uint64_t counted;	  /* the sum of the COUNT records returned */
	uint64_t blocks;	  /* CHECK blocks verified */
	bool checked_header;	  /* the file header was checked against its name */
	uint64_t tid;		  /* the thread whose steps follow (0: none) */
	bool end_seen;		  /* END was returned: only its block's CHECK may follow */
	bool cut_ok;		  /* the recording was cut short: no END is fine */
	bool cut;		  /* it ended without END, after its last whole block */
	int (*follow)(void *ctx); /* a recording in progress: wait for more (set_follow) */
	void *follow_ctx;
	bool nowait;		  /* ... unless the caller has something to hand on first */
	bool paused;		  /* so it did not wait: nothing more yet, not the end */
	int state;		  /* 0 reading, 1 finished, -1 failed */
	/*
	 * Bytes mode (stream_reader_set_bytes): the verified block's stretches
	 * of steps, found by the scan that finds its CHECK, so that they go out
	 * without being scanned again.
	 */
	bool bytes_mode;
	struct sr_seg *seg;
	size_t nr_seg, seg_size, seg_next;
	/* what the trace says the stream holds (stream_reader_expect) */
	const struct trace *trace;
	const struct trace_stream_info *si;
};

/* Damage: an error, or with force a warning and the end of the stream. */
static __attribute__((format(printf, 2, 3))) int sr_fail(struct stream_reader *r,
							 const char *fmt, ...)
{
	char what[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	free(r->damage);
	r->damage = strdup(what);
	if (r->force) {
		if (!r->quiet)
			pr_warn("%s: %s; reading up to there", r->path, what);
		r->state = 1;
		return 0;
	}
	if (!r->quiet)
		pr_err("%s: %s (--force reads up to there)", r->path, what);
	r->state = -1;
	return -1;
}

static ssize_t read_some(int fd, void *buf, size_t len)
{
	ssize_t n;

	do
		n = read(fd, buf, len);
	while (n < 0 && errno == EINTR);
	return n;
}

/* Append decoded bytes to buf; returns bytes added, 0 at the end of input, -1 on error. */
static ssize_t sr_fill(struct stream_reader *r)
{
	if (r->pos) {
		memmove(r->buf, r->buf + r->pos, r->len - r->pos);
		r->len -= r->pos;
		r->blk_end -= r->pos;
		r->base += r->pos;
		r->pos = 0;
	}
	if (r->len == r->cap) {
		size_t ncap = r->cap * 2;
		uint8_t *n;

		if (ncap > SR_MAX_BLOCK)
			return sr_fail(r, "no CHECK record within 16 MiB after byte %llu: corrupt",
				       (unsigned long long)r->base) ? -1 : 0;
		n = realloc(r->buf, ncap);
		if (!n) {
			pr_err("%s: out of memory", r->path);
			r->state = -1;
			return -1;
		}
		r->buf = n;
		r->cap = ncap;
	}
	if (!r->zstd) {
		ssize_t n = read_some(r->fd, r->buf + r->len, r->cap - r->len);

		if (n < 0) {
			pr_err("cannot read %s: %s", r->path, strerror(errno));
			r->state = -1;
			return -1;
		}
		r->len += (size_t)n;
		r->file_pos += (uint64_t)n;
		return n;
	}
	for (;;) {
		ZSTD_outBuffer out = { r->buf + r->len, r->cap - r->len, 0 };
		ZSTD_inBuffer in;

		if (r->zin_pos == r->zin_len && !r->input_eof) {
			ssize_t n = read_some(r->fd, r->zin, r->zin_cap);

			if (n < 0) {
				pr_err("cannot read %s: %s", r->path, strerror(errno));
				r->state = -1;
				return -1;
			}
			r->zin_len = (size_t)n;
			r->zin_pos = 0;
			r->input_eof = n == 0;
			if (n)
				r->zdry = false;
		}
		/* at the end of the file, zstd may still hold output it had no room
		 * for, unless its frame is complete (and flushed: zret 0) or it gave
		 * nothing since the input ran out (asked again and again without
		 * input, a followed stream's, zstd takes it for an error) */
		if (r->zin_pos == r->zin_len && r->input_eof && (r->zret == 0 || r->zdry))
			return 0;
		in = (ZSTD_inBuffer){ r->zin, r->zin_len, r->zin_pos };
		r->zret = ZSTD_decompressStream(r->zstd, &out, &in);
		r->file_pos += in.pos - r->zin_pos;
		r->zin_pos = in.pos;
		if (ZSTD_isError(r->zret)) {
			return sr_fail(r, "corrupt compressed data (%s) at file byte %llu",
				       ZSTD_getErrorName(r->zret),
				       (unsigned long long)r->file_pos) ? -1 : 0;
		}
		if (out.pos) {
			r->len += out.pos;
			return (ssize_t)out.pos;
		}
		if (r->zin_pos == r->zin_len && r->input_eof) {
			r->zdry = true;
			return 0;
		}
	}
}

static size_t clamp_size(uint64_t want, size_t lo, size_t hi)
{
	return want < lo ? lo : want > hi ? hi : (size_t)want;
}

static struct stream_reader *sr_open(const char *path, bool force, bool quiet)
{
	struct stream_reader *r = calloc(1, sizeof(*r));
	char problem[256];
	uint64_t size = 0;
	ssize_t n;

	if (!r)
		return NULL;
	r->force = force;
	r->quiet = quiet;
	r->path = strdup(path);
	r->fd = trace_open_file(path, &size);
	if (r->fd < 0)
		goto err;
	n = read_some(r->fd, &r->hdr, sizeof(r->hdr));
	if (n < 0) {
		pr_err("cannot read %s: %s", path, strerror(errno));
		goto err;
	}
	if (trace_file_header_problem(&r->hdr, (size_t)n, PT_KIND_STEPS, problem,
				      sizeof(problem))) {
		if (!force) {
			pr_err("%s: %s", path, problem);
			goto err;
		}
		/* nothing in it can be read: a stream that ends at once */
		sr_fail(r, "%s", problem);
		return r;
	}
	r->file_pos = r->base = sizeof(r->hdr);
	if (r->hdr.flags & PT_FLAG_ZSTD) {
		r->zin_cap = clamp_size(size, SR_MIN_BUF, SR_CHUNK);
		r->cap = SR_MIN_BUF;	/* grows to the size of a block */
		r->zstd = ZSTD_createDStream();
		r->zin = malloc(r->zin_cap);
		if (!r->zstd || !r->zin) {
			pr_err("%s: cannot set up zstd decompression", path);
			goto err;
		}
		ZSTD_initDStream(r->zstd);
		ZSTD_DCtx_setParameter(r->zstd, ZSTD_d_windowLogMax, SR_ZSTD_WINDOW_LOG_MAX);
		r->zret = 1;
	} else {
		/* a short stream gets a small buffer: a trace may have many */
		r->cap = clamp_size(size, SR_MIN_BUF, SR_CHUNK);
	}
	r->buf = malloc(r->cap);
	if (!r->buf)
		goto err;
	return r;
err:
	stream_reader_close(r);
	return NULL;
}

struct stream_reader *stream_reader_open(const char *path)
{
	return sr_open(path, false, false);
}

struct stream_reader *stream_reader_open_force(const char *path)
{
	return sr_open(path, true, false);
}

struct stream_reader *stream_reader_open_quiet(const char *path, bool force)
{
	return sr_open(path, force, true);
}

void stream_reader_expect(struct stream_reader *r, const struct trace *t,
			  const struct trace_stream_info *si)
{
	r->trace = t;
	r->si = si;
	r->tid = si && !si->per_cpu ? si->id : 0;	/* a per-thread stream is its thread's */
}

uint64_t stream_reader_last_pc(const struct stream_reader *r)
{
	return r->last_pc;
}

uint64_t stream_reader_offset(const struct stream_reader *r)
{
	return r->base + r->pos;
}

uint64_t stream_reader_file_offset(const struct stream_reader *r)
{
	return r->file_pos;
}

void stream_reader_set_quiet(struct stream_reader *r, bool quiet)
{
	r->quiet = quiet;
}

const char *stream_reader_damage(const struct stream_reader *r)
{
	return r->damage;
}

void stream_reader_set_force(struct stream_reader *r, bool force)
{
	r->force = force;
}

void stream_reader_set_cut_short(struct stream_reader *r, bool cut_short)
{
	r->cut_ok = cut_short;
}

void stream_reader_set_follow(struct stream_reader *r, int (*wait)(void *ctx), void *ctx)
{
	r->follow = wait;
	r->follow_ctx = ctx;
}

void stream_reader_set_nowait(struct stream_reader *r, bool nowait)
{
	r->nowait = nowait;
}

bool stream_reader_paused(const struct stream_reader *r)
{
	return r->paused;
}

bool stream_reader_cut(const struct stream_reader *r)
{
	return r->cut;
}

const struct pt_file_header *stream_reader_header(const struct stream_reader *r)
{
	return &r->hdr;
}

void stream_reader_counts(const struct stream_reader *r, uint64_t *steps, uint64_t *counted)
{
	*steps = r->steps;
	*counted = r->counted;
}

void stream_reader_close(struct stream_reader *r)
{
	if (!r)
		return;
	if (r->fd >= 0)
		close(r->fd);
	ZSTD_freeDStream(r->zstd);
	free(r->zin);
	free(r->buf);
	free(r->damage);
	free(r->path);
	free(r->seg);
	free(r);
}

void stream_reader_set_bytes(struct stream_reader *r, bool on)
{
	r->bytes_mode = on;
}

/*
 * A CHECK record at byte p of buf: its CRC holds for the block, and (v6)
 * its block number is the next one.  1 it does, else sr_fail's result.
 */
static int sr_check_block(struct stream_reader *r, size_t p, const struct step_item *it)
{
	struct ctl_cursor c = { it->payload, it->payload + it->payload_len };
	uint64_t at = r->base + p, block;
	uint32_t want, have;

	if (ctl_get_u32(&c, &want) < 0)
		return sr_fail(r, "malformed CHECK record at byte %llu", (unsigned long long)at);
	have = (uint32_t)crc32(0, r->buf + r->pos, (uInt)(p - r->pos));
	if (have != want)
		return sr_fail(r, "checksum mismatch: corrupt data in bytes %llu-%llu",
			       (unsigned long long)(r->base + r->pos), (unsigned long long)(at - 1));
	if (ctl_get_uleb(&c, &block) < 0) {
		if (r->hdr.version >= PT_FORMAT_CHECKED)
			return sr_fail(r, "malformed CHECK record at byte %llu (no block number)",
				       (unsigned long long)at);
	} else if (block != r->blocks) {
		return sr_fail(r, "CHECK at byte %llu ends block %llu where block %llu was due: "
			       "blocks duplicated, moved or missing", (unsigned long long)at,
			       (unsigned long long)block, (unsigned long long)r->blocks);
	}
	r->blocks++;
	return 1;
}

/*
 * The first byte at or after p, before len, that does not start a short
 * step (whose byte has the top bit clear: a whole record of one byte), or
 * len: a block is most of all short steps, skipped here eight at a time.
 */
static size_t sr_skip_short_steps(const uint8_t *buf, size_t p, size_t len)
{
	const uint64_t top = 0x8080808080808080ull;

	for (; p + 8 <= len; p += 8) {
		uint64_t w;

		memcpy(&w, buf + p, 8);
		w &= top;
		if (w) {
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
			return p + (size_t)__builtin_ctzll(w) / 8;
#else
			return p + (size_t)__builtin_clzll(w) / 8;
#endif
		}
	}
	while (p < len && !(buf[p] & PT_STEP_SHORT_MASK))
		p++;
	return p;
}

/*
 * sr_scan_steps' lanes added up: four 16-bit sums of byte pairs (30,480 at
 * most each) and eight counts of sign bits (120 at most each), in wider
 * lanes first so that no sum outgrows its lane.
 */
static inline int64_t sr_lanes_sum(uint64_t lanes, uint64_t signs)
{
	uint64_t l = (lanes & 0x0000ffff0000ffffull) + ((lanes >> 16) & 0x0000ffff0000ffffull);
	uint64_t g = (signs & 0x00ff00ff00ff00ffull) + ((signs >> 8) & 0x00ff00ff00ff00ffull);

	g = (g & 0x0000ffff0000ffffull) + ((g >> 16) & 0x0000ffff0000ffffull);
	return (int64_t)((l & 0xffffffffull) + (l >> 32)) -
	       128 * (int64_t)((g & 0xffffffffull) + (g >> 32));
}

/*
 * Bytes mode's scan: from p, the steps before len that decode without a
 * check (short ones eight at a time), each counted into *steps and its
 * delta into *sum; returns where it stopped (a control record, a long step
 * that needs step_decode, or len).
 */
static size_t sr_scan_steps(const uint8_t *buf, size_t p, size_t len, uint32_t *steps,
			    int64_t *sum)
{
	const uint64_t top = 0x8080808080808080ull, evens = 0x00ff00ff00ff00ffull;
	const uint64_t ones = 0x0101010101010101ull;
	uint32_t n = *steps;	  /* in locals: a store through a pointer may be buf's */
	int64_t s = *sum;
	/*
	 * Short steps' bytes summed as step_short8_sum does, but the lanes added
	 * up only now and then: pairs' sums in four 16-bit lanes (510 at most a
	 * word), the bytes with the sign bit in eight (1 a word); 120 words
	 * fit either.
	 */
	uint64_t lanes = 0, signs = 0;
	unsigned words = 0;
	uint64_t z;
	size_t used;

#define SR_ADD_WORD(w)                                                                   \
	do {                                                                             \
		lanes += ((w) & evens) + (((w) >> 8) & evens);                            \
		signs += ((w) >> 6) & ones;                                               \
		if (++words == 120) {                                                     \
			s += sr_lanes_sum(lanes, signs);                                  \
			lanes = signs = 0;                                                \
			words = 0;                                                        \
		}                                                                         \
	} while (0)

	for (;;) {
		if (p + 8 <= len) {
			uint64_t w, hi;

			memcpy(&w, buf + p, 8);
			hi = w & top;
			if (!hi) {
				SR_ADD_WORD(w);
				n += 8;
				p += 8;
				continue;
			}
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
			{
				/* the short steps before the first long step or record */
				unsigned k = (unsigned)__builtin_ctzll(hi) / 8;

				if (k) {
					w &= (1ull << (8 * k)) - 1;
					SR_ADD_WORD(w);
					n += k;
					p += k;
				}
			}
#endif
		}
		if (p >= len)
			break;
		if (!(buf[p] & PT_STEP_SHORT_MASK)) {
			s += step_short_delta(buf[p]);
			p++;
		} else if ((used = step_long_fast(buf + p, buf + len, &z))) {
			s += pt_unzigzag(z);
			p += used;
		} else {
			break;
		}
		n++;
	}
#undef SR_ADD_WORD
	*steps = n;
	*sum = s + sr_lanes_sum(lanes, signs);
	return p;
}

/* Bytes mode: a stretch of steps of the block being verified ends (at stream offset end). */
static int sr_seg_end(struct stream_reader *r, uint64_t start, uint64_t end, uint32_t steps,
		      int64_t sum)
{
	if (!steps)
		return 0;
	if (r->nr_seg == r->seg_size) {
		size_t n = r->seg_size ? 2 * r->seg_size : 64;
		struct sr_seg *ns = reallocarray(r->seg, n, sizeof(*ns));

		if (!ns) {
			pr_err("%s: out of memory", r->path);
			r->state = -1;
			return -1;
		}
		r->seg = ns;
		r->seg_size = n;
	}
	r->seg[r->nr_seg++] = (struct sr_seg){ start, (uint32_t)(end - start), steps, sum };
	return 0;
}

/*
 * Make the next CHECK block available: find its CHECK record, compare the
 * CRC, and only then let records out, so no consumer ever sees a byte that
 * fails its check.  1: a block is ready, 0: clean end, -1: error.  In
 * bytes mode the scan also notes the block's stretches of steps.
 */
static int sr_verify_block(struct stream_reader *r)
{
	size_t p = r->pos;
	uint64_t seg_start = r->base + p;	/* bytes mode: the stretch being scanned */
	uint32_t seg_steps = 0;
	int64_t seg_sum = 0;

	r->nr_seg = r->seg_next = 0;
	r->paused = false;
	for (;;) {
		struct step_item it;
		uint64_t dummy = 0;
		size_t used;
		enum step_decode_status st = STEP_DECODE_SHORT;
		ssize_t got;

		if (r->bytes_mode) {
			p = sr_scan_steps(r->buf, p, r->len, &seg_steps, &seg_sum);
		} else {
			p = sr_skip_short_steps(r->buf, p, r->len);
			if (p < r->len &&
			    (used = step_long_fast(r->buf + p, r->buf + r->len, &dummy))) {
				p += used;
				continue;
			}
		}
		if (p < r->len)
			st = step_decode(r->buf + p, r->len - p, &dummy, &it, &used);
		if (st == STEP_DECODE_BAD)
			return sr_fail(r, "malformed record at byte %llu",
				       (unsigned long long)(r->base + p)) ? -1 : 0;
		if (st == STEP_DECODE_OK) {
			int v;

			if (it.kind == STEP_ITEM_STEP) {	/* a long one the scan left */
				seg_steps++;
				seg_sum += (int64_t)dummy;
				p += used;
				continue;
			}
			if (r->bytes_mode &&
			    sr_seg_end(r, seg_start, r->base + p, seg_steps, seg_sum) < 0)
				return -1;
			seg_start = r->base + p + used;
			seg_steps = 0;
			seg_sum = 0;
			if (it.ctl_type != PT_CTL_CHECK) {
				p += used;
				continue;
			}
			v = sr_check_block(r, p, &it);
			if (v <= 0)
				return v;
			r->blk_end = p + used;
			return 1;
		}
		/* more input needed; sr_fill moves the window, keep p relative */
		p -= r->pos;
		got = sr_fill(r);
		if (got < 0 || r->state)
			return r->state < 0 ? -1 : 0;
		if (got == 0) {
			if (r->len == 0 && r->end_seen && (!r->zstd || r->zret == 0)) {
				r->state = 1;
				return 0;
			}
			if (r->follow && !r->end_seen) {
				r->input_eof = false;	/* the file may grow: read on later */
				if (r->nowait) {
					r->paused = true;
					return 0;
				}
				if (r->follow(r->follow_ctx) > 0)
					continue;
			}
			if (r->cut_ok && !r->end_seen) {
				/* The recorder stopped writing (died, or the disk was
				 * full): what follows the last whole block is a block it
				 * did not finish. */
				r->cut = true;
				r->state = 1;
				return 0;
			}
			if (r->zstd)
				return sr_fail(r, "truncated at byte %llu (decompressed: %llu)",
					       (unsigned long long)r->file_pos,
					       (unsigned long long)(r->base + r->len)) ? -1 : 0;
			return sr_fail(r, "truncated at byte %llu",
				       (unsigned long long)(r->base + r->len)) ? -1 : 0;
		}
	}
}

/* The file header against the stream's name and what this reader knows of its version. */
static int sr_check_header(struct stream_reader *r)
{
	const struct pt_file_header *h = &r->hdr;

	r->checked_header = true;
	if (r->si && h->stream_id != r->si->id)
		return sr_fail(r, "the file header names stream %u, the file name %u", h->stream_id,
			       r->si->id);
	/* a version this reader knows has nothing but these (newer ones may add) */
	if (h->version <= PT_FORMAT_VERSION && (h->features || h->reserved0 ||
						(h->flags & ~PT_FLAG_ZSTD)))
		return sr_fail(r, "the file header has unknown bits (features 0x%llx, flags 0x%x, "
			       "reserved 0x%x): corrupt", (unsigned long long)h->features,
			       h->flags, h->reserved0);
	return 1;
}

/*
 * A SWITCH's thread: in its own stream (per-thread), and named by the tasks
 * file.  pid and tid 0 is no thread (the driver starts a ring's sub-buffer
 * with one before any task ran there): no step may follow it.
 */
static int sr_check_switch(struct stream_reader *r, uint64_t at, struct ctl_cursor *c)
{
	uint64_t pid, tid, time, seq;

	if (ctl_get_uleb(c, &pid) < 0 || ctl_get_uleb(c, &tid) < 0 || ctl_get_u64(c, &time) < 0 ||
	    ctl_get_uleb(c, &seq) < 0 || !pid != !tid || pid > UINT32_MAX || tid > UINT32_MAX)
		return sr_fail(r, "malformed SWITCH record at byte %llu", (unsigned long long)at);
	r->tid = tid;
	if (!tid && r->si && r->si->per_cpu)
		return 1;
	if (r->si && !r->si->per_cpu && tid != r->si->id)
		return sr_fail(r, "SWITCH at byte %llu to thread %llu, in the stream of thread %u",
			       (unsigned long long)at, (unsigned long long)tid, r->si->id);
	if (r->trace && trace_names_every_thread(r->trace) &&
	    !trace_names_thread(r->trace, (uint32_t)tid))
		return sr_fail(r, "SWITCH at byte %llu to thread %llu, which the tasks file never "
			       "names", (unsigned long long)at, (unsigned long long)tid);
	return 1;
}

/* END: the steps and (v6) the counted steps the stream holds. */
static int sr_check_end(struct stream_reader *r, uint64_t at, struct ctl_cursor *c)
{
	uint64_t steps, counted;

	if (ctl_get_uleb(c, &steps) < 0)
		return sr_fail(r, "malformed END record at byte %llu", (unsigned long long)at);
	if (steps != r->steps)
		return sr_fail(r, "END at byte %llu counts %llu steps, the stream holds %llu",
			       (unsigned long long)at, (unsigned long long)steps,
			       (unsigned long long)r->steps);
	if (ctl_get_uleb(c, &counted) < 0) {
		if (r->hdr.version >= PT_FORMAT_CHECKED)
			return sr_fail(r, "malformed END record at byte %llu (no counted steps)",
				       (unsigned long long)at);
	} else if (counted != r->counted) {
		return sr_fail(r, "END at byte %llu counts %llu steps in COUNT records, the stream "
			       "holds %llu", (unsigned long long)at, (unsigned long long)counted,
			       (unsigned long long)r->counted);
	}
	r->end_seen = true;
	return 1;
}

/*
 * What a record says must fit what the stream and the trace can hold:
 * fields that are there, threads that exist, counts that add up, nothing
 * after END.  1 when it does, else sr_fail's result.
 */
static int sr_check_record(struct stream_reader *r, const struct step_item *it, uint64_t at)
{
	struct ctl_cursor c;
	struct trace_async as;
	uint64_t v;
	uint8_t ring;

	if (r->end_seen && (it->kind != STEP_ITEM_CTL || it->ctl_type != PT_CTL_CHECK))
		return sr_fail(r, "a record after END, at byte %llu", (unsigned long long)at);
	if (r->si && !r->tid && (it->kind == STEP_ITEM_STEP || it->ctl_type == PT_CTL_COUNT))
		return sr_fail(r, "a %s at byte %llu that is no thread's (no SWITCH to one before it)",
			       it->kind == STEP_ITEM_STEP ? "step" : "COUNT record",
			       (unsigned long long)at);
	if (it->kind == STEP_ITEM_STEP) {
		r->steps++;
		return 1;
	}
	c = (struct ctl_cursor){ it->payload, it->payload + it->payload_len };
	switch (it->ctl_type) {
	case PT_CTL_SWITCH:
		return sr_check_switch(r, at, &c);
	case PT_CTL_TIME:
	case PT_CTL_ON:
	case PT_CTL_OFF:
		if (ctl_get_u64(&c, &v) < 0)
			break;
		return 1;
	case PT_CTL_LOST:
	case PT_CTL_GAP:
	case PT_CTL_RESTORED:
		if (ctl_get_uleb(&c, &v) < 0)
			break;
		return 1;
	case PT_CTL_COUNT:
		if (ctl_get_uleb(&c, &v) < 0)
			break;
		if (r->trace && !trace_count_only(r->trace))
			return sr_fail(r, "COUNT record at byte %llu in a trace that is not "
				       "count-only", (unsigned long long)at);
		if (r->counted + v < r->counted)
			return sr_fail(r, "COUNT record at byte %llu: more than 2^64 steps",
				       (unsigned long long)at);
		r->counted += v;
		return 1;
	case PT_CTL_RING:
		if (ctl_get_u8(&c, &ring) < 0 || ring > 1)
			break;
		return 1;
	case PT_CTL_ASYNC:
		if (trace_async_decode(it->payload, it->payload_len, &as) < 0)
			break;
		return 1;
	case PT_CTL_END:
		return sr_check_end(r, at, &c);
	default:
		return 1;	/* CHECK (verified already), FORK, EXEC, EXIT, newer types */
	}
	return sr_fail(r, "malformed %s record at byte %llu", trace_ctl_type_name(it->ctl_type),
		       (unsigned long long)at);
}

int stream_reader_ready(struct stream_reader *r)
{
	int v;

	if (r->state)
		return r->state < 0 ? -1 : 0;
	if (!r->checked_header && (v = sr_check_header(r)) <= 0)
		return v;
	if (r->pos == r->blk_end) {
		v = sr_verify_block(r);
		if (v <= 0)
			return v;
	}
	return 1;
}

int stream_reader_next(struct stream_reader *r, struct step_item *it, uint64_t *offset)
{
	uint64_t at, last_pc = r->last_pc;
	size_t used;
	int v;

	v = stream_reader_ready(r);
	if (v <= 0)
		return v;
	/* a verified block decodes cleanly: step_decode cannot fail here */
	at = r->base + r->pos;
	if (step_decode(r->buf + r->pos, r->blk_end - r->pos, &last_pc, it, &used) !=
	    STEP_DECODE_OK)
		return sr_fail(r, "malformed record at byte %llu", (unsigned long long)at) ? -1 : 0;
	v = sr_check_record(r, it, at);
	if (v <= 0)
		return v;
	r->last_pc = last_pc;
	if (offset)
		*offset = at;
	r->pos += used;
	if (it->kind == STEP_ITEM_CTL && it->ctl_type == PT_CTL_SWITCH)
		r->last_pc = 0;
	return 1;
}

/*
 * Batch decoding: up to max steps that follow in the verified block, into
 * pcs; 0 when the next record is not a step (or the block is used up, or
 * a check is due): stream_reader_next goes on from there, and checks.
 * One-byte deltas, most steps, decode without a call.
 */
size_t stream_reader_steps(struct stream_reader *r, uint64_t *pcs, size_t max)
{
	const uint8_t *b, *end;
	uint64_t pc = r->last_pc;
	size_t n = 0;

	/* steps are fine unless after END, of no thread, or before the header's check
	 * (a stream whose file header could not be read has no buffer at all) */
	if (r->state || r->end_seen || !r->checked_header || (r->si && !r->tid))
		return 0;
	b = r->buf + r->pos;
	end = r->buf + r->blk_end;
	while (n < max && b < end) {
		if (!(*b & PT_STEP_SHORT_MASK)) {
			pc += (uint64_t)((int64_t)((uint64_t)*b << 57) >> 57);
			b++;
		} else if ((*b & PT_CTL_TAG) == PT_STEP_LONG_TAG) {
			struct step_item it;
			size_t used;
			uint64_t z, last = pc;

			if ((used = step_long_fast(b, end, &z))) {
				pc += (uint64_t)pt_unzigzag(z);
			} else if (step_decode(b, (size_t)(end - b), &last, &it, &used) ==
				   STEP_DECODE_OK) {
				pc = last;
			} else {
				break;	/* stream_reader_next says what is wrong */
			}
			b += used;
		} else {
			break;
		}
		pcs[n++] = pc;
	}
	r->last_pc = pc;
	r->pos = (size_t)(b - r->buf);
	r->steps += n;
	return n;
}

/*
 * Bytes mode (trace_next_bytes): the step records that follow in the
 * verified block, up to the next control record, as they are: their
 * bytes, how many steps, the pc before and after.  Not decoded one by one:
 * the verify scan counted and summed them (short steps eight at a time).
 * 0 as stream_reader_steps.
 */
size_t stream_reader_bytes(struct stream_reader *r, struct step_bytes *sb)
{
	const uint8_t *b, *start, *end;
	uint64_t pc = r->last_pc, at = r->base + r->pos;
	uint32_t n = 0;
	int64_t sum = 0;

	if (r->state || r->end_seen || !r->checked_header || (r->si && !r->tid))
		return 0;
	start = b = r->buf + r->pos;
	end = r->buf + r->blk_end;
	while (r->seg_next < r->nr_seg && r->seg[r->seg_next].off < at)
		r->seg_next++;
	if (r->seg_next < r->nr_seg && r->seg[r->seg_next].off == at) {
		/* the verify scan found it: as it is */
		const struct sr_seg *g = &r->seg[r->seg_next++];

		n = g->steps;
		sum = g->sum;
		b += g->len;
	} else {
		size_t used;

		b = r->buf + sr_scan_steps(r->buf, r->pos, r->blk_end, &n, &sum);
		while (b < end && (*b & PT_CTL_TAG) == PT_STEP_LONG_TAG &&
		       (used = step_next_pc_slow(b, end, &pc))) {
			sum += (int64_t)(pc - r->last_pc); /* a long step the scan left */
			pc = r->last_pc;
			b += used;
			n++;
			b = r->buf +
			    sr_scan_steps(r->buf, (size_t)(b - r->buf), r->blk_end, &n, &sum);
		}
	}
	pc = r->last_pc + (uint64_t)sum;
	*sb = (struct step_bytes){ start, (size_t)(b - start), n, r->last_pc, pc };
	r->last_pc = pc;
	r->pos = (size_t)(b - r->buf);
	r->steps += n;
	return n;
}
