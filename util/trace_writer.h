/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Writing a trace directory: the header (attributes), the tasks file and
 * step streams.  Used by every backend (ptrace, the driver's collector).
 */
#ifndef PT_TRACE_WRITER_H
#define PT_TRACE_WRITER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <pitrace/format.h>
#include "util/stepcodec.h"

struct trace_writer;

/* Buffer of one stream; flushed (and CHECKed) when it passes TW_BUF_LIMIT. */
#define TW_BUF_SIZE (PT_CHECK_INTERVAL + 256)
#define TW_BUF_LIMIT (PT_CHECK_INTERVAL - 16)

struct tw_stream {
	struct trace_writer *tw;
	int fd;
	bool per_cpu;
	uint32_t id;		  /* tid or cpu */
	uint64_t last_pc;
	uint64_t steps;		  /* steps in this stream */
	uint64_t counted;	  /* steps its COUNT records count (END, v6) */
	uint64_t blocks;	  /* CHECK records written (each numbers its block, v6) */
	uint64_t *total_steps;	  /* the writer's global count */
	uint64_t disk_steps;	  /* steps in the whole CHECK blocks on disk */
	uint64_t disk_bytes;	  /* file size up to the last whole block */
	size_t len;		  /* bytes in buf */
	void *zstd;		  /* ZSTD_CStream *, when compressing */
	uint8_t *zbuf;
	size_t zbuf_size;
	int error;		  /* first errno seen; later writes are dropped */
	uint8_t buf[TW_BUF_SIZE];
};

struct tw_options {
	bool compress;		  /* zstd for step streams */
	int compress_level;	  /* 0: default */
	uint64_t features;	  /* PT_FEAT_* to start with */
	bool private;		  /* it holds kernel addresses (kallsyms, the KASLR
				   * slide): for its owner only, even when shared */
	bool shared;		  /* readable by every user: directory 0755 and files
				   * 0644, less the umask; else (the default) 0700
				   * and 0600, as perf writes perf.data */
};

/*
 * Start a trace that will be called dir, under the rules of trace_dir.h:
 * dir's lock is taken (a second writer is refused), then its files go to
 * a staging directory next to it (DIR.new-XXXXXX, 0700, same filesystem)
 * until tw_commit, so that a recording which never starts leaves an
 * existing DIR untouched; an existing empty directory of ours is written
 * into directly.  Any other existing path (a link, a file, a directory that
 * is not a trace) is refused, as is a trace whose DIR.old cannot be
 * replaced.  Every file is created relative to the directory opened once,
 * with O_EXCL and O_NOFOLLOW.  Returns NULL with a message printed.
 */
struct trace_writer *tw_open(const char *dir, const struct tw_options *opts);

/*
 * The recording has really started: the trace takes its name (and its
 * mode).  A trace already there becomes DIR.old (like perf; an older
 * DIR.old is removed when trace_dir.h's rules allow, else refused).
 * Returns 0, or -1 with a message (the files stay in the staging directory).
 */
int tw_commit(struct trace_writer *tw);

/* The recording never started: remove its files (an existing DIR is kept as it was) and free. */
void tw_discard(struct trace_writer *tw);

/* Where the trace's files are now (the staging directory before tw_commit). */
const char *tw_dir(const struct trace_writer *tw);

/*
 * Every file of a trace other than the header, the tasks file and the step
 * streams goes through these two, named in format.h (PT_FILE_VDSO,
 * PT_FILE_KALLSYMS, PT_FILE_MODULES): written with the trace's file mode,
 * into the staging directory until tw_commit.  A file that cannot be
 * written whole is removed, and its failure is the trace's write error
 * (tw_error, said once).  0 or -1.
 */
int tw_write_file(struct trace_writer *tw, const char *name, const void *data, size_t len);
/*
 * The same for a copy of the file src, read to its end (a /proc file, whose
 * size stat does not know).  When src cannot be read the trace goes on
 * without name: a one-line warning, errno set, -1, tw_error untouched.
 */
int tw_copy_file(struct trace_writer *tw, const char *name, const char *src);
/* Has the trace a file of this name (written by one of these two)? */
bool tw_has_file(const struct trace_writer *tw, const char *name);

/*
 * The first write error (an errno, e.g. ENOSPC), 0 while there is none.
 * The writer says it once, in one line; from then on the files keep what
 * was written before, whole records and CHECK blocks only, and nothing is
 * added: the recording should stop and end as cut short.
 */
int tw_error(const struct trace_writer *tw);

/* Header attributes: kept in memory, written by tw_write_header/tw_close.
 * Setting a type again replaces it, except PT_ATTR_ON_SYMBOL and
 * PT_ATTR_NOTE, which accumulate. */
int tw_set_attr(struct trace_writer *tw, unsigned type, const void *data, size_t len);
int tw_set_attr_str(struct trace_writer *tw, unsigned type, const char *s);
/* PT_ATTR_STOP_TIME = now (trace_attrs_stop(), and a cut-short recording's end). */
void tw_set_stop_time(struct trace_writer *tw);
void tw_add_features(struct trace_writer *tw, uint64_t features);

/*
 * (Re)write the header file with PT_ATTR_STATE = state: atomically (a new
 * file renamed over it), or, when the filesystem is full, in place in the
 * room its padding keeps (PT_ATTR_PAD).
 */
int tw_write_header(struct trace_writer *tw, const char *state);

/* Append a task record: rec is the fixed part (starting with
 * struct pt_task_common), str an optional NUL-terminated tail. */
int tw_task(struct trace_writer *tw, unsigned type, const void *rec, size_t len,
	    const char *str);

/*
 * Every stream's buffered steps just went to disk (tw_stream_flush on each):
 * the header is rewritten with a SYNCED attribute saying so (format.h), for
 * a reader following the recording.  Not when nothing was added since the
 * last time.  0 or -1 (said).
 */
int tw_synced(struct trace_writer *tw);

/*
 * The same for per-CPU streams, merged by time: every run of every stream
 * that starts before cut_ns, and every task record of a time below it, is
 * on disk (the caller made sure, format.h), and the header is rewritten
 * with a SYNCED_TIME attribute saying so.  0 or -1 (said).
 */
int tw_synced_time(struct trace_writer *tw, uint64_t cut_ns);

/* The totals the header gets: steps on disk, lost ones, threads, processes. */
void tw_get_totals(const struct trace_writer *tw, struct pt_attr_totals *t);

/* Steps recorded so far in all streams (the global sequence number). */
uint64_t tw_total_steps(const struct trace_writer *tw);
void tw_add_lost(struct trace_writer *tw, uint64_t n);
void tw_count_task(struct trace_writer *tw, bool new_process);

/* Open a step stream file (steps.tID or steps.cID).  NULL after a message. */
struct tw_stream *tw_stream_open(struct trace_writer *tw, bool per_cpu, uint32_t id);
/* Write the END record (unless writing failed), flush and close; 0 or -1. */
int tw_stream_close(struct tw_stream *s);

int tw_stream_flush(struct tw_stream *s);

/* Append one step (the hot path). */
static inline void tw_step(struct tw_stream *s, uint64_t pc)
{
	if (s->len > TW_BUF_LIMIT)
		tw_stream_flush(s);
	s->len += pt_step_put(s->buf + s->len, (int64_t)(pc - s->last_pc));
	s->last_pc = pc;
	s->steps++;
	(*s->total_steps)++;
}

/*
 * Append whole step-stream records made elsewhere (the driver's ring buffers
 * hold them ready-made).  They are decoded as they go in, so the stream's and
 * the trace's step counts stay right and CHECK records fall on record
 * boundaries; CHECK and END records in data are dropped, since the writer
 * owns those.  *lost, when not NULL, is increased by the LOST records seen
 * (the caller decides whether they go into the totals).  Returns 0, or -1
 * with errno EINVAL when data holds a malformed or truncated record;
 * everything before it is kept.
 */
int tw_raw(struct tw_stream *s, const uint8_t *data, size_t len, uint64_t *lost);

/* Append a control record with a prepared payload. */
void tw_ctl(struct tw_stream *s, unsigned type, const struct ctl_payload *p);
/* Convenience forms of the common control records. */
void tw_switch(struct tw_stream *s, uint32_t pid, uint32_t tid, uint64_t time_ns, uint64_t seq);
void tw_time(struct tw_stream *s, uint64_t time_ns, uint64_t seq);
void tw_async(struct tw_stream *s, unsigned kind, uint64_t number);
/* An ATOMIC record: a load-reserve sequence at pc ran as one unit (PT_ATOMIC_*). */
void tw_atomic(struct tw_stream *s, unsigned kind, uint64_t pc, uint64_t steps);
/* A NATIVE record (format.h), then the GAP of reason NATIVE that goes with it. */
void tw_native(struct tw_stream *s, unsigned kind, uint64_t pc, uint64_t end, unsigned flags,
	       uint64_t count);
void tw_gap(struct tw_stream *s, unsigned reason);
/* A RESTORED record: the next step is one the step trap skipped (PT_RESTORED_*). */
void tw_restored(struct tw_stream *s, unsigned reason);
void tw_lost(struct tw_stream *s, uint64_t count);
void tw_onoff(struct tw_stream *s, bool on, uint64_t time_ns);
void tw_ring(struct tw_stream *s, unsigned ring);

/*
 * For a guardian whose recorder died: rewrite the header of the trace in
 * dir as state (PT_STATE_INTERRUPTED), adding note and the stop time, and
 * totals when not NULL (else the header's own are kept).  0 or -1 (printed).
 */
int tw_mark_cut_short(const char *dir, const char *state, const char *note,
		      const struct pt_attr_totals *totals);

/* Remove a staging directory (DIR.new-XXXXXX) a recorder that died before
 * the recording started left behind; 0 or -1 (errno set). */
int tw_remove_staging(const char *staging);

/* What a write error errno means here, for a message: for EFBIG, the file size limit. */
const char *tw_limit_note(int err, char *buf, size_t size);

/*
 * Finish: close the tasks file, commit (if not yet), write the header with
 * state (PT_STATE_INTERRUPTED when writing failed) and its totals (steps
 * that did not reach the disk count as lost), free.
 */
int tw_close(struct trace_writer *tw, const char *state);

/* CLOCK_MONOTONIC / CLOCK_REALTIME now, in ns. */
uint64_t tw_now_ns(void);
uint64_t tw_realtime_ns(void);

#endif /* PT_TRACE_WRITER_H */
