// SPDX-License-Identifier: GPL-2.0
/*
 * Decompression bombs given to the symbol loader as modules: a small
 * .ko.zst, .ko.xz or .ko.gz that states or expands to far more than the
 * limit the caller passes. Each is refused with an error naming the file
 * and the limit, and a stated size over the limit is refused before
 * anything is allocated. Each case runs in a child process whose peak RSS
 * growth is measured (as in test_perfdata_limits.c).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <lzma.h>
#include <zlib.h>
#include <zstd.h>
#include <cmocka.h>

#include "measured.h"

#include "base/base.h"
#include "ksym/ksym.h"
#include "testutil.h"

#define CHUNK (1U << 20)
#define LIMIT (16ULL << 20)
#define BOMB  (64ULL << 20)
/* Peak RSS growth allowed when a stated size is refused up front. */
#define RSS_UPFRONT_KB (4 * 1024)
/* ... and when the size is only found out by decompressing up to the limit. */
#define RSS_CAPPED_KB ((LIMIT >> 10) + 8 * 1024)

static char dir[] = "/tmp/kvmprof-symlim.XXXXXX";
static char path[64];
static uint64_t limit;

static void load_path(struct outcome *o)
{
	struct kp_err err = {0};
	struct symtab *st = NULL;

	o->ret = symsrc_load_file(path, limit, &st, NULL, &err);
	symtab_free(st);
	snprintf(o->msg, sizeof(o->msg), "%s", err.msg);
}

/* Load @path in a child: a bomb that goes off there cannot take the test with it. */
static struct outcome measured(void)
{
	return measured_run(load_path, "loaded");
}

static void expect_refused(struct outcome o, long rss_max_kb)
{
	char lim[32];

	snprintf(lim, sizeof(lim), "%llu", (unsigned long long)limit);
	assert_int_equal(o.ret, -EFBIG);
	assert_non_null(strstr(o.msg, path));
	assert_non_null(strstr(o.msg, lim));
	/*
	 * Under AddressSanitizer realloc() copies where glibc's remaps a large
	 * block, so a buffer grown by doubling is resident twice over: the
	 * bound is the plain build's (make check), not the sanitizer's.
	 */
#ifndef __SANITIZE_ADDRESS__
	assert_true(o.rss_kb < rss_max_kb);
#else
	(void)rss_max_kb;
#endif
}

static FILE *create(const char *name)
{
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	return f;
}

/* @size zero bytes as one zstd frame; @declared: with its content size. */
static void write_zstd(const char *name, uint64_t size, bool declared)
{
	ZSTD_CCtx *cc = ZSTD_createCCtx();
	static char in[CHUNK], out[CHUNK];
	FILE *f = create(name);

	assert_non_null(cc);
	ZSTD_CCtx_setParameter(cc, ZSTD_c_contentSizeFlag, declared);
	if (declared)
		ZSTD_CCtx_setPledgedSrcSize(cc, size);
	for (uint64_t done = 0; done < size; done += CHUNK) {
		ZSTD_inBuffer ib = {in, CHUNK, 0};
		bool last = done + CHUNK >= size;
		size_t left;

		do {
			ZSTD_outBuffer ob = {out, sizeof(out), 0};

			left = ZSTD_compressStream2(cc, &ob, &ib,
						    last ? ZSTD_e_end : ZSTD_e_continue);
			assert_false(ZSTD_isError(left));
			fwrite(out, 1, ob.pos, f);
		} while (ib.pos < ib.size || (last && left));
	}
	ZSTD_freeCCtx(cc);
	assert_int_equal(fclose(f), 0);
}

static void write_xz(const char *name, uint64_t size)
{
	lzma_stream s = LZMA_STREAM_INIT;
	static uint8_t in[CHUNK], out[CHUNK];
	FILE *f = create(name);
	lzma_ret r;

	assert_int_equal(lzma_easy_encoder(&s, 0, LZMA_CHECK_CRC32), LZMA_OK);
	for (uint64_t done = 0; done <= size; done += CHUNK) {
		lzma_action a = done < size ? LZMA_RUN : LZMA_FINISH;

		s.next_in = in;
		s.avail_in = done < size ? CHUNK : 0;
		do {
			s.next_out = out;
			s.avail_out = sizeof(out);
			r = lzma_code(&s, a);
			assert_true(r == LZMA_OK || r == LZMA_STREAM_END);
			fwrite(out, 1, sizeof(out) - s.avail_out, f);
		} while (s.avail_in || (a == LZMA_FINISH && r != LZMA_STREAM_END));
	}
	lzma_end(&s);
	assert_int_equal(fclose(f), 0);
}

static void write_gzip(const char *name, uint64_t size)
{
	static char in[CHUNK];
	gzFile gz;

	fclose(create(name));
	gz = gzopen(path, "wb9");
	assert_non_null(gz);
	for (uint64_t done = 0; done < size; done += CHUNK)
		assert_int_equal(gzwrite(gz, in, CHUNK), CHUNK);
	assert_int_equal(gzclose(gz), Z_OK);
}

/* The case from the field: 32 KB of .ko.zst stating 1 GiB, under kvmprof's default cap.
 */
static void test_zstd_gib_default_cap(void **state)
{
	write_zstd("big.ko.zst", 1ULL << 30, true);
	limit = SYMSRC_MAX_DEFAULT;
	expect_refused(measured(), RSS_UPFRONT_KB);
}

static void test_zstd_declared(void **state)
{
	write_zstd("bomb.ko.zst", BOMB, true);
	limit = LIMIT;
	expect_refused(measured(), RSS_UPFRONT_KB);
}

/* No content size in the frame: decompression stops at the limit. */
static void test_zstd_undeclared(void **state)
{
	write_zstd("quiet.ko.zst", BOMB, false);
	limit = LIMIT;
	expect_refused(measured(), RSS_CAPPED_KB);
}

static void test_xz_declared(void **state)
{
	write_xz("bomb.ko.xz", BOMB);
	limit = LIMIT;
	expect_refused(measured(), RSS_UPFRONT_KB);
}

static void test_gzip_declared(void **state)
{
	write_gzip("bomb.ko.gz", BOMB);
	limit = LIMIT;
	expect_refused(measured(), RSS_UPFRONT_KB);
}

/* What the formats state, read without decompressing. */
static void test_declared_sizes(void **state)
{
	static const char *names[] = {"s.zst", "s.xz", "s.gz"};
	uint64_t size = 0;

	write_zstd(names[0], 3 * CHUNK, true);
	write_xz(names[1], 3 * CHUNK);
	write_gzip(names[2], 3 * CHUNK);
	for (size_t i = 0; i < 3; i++) {
		size_t len;
		char *buf;
		struct kp_err err = {0};

		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		assert_int_equal(kp_read_file(path, 1 << 20, &buf, &len, &err), 0);
		assert_int_equal(
			kp_comp_declared_size(kp_comp_detect(buf, len), buf, len, &size),
			0);
		assert_int_equal(size, 3 * CHUNK);
		free(buf);
	}
	write_zstd("s2.zst", CHUNK, false);
	{
		size_t len;
		char *buf;
		struct kp_err err = {0};

		assert_int_equal(kp_read_file(path, 1 << 20, &buf, &len, &err), 0);
		assert_int_equal(kp_comp_declared_size(KP_COMP_ZSTD, buf, len, &size),
				 -ENODATA);
		free(buf);
	}
}

static int setup(void **state)
{
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	return sh("rm -rf '%s'", dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_zstd_gib_default_cap),
		cmocka_unit_test(test_zstd_declared),
		cmocka_unit_test(test_zstd_undeclared),
		cmocka_unit_test(test_xz_declared),
		cmocka_unit_test(test_gzip_declared),
		cmocka_unit_test(test_declared_sizes),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
