// SPDX-License-Identifier: GPL-2.0
/*
 * Decompression of kernel payloads through the system libraries.
 *
 * The input comes from a guest's disk, so every decoder assumes it may be
 * corrupt, truncated or hostile: the output is capped by max_out, all length
 * fields are checked against what is left, and the libraries' "safe" entry
 * points are used. Data after the end of the stream is ignored because
 * bzImage payloads end with a 4-byte size trailer.
 */
#include "decompress.h"

#include <errno.h>
#include <stdbool.h>
#include <lz4.h>
#include <lz4frame.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#define ZSTD_STATIC_LINKING_ONLY /* ZSTD_createDCtx_advanced() */
#include <zstd.h>
#include <zstd_errors.h>

#include "base/hugepages.h"
#include "codecs.h"

/* liblzma must not allocate more than this for a dictionary a guest chose. */
#define XZ_MEMLIMIT (512ULL << 20)

/* The kernel's legacy lz4 framing (lib/decompress_unlz4.c, `lz4 -l`). */
#define LZ4_LEGACY_MAGIC 0x184c2102U
#define LZ4_LEGACY_BLOCK (8U << 20)

/* lzop container (lib/decompress_unlzo.c and lzop's own header format). */
#define LZOP_F_ADLER32_D     0x00000001U
#define LZOP_F_ADLER32_C     0x00000002U
#define LZOP_F_H_EXTRA_FIELD 0x00000040U
#define LZOP_F_CRC32_D	     0x00000100U
#define LZOP_F_CRC32_C	     0x00000200U
#define LZOP_F_H_FILTER	     0x00000800U
#define LZOP_MAX_BLOCK	     (64U << 20)

static const unsigned char lzop_magic[9] = {0x89, 'L',	'Z',  'O', 0x00,
					    '\r', '\n', 0x1a, '\n'};

/* Feed zlib, liblzma and libbz2 at most this much at a time (their counters are 32-bit).
 */
#define CHUNK_MAX (1U << 30)

struct obuf {
	unsigned char *p;
	size_t len;
	size_t cap;
	size_t limit; /* max_out + 1: one spare byte tells "too big" from "exactly full"
		       */
	size_t max_out;
	size_t size_hint; /* the caller's expected size, within max_out; 0: none */
	const char *what;
};

static uint32_t get_le32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static uint32_t get_be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 |
	       (uint32_t)p[3];
}

static uint16_t get_be16(const unsigned char *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static int too_big(struct obuf *ob, struct kp_err *err)
{
	return kp_errorf(err, EFBIG,
			 "%s stream: decompressed data exceeds the limit of %zu bytes",
			 ob->what, ob->max_out);
}

static int corrupt(struct obuf *ob, struct kp_err *err, const char *why)
{
	return kp_errorf(err, EBADMSG, "%s stream: %s", ob->what, why);
}

static int truncated(struct obuf *ob, struct kp_err *err)
{
	return kp_errorf(err, EBADMSG,
			 "%s stream: truncated (input ends before the end of the stream)",
			 ob->what);
}

static int no_memory(struct obuf *ob, struct kp_err *err)
{
	return kp_errorf(err, ENOMEM, "%s stream: out of memory", ob->what);
}

/*
 * @size_hint: the size the caller expects (0: none). Within the limit it is
 * the first allocation, on huge pages: a kernel image is written once,
 * and its 4 KiB page faults were a third of decoding a vmlinuz.
 */
static int ob_init(struct obuf *ob, enum kp_comp comp, size_t in_len, size_t max_out,
		   size_t size_hint, struct kp_err *err)
{
	/* Kernels compress 3-5x: start near the final size, grow by doubling. */
	size_t hint = in_len < SIZE_MAX / 4 ? in_len * 4 : SIZE_MAX;

	memset(ob, 0, sizeof(*ob));
	ob->what = kp_comp_name(comp);
	ob->max_out = max_out;
	ob->limit = max_out < SIZE_MAX ? max_out + 1 : max_out;
	if (comp == KP_COMP_NONE)
		hint = in_len;
	if (hint < 64 * 1024)
		hint = 64 * 1024;
	if (size_hint && size_hint <= max_out) {
		ob->size_hint = size_hint;
		hint = size_hint;
	}
	if (hint > ob->limit)
		hint = ob->limit;
	ob->cap = hint;
	ob->p = ob->size_hint ? kp_alloc_huge(ob->cap) : malloc(ob->cap ? ob->cap : 1);
	if (!ob->p)
		return no_memory(ob, err);
	return 0;
}

/* Make room for more output; -EFBIG once the buffer has reached the limit. */
static int ob_grow(struct obuf *ob, struct kp_err *err)
{
	size_t cap = ob->cap <= ob->limit / 2 ? ob->cap * 2 : ob->limit;
	unsigned char *p;

	if (ob->cap >= ob->limit)
		return too_big(ob, err);
	p = realloc(ob->p, cap);
	if (!p)
		return no_memory(ob, err);
	ob->p = p;
	ob->cap = cap;
	return 0;
}

static int ob_append(struct obuf *ob, const void *data, size_t n, struct kp_err *err)
{
	int ret;

	while (ob->cap - ob->len < n) {
		ret = ob_grow(ob, err);
		if (ret)
			return ret;
	}
	memcpy(ob->p + ob->len, data, n);
	ob->len += n;
	return 0;
}

static int ob_finish(struct obuf *ob, void **out, size_t *out_len, struct kp_err *err)
{
	unsigned char *p;

	if (ob->len > ob->max_out)
		return too_big(ob, err);
	p = realloc(ob->p, ob->len ? ob->len : 1);
	if (p)
		ob->p = p;
	*out = ob->p;
	*out_len = ob->len;
	ob->p = NULL;
	return 0;
}

static unsigned int chunk(size_t n)
{
	return n > CHUNK_MAX ? CHUNK_MAX : (unsigned int)n;
}

/* ---- gzip ---- */

static int gzip_error(struct obuf *ob, z_stream *zs, int zret, struct kp_err *err)
{
	if (zret == Z_MEM_ERROR)
		return no_memory(ob, err);
	return kp_errorf(err, EBADMSG, "%s stream: corrupt data (zlib: %s)", ob->what,
			 zs->msg ? zs->msg : "invalid data");
}

static int gzip_run(struct obuf *ob, z_stream *zs, const unsigned char *in, size_t in_len,
		    struct kp_err *err)
{
	size_t used = 0;
	int zret, ret;

	for (;;) {
		if (!zs->avail_in && used < in_len) {
			zs->next_in = (Bytef *)(in + used);
			zs->avail_in = chunk(in_len - used);
			used += zs->avail_in;
		}
		if (ob->len == ob->cap && (ret = ob_grow(ob, err)))
			return ret;
		zs->next_out = ob->p + ob->len;
		zs->avail_out = chunk(ob->cap - ob->len);
		zret = inflate(zs, Z_NO_FLUSH);
		ob->len = (size_t)(zs->next_out - ob->p);
		if (zret == Z_STREAM_END)
			return 0;
		if (zret == Z_BUF_ERROR && !zs->avail_in && used == in_len &&
		    zs->avail_out)
			return truncated(ob, err);
		if (zret != Z_OK && zret != Z_BUF_ERROR)
			return gzip_error(ob, zs, zret, err);
	}
}

static int decompress_gzip(struct obuf *ob, const unsigned char *in, size_t in_len,
			   struct kp_err *err)
{
	z_stream zs;
	int ret;

	memset(&zs, 0, sizeof(zs));
	/* 16 + MAX_WBITS: gzip header and trailer, not raw deflate or zlib. */
	if (inflateInit2(&zs, 16 + MAX_WBITS) != Z_OK)
		return no_memory(ob, err);
	ret = gzip_run(ob, &zs, in, in_len, err);
	inflateEnd(&zs);
	return ret;
}

/* ---- xz and legacy lzma (liblzma) ---- */

static int lzma_error(struct obuf *ob, lzma_ret lret, struct kp_err *err)
{
	switch (lret) {
	case LZMA_MEM_ERROR:
		return no_memory(ob, err);
	case LZMA_MEMLIMIT_ERROR:
		return corrupt(ob, err, "needs a dictionary larger than 512 MiB");
	case LZMA_FORMAT_ERROR:
		return corrupt(ob, err, "bad header");
	case LZMA_OPTIONS_ERROR:
		return corrupt(ob, err, "unsupported options in header");
	case LZMA_BUF_ERROR:
		return truncated(ob, err);
	default:
		return corrupt(ob, err, "corrupt data");
	}
}

static int lzma_run(struct obuf *ob, const struct codec_xz *xz, lzma_stream *ls,
		    const unsigned char *in, size_t in_len, struct kp_err *err)
{
	size_t used = 0;
	lzma_ret lret;
	int ret;

	for (;;) {
		if (!ls->avail_in && used < in_len) {
			ls->next_in = in + used;
			ls->avail_in = chunk(in_len - used);
			used += ls->avail_in;
		}
		if (ob->len == ob->cap && (ret = ob_grow(ob, err)))
			return ret;
		ls->next_out = ob->p + ob->len;
		ls->avail_out = ob->cap - ob->len;
		/* All input is present: FINISH makes liblzma report truncation. */
		lret = xz->code(ls, used == in_len ? LZMA_FINISH : LZMA_RUN);
		ob->len = (size_t)(ls->next_out - ob->p);
		if (lret == LZMA_STREAM_END)
			return 0;
		if (lret == LZMA_BUF_ERROR && !ls->avail_out)
			continue;
		if (lret != LZMA_OK)
			return lzma_error(ob, lret, err);
	}
}

static int decompress_lzma(struct obuf *ob, enum kp_comp comp, const unsigned char *in,
			   size_t in_len, struct kp_err *err)
{
	const struct codec_xz *xz = codec_xz(ob->what, err);
	lzma_stream ls = LZMA_STREAM_INIT;
	lzma_ret lret;
	int ret;

	if (!xz)
		return -ELIBACC;
	/* No LZMA_CONCATENATED: stop after the first stream, the rest is trailer. */
	if (comp == KP_COMP_XZ)
		lret = xz->stream_decoder(&ls, XZ_MEMLIMIT, 0);
	else
		lret = xz->alone_decoder(&ls, XZ_MEMLIMIT);
	if (lret != LZMA_OK)
		return lzma_error(ob, lret, err);
	ret = lzma_run(ob, xz, &ls, in, in_len, err);
	xz->end(&ls);
	return ret;
}

/* ---- zstd ---- */

static int zstd_error(struct obuf *ob, size_t zret, struct kp_err *err)
{
	ZSTD_ErrorCode code = ZSTD_getErrorCode(zret);

	if (code == ZSTD_error_memory_allocation)
		return no_memory(ob, err);
	if (code == ZSTD_error_dstSize_tooSmall)
		return too_big(ob, err);
	return kp_errorf(err, EBADMSG, "%s stream: %s", ob->what,
			 ZSTD_getErrorName(zret));
}

/* The frame says how big it is: decode in one call, without a window buffer. */
static int zstd_oneshot(struct obuf *ob, ZSTD_DCtx *dctx, const unsigned char *in,
			size_t in_len, unsigned long long size, struct kp_err *err)
{
	size_t frame = ZSTD_findFrameCompressedSize(in, in_len);
	size_t zret;
	unsigned char *p;

	if (ZSTD_isError(frame))
		return ZSTD_getErrorCode(frame) == ZSTD_error_srcSize_wrong
			       ? truncated(ob, err)
			       : zstd_error(ob, frame, err);
	if (size > ob->max_out)
		return too_big(ob, err);
	if (ob->cap < size) {
		p = realloc(ob->p, size ? size : 1);
		if (!p)
			return no_memory(ob, err);
		ob->p = p;
		ob->cap = size;
	}
	zret = ZSTD_decompressDCtx(dctx, ob->p, size, in, frame);
	if (ZSTD_isError(zret))
		return zstd_error(ob, zret, err);
	if (zret != size)
		return corrupt(ob, err, "frame content size does not match the data");
	ob->len = zret;
	return 0;
}

static int zstd_stream(struct obuf *ob, ZSTD_DCtx *dctx, const unsigned char *in,
		       size_t in_len, struct kp_err *err)
{
	ZSTD_inBuffer zin = {in, in_len, 0};
	ZSTD_outBuffer zout;
	size_t zret;
	int ret;

	for (;;) {
		if (ob->len == ob->cap && (ret = ob_grow(ob, err)))
			return ret;
		zout.dst = ob->p;
		zout.size = ob->cap;
		zout.pos = ob->len;
		zret = ZSTD_decompressStream(dctx, &zout, &zin);
		ob->len = zout.pos;
		if (ZSTD_isError(zret))
			return zstd_error(ob, zret, err);
		/* 0: one frame fully decoded and flushed; what follows is trailer. */
		if (zret == 0)
			return 0;
		if (zin.pos == zin.size && zout.pos < zout.size)
			return truncated(ob, err);
	}
}

/*
 * Streaming, from the start: a frame without its content size (the kernel
 * pipes its image through zstd) is decoded in one call only when the
 * caller's expected size is right; otherwise it is decoded here, with
 * zstd's window buffer, and the caller's check of the size says what is
 * wrong.
 */
static int zstd_restream(struct obuf *ob, ZSTD_DCtx *dctx, const unsigned char *in,
			 size_t in_len, struct kp_err *err)
{
	ob->len = 0;
	ZSTD_DCtx_reset(dctx, ZSTD_reset_session_only);
	return zstd_stream(ob, dctx, in, in_len, err);
}

/*
 * zstd's own buffers: a kernel's frame has a window of up to 128 MiB,
 * written once per image. On huge pages that is a few dozen page faults
 * rather than tens of thousands, most of the time of decoding a vmlinuz.
 */
static void *zstd_alloc(void *opaque, size_t size)
{
	(void)opaque;
	return kp_alloc_huge(size);
}

static void zstd_free(void *opaque, void *p)
{
	(void)opaque;
	free(p);
}

static int decompress_zstd(struct obuf *ob, const unsigned char *in, size_t in_len,
			   struct kp_err *err)
{
	unsigned long long size = ZSTD_getFrameContentSize(in, in_len);
	ZSTD_DCtx *dctx = ZSTD_createDCtx_advanced(
		(ZSTD_customMem){.customAlloc = zstd_alloc, .customFree = zstd_free});
	int ret;

	if (!dctx)
		return no_memory(ob, err);
	if (size == ZSTD_CONTENTSIZE_ERROR)
		ret = in_len < 18 ? truncated(ob, err)
				  : corrupt(ob, err, "bad frame header");
	else if (size != ZSTD_CONTENTSIZE_UNKNOWN)
		ret = zstd_oneshot(ob, dctx, in, in_len, size, err);
	else if (ob->size_hint &&
		 !zstd_oneshot(ob, dctx, in, in_len, ob->size_hint, NULL))
		ret = 0;
	else
		ret = zstd_restream(ob, dctx, in, in_len, err);
	ZSTD_freeDCtx(dctx);
	return ret;
}

/* ---- lz4 ---- */

/*
 * Legacy framing: magic, then blocks of le32 compressed size + data, each
 * decompressing to 8 MiB except the last. A block shorter than 8 MiB is thus
 * the end, and so is a size field with nothing after it (the bzImage trailer
 * when the data is a multiple of 8 MiB). Repeated magics start new archives.
 */
static int lz4_legacy_block(struct obuf *ob, const unsigned char *in, size_t in_len,
			    size_t *pos, char *scratch, int *last, struct kp_err *err)
{
	uint32_t csize;
	int n;

	if (in_len - *pos < 4) {
		/* A size field cut short is truncation, an empty rest is the end. */
		if (in_len != *pos)
			return truncated(ob, err);
		*last = 1;
		return 0;
	}
	csize = get_le32(in + *pos);
	*pos += 4;
	if (csize == LZ4_LEGACY_MAGIC)
		return 0;
	if (csize == 0 || *pos == in_len) {
		*last = 1;
		return 0;
	}
	if (csize > (uint32_t)LZ4_compressBound(LZ4_LEGACY_BLOCK))
		return corrupt(ob, err,
			       "block size larger than an 8 MiB block can compress to");
	if (csize > in_len - *pos)
		return truncated(ob, err);
	n = LZ4_decompress_safe((const char *)in + *pos, scratch, (int)csize,
				LZ4_LEGACY_BLOCK);
	if (n < 0)
		return corrupt(ob, err, "corrupt block");
	*pos += csize;
	*last = (uint32_t)n < LZ4_LEGACY_BLOCK;
	return ob_append(ob, scratch, (size_t)n, err);
}

static int decompress_lz4_legacy(struct obuf *ob, const unsigned char *in, size_t in_len,
				 struct kp_err *err)
{
	char *scratch = malloc(LZ4_LEGACY_BLOCK);
	size_t pos = 4;
	int last = 0, ret = 0;

	if (!scratch)
		return no_memory(ob, err);
	while (!last && !ret)
		ret = lz4_legacy_block(ob, in, in_len, &pos, scratch, &last, err);
	free(scratch);
	return ret;
}

static int lz4f_run(struct obuf *ob, LZ4F_dctx *dctx, const unsigned char *in,
		    size_t in_len, struct kp_err *err)
{
	size_t pos = 0, src, dst, hint;
	int ret;

	for (;;) {
		if (ob->len == ob->cap && (ret = ob_grow(ob, err)))
			return ret;
		src = in_len - pos;
		dst = ob->cap - ob->len;
		hint = LZ4F_decompress(dctx, ob->p + ob->len, &dst, in + pos, &src, NULL);
		if (LZ4F_isError(hint))
			return kp_errorf(err, EBADMSG, "%s stream: %s", ob->what,
					 LZ4F_getErrorName(hint));
		pos += src;
		ob->len += dst;
		if (hint == 0) /* frame complete: the rest is trailer */
			return 0;
		if (pos == in_len && ob->len < ob->cap)
			return truncated(ob, err);
	}
}

static int decompress_lz4_frame(struct obuf *ob, const unsigned char *in, size_t in_len,
				struct kp_err *err)
{
	LZ4F_dctx *dctx;
	int ret;

	if (LZ4F_isError(LZ4F_createDecompressionContext(&dctx, LZ4F_VERSION)))
		return no_memory(ob, err);
	ret = lz4f_run(ob, dctx, in, in_len, err);
	LZ4F_freeDecompressionContext(dctx);
	return ret;
}

static int decompress_lz4(struct obuf *ob, const unsigned char *in, size_t in_len,
			  struct kp_err *err)
{
	if (in_len >= 4 && get_le32(in) == LZ4_LEGACY_MAGIC)
		return decompress_lz4_legacy(ob, in, in_len, err);
	return decompress_lz4_frame(ob, in, in_len, err);
}

/* ---- bzip2 ---- */

static int bzip2_run(struct obuf *ob, const struct codec_bz2 *bz2, bz_stream *bz,
		     const unsigned char *in, size_t in_len, struct kp_err *err)
{
	size_t used = 0;
	int bret, ret;

	for (;;) {
		if (!bz->avail_in && used < in_len) {
			bz->next_in = (char *)(in + used);
			bz->avail_in = chunk(in_len - used);
			used += bz->avail_in;
		}
		if (ob->len == ob->cap && (ret = ob_grow(ob, err)))
			return ret;
		bz->next_out = (char *)ob->p + ob->len;
		bz->avail_out = chunk(ob->cap - ob->len);
		bret = bz2->decompress(bz);
		ob->len = (size_t)((unsigned char *)bz->next_out - ob->p);
		if (bret == BZ_STREAM_END)
			return 0;
		if (bret == BZ_MEM_ERROR)
			return no_memory(ob, err);
		if (bret != BZ_OK)
			return corrupt(ob, err, "corrupt data");
		if (!bz->avail_in && used == in_len && bz->avail_out)
			return truncated(ob, err);
	}
}

static int decompress_bzip2(struct obuf *ob, const unsigned char *in, size_t in_len,
			    struct kp_err *err)
{
	const struct codec_bz2 *bz2 = codec_bz2(ob->what, err);
	bz_stream bz;
	int ret;

	if (!bz2)
		return -ELIBACC;
	memset(&bz, 0, sizeof(bz));
	if (bz2->decompress_init(&bz, 0, 0) != BZ_OK)
		return no_memory(ob, err);
	ret = bzip2_run(ob, bz2, &bz, in, in_len, err);
	bz2->decompress_end(&bz);
	return ret;
}

/* ---- lzop ---- */

struct lzop {
	const struct codec_lzo *lzo;
	const unsigned char *in;
	size_t len;
	size_t pos;
	uint32_t flags;
	bool bad; /* a read ran past the end of the input */
};

/* Sequential reads that turn into no-ops once the input has run out. */
static const unsigned char *lzop_take(struct lzop *z, size_t n)
{
	static const unsigned char zero[4];
	const unsigned char *p;

	if (z->bad || z->len - z->pos < n) {
		z->bad = true;
		return zero;
	}
	p = z->in + z->pos;
	z->pos += n;
	return p;
}

static uint32_t lzop_be32(struct lzop *z)
{
	return get_be32(lzop_take(z, 4));
}

/* lzop's header, as its read_header() parses it; only the flags matter here. */
static int lzop_header(struct obuf *ob, struct lzop *z, struct kp_err *err)
{
	uint16_t version;
	uint8_t method;

	lzop_take(z, sizeof(lzop_magic));
	version = get_be16(lzop_take(z, 2));
	lzop_take(z, 2); /* library version */
	if (version >= 0x0940)
		lzop_take(z, 2); /* version needed to extract */
	method = *lzop_take(z, 1);
	if (version >= 0x0940)
		lzop_take(z, 1); /* level */
	z->flags = lzop_be32(z);
	if (z->flags & LZOP_F_H_FILTER)
		lzop_take(z, 4);
	lzop_take(z, 4 + 4); /* mode, mtime low */
	if (version >= 0x0940)
		lzop_take(z, 4);	/* mtime high */
	lzop_take(z, *lzop_take(z, 1)); /* file name */
	lzop_take(z, 4);		/* header checksum */
	if (z->flags & LZOP_F_H_EXTRA_FIELD)
		lzop_take(z, (size_t)lzop_be32(z) + 4);
	if (z->bad)
		return truncated(ob, err);
	if (version < 0x0900)
		return corrupt(ob, err, "lzop format version too old");
	if (method < 1 || method > 3)
		return corrupt(ob, err, "not an LZO1X method");
	return 0;
}

static int lzop_block_data(struct obuf *ob, const struct codec_lzo *lzo,
			   const unsigned char *src, uint32_t src_len, uint32_t dst_len,
			   struct kp_err *err)
{
	lzo_uint out_len = dst_len;
	int ret;

	while (ob->cap - ob->len < dst_len)
		if ((ret = ob_grow(ob, err)))
			return ret;
	/* lzop stores incompressible blocks as they are. */
	if (src_len == dst_len) {
		memcpy(ob->p + ob->len, src, dst_len);
	} else if (lzo->decompress_safe(src, src_len, ob->p + ob->len, &out_len, NULL) !=
			   LZO_E_OK ||
		   out_len != dst_len) {
		return corrupt(ob, err, "corrupt block");
	}
	return 0;
}

/* One block: be32 sizes, the checksums the header flags ask for, data. */
static int lzop_block(struct obuf *ob, struct lzop *z, int *last, struct kp_err *err)
{
	uint32_t dst_len, src_len, adler = 0;
	const unsigned char *src;
	int ret;

	dst_len = lzop_be32(z);
	if (!z->bad && dst_len == 0) {
		*last = 1;
		return 0;
	}
	src_len = lzop_be32(z);
	if (z->flags & LZOP_F_ADLER32_D)
		adler = lzop_be32(z);
	if (z->flags & LZOP_F_CRC32_D)
		lzop_take(z, 4);
	if ((z->flags & LZOP_F_ADLER32_C) && src_len < dst_len)
		lzop_take(z, 4);
	if ((z->flags & LZOP_F_CRC32_C) && src_len < dst_len)
		lzop_take(z, 4);
	if (!z->bad && (dst_len > LZOP_MAX_BLOCK || src_len == 0 || src_len > dst_len))
		return corrupt(ob, err, "bad block size");
	src = lzop_take(z, src_len);
	if (z->bad)
		return truncated(ob, err);
	ret = lzop_block_data(ob, z->lzo, src, src_len, dst_len, err);
	if (ret)
		return ret;
	if ((z->flags & LZOP_F_ADLER32_D) &&
	    z->lzo->adler32(1, ob->p + ob->len, dst_len) != adler)
		return corrupt(ob, err, "block checksum mismatch");
	ob->len += dst_len;
	return 0;
}

static int decompress_lzo(struct obuf *ob, const unsigned char *in, size_t in_len,
			  struct kp_err *err)
{
	struct lzop z = {codec_lzo(ob->what, err), in, in_len, 0, 0, false};
	int last = 0, ret;

	if (!z.lzo)
		return -ELIBACC;
	if (codec_lzo_init(z.lzo) != LZO_E_OK)
		return corrupt(ob, err, "liblzo2 failed to initialise");
	if (in_len < sizeof(lzop_magic) || memcmp(in, lzop_magic, sizeof(lzop_magic)))
		return corrupt(ob, err, "bad magic");
	ret = lzop_header(ob, &z, err);
	while (!ret && !last)
		ret = lzop_block(ob, &z, &last, err);
	return ret;
}

/* ---- public ---- */

enum kp_comp kp_comp_detect(const void *buf, size_t len)
{
	const unsigned char *p = buf;

	if (len >= 3 && p[0] == 0x1f && p[1] == 0x8b && p[2] == 0x08)
		return KP_COMP_GZIP;
	if (len >= 6 && !memcmp(p,
				"\xfd"
				"7zXZ\0",
				6))
		return KP_COMP_XZ;
	if (len >= 4 && get_le32(p) == 0xfd2fb528U)
		return KP_COMP_ZSTD;
	if (len >= 4 && (get_le32(p) == LZ4_LEGACY_MAGIC || get_le32(p) == 0x184d2204U))
		return KP_COMP_LZ4;
	if (len >= 4 && !memcmp(p, "BZh", 3) && p[3] >= '1' && p[3] <= '9')
		return KP_COMP_BZIP2;
	/* lzma_alone: lc=3 lp=0 pb=2 (0x5d) and a power-of-two dictionary >= 64 KiB. */
	if (len >= 13 && p[0] == 0x5d && p[1] == 0 && p[2] == 0)
		return KP_COMP_LZMA;
	if (len >= sizeof(lzop_magic) && !memcmp(p, lzop_magic, sizeof(lzop_magic)))
		return KP_COMP_LZO;
	return KP_COMP_NONE;
}

const char *kp_comp_name(enum kp_comp comp)
{
	switch (comp) {
	case KP_COMP_NONE:
		return "uncompressed";
	case KP_COMP_GZIP:
		return "gzip";
	case KP_COMP_XZ:
		return "xz";
	case KP_COMP_ZSTD:
		return "zstd";
	case KP_COMP_LZ4:
		return "lz4";
	case KP_COMP_BZIP2:
		return "bzip2";
	case KP_COMP_LZMA:
		return "lzma";
	case KP_COMP_LZO:
		return "lzo";
	}
	return "unknown";
}

static int run_decoder(struct obuf *ob, enum kp_comp comp, const unsigned char *in,
		       size_t in_len, struct kp_err *err)
{
	switch (comp) {
	case KP_COMP_NONE:
		return ob_append(ob, in, in_len, err);
	case KP_COMP_GZIP:
		return decompress_gzip(ob, in, in_len, err);
	case KP_COMP_XZ:
	case KP_COMP_LZMA:
		return decompress_lzma(ob, comp, in, in_len, err);
	case KP_COMP_ZSTD:
		return decompress_zstd(ob, in, in_len, err);
	case KP_COMP_LZ4:
		return decompress_lz4(ob, in, in_len, err);
	case KP_COMP_BZIP2:
		return decompress_bzip2(ob, in, in_len, err);
	case KP_COMP_LZO:
		return decompress_lzo(ob, in, in_len, err);
	}
	return kp_errorf(err, ENOTSUP, "compression format %d: not supported", (int)comp);
}

int kp_decompress(enum kp_comp comp, const void *in, size_t in_len, size_t max_out,
		  void **out, size_t *out_len, struct kp_err *err)
{
	return kp_decompress_sized(comp, in, in_len, max_out, 0, out, out_len, err);
}

int kp_decompress_sized(enum kp_comp comp, const void *in, size_t in_len, size_t max_out,
			size_t size_hint, void **out, size_t *out_len, struct kp_err *err)
{
	struct obuf ob;
	int ret;

	*out = NULL;
	*out_len = 0;
	if (!in && in_len)
		return kp_errorf(err, EINVAL, "%s stream: no input buffer",
				 kp_comp_name(comp));
	if (!in_len && comp != KP_COMP_NONE)
		return kp_errorf(err, EBADMSG, "%s stream: empty input",
				 kp_comp_name(comp));
	ret = ob_init(&ob, comp, in_len, max_out, size_hint, err);
	if (!ret)
		ret = run_decoder(&ob, comp, in, in_len, err);
	if (!ret)
		ret = ob_finish(&ob, out, out_len, err);
	free(ob.p);
	return ret;
}
