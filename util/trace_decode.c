// SPDX-License-Identifier: GPL-2.0
/* Decoding step streams ahead of the merge, on worker threads (trace_decode.h). */
#define PR_FMT "decode"
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/log.h"
#include "util/stepcodec.h"
#include "util/trace_decode.h"

#define CHUNK_PCS 16384		  /* steps a chunk holds */
#define CHUNK_BYTES (128u << 10)  /* bytes mode: step bytes a chunk holds (about) */
#define CHUNK_ITEMS 1024	  /* runs and control records a chunk holds */
#define QUEUE 4			  /* chunks decoded ahead per stream */

struct dec_stream {
	struct stream_reader *r;
	struct dec_chunk chunk[QUEUE + 1]; /* a ring: QUEUE ready, one in the merge's hands */
	unsigned head, ready;	  /* first ready chunk, how many are */
	bool held;		  /* the merge holds chunk[(head + QUEUE) % (QUEUE + 1)] */
	bool busy;		  /* a thread is decoding its next chunk */
	bool ended;		  /* its last chunk is decoded */
	bool wanted;		  /* the merge waits for it */
};

struct trace_decoder {
	struct dec_stream **s;	  /* each where it stays: the merge holds their chunks */
	size_t n;
	unsigned nr_threads;
	pthread_t *threads;
	pthread_mutex_t lock;
	pthread_cond_t work, ready;
	bool stop;
	bool bytes;		  /* bytes mode */
	bool poll;		  /* a recording followed: never wait at the end of what is there */
};

unsigned decoder_default_threads(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	return n > 0 ? (unsigned)n : 1;
}

static int chunk_payload(struct dec_chunk *c, const uint8_t *p, size_t len)
{
	if (!len)
		return 0;	/* a record without payload: payload may still be NULL */
	if (c->payload_len + len > c->payload_cap) {
		size_t cap = c->payload_cap ? c->payload_cap : 4096;
		uint8_t *np;

		while (cap < c->payload_len + len)
			cap *= 2;
		np = realloc(c->payload, cap);
		if (!np)
			return -1;
		c->payload = np;
		c->payload_cap = cap;
	}
	memcpy(c->payload + c->payload_len, p, len);
	c->payload_len += len;
	return 0;
}

/* Room for len more step bytes (and the slack after them) in c; -1 out of memory. */
static int chunk_bytes_room(struct dec_chunk *c, size_t len)
{
	size_t need = c->nr_bytes + len + STEP_BYTES_SLACK;

	if (need > c->bytes_cap) {
		size_t cap = c->bytes_cap ? c->bytes_cap : CHUNK_BYTES + 4096;
		uint8_t *nb;

		while (cap < need)
			cap *= 2;
		nb = realloc(c->bytes, cap);
		if (!nb)
			return -1;
		c->bytes = nb;
		c->bytes_cap = cap;
	}
	return 0;
}

/* Step bytes into c: the last item grows when it is a run of them. */
static int chunk_add_bytes(struct dec_chunk *c, const struct step_bytes *sb)
{
	struct dec_item *last = c->nr_items ? &c->items[c->nr_items - 1] : NULL;

	if (chunk_bytes_room(c, sb->len) < 0)
		return -1;
	memcpy(c->bytes + c->nr_bytes, sb->b, sb->len);
	memset(c->bytes + c->nr_bytes + sb->len, 0, STEP_BYTES_SLACK);
	if (last && last->ctl_type == DEC_BYTES) {
		last->n += (uint32_t)sb->steps;
		last->len += (uint32_t)sb->len;
		last->end_pc = sb->end_pc;
	} else {
		c->items[c->nr_items++] = (struct dec_item){
			.ctl_type = DEC_BYTES, .n = (uint32_t)sb->steps,
			.off = (uint32_t)c->nr_bytes, .len = (uint32_t)sb->len,
			.base_pc = sb->base_pc, .end_pc = sb->end_pc };
	}
	c->nr_bytes += sb->len;
	return 0;
}

/*
 * Bytes mode: an ASYNC record of information only (si) right after a run
 * of steps stays inside it, the steps after it going on in the same run:
 * 1 when it did, 0 when it is an item of its own, -1 out of memory.
 */
static int chunk_inside_run(struct dec_chunk *c, const struct step_item *si, uint64_t pc)
{
	struct dec_item *last = c->nr_items ? &c->items[c->nr_items - 1] : NULL;
	struct trace_async as;

	if (!last || last->ctl_type != DEC_BYTES || si->ctl_type != PT_CTL_ASYNC ||
	    trace_async_decode(si->payload, si->payload_len, &as) < 0 || !pt_async_is_info(as.kind))
		return 0;
	if (c->nr_evs == c->evs_cap) {
		size_t cap = c->evs_cap ? 2 * c->evs_cap : 64;
		struct dec_event *ne = realloc(c->evs, cap * sizeof(*ne));

		if (!ne)
			return -1;
		c->evs = ne;
		c->evs_cap = cap;
	}
	if (!last->nr_evs)
		last->ev0 = (uint32_t)c->nr_evs;
	last->nr_evs++;
	c->evs[c->nr_evs++] = (struct dec_event){ last->n, last->len, pc, (uint32_t)c->payload_len,
						  (uint32_t)si->payload_len };
	return chunk_payload(c, si->payload, si->payload_len) < 0 ? -1 : 1;
}

/* Decoded steps into c: the last item grows when it is a run of them. */
static void chunk_add_pcs(struct dec_chunk *c, size_t got)
{
	struct dec_item *last = c->nr_items ? &c->items[c->nr_items - 1] : NULL;

	if (last && last->ctl_type == DEC_STEPS)
		last->n += (uint32_t)got;
	else
		c->items[c->nr_items++] = (struct dec_item){
			.ctl_type = DEC_STEPS, .n = (uint32_t)got, .off = (uint32_t)c->nr_pcs };
	c->nr_pcs += got;
}

/*
 * The steps that come next into c, decoded or (bytes) as encoded: 1 some
 * did, 0 the next record is no step (or a check is due), -1 out of memory.
 * Decoded, the first step of a block comes by stream_reader_next (it
 * checks first), not here; as encoded, stream_reader_ready checks first.
 */
static int chunk_take_steps(struct stream_reader *r, struct dec_chunk *c, bool bytes)
{
	struct step_bytes sb;
	size_t got;

	if (!bytes) {
		got = stream_reader_steps(r, c->pcs + c->nr_pcs, CHUNK_PCS - c->nr_pcs);
		if (got)
			chunk_add_pcs(c, got);
		return got ? 1 : 0;
	}
	if (stream_reader_ready(r) <= 0 || !stream_reader_bytes(r, &sb))
		return 0;	/* stream_reader_next says what is wrong */
	return chunk_add_bytes(c, &sb) < 0 ? -1 : 1;
}

/* One step stream_reader_next returned (the pc before it: before) into c. */
static int chunk_add_step(struct dec_chunk *c, const struct step_item *si, uint64_t before,
			  bool bytes)
{
	uint8_t one[PT_STEP_MAX_BYTES];
	struct step_bytes sb;

	if (!bytes) {
		c->pcs[c->nr_pcs] = si->pc;
		chunk_add_pcs(c, 1);
		return 0;
	}
	/* encoded anew from its pc: its delta's one encoding */
	sb = (struct step_bytes){ one, pt_step_put(one, (int64_t)(si->pc - before)), 1, before,
				  si->pc };
	return chunk_add_bytes(c, &sb);
}

/*
 * Decode the stream's next chunk into c (no lock held: one thread per
 * stream); bytes mode: runs of steps as they are encoded.
 */
static void decode_chunk(struct stream_reader *r, struct dec_chunk *c, bool bytes, bool poll)
{
	c->nr_pcs = c->nr_items = c->payload_len = c->nr_bytes = c->nr_evs = 0;
	c->status = 1;
	while (c->nr_items < CHUNK_ITEMS - 1 &&
	       (bytes ? c->nr_bytes < CHUNK_BYTES : c->nr_pcs < CHUNK_PCS)) {
		uint64_t before = stream_reader_last_pc(r);
		struct step_item si;
		int v;

		/* a recording followed: what is decoded goes on before waiting for more */
		stream_reader_set_nowait(r, poll || c->nr_items > 0);
		v = chunk_take_steps(r, c, bytes);
		if (v < 0)
			goto oom;
		if (v)
			continue;
		v = stream_reader_next(r, &si, NULL);
		if (v == 0 && stream_reader_paused(r)) {
			if (!c->nr_items)
				c->status = DEC_PAUSED;	/* polled: the merge decides */
			break;	/* not the end: the next chunk waits */
		}
		if (v <= 0) {
			c->status = v;
			break;
		}
		if (si.kind == STEP_ITEM_STEP) {
			if (chunk_add_step(c, &si, before, bytes) < 0)
				goto oom;
			continue;
		}
		if (si.ctl_type == PT_CTL_CHECK)
			continue;	/* verified; nothing for the merge: the steps go on */
		if (bytes) {
			v = chunk_inside_run(c, &si, before);
			if (v < 0)
				goto oom;
			if (v)
				continue;
		}
		c->items[c->nr_items++] = (struct dec_item){
			.ctl_type = si.ctl_type, .n = (uint32_t)si.payload_len,
			.off = (uint32_t)c->payload_len };
		if (chunk_payload(c, si.payload, si.payload_len) < 0)
			goto oom;
	}
	c->offset = stream_reader_file_offset(r);
	return;
oom:
	pr_err("out of memory decoding a stream");
	c->status = -1;
	c->offset = stream_reader_file_offset(r);
}

/* With the lock held: decode stream i's next chunk (the lock is dropped meanwhile). */
static void fill(struct trace_decoder *d, struct dec_stream *s)
{
	struct dec_chunk *c = &s->chunk[(s->head + s->ready) % (QUEUE + 1)];

	s->busy = true;
	pthread_mutex_unlock(&d->lock);
	decode_chunk(s->r, c, d->bytes, d->poll);
	pthread_mutex_lock(&d->lock);
	s->busy = false;
	s->ready++;
	if (c->status <= 0)
		s->ended = true;
	pthread_cond_broadcast(&d->ready);
}

static bool fillable(const struct dec_stream *s)
{
	return !s->busy && !s->ended && s->ready < QUEUE;
}

/* A stream for a worker: the one the merge waits for, else the least ahead. */
static struct dec_stream *pick(struct trace_decoder *d)
{
	struct dec_stream *best = NULL;

	for (size_t i = 0; i < d->n; i++) {
		struct dec_stream *s = d->s[i];

		if (!fillable(s))
			continue;
		if (s->wanted)
			return s;
		if (!best || s->ready < best->ready)
			best = s;
	}
	return best;
}

static void *worker(void *arg)
{
	struct trace_decoder *d = arg;

	pthread_mutex_lock(&d->lock);
	while (!d->stop) {
		struct dec_stream *s = pick(d);

		if (!s) {
			pthread_cond_wait(&d->work, &d->lock);
			continue;
		}
		fill(d, s);
	}
	pthread_mutex_unlock(&d->lock);
	return NULL;
}

/* Stream i reads r: its chunks' room; -1 out of memory. */
static int stream_init(struct trace_decoder *d, size_t i, struct stream_reader *r)
{
	d->s[i] = calloc(1, sizeof(*d->s[i]));
	if (!d->s[i])
		return -1;
	d->s[i]->r = r;
	stream_reader_set_bytes(r, d->bytes);
	for (int k = 0; k <= QUEUE; k++) {
		struct dec_chunk *c = &d->s[i]->chunk[k];

		c->pcs = malloc(CHUNK_PCS * sizeof(*c->pcs));
		c->items = malloc(CHUNK_ITEMS * sizeof(*c->items));
		if (!c->pcs || !c->items)
			return -1;
	}
	return 0;
}

struct trace_decoder *decoder_new(struct stream_reader **r, size_t n, unsigned threads,
				  bool bytes)
{
	struct trace_decoder *d = calloc(1, sizeof(*d));

	if (!d)
		return NULL;
	d->bytes = bytes;
	pthread_mutex_init(&d->lock, NULL);
	pthread_cond_init(&d->work, NULL);
	pthread_cond_init(&d->ready, NULL);
	d->s = calloc(n ? n : 1, sizeof(*d->s));
	if (!d->s)
		goto err;
	d->n = n;
	for (size_t i = 0; i < n; i++)
		if (stream_init(d, i, r[i]) < 0)
			goto err;
	/* the merge's thread decodes too: threads - 1 workers, none for one stream */
	if (threads > 1 && n > 0) {
		d->threads = calloc(threads - 1, sizeof(*d->threads));
		if (!d->threads)
			goto err;
		for (unsigned k = 0; k + 1 < threads; k++) {
			if (pthread_create(&d->threads[k], NULL, worker, d)) {
				pr_dbg("cannot start a decoding thread: decoding with %u", k + 1);
				break;
			}
			d->nr_threads++;
		}
	}
	return d;
err:
	pr_err("out of memory setting up the stream decoders");
	decoder_free(d);
	return NULL;
}

void decoder_set_poll(struct trace_decoder *d, bool poll)
{
	pthread_mutex_lock(&d->lock);
	d->poll = poll;
	pthread_mutex_unlock(&d->lock);
}

int decoder_add(struct trace_decoder *d, struct stream_reader *r)
{
	struct dec_stream **n;

	if (d->nr_threads) {
		pr_err("internal error: a stream added while threads decode ahead");
		return -1;
	}
	n = realloc(d->s, (d->n + 1) * sizeof(*n));
	if (!n) {
		stream_reader_close(r);
		goto err;
	}
	d->s = n;
	d->s[d->n++] = NULL;	/* (decoder_free frees what stream_init got) */
	if (stream_init(d, d->n - 1, r) < 0) {
		if (!d->s[d->n - 1])
			stream_reader_close(r);	/* else decoder_free closes it */
		goto err;
	}
	return 0;
err:
	pr_err("out of memory setting up a stream's decoder");
	return -1;
}

const struct dec_chunk *decoder_next(struct trace_decoder *d, size_t i)
{
	struct dec_stream *s = d->s[i];
	const struct dec_chunk *c;

	pthread_mutex_lock(&d->lock);
	if (s->held) {
		s->held = false;
		pthread_cond_signal(&d->work);	/* room for one more */
	}
	while (!s->ready) {
		if (fillable(s)) {
			fill(d, s);	/* nobody is on it: the merge's thread decodes */
			continue;
		}
		s->wanted = true;
		pthread_cond_wait(&d->ready, &d->lock);
	}
	s->wanted = false;
	c = &s->chunk[s->head];
	s->head = (s->head + 1) % (QUEUE + 1);
	s->ready--;
	s->held = true;
	if (d->nr_threads)
		pthread_cond_signal(&d->work);
	pthread_mutex_unlock(&d->lock);
	return c;
}

void decoder_settle(struct trace_decoder *d)
{
	pthread_mutex_lock(&d->lock);
	for (;;) {
		struct dec_stream *todo = NULL;
		bool busy = false;

		for (size_t i = 0; i < d->n && !todo; i++) {
			busy |= d->s[i]->busy;
			if (fillable(d->s[i]))
				todo = d->s[i];
		}
		if (todo)
			fill(d, todo);
		else if (busy)
			pthread_cond_wait(&d->ready, &d->lock);
		else
			break;
	}
	pthread_mutex_unlock(&d->lock);
}

void decoder_free(struct trace_decoder *d)
{
	if (!d)
		return;
	pthread_mutex_lock(&d->lock);
	d->stop = true;
	pthread_cond_broadcast(&d->work);
	pthread_mutex_unlock(&d->lock);
	for (unsigned k = 0; k < d->nr_threads; k++)
		pthread_join(d->threads[k], NULL);
	for (size_t i = 0; i < d->n && d->s; i++) {
		struct dec_stream *s = d->s[i];

		if (!s)
			continue;
		stream_reader_close(s->r);
		for (int k = 0; k <= QUEUE; k++) {
			free(s->chunk[k].pcs);
			free(s->chunk[k].items);
			free(s->chunk[k].payload);
			free(s->chunk[k].bytes);
			free(s->chunk[k].evs);
		}
		free(s);
	}
	free(d->s);
	free(d->threads);
	pthread_cond_destroy(&d->work);
	pthread_cond_destroy(&d->ready);
	pthread_mutex_destroy(&d->lock);
	free(d);
}
