// SPDX-License-Identifier: GPL-2.0
#include "sanitize.h"

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

static bool cont(unsigned char c, unsigned char lo, unsigned char hi)
{
	return c >= lo && c <= hi;
}

/* Bytes after the lead @c, and the range the first of them must lie in (RFC 3629). */
static size_t utf8_shape(unsigned char c, unsigned char *lo, unsigned char *hi)
{
	*lo = 0x80;
	*hi = 0xbf;
	if (c >= 0xc2 && c <= 0xdf)
		return 1;
	if (c == 0xe0)
		*lo = 0xa0; /* shorter forms are overlong */
	if (c == 0xed)
		*hi = 0x9f; /* 0xa0.. would be a UTF-16 surrogate */
	if (c >= 0xe0 && c <= 0xef)
		return 2;
	if (c == 0xf0)
		*lo = 0x90;
	if (c == 0xf4)
		*hi = 0x8f; /* beyond U+10FFFF */
	if (c >= 0xf0 && c <= 0xf4)
		return 3;
	return 0; /* continuation byte, 0xc0, 0xc1, 0xf5.. */
}

size_t sanitize_char_len(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	unsigned char lo, hi;
	size_t more;

	if (p[0] < 0x80)
		return p[0] >= 0x20 && p[0] != 0x7f;
	more = utf8_shape(p[0], &lo, &hi);
	if (!more || !cont(p[1], lo, hi))
		return 0;
	/* U+0080..U+009F: the C1 controls, CSI and OSC among them. */
	if (p[0] == 0xc2 && p[1] <= 0x9f)
		return 0;
	for (size_t i = 2; i <= more; i++)
		if (!cont(p[i], 0x80, 0xbf))
			return 0;
	return more + 1;
}

/* Bytes one replaced character takes: a whole C1 encoding, else one byte. */
static size_t bad_len(const unsigned char *p)
{
	return p[0] == 0xc2 && cont(p[1], 0x80, 0x9f) ? 2 : 1;
}

/* Does the word hold a byte outside printable ASCII, 0x20..0x7e? */
static bool word_has_unprintable(uint64_t x)
{
	const uint64_t ones = 0x0101010101010101ULL, highs = 0x8080808080808080ULL;
	/* Some byte below 0x20 (exact for "any byte"; borrows only follow one). */
	uint64_t low = (x - 0x20 * ones) & ~x & highs;
	/* Some byte of 0x7f or more: 0x7f + 1 sets the high bit, 0x80.. have it. */
	uint64_t high = ((x + ones) | x) & highs;

	return low | high;
}

/* One character at @in that is not printable ASCII: kept whole or replaced. */
static size_t copy_other(const char **in, char *out, size_t n, size_t size)
{
	size_t len = sanitize_char_len(*in);

	if (!len) {
		if (n + 1 >= size)
			return SIZE_MAX;
		out[n] = '?';
		*in += bad_len((const unsigned char *)*in);
		return 1;
	}
	if (n + len >= size)
		return SIZE_MAX;
	memcpy(out + n, *in, len);
	*in += len;
	return len;
}

size_t sanitize(const char *in, char *out, size_t size)
{
	const char *end = in ? in + strlen(in) : NULL;
	size_t n = 0;

	if (!size)
		return 0;
	while (in && in < end) {
		size_t len;
		uint64_t word;

		/* Printable ASCII, nearly every byte of a report: eight at a time. */
		if (end - in >= 8 && n + 8 < size) {
			memcpy(&word, in, 8);
			if (!word_has_unprintable(word)) {
				memcpy(out + n, in, 8);
				n += 8;
				in += 8;
				continue;
			}
		}
		if ((unsigned char)*in >= 0x20 && (unsigned char)*in < 0x7f) {
			if (n + 1 >= size)
				break;
			out[n++] = *in++;
			continue;
		}
		len = copy_other(&in, out, n, size);
		if (len == SIZE_MAX)
			break;
		n += len;
	}
	out[n] = '\0';
	return n;
}
