// SPDX-License-Identifier: GPL-2.0
/*
 * The decompressed size a compressed file states about itself, read without
 * decompressing anything: the zstd frame's content size, the xz index, the
 * gzip trailer's ISIZE. Each is only the file's word; the decoders check it
 * against the data (zstd and xz fail on a mismatch, zlib checks ISIZE), so a
 * caller that caps decompression at the stated size gets exactly that size
 * or an error.
 */
#include "decompress.h"
#include "codecs.h"

#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <zstd.h>

#define XZ_FOOTER    12
#define XZ_INDEX_MEM (1U << 20) /* an index of thousands of blocks, no more */

static uint32_t le32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static int zstd_size(const void *in, size_t len, uint64_t *size)
{
	unsigned long long n = ZSTD_getFrameContentSize(in, len);

	if (n == ZSTD_CONTENTSIZE_UNKNOWN || n == ZSTD_CONTENTSIZE_ERROR)
		return -ENODATA;
	*size = n;
	return 0;
}

/* One stream, its footer last (no stream padding): the index before it. */
static int xz_size(const unsigned char *in, size_t len, uint64_t *size)
{
	const unsigned char *foot = in + len - XZ_FOOTER;
	uint64_t memlimit = XZ_INDEX_MEM;
	lzma_index *idx = NULL;
	size_t index_len, pos = 0;
	const struct codec_xz *xz;
	lzma_ret r;

	if (len < 2 * XZ_FOOTER || memcmp(foot + 10, "YZ", 2))
		return -ENODATA;
	/* No size without liblzma: decoding will say why. */
	xz = codec_xz("xz", NULL);
	if (!xz)
		return -ENODATA;
	index_len = ((size_t)le32(foot + 4) + 1) * 4;
	if (index_len > len - 2 * XZ_FOOTER)
		return -ENODATA;
	r = xz->index_buffer_decode(&idx, &memlimit, NULL, foot - index_len, &pos,
				    index_len);
	if (r != LZMA_OK)
		return -ENODATA;
	*size = xz->index_uncompressed_size(idx);
	xz->index_end(idx, NULL);
	return 0;
}

/* ISIZE is the size modulo 2^32 and only last when nothing follows the member. */
static int gzip_size(const unsigned char *in, size_t len, uint64_t *size)
{
	if (len < 18)
		return -ENODATA;
	*size = le32(in + len - 4);
	return 0;
}

int kp_comp_declared_size(enum kp_comp comp, const void *in, size_t len, uint64_t *size)
{
	switch (comp) {
	case KP_COMP_NONE:
		*size = len;
		return 0;
	case KP_COMP_ZSTD:
		return zstd_size(in, len, size);
	case KP_COMP_XZ:
		return xz_size(in, len, size);
	case KP_COMP_GZIP:
		return gzip_size(in, len, size);
	default:
		return -ENODATA;
	}
}
