/* SPDX-License-Identifier: GPL-2.0 */
/*
 * liblzma, libbz2 and liblzo2, loaded on first use. Only a kernel image
 * (or a module) packed with xz, lzma, bzip2 or lzo needs them; linked in,
 * the dynamic loader mapped and relocated all three at every start of
 * every command, a few percent of a whole report. They are loaded by
 * soname, so the system's (security-updated) copies are the ones used.
 */
#ifndef KVMPROF_CODECS_H
#define KVMPROF_CODECS_H

#include <bzlib.h>
#include <lzma.h>
#include <lzo/lzo1x.h>

#include "base/err.h"

struct codec_xz {
	__typeof__(lzma_code) *code;
	__typeof__(lzma_stream_decoder) *stream_decoder;
	__typeof__(lzma_alone_decoder) *alone_decoder;
	__typeof__(lzma_end) *end;
	__typeof__(lzma_index_buffer_decode) *index_buffer_decode;
	__typeof__(lzma_index_uncompressed_size) *index_uncompressed_size;
	__typeof__(lzma_index_end) *index_end;
};

struct codec_bz2 {
	__typeof__(BZ2_bzDecompressInit) *decompress_init;
	__typeof__(BZ2_bzDecompress) *decompress;
	__typeof__(BZ2_bzDecompressEnd) *decompress_end;
};

struct codec_lzo {
	__typeof__(__lzo_init_v2) *init_v2; /* what the lzo_init() macro calls */
	__typeof__(lzo1x_decompress_safe) *decompress_safe;
	__typeof__(lzo_adler32) *adler32;
};

/*
 * The library's functions, loaded on the first call (thread-safe); NULL
 * and an error naming @what and the library when it cannot be loaded.
 */
const struct codec_xz *codec_xz(const char *what, struct kp_err *err);
const struct codec_bz2 *codec_bz2(const char *what, struct kp_err *err);
const struct codec_lzo *codec_lzo(const char *what, struct kp_err *err);

/* lzo_init() through @lzo. */
#define codec_lzo_init(lzo)                                               \
	(lzo)->init_v2(LZO_VERSION, (int)sizeof(short), (int)sizeof(int), \
		       (int)sizeof(long), (int)sizeof(lzo_uint32_t),      \
		       (int)sizeof(lzo_uint), (int)lzo_sizeof_dict_t,     \
		       (int)sizeof(char *), (int)sizeof(lzo_voidp),       \
		       (int)sizeof(lzo_callback_t))

#endif
