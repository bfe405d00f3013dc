// SPDX-License-Identifier: GPL-2.0
/* Step-stream record decoding and control payloads (see stepcodec.h). */
#include <stdlib.h>
#include <string.h>

#include "util/stepcodec.h"

int uleb_get(const uint8_t *p, const uint8_t *end, uint64_t *v)
{
	uint64_t r = 0;
	int shift = 0, n = 0;

	for (;;) {
		uint8_t b;

		if (p + n >= end)
			return 0;
		b = p[n++];
		if (shift == 63 && (b & 0x7e))
			return -1;	/* more than 64 bits */
		r |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			break;
		shift += 7;
		if (shift > 63)
			return -1;
	}
	*v = r;
	return n;
}

void ctl_put_uleb(struct ctl_payload *p, uint64_t v)
{
	p->len += pt_uleb_put(p->buf + p->len, v);
}

void ctl_put_u64(struct ctl_payload *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p->buf[p->len++] = (uint8_t)(v >> (8 * i));
}

void ctl_put_u32(struct ctl_payload *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p->buf[p->len++] = (uint8_t)(v >> (8 * i));
}

void ctl_put_u8(struct ctl_payload *p, uint8_t v)
{
	p->buf[p->len++] = v;
}

int ctl_get_uleb(struct ctl_cursor *c, uint64_t *v)
{
	int n = uleb_get(c->p, c->end, v);

	if (n <= 0)
		return -1;
	c->p += n;
	return 0;
}

static int ctl_get_le(struct ctl_cursor *c, uint64_t *v, int bytes)
{
	uint64_t r = 0;

	if (c->end - c->p < bytes)
		return -1;
	for (int i = 0; i < bytes; i++)
		r |= (uint64_t)c->p[i] << (8 * i);
	c->p += bytes;
	*v = r;
	return 0;
}

int ctl_get_u64(struct ctl_cursor *c, uint64_t *v)
{
	return ctl_get_le(c, v, 8);
}

int ctl_get_u32(struct ctl_cursor *c, uint32_t *v)
{
	uint64_t t;

	if (ctl_get_le(c, &t, 4))
		return -1;
	*v = (uint32_t)t;
	return 0;
}

int ctl_get_u8(struct ctl_cursor *c, uint8_t *v)
{
	uint64_t t;

	if (ctl_get_le(c, &t, 1))
		return -1;
	*v = (uint8_t)t;
	return 0;
}

enum step_decode_status step_decode(const uint8_t *buf, size_t len, uint64_t *last_pc,
				    struct step_item *it, size_t *used)
{
	uint8_t b;
	uint64_t v;
	int n;

	if (!len)
		return STEP_DECODE_SHORT;
	b = buf[0];
	if (!(b & PT_STEP_SHORT_MASK)) {
		int64_t d = (int64_t)((uint64_t)b << 57) >> 57;

		*last_pc += (uint64_t)d;
		it->kind = STEP_ITEM_STEP;
		it->pc = *last_pc;
		*used = 1;
		return STEP_DECODE_OK;
	}
	if ((b & PT_CTL_TAG) == PT_STEP_LONG_TAG) {
		uint64_t z = b & 0x1f;

		*used = 1;
		if (b & PT_STEP_LONG_CONT) {
			n = uleb_get(buf + 1, buf + len, &v);
			if (n == 0)
				return STEP_DECODE_SHORT;
			if (n < 0 || v >> 59)
				return STEP_DECODE_BAD;
			z |= v << 5;
			*used += n;
		}
		*last_pc += (uint64_t)pt_unzigzag(z);
		it->kind = STEP_ITEM_STEP;
		it->pc = *last_pc;
		return STEP_DECODE_OK;
	}
	/* control record */
	n = uleb_get(buf + 1, buf + len, &v);
	if (n == 0)
		return STEP_DECODE_SHORT;
	if (n < 0 || v > (1u << 20))
		return STEP_DECODE_BAD;
	if (len - 1 - n < v)
		return STEP_DECODE_SHORT;
	it->kind = STEP_ITEM_CTL;
	it->ctl_type = b & 0x3f;
	it->payload = buf + 1 + n;
	it->payload_len = v;
	*used = 1 + n + v;
	return STEP_DECODE_OK;
}

size_t step_next_pc_slow(const uint8_t *b, const uint8_t *end, uint64_t *pc)
{
	struct step_item it;
	uint64_t last = *pc;
	size_t used;

	if (step_decode(b, (size_t)(end - b), &last, &it, &used) != STEP_DECODE_OK ||
	    it.kind != STEP_ITEM_STEP)
		return 0;
	*pc = last;
	return used;
}

size_t step_bytes_walk(const uint8_t *b, size_t len, size_t max, uint64_t *pc, size_t *steps)
{
	const uint8_t *p = b, *end = b + len;
	size_t n = 0, used;

	while (n < max && (used = step_next_pc(p, end, pc))) {
		p += used;
		n++;
	}
	*steps = n;
	return (size_t)(p - b);
}

void step_bytes_split(const struct step_bytes *sb, size_t k, struct step_bytes *head,
		      struct step_bytes *tail)
{
	uint64_t pc = sb->base_pc;
	size_t n, used = step_bytes_walk(sb->b, sb->len, k, &pc, &n);
	struct step_bytes h = { sb->b, used, n, sb->base_pc, n ? pc : sb->base_pc };
	struct step_bytes t = { sb->b + used, sb->len - used, sb->steps - n, pc, sb->end_pc };

	if (!t.steps)
		t.end_pc = pc;
	*head = h;
	*tail = t;
}

size_t step_bytes_encode(const uint64_t *pcs, size_t n, uint64_t base, uint8_t *out)
{
	size_t len = 0;

	for (size_t k = 0; k < n; k++) {
		len += pt_step_put(out + len, (int64_t)(pcs[k] - base));
		base = pcs[k];
	}
	return len;
}

uint8_t *step_bytes_of_pcs(const uint64_t *pcs, size_t n, struct step_bytes *sb)
{
	uint8_t *buf = malloc(n * PT_STEP_MAX_BYTES + STEP_BYTES_SLACK);

	if (!buf)
		return NULL;
	*sb = (struct step_bytes){ buf, step_bytes_encode(pcs, n, pcs[0], buf), n, pcs[0],
				   pcs[n - 1] };
	memset(buf + sb->len, 0, STEP_BYTES_SLACK);
	return buf;
}
