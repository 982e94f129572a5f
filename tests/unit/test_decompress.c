// SPDX-License-Identifier: GPL-2.0
/*
 * kp_decompress(): every format round-trips, with and without the 4-byte
 * bzImage size trailer or other trailing bytes; truncated, corrupt and
 * oversized inputs fail with an error, never a crash. Test data is compressed
 * at test time with the libraries (always available to the build) and with
 * the command-line tools the kernel build uses, which scripts/deps.sh installs.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include <bzlib.h>
#include <errno.h>
#include <lz4.h>
#include <lz4frame.h>
#include <lz4hc.h>
#include <lzma.h>
#include <lzo/lzo1x.h>
#include <zlib.h>
#include <zstd.h>

#include "ksym/ksym.h"

/* Larger than one 8 MiB legacy lz4 block, so that format gets two blocks. */
#define BIG_SIZE   ((9U << 20) + 12345)
#define SMALL_SIZE (300U * 1024 + 7)

struct blob {
	unsigned char *p;
	size_t len;
};

struct sample {
	enum kp_comp comp;
	const char *name;
	struct blob z;
	const struct blob *orig;
	bool checksummed; /* the format detects corrupt data by itself */
};

static struct blob small, big;

/* Compressible, deterministic, not trivially repetitive: like a kernel's mix. */
static struct blob make_data(size_t len, uint32_t seed)
{
	static const char *const words[] = {
		"kallsyms",
		"_text",
		"do_syscall_64",
		"\x90\x90\x90",
		"entry_",
		"0000",
		"\xe8\x00\x00\x00\x00",
		"sched",
		"__pfx_",
		"\xf3\x0f\x1e\xfa",
		"vmlinux",
	};
	struct blob b = {malloc(len), len};
	size_t i = 0;

	assert_non_null(b.p);
	while (i < len) {
		const char *w;
		size_t n;

		seed = seed * 1103515245 + 12345;
		if ((seed >> 16) % 7 == 0) {
			b.p[i++] = (unsigned char)(seed >> 24);
			continue;
		}
		w = words[(seed >> 16) % (sizeof(words) / sizeof(words[0]))];
		n = strlen(w);
		if (n > len - i)
			n = len - i;
		memcpy(b.p + i, w, n);
		i += n;
	}
	return b;
}

static void put_be32(unsigned char *p, uint32_t v)
{
	p[0] = (unsigned char)(v >> 24);
	p[1] = (unsigned char)(v >> 16);
	p[2] = (unsigned char)(v >> 8);
	p[3] = (unsigned char)v;
}

/* ---- compressors ---- */

static struct blob gzip_lib(const struct blob *in)
{
	struct blob out = {malloc(compressBound(in->len) + 64), 0};
	z_stream zs = {0};

	assert_int_equal(
		deflateInit2(&zs, 9, Z_DEFLATED, 16 + MAX_WBITS, 9, Z_DEFAULT_STRATEGY),
		Z_OK);
	zs.next_in = in->p;
	zs.avail_in = (uInt)in->len;
	zs.next_out = out.p;
	zs.avail_out = (uInt)(compressBound(in->len) + 64);
	assert_int_equal(deflate(&zs, Z_FINISH), Z_STREAM_END);
	out.len = zs.total_out;
	deflateEnd(&zs);
	return out;
}

static struct blob xz_lib(const struct blob *in, bool alone)
{
	size_t cap = lzma_stream_buffer_bound(in->len) + 1024;
	struct blob out = {malloc(cap), 0};
	lzma_stream ls = LZMA_STREAM_INIT;
	lzma_options_lzma opt;

	if (!alone) {
		/* As the kernel's scripts/xz_wrap.sh: crc32 check. */
		assert_int_equal(lzma_easy_buffer_encode(6, LZMA_CHECK_CRC32, NULL, in->p,
							 in->len, out.p, &out.len, cap),
				 LZMA_OK);
		return out;
	}
	lzma_lzma_preset(&opt, 6);
	assert_int_equal(lzma_alone_encoder(&ls, &opt), LZMA_OK);
	ls.next_in = in->p;
	ls.avail_in = in->len;
	ls.next_out = out.p;
	ls.avail_out = cap;
	assert_int_equal(lzma_code(&ls, LZMA_FINISH), LZMA_STREAM_END);
	out.len = cap - ls.avail_out;
	lzma_end(&ls);
	return out;
}

/* @known_size false: like `cat ... | zstd`, the frame does not say its size. */
static struct blob zstd_lib(const struct blob *in, bool known_size)
{
	size_t cap = ZSTD_compressBound(in->len);
	struct blob out = {malloc(cap), 0};
	ZSTD_CCtx *cctx = ZSTD_createCCtx();

	ZSTD_CCtx_setParameter(cctx, ZSTD_c_compressionLevel, 9);
	ZSTD_CCtx_setParameter(cctx, ZSTD_c_checksumFlag, 1);
	ZSTD_CCtx_setParameter(cctx, ZSTD_c_contentSizeFlag, known_size);
	if (known_size) {
		out.len = ZSTD_compress2(cctx, out.p, cap, in->p, in->len);
	} else {
		ZSTD_inBuffer zin = {in->p, in->len, 0};
		ZSTD_outBuffer zout = {out.p, cap, 0};

		assert_int_equal(ZSTD_compressStream2(cctx, &zout, &zin, ZSTD_e_end), 0);
		out.len = zout.pos;
	}
	assert_false(ZSTD_isError(out.len));
	ZSTD_freeCCtx(cctx);
	return out;
}

/* The kernel's legacy lz4 framing, as `lz4 -l` writes it. */
static struct blob lz4_legacy_lib(const struct blob *in)
{
	const size_t block = 8U << 20;
	struct blob out = {malloc(4 + in->len + in->len / 64 + 1024), 4};

	out.p[0] = 0x02, out.p[1] = 0x21, out.p[2] = 0x4c, out.p[3] = 0x18;
	for (size_t pos = 0; pos < in->len; pos += block) {
		int n = (int)(in->len - pos < block ? in->len - pos : block);
		int c = LZ4_compress_HC((const char *)in->p + pos,
					(char *)out.p + out.len + 4, n,
					LZ4_compressBound(n), 9);

		assert_true(c > 0);
		out.p[out.len] = (unsigned char)c;
		out.p[out.len + 1] = (unsigned char)(c >> 8);
		out.p[out.len + 2] = (unsigned char)(c >> 16);
		out.p[out.len + 3] = (unsigned char)(c >> 24);
		out.len += 4 + (size_t)c;
	}
	return out;
}

static struct blob lz4_frame_lib(const struct blob *in)
{
	LZ4F_preferences_t prefs = {0};
	size_t cap;
	struct blob out;

	prefs.frameInfo.contentChecksumFlag = LZ4F_contentChecksumEnabled;
	cap = LZ4F_compressFrameBound(in->len, &prefs);
	out.p = malloc(cap);
	out.len = LZ4F_compressFrame(out.p, cap, in->p, in->len, &prefs);
	assert_false(LZ4F_isError(out.len));
	return out;
}

static struct blob bzip2_lib(const struct blob *in)
{
	unsigned int cap = (unsigned int)(in->len + in->len / 100 + 600);
	struct blob out = {malloc(cap), 0};

	assert_int_equal(BZ2_bzBuffToBuffCompress((char *)out.p, &cap, (char *)in->p,
						  (unsigned int)in->len, 9, 0, 0),
			 BZ_OK);
	out.len = cap;
	return out;
}

/* An lzop container as `lzop -9` writes it: version 0x1040, adler32 of the data. */
static size_t lzop_header(unsigned char *p)
{
	static const unsigned char magic[9] = {0x89, 'L',  'Z',	 'O', 0,
					       '\r', '\n', 0x1a, '\n'};
	size_t n = 0;

	memcpy(p, magic, 9);
	n = 9;
	p[n++] = 0x10, p[n++] = 0x40; /* version */
	p[n++] = 0x20, p[n++] = 0xa0; /* library version */
	p[n++] = 0x09, p[n++] = 0x40; /* needed to extract */
	p[n++] = 3;		      /* M_LZO1X_999 */
	p[n++] = 9;		      /* level */
	put_be32(p + n, 0x03000001);  /* F_OS_UNIX | F_ADLER32_D */
	n += 4;
	memset(p + n, 0, 12); /* mode, mtime low, mtime high */
	n += 12;
	p[n++] = 0; /* no file name */
	put_be32(p + n, lzo_adler32(1, p + 9, (lzo_uint)(n - 9)));
	return n + 4;
}

static struct blob lzop_lib(const struct blob *in)
{
	const size_t block = 256 * 1024;
	struct blob out = {
		malloc(64 + in->len + in->len / 16 + 64 * (in->len / block + 1)), 0};
	void *wrk = malloc(LZO1X_999_MEM_COMPRESS);

	assert_int_equal(lzo_init(), LZO_E_OK);
	out.len = lzop_header(out.p);
	for (size_t pos = 0; pos < in->len; pos += block) {
		lzo_uint n = in->len - pos < block ? in->len - pos : block, c;
		unsigned char *hdr = out.p + out.len;

		assert_int_equal(lzo1x_999_compress(in->p + pos, n, hdr + 12, &c, wrk),
				 LZO_E_OK);
		if (c >= n) { /* incompressible: stored */
			memcpy(hdr + 12, in->p + pos, n);
			c = n;
		}
		put_be32(hdr, (uint32_t)n);
		put_be32(hdr + 4, (uint32_t)c);
		put_be32(hdr + 8, lzo_adler32(1, in->p + pos, n));
		out.len += 12 + c;
	}
	put_be32(out.p + out.len, 0);
	out.len += 4;
	free(wrk);
	return out;
}

/* ---- fixtures ---- */

static struct sample samples[10];
static size_t nsamples;

static void add(enum kp_comp comp, const char *name, struct blob z,
		const struct blob *orig, bool checksummed)
{
	samples[nsamples++] = (struct sample){comp, name, z, orig, checksummed};
}

static int setup(void **state)
{
	small = make_data(SMALL_SIZE, 1);
	big = make_data(BIG_SIZE, 2);
	add(KP_COMP_GZIP, "gzip", gzip_lib(&small), &small, true);
	add(KP_COMP_XZ, "xz", xz_lib(&small, false), &small, true);
	add(KP_COMP_LZMA, "lzma", xz_lib(&small, true), &small, false);
	add(KP_COMP_ZSTD, "zstd (size in frame)", zstd_lib(&small, true), &small, true);
	add(KP_COMP_ZSTD, "zstd (streamed)", zstd_lib(&small, false), &small, true);
	add(KP_COMP_LZ4, "lz4 legacy", lz4_legacy_lib(&big), &big, false);
	add(KP_COMP_LZ4, "lz4 frame", lz4_frame_lib(&small), &small, true);
	add(KP_COMP_BZIP2, "bzip2", bzip2_lib(&small), &small, true);
	add(KP_COMP_LZO, "lzop", lzop_lib(&small), &small, true);
	return 0;
}

static int teardown(void **state)
{
	for (size_t i = 0; i < nsamples; i++)
		free(samples[i].z.p);
	free(small.p);
	free(big.p);
	return 0;
}

static void expect_roundtrip(const struct sample *s, const unsigned char *in, size_t len)
{
	struct kp_err err = {0};
	void *out = NULL;
	size_t out_len = 0;
	int ret =
		kp_decompress(s->comp, in, len, KP_DECOMPRESS_MAX, &out, &out_len, &err);

	if (ret)
		fail_msg("%s: %s", s->name, err.msg);
	assert_int_equal(out_len, s->orig->len);
	assert_memory_equal(out, s->orig->p, out_len);
	free(out);
}

static void expect_failure(const struct sample *s, const unsigned char *in, size_t len,
			   const char *what)
{
	struct kp_err err = {0};
	void *out = (void *)1;
	size_t out_len = 1;
	int ret =
		kp_decompress(s->comp, in, len, KP_DECOMPRESS_MAX, &out, &out_len, &err);

	if (ret >= 0)
		fail_msg("%s %s: decompressed %zu bytes instead of failing", s->name,
			 what, out_len);
	assert_null(out);
	assert_int_equal(out_len, 0);
	assert_int_equal(err.code, -ret);
	/* The message names the format, so the user knows what was being read. */
	assert_non_null(strstr(err.msg, kp_comp_name(s->comp)));
}

/* ---- tests ---- */

static void test_detect(void **state)
{
	for (size_t i = 0; i < nsamples; i++)
		assert_int_equal(kp_comp_detect(samples[i].z.p, samples[i].z.len),
				 samples[i].comp);
	assert_int_equal(kp_comp_detect("\x7f"
					"ELF\2\1\1",
					7),
			 KP_COMP_NONE);
	assert_int_equal(kp_comp_detect("", 0), KP_COMP_NONE);
	assert_int_equal(kp_comp_detect("\x1f", 1), KP_COMP_NONE);
	assert_string_equal(kp_comp_name(KP_COMP_ZSTD), "zstd");
}

static void test_roundtrip(void **state)
{
	for (size_t i = 0; i < nsamples; i++)
		expect_roundtrip(&samples[i], samples[i].z.p, samples[i].z.len);
}

/* bzImage payloads end with the le32 decompressed size; other junk may follow too. */
static void test_trailing_data(void **state)
{
	static const unsigned char junk[] = "\x12\x34\x56\x78 trailing junk \xff\x00\x01";

	for (size_t i = 0; i < nsamples; i++) {
		const struct sample *s = &samples[i];
		unsigned char *p = malloc(s->z.len + sizeof(junk));
		uint32_t size = (uint32_t)s->orig->len;

		memcpy(p, s->z.p, s->z.len);
		memcpy(p + s->z.len, &size, 4);
		expect_roundtrip(s, p, s->z.len + 4);
		memcpy(p + s->z.len, junk, sizeof(junk));
		expect_roundtrip(s, p, s->z.len + sizeof(junk));
		free(p);
	}
}

static void test_truncated(void **state)
{
	for (size_t i = 0; i < nsamples; i++) {
		const struct sample *s = &samples[i];
		const size_t cuts[] = {
			1, 5, 12, s->z.len / 3, s->z.len / 2, s->z.len - 9, s->z.len - 1};

		for (size_t k = 0; k < sizeof(cuts) / sizeof(cuts[0]); k++) {
			unsigned char *p = malloc(cuts[k]);

			/* A copy of exactly the cut length, so ASan sees any overread. */
			memcpy(p, s->z.p, cuts[k]);
			expect_failure(s, p, cuts[k], "truncated");
			free(p);
		}
	}
}

/* Checksummed formats must notice a flipped byte in the middle of the data. */
static void test_corrupt_checksummed(void **state)
{
	for (size_t i = 0; i < nsamples; i++) {
		const struct sample *s = &samples[i];
		unsigned char *p;

		if (!s->checksummed)
			continue;
		p = malloc(s->z.len);
		memcpy(p, s->z.p, s->z.len);
		p[s->z.len / 2] ^= 0x55;
		expect_failure(s, p, s->z.len, "corrupt");
		free(p);
	}
}

/* Formats without checksums must still reject impossible headers and sizes. */
static void test_corrupt_headers(void **state)
{
	for (size_t i = 0; i < nsamples; i++) {
		const struct sample *s = &samples[i];
		unsigned char *p = malloc(s->z.len);

		memcpy(p, s->z.p, s->z.len);
		if (s->comp == KP_COMP_LZ4 && p[0] == 0x02)
			p[4] = p[5] = p[6] = 0xff, p[7] = 0x7f; /* block size > bound */
		else if (s->comp == KP_COMP_LZMA)
			p[0] = 0xff; /* lc/lp/pb out of range */
		else
			memset(p + 4, 0xa5, 8); /* right magic, garbage header */
		expect_failure(s, p, s->z.len, "with a corrupt header");
		free(p);
	}
}

/* Random damage: any outcome is fine except a crash, a hang or a leak. */
static void test_corrupt_random(void **state)
{
	uint32_t seed = 42;

	for (size_t i = 0; i < nsamples; i++) {
		const struct sample *s = &samples[i];

		if (s->orig == &big) /* keep the test quick */
			continue;
		for (int round = 0; round < 40; round++) {
			unsigned char *p = malloc(s->z.len);
			struct kp_err err = {0};
			size_t out_len;
			void *out;
			int ret;

			memcpy(p, s->z.p, s->z.len);
			for (int k = 0; k < 1 + round % 4; k++) {
				seed = seed * 1103515245 + 12345;
				p[(seed >> 8) % s->z.len] ^=
					(unsigned char)(1 + (seed >> 24) % 255);
			}
			ret = kp_decompress(s->comp, p, s->z.len, 4 * s->orig->len, &out,
					    &out_len, &err);
			assert_true(ret == 0 || (ret < 0 && err.msg[0]));
			if (!ret)
				free(out);
			free(p);
		}
	}
}

static void test_max_out(void **state)
{
	for (size_t i = 0; i < nsamples; i++) {
		const struct sample *s = &samples[i];
		struct kp_err err = {0};
		size_t out_len;
		void *out;
		int ret;

		ret = kp_decompress(s->comp, s->z.p, s->z.len, s->orig->len - 1, &out,
				    &out_len, &err);
		assert_int_equal(ret, -EFBIG);
		assert_non_null(strstr(err.msg, "exceeds the limit"));
		kp_err_clear(&err);
		ret = kp_decompress(s->comp, s->z.p, s->z.len, s->orig->len, &out,
				    &out_len, &err);
		if (ret)
			fail_msg("%s at exactly max_out: %s", s->name, err.msg);
		assert_int_equal(out_len, s->orig->len);
		free(out);
	}
}

/*
 * kp_decompress_sized(): a caller's expected size (a bzImage's trailer) sizes
 * the output and lets a zstd frame without its own size be decoded in one
 * pass; a wrong one, or one over the limit, changes nothing but speed.
 */
static void test_size_hint(void **state)
{
	for (size_t i = 0; i < nsamples; i++) {
		const struct sample *s = &samples[i];
		size_t n = s->orig->len, hints[] = {n, n - 1, n + 1, 2 * n, 1, 0};
		unsigned char *p = malloc(s->z.len + 4);
		uint32_t size = (uint32_t)n;
		struct kp_err err = {0};
		size_t out_len;
		void *out;
		int ret;

		memcpy(p, s->z.p, s->z.len);
		memcpy(p + s->z.len, &size, 4);
		for (size_t h = 0; h < sizeof(hints) / sizeof(hints[0]); h++) {
			ret = kp_decompress_sized(s->comp, p, s->z.len + 4, n, hints[h],
						  &out, &out_len, &err);
			if (ret)
				fail_msg("%s, hint %zu of %zu: %s", s->name, hints[h], n,
					 err.msg);
			assert_int_equal(out_len, n);
			assert_memory_equal(out, s->orig->p, n);
			free(out);
		}
		/* The limit holds whatever the hint says. */
		ret = kp_decompress_sized(s->comp, p, s->z.len + 4, n - 1, n, &out,
					  &out_len, &err);
		assert_int_equal(ret, -EFBIG);
		kp_err_clear(&err);
		ret = kp_decompress_sized(s->comp, p, s->z.len + 4, n - 1, n - 1, &out,
					  &out_len, &err);
		assert_int_equal(ret, -EFBIG);
		kp_err_clear(&err);
		free(p);
	}
}

static void test_edge_inputs(void **state)
{
	struct kp_err err = {0};
	size_t out_len;
	void *out;

	assert_int_equal(kp_decompress(KP_COMP_XZ, "", 0, 100, &out, &out_len, &err),
			 -EBADMSG);
	kp_err_clear(&err);
	assert_int_equal(kp_decompress(KP_COMP_NONE, "abc", 3, 100, &out, &out_len, &err),
			 0);
	assert_int_equal(out_len, 3);
	assert_memory_equal(out, "abc", 3);
	free(out);
	assert_int_equal(kp_decompress(KP_COMP_NONE, "abc", 3, 2, &out, &out_len, &err),
			 -EFBIG);
	kp_err_clear(&err);
	assert_int_equal(
		kp_decompress((enum kp_comp)99, "abc", 3, 100, &out, &out_len, &err),
		-ENOTSUP);
	/* Magic and nothing else. */
	assert_true(kp_decompress(KP_COMP_LZO, "\x89LZO\0\r\n\x1a\n", 9, 100, &out,
				  &out_len, NULL) < 0);
	assert_true(kp_decompress(KP_COMP_LZ4, "\x02\x21\x4c\x18", 4, 100, &out, &out_len,
				  NULL) == 0);
	assert_int_equal(out_len, 0);
	free(out);
}

/*
 * Legacy lz4 has no end marker: a short block ends it. Data that is a whole
 * number of 8 MiB blocks ends at a size field with nothing after it, which
 * is exactly what the bzImage size trailer looks like.
 */
static void test_lz4_legacy_whole_blocks(void **state)
{
	struct blob data = make_data(8U << 20, 3), z = lz4_legacy_lib(&data);
	struct sample s = {KP_COMP_LZ4, "lz4 legacy, one full block", z, &data, false};
	unsigned char *p = malloc(z.len + 4);
	uint32_t size = (uint32_t)data.len;

	memcpy(p, z.p, z.len);
	memcpy(p + z.len, &size, 4);
	expect_roundtrip(&s, p, z.len);
	expect_roundtrip(&s, p, z.len + 4);
	/* A size field cut short after a full block is truncation. */
	expect_failure(&s, p, z.len + 2, "cut in a size field");
	free(p);
	free(z.p);
	free(data.p);
}

/* ---- the command-line tools, as the kernel's build runs them ---- */

static bool have_tool(const char *tool)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "command -v %s >/dev/null 2>&1", tool);
	return system(cmd) == 0;
}

/* Add @tool to the space-separated @list once. */
static void note_missing(char *list, size_t size, const char *tool)
{
	size_t len = strlen(list);

	if (!strstr(list, tool))
		snprintf(list + len, size - len, " %s", tool);
}

static struct blob run_tool(const char *dir, const char *cmd)
{
	char line[512], path[256];
	struct blob out = {NULL, 0};
	FILE *f;
	long n;

	snprintf(path, sizeof(path), "%s/out", dir);
	snprintf(line, sizeof(line), "cd %s && %s < in > out", dir, cmd);
	assert_int_equal(system(line), 0);
	f = fopen(path, "rb");
	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	out.p = malloc((size_t)n + 1);
	out.len = fread(out.p, 1, (size_t)n, f);
	fclose(f);
	return out;
}

static void write_input(const char *dir, const struct blob *in)
{
	char path[64];
	FILE *f;

	snprintf(path, sizeof(path), "%s/in", dir);
	f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(in->p, 1, in->len, f), in->len);
	fclose(f);
}

static void test_tools(void **state)
{
	/* The kernel's options (scripts/Makefile.lib), on a pipe as its build does. */
	static const struct {
		const char *tool, *cmd;
		enum kp_comp comp;
		bool big; /* enough data for several blocks */
	} tools[] = {
		{"gzip", "gzip -n -9", KP_COMP_GZIP, false},
		{"xz", "xz --check=crc32 --x86 --lzma2=preset=6,dict=4MiB", KP_COMP_XZ,
		 false},
		{"lzma", "lzma -9", KP_COMP_LZMA, false},
		{"zstd", "zstd -q -19", KP_COMP_ZSTD, false},
		{"lz4", "lz4 -q -l -9 --favor-decSpeed", KP_COMP_LZ4, true},
		{"lz4", "lz4 -q -9", KP_COMP_LZ4, false},
		{"bzip2", "bzip2 -9", KP_COMP_BZIP2, false},
		{"lzop", "lzop -9", KP_COMP_LZO, false},
	};
	char dir[] = "/tmp/kvmprof-test-XXXXXX", path[64], missing[128] = "";

	assert_non_null(mkdtemp(dir));
	for (size_t i = 0; i < sizeof(tools) / sizeof(tools[0]); i++) {
		const struct blob *in = tools[i].big ? &big : &small;
		struct sample s = {tools[i].comp, tools[i].cmd, {NULL, 0}, in, true};

		/* Test the others first, then fail naming every missing tool. */
		if (!have_tool(tools[i].tool)) {
			note_missing(missing, sizeof(missing), tools[i].tool);
			continue;
		}
		write_input(dir, in);
		s.z = run_tool(dir, tools[i].cmd);
		assert_int_equal(kp_comp_detect(s.z.p, s.z.len), s.comp);
		expect_roundtrip(&s, s.z.p, s.z.len);
		free(s.z.p);
	}
	snprintf(path, sizeof(path), "rm -rf %s", dir);
	assert_int_equal(system(path), 0);
	if (missing[0])
		fail_msg("not installed:%s (scripts/deps.sh installs them)", missing);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_detect),
		cmocka_unit_test(test_roundtrip),
		cmocka_unit_test(test_trailing_data),
		cmocka_unit_test(test_truncated),
		cmocka_unit_test(test_corrupt_checksummed),
		cmocka_unit_test(test_corrupt_headers),
		cmocka_unit_test(test_corrupt_random),
		cmocka_unit_test(test_max_out),
		cmocka_unit_test(test_size_hint),
		cmocka_unit_test(test_edge_inputs),
		cmocka_unit_test(test_lz4_legacy_whole_blocks),
		cmocka_unit_test(test_tools),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
