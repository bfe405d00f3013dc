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

/* "00" to "99": two digits a division. */
static const char text_digits2[201] =
	"00010203040506070809101112131415161718192021222324252627282930313233343536373839"
	"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
	"8081828384858687888990919293949596979899";

/* v's digits, ending at e: where they start. */
static inline char *text_u64_back(char *e, uint64_t v)
{
	while (v >= 100) {
		uint64_t q = v / 100;
		unsigned r = (unsigned)(v - q * 100);

		e -= 2;
		e[0] = text_digits2[2 * r];
		e[1] = text_digits2[2 * r + 1];
		v = q;
	}
	if (v >= 10) {
		e -= 2;
		e[0] = text_digits2[2 * v];
		e[1] = text_digits2[2 * v + 1];
	} else {
		*--e = (char)('0' + v);
	}
	return e;
}

/* v in decimal ("%llu"). */
static inline char *text_u64(char *p, uint64_t v)
{
	char tmp[TEXT_U64_MAX], *b = text_u64_back(tmp + TEXT_U64_MAX, v);

	while (b < tmp + TEXT_U64_MAX)	/* a few bytes: no call to memcpy */
		*p++ = *b++;
	return p;
}

/* n spaces ("%*s" of ""). */
static inline char *text_spaces(char *p, int n)
{
	if (n > 32) {
		memset(p, ' ', (size_t)n);
		return p + n;
	}
	while (n-- > 0)		/* a few: no call to memset */
		*p++ = ' ';
	return p;
}

/* The same, by stores of 8: p has room for n + 7 bytes (what follows overwrites them). */
static inline char *text_spaces_over(char *p, int n)
{
	for (int k = 0; k < n; k += 8)
		memcpy(p + k, "        ", 8);
	return p + (n > 0 ? n : 0);
}

/* How many digits v has in decimal. */
static inline int text_u64_digits(uint64_t v)
{
	static const uint64_t pow10[TEXT_U64_MAX] = {
		1ull, 10ull, 100ull, 1000ull, 10000ull, 100000ull, 1000000ull, 10000000ull,
		100000000ull, 1000000000ull, 10000000000ull, 100000000000ull,
		1000000000000ull, 10000000000000ull, 100000000000000ull,
		1000000000000000ull, 10000000000000000ull, 100000000000000000ull,
		1000000000000000000ull, 10000000000000000000ull,
	};
	int n = 1;

	while (n < TEXT_U64_MAX && v >= pow10[n])
		n++;
	return n;
}

/* v right-aligned in width columns ("%*llu"; wider numbers whole). */
static inline char *text_u64_right(char *p, uint64_t v, int width)
{
	int n = text_u64_digits(v);

	p = text_spaces(p, width - n) + n;
	text_u64_back(p, v);
	return p;
}

/* The same, padded by text_spaces_over (p has room for width + 7 bytes more). */
static inline char *text_u64_right_over(char *p, uint64_t v, int width)
{
	int n = text_u64_digits(v);

	p = text_spaces_over(p, width - n) + n;
	text_u64_back(p, v);
	return p;
}

/* s, without its NUL. */
static inline char *text_str(char *p, const char *s)
{
	size_t n = strlen(s);

	memcpy(p, s, n);
	return p + n;
}

#endif /* POST_TEXTOUT_H */
