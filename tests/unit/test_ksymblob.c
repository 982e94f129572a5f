// SPDX-License-Identifier: GPL-2.0
/*
 * The embedded host symbol table: what goes in comes out, from the LZ4
 * frames written now and the zstd frames of earlier files, and damaged
 * blobs fail with a message.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>
#include <cmocka.h>

#include "ksym/ksym.h"
#include "perf/perf.h"
#include "symtab_fixture.h"

static void assert_same(const struct symtab *a, const struct symtab *b)
{
	assert_same_symbols(a, b);
	assert_string_equal(symtab_lookup(b, 0xffffffff81001010ULL, 0, NULL)->name,
			    "do_syscall_64");
	assert_string_equal(symtab_lookup(b, 0xffffffffc0001004ULL, 0, NULL)->module,
			    "kvm");
}

static void test_roundtrip_lz4(void **state)
{
	struct symtab *st = sample_kernel_table(), *back;
	struct kp_err err = {0};
	void *blob;
	size_t len;

	(void)state;
	assert_int_equal(ksymblob_encode(st, &blob, &len), 0);
	assert_memory_equal(blob, "\x04\x22\x4d\x18", 4); /* an LZ4 frame */
	assert_int_equal(ksymblob_decode(blob, len, "t", &back, &err), 0);
	assert_same(st, back);
	symtab_free(back);
	free(blob);
	symtab_free(st);
}

/* Files recorded before LZ4 hold the same layout in a zstd frame. */
static void test_zstd_of_earlier_files(void **state)
{
	struct symtab *st = sample_kernel_table(), *back;
	struct kp_err err = {0};
	void *blob, *raw, *z;
	size_t len, raw_len, zlen;

	(void)state;
	assert_int_equal(ksymblob_encode(st, &blob, &len), 0);
	assert_int_equal(
		kp_decompress(KP_COMP_LZ4, blob, len, 1 << 20, &raw, &raw_len, &err), 0);
	z = malloc(ZSTD_compressBound(raw_len));
	zlen = ZSTD_compress(z, ZSTD_compressBound(raw_len), raw, raw_len, 3);
	assert_false(ZSTD_isError(zlen));
	assert_int_equal(ksymblob_decode(z, zlen, "t", &back, &err), 0);
	assert_same(st, back);
	symtab_free(back);
	free(z);
	free(raw);
	free(blob);
	symtab_free(st);
}

static void test_damaged(void **state)
{
	struct symtab *st = sample_kernel_table(), *back;
	void *blob;
	size_t len;

	(void)state;
	assert_int_equal(ksymblob_encode(st, &blob, &len), 0);
	for (size_t cut = 1; cut < len; cut += 7) {
		struct kp_err err = {0};

		assert_true(ksymblob_decode(blob, cut, "damaged", &back, &err) < 0);
		assert_non_null(strstr(err.msg, "damaged"));
	}
	((uint8_t *)blob)[len / 2] ^= 0x55;
	{
		struct kp_err err = {0};
		int ret = ksymblob_decode(blob, len, "flipped", &back, &err);

		/* LZ4 frames here carry no checksum: garbage may decode, but safely. */
		if (!ret)
			symtab_free(back);
	}
	free(blob);
	symtab_free(st);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_roundtrip_lz4),
		cmocka_unit_test(test_zstd_of_earlier_files),
		cmocka_unit_test(test_damaged),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
