/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A small protocol buffers encoder: varints and length-delimited fields
 * into a growing buffer, enough to write pprof's profile.proto by hand.
 * A failed allocation is remembered, so a writer checks once at the end.
 */
#ifndef KVMPROF_PROTOBUF_H
#define KVMPROF_PROTOBUF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum pb_wire {
	PB_VARINT = 0,
	PB_LEN = 2,
};

struct pb_buf {
	uint8_t *data;
	size_t len;
	size_t alloc;
	bool nomem;
};

void pb_varint(struct pb_buf *b, uint64_t v);
void pb_tag(struct pb_buf *b, uint32_t field, enum pb_wire wire);
/* A varint field: uint64, int64 (two's complement, as protobuf does) or bool. */
void pb_uint(struct pb_buf *b, uint32_t field, uint64_t v);
void pb_bytes(struct pb_buf *b, uint32_t field, const void *data, size_t len);
void pb_string(struct pb_buf *b, uint32_t field, const char *s);
/* An embedded message: @sub's bytes as a length-delimited field. */
void pb_message(struct pb_buf *b, uint32_t field, const struct pb_buf *sub);
/* A packed repeated varint field (proto3's default for repeated scalars). */
void pb_packed(struct pb_buf *b, uint32_t field, const uint64_t *v, size_t n);
/* Empty @b for reuse, keeping its memory. */
void pb_reset(struct pb_buf *b);
/* 0, or -ENOMEM when any write since the last reset ran out of memory. */
int pb_status(const struct pb_buf *b);
void pb_release(struct pb_buf *b);

#endif
