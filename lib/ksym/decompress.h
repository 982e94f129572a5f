/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Decompression of kernel payloads and modules through the system libraries.
 * Formats are recognised by their magic bytes, never by file name.
 */
#ifndef KVMPROF_DECOMPRESS_H
#define KVMPROF_DECOMPRESS_H

#include <stddef.h>
#include <stdint.h>

#include "base/err.h"

enum kp_comp {
	KP_COMP_NONE,
	KP_COMP_GZIP,
	KP_COMP_XZ,
	KP_COMP_ZSTD,
	KP_COMP_LZ4, /* the kernel's legacy lz4 framing (0x184c2102) and lz4 frames */
	KP_COMP_BZIP2,
	KP_COMP_LZMA, /* legacy .lzma (lzma_alone) */
	KP_COMP_LZO,  /* lzop container, as the kernel's build uses */
};

/* Output larger than this is refused: guest-controlled input must not exhaust memory. */
#define KP_DECOMPRESS_MAX (1ULL << 30)

enum kp_comp kp_comp_detect(const void *buf, size_t len);
const char *kp_comp_name(enum kp_comp comp);

/*
 * The decompressed size @in (a whole file, nothing after the stream) states
 * for itself: 0 and *size, or -ENODATA when the format or this stream does
 * not state one (lz4, bzip2, lzma, lzo; a zstd frame without content size;
 * a multi-stream xz file). gzip states the size modulo 4 GiB. The statement
 * may be false: decoders check it, callers must bound their output anyway.
 */
int kp_comp_declared_size(enum kp_comp comp, const void *in, size_t len, uint64_t *size);

/*
 * Decompress @in (of format @comp) into a malloc'ed buffer *out of *out_len
 * bytes. Trailing data after the compressed stream is ignored (bzImage
 * payloads carry a size trailer). Fails with -EFBIG past @max_out bytes.
 */
int kp_decompress(enum kp_comp comp, const void *in, size_t in_len, size_t max_out,
		  void **out, size_t *out_len, struct kp_err *err);

/*
 * The same, when the caller expects *out_len to be @size_hint (a bzImage's
 * size trailer, say): the output is allocated at that size up front, and a
 * zstd frame that does not state its own size is decoded in one pass into
 * it. The hint is only a hint: output of any other size is still produced
 * (within @max_out), for the caller to check.
 */
int kp_decompress_sized(enum kp_comp comp, const void *in, size_t in_len, size_t max_out,
			size_t size_hint, void **out, size_t *out_len,
			struct kp_err *err);

#endif
