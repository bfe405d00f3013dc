/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Numbers and padding written into a line buffer, for the reports that
 * write a line per call (flow, the Chrome export): printf's parsing of its
 * format costs more than the rest of such a line.  Each helper writes at p
 * and returns the end; the text is the same as printf's "%llu", "%*llu" and
 * "%*s" with "".
 */
#ifndef POST_TEXTOUT_H
#define POST_TEXTOUT_H

#include <stdint.h>
#include <string.h>

/* The longest number: 20 digits of UINT64_MAX. */
#define TEXT_U64_MAX 20

/* v in decimal ("%llu"). */
static inline char *text_u64(char *p, uint64_t v)
{
	char tmp[TEXT_U64_MAX];
	int n = 0;

	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	while (n)
		*p++ = tmp[--n];
	return p;
}

/* n spaces ("%*s" of ""). */
static inline char *text_spaces(char *p, int n)
{
	if (n > 0) {
		memset(p, ' ', (size_t)n);
		p += n;
	}
	return p;
}

/* v right-aligned in width columns ("%*llu"; wider numbers whole). */
static inline char *text_u64_right(char *p, uint64_t v, int width)
{
	char tmp[TEXT_U64_MAX];
	char *e = text_u64(tmp, v);
	int n = (int)(e - tmp);

	p = text_spaces(p, width - n);
	memcpy(p, tmp, (size_t)n);
	return p + n;
}

/* s, without its NUL. */
static inline char *text_str(char *p, const char *s)
{
	size_t n = strlen(s);

	memcpy(p, s, n);
	return p + n;
}

#endif /* POST_TEXTOUT_H */
