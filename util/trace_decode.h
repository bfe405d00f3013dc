/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Decoding a trace's step streams ahead of the merge, on worker threads
 * (trace_decode.c).  Each stream is decoded in order, a chunk at a time,
 * by one thread at a time, into a short queue of chunks; the merge
 * (trace_iter.c) takes them in order.  The merge sees exactly the records
 * it would read itself, so its output does not depend on the number of
 * threads; memory is a few chunks per stream, whatever the trace's length.
 */
#ifndef PT_TRACE_DECODE_H
#define PT_TRACE_DECODE_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/trace_reader.h"

#define DEC_STEPS UINT32_MAX	  /* dec_item.ctl_type of a run of steps, decoded */
#define DEC_BYTES (UINT32_MAX - 1) /* ... of a run of steps as encoded (bytes mode) */
#define DEC_PAUSED 2		  /* dec_chunk.status: none, nothing more on disk yet */

struct dec_item {
	uint32_t ctl_type;	  /* enum pt_ctl_type, DEC_STEPS or DEC_BYTES */
	uint32_t n;		  /* DEC_STEPS, DEC_BYTES: steps; else payload bytes */
	uint32_t off;		  /* DEC_STEPS: first in pcs; DEC_BYTES: first in bytes;
				   * else in payload */
	uint32_t len;		  /* DEC_BYTES: bytes */
	uint64_t base_pc, end_pc; /* DEC_BYTES: the pc before the first step, the last's */
	uint32_t ev0, nr_evs;	  /* DEC_BYTES: its records between its steps (dec_chunk.evs) */
};

/*
 * Bytes mode: an ASYNC record of an interrupt, irq or exception (information
 * only: the steps go on as they were) between a run's steps, which go on
 * in the same run.
 */
struct dec_event {
	uint32_t at;		  /* before the run's step at, */
	uint32_t boff;		  /* whose record is at this byte of the run, */
	uint64_t pc;		  /* after a step at pc */
	uint32_t off, len;	  /* its payload */
};

struct dec_chunk {
	uint64_t *pcs;
	struct dec_item *items;
	uint8_t *payload;
	size_t nr_pcs, nr_items, payload_len, payload_cap;
	uint8_t *bytes; /* bytes mode: the steps' records (STEP_BYTES_SLACK more) */
	size_t nr_bytes, bytes_cap;
	struct dec_event *evs;	  /* bytes mode: records inside runs of steps */
	size_t nr_evs, evs_cap;
	int status;		  /* 1 more chunks follow, 0 the stream ended, -1 failed,
				   * DEC_PAUSED nothing more yet (decoder_set_poll) */
	uint64_t offset;	  /* bytes of the stream's file read up to the chunk's end
				   * (a compressed file's compressed bytes: for progress) */
};

struct trace_decoder;
/*
 * Streams r[0..n) (the decoder owns them); threads 1: all on the caller's
 * thread.  bytes: runs of steps as DEC_BYTES items (not decoded), else
 * as DEC_STEPS.
 */
struct trace_decoder *decoder_new(struct stream_reader **r, size_t n, unsigned threads,
				  bool bytes);
/*
 * A recording followed: at the end of what is on disk a stream's chunk is
 * an empty one of status DEC_PAUSED at once, instead of waiting for more;
 * the merge asks again when it will.  (Off: streams wait as they did.)
 */
void decoder_set_poll(struct trace_decoder *d, bool poll);
/* One more stream, the last; only with threads 1.  0, or -1 after an error (said). */
int decoder_add(struct trace_decoder *d, struct stream_reader *r);
/* The stream's next chunk, waiting for it; the one before is given back. */
const struct dec_chunk *decoder_next(struct trace_decoder *d, size_t stream);
/*
 * Decode every stream as far ahead as the queue goes (or to its end),
 * waiting for the threads: what the streams then hold does not depend on
 * the number of threads or their timing (the damage found, say).
 */
void decoder_settle(struct trace_decoder *d);
void decoder_free(struct trace_decoder *d);

/* Threads for decoding by default: one per online CPU. */
unsigned decoder_default_threads(void);
#endif /* PT_TRACE_DECODE_H */
