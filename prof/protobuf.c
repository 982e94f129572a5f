// SPDX-License-Identifier: GPL-2.0
#include "protobuf.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static bool reserve(struct pb_buf *b, size_t more)
{
	size_t alloc;
	uint8_t *p;

	if (b->nomem)
		return false;
	if (b->len + more <= b->alloc)
		return true;
	alloc = b->alloc ? b->alloc : 256;
	while (alloc < b->len + more)
		alloc *= 2;
	p = realloc(b->data, alloc);
	if (!p) {
		b->nomem = true;
		return false;
	}
	b->data = p;
	b->alloc = alloc;
	return true;
}

static void put(struct pb_buf *b, const void *data, size_t len)
{
	if (!len || !reserve(b, len))
		return;
	memcpy(b->data + b->len, data, len);
	b->len += len;
}

void pb_varint(struct pb_buf *b, uint64_t v)
{
	uint8_t bytes[10];
	size_t n = 0;

	do {
		bytes[n] = v & 0x7f;
		v >>= 7;
		if (v)
			bytes[n] |= 0x80;
		n++;
	} while (v);
	put(b, bytes, n);
}

void pb_tag(struct pb_buf *b, uint32_t field, enum pb_wire wire)
{
	pb_varint(b, (uint64_t)field << 3 | wire);
}

void pb_uint(struct pb_buf *b, uint32_t field, uint64_t v)
{
	pb_tag(b, field, PB_VARINT);
	pb_varint(b, v);
}

void pb_bytes(struct pb_buf *b, uint32_t field, const void *data, size_t len)
{
	pb_tag(b, field, PB_LEN);
	pb_varint(b, len);
	put(b, data, len);
}

void pb_string(struct pb_buf *b, uint32_t field, const char *s)
{
	pb_bytes(b, field, s, strlen(s));
}

void pb_message(struct pb_buf *b, uint32_t field, const struct pb_buf *sub)
{
	if (sub->nomem)
		b->nomem = true;
	pb_bytes(b, field, sub->data, sub->len);
}

void pb_packed(struct pb_buf *b, uint32_t field, const uint64_t *v, size_t n)
{
	struct pb_buf packed = {0};

	for (size_t i = 0; i < n; i++)
		pb_varint(&packed, v[i]);
	pb_message(b, field, &packed);
	pb_release(&packed);
}

void pb_reset(struct pb_buf *b)
{
	b->len = 0;
	b->nomem = false;
}

int pb_status(const struct pb_buf *b)
{
	return b->nomem ? -ENOMEM : 0;
}

void pb_release(struct pb_buf *b)
{
	free(b->data);
	memset(b, 0, sizeof(*b));
}
