// SPDX-License-Identifier: GPL-2.0
#include "codecs.h"

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>

/* One library: its soname, and once loaded, its functions or why not. */
struct codec_lib {
	const char *soname;
	/* Sets the table's functions from @h; false with the name of one missing. */
	bool (*bind)(void *h, const char **missing);
	pthread_mutex_t lock;
	bool tried;
	bool ok;
	char why[256];
};

/* POSIX: dlsym() returns a function's address as a void *. */
#define BIND(h, fn, name) \
	(((fn) = (__typeof__(fn))dlsym(h, name)) != NULL || (*missing = name, false))

static struct codec_xz xz;

static bool bind_xz(void *h, const char **missing)
{
	return BIND(h, xz.code, "lzma_code") &&
	       BIND(h, xz.stream_decoder, "lzma_stream_decoder") &&
	       BIND(h, xz.alone_decoder, "lzma_alone_decoder") &&
	       BIND(h, xz.end, "lzma_end") &&
	       BIND(h, xz.index_buffer_decode, "lzma_index_buffer_decode") &&
	       BIND(h, xz.index_uncompressed_size, "lzma_index_uncompressed_size") &&
	       BIND(h, xz.index_end, "lzma_index_end");
}

static struct codec_bz2 bz2;

static bool bind_bz2(void *h, const char **missing)
{
	return BIND(h, bz2.decompress_init, "BZ2_bzDecompressInit") &&
	       BIND(h, bz2.decompress, "BZ2_bzDecompress") &&
	       BIND(h, bz2.decompress_end, "BZ2_bzDecompressEnd");
}

static struct codec_lzo lzo;

static bool bind_lzo(void *h, const char **missing)
{
	return BIND(h, lzo.init_v2, "__lzo_init_v2") &&
	       BIND(h, lzo.decompress_safe, "lzo1x_decompress_safe") &&
	       BIND(h, lzo.adler32, "lzo_adler32");
}

static void load(struct codec_lib *lib)
{
	void *h = dlopen(lib->soname, RTLD_NOW | RTLD_LOCAL);
	const char *missing = NULL;

	if (!h) {
		snprintf(lib->why, sizeof(lib->why), "%s", dlerror());
		return;
	}
	if (!lib->bind(h, &missing)) {
		snprintf(lib->why, sizeof(lib->why), "%s has no %s", lib->soname,
			 missing);
		dlclose(h);
		return;
	}
	lib->ok = true; /* never closed: its functions stay in use */
}

static bool loaded(struct codec_lib *lib, const char *what, struct kp_err *err)
{
	bool ok;

	pthread_mutex_lock(&lib->lock);
	if (!lib->tried) {
		lib->tried = true;
		load(lib);
	}
	ok = lib->ok;
	pthread_mutex_unlock(&lib->lock);
	if (!ok)
		kp_errorf(err, ELIBACC, "%s: cannot load %s, which decoding it needs: %s",
			  what, lib->soname, lib->why);
	return ok;
}

#define CODEC_LIB(so, binder)                                                    \
	{                                                                        \
		.soname = so, .bind = binder, .lock = PTHREAD_MUTEX_INITIALIZER, \
	}

static struct codec_lib xz_lib = CODEC_LIB("liblzma.so.5", bind_xz);
static struct codec_lib bz2_lib = CODEC_LIB("libbz2.so.1.0", bind_bz2);
static struct codec_lib lzo_lib = CODEC_LIB("liblzo2.so.2", bind_lzo);

const struct codec_xz *codec_xz(const char *what, struct kp_err *err)
{
	return loaded(&xz_lib, what, err) ? &xz : NULL;
}

const struct codec_bz2 *codec_bz2(const char *what, struct kp_err *err)
{
	return loaded(&bz2_lib, what, err) ? &bz2 : NULL;
}

const struct codec_lzo *codec_lzo(const char *what, struct kp_err *err)
{
	return loaded(&lzo_lib, what, err) ? &lzo : NULL;
}
