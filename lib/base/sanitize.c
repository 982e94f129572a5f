// SPDX-License-Identifier: GPL-2.0
#include "sanitize.h"

void sanitize(const char *in, char *out, size_t size)
{
	size_t n = 0;

	if (!size)
		return;
	for (; in && *in && n + 1 < size; in++) {
		unsigned char c = (unsigned char)*in;

		out[n++] = c < 0x20 || c == 0x7f ? '?' : (char)c;
	}
	out[n] = '\0';
}
