// SPDX-License-Identifier: GPL-2.0
/* Strings from files and guests made safe for a terminal (lib/base/sanitize.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "base/base.h"

static void check(const char *in, const char *want)
{
	char out[64];

	sanitize(in, out, sizeof(out));
	if (strcmp(out, want))
		fail_msg("sanitize: got \"%s\", want \"%s\"", out, want);
}

static void test_c0_and_del(void **state)
{
	(void)state;
	check("a\033]0;title\007b", "a?]0;title?b");
	check("tab\there\nnl\r", "tab?here?nl?");
	check("del\x7f", "del?");
}

/* C1 in UTF-8 (0xC2 0x80..0x9F) is one '?'; the same code points' raw bytes too. */
static void test_c1(void **state)
{
	(void)state;
	check("csi\xc2\x9b"
	      "31m",
	      "csi?31m");
	check("osc\xc2\x9d"
	      "0;x\xc2\x9c",
	      "osc?0;x?");
	check("raw\x9b"
	      "31m\x9d",
	      "raw?31m?");
	check("\xc2\x80\xc2\x9f", "??");
}

static void test_utf8_kept(void **state)
{
	(void)state;
	check("caf\xc3\xa9", "caf\xc3\xa9");	       /* U+00E9 */
	check("\xc2\xa0nbsp", "\xc2\xa0nbsp");	       /* U+00A0: first after C1 */
	check("\xe2\x82\xac", "\xe2\x82\xac");	       /* U+20AC */
	check("\xf0\x9f\x98\x80", "\xf0\x9f\x98\x80"); /* U+1F600 */
}

static void test_malformed_utf8(void **state)
{
	(void)state;
	check("\xc0\x9b", "??");	   /* overlong CSI */
	check("\xe0\x82\x9b", "???");	   /* overlong CSI, three bytes */
	check("\xed\xa0\x80", "???");	   /* surrogate */
	check("\xf4\x90\x80\x80", "????"); /* beyond U+10FFFF */
	check("\xe2\x82", "??");	   /* truncated */
	check("\xe2\x82x", "??x");
	check("\x80\xbf", "??"); /* lone continuation bytes */
}

/* Truncation keeps whole characters only. */
static void test_truncation(void **state)
{
	(void)state;
	char out[5];

	sanitize("ab\xe2\x82\xac", out, sizeof(out));
	assert_string_equal(out, "ab");
	sanitize("abcdef", out, sizeof(out));
	assert_string_equal(out, "abcd");
	sanitize(NULL, out, sizeof(out));
	assert_string_equal(out, "");
	assert_int_equal(sanitize_char_len("\xc2\x9b"), 0);
	assert_int_equal(sanitize_char_len("\xc3\xa9"), 2);
}

/*
 * Long names go eight bytes at a time: a byte outside printable ASCII is
 * caught at every place in a word, and each byte value is judged alone.
 */
static void test_every_byte_at_every_place(void **state)
{
	(void)state;
	for (int b = 1; b < 256; b++)
		for (size_t at = 0; at < 20; at++) {
			char in[32], want[32], out[64];
			size_t n;

			memset(in, 'a' + (int)(at % 26), 24);
			in[24] = '\0';
			memcpy(want, in, 25);
			in[at] = (char)b;
			want[at] = b >= 0x20 && b < 0x7f ? (char)b : '?';
			n = sanitize(in, out, sizeof(out));
			if (strcmp(out, want) || n != strlen(want))
				fail_msg("byte %#x at %zu: got '%s' (%zu)", b, at, out,
					 n);
		}
}

/* Truncation at every size, with a whole character or none of it. */
static void test_truncation_every_size(void **state)
{
	static const char in[] = "abcdefghij\xe2\x82\xacklmnopqrstuvwxyz0123456789";
	(void)state;

	for (size_t size = 1; size <= sizeof(in) + 1; size++) {
		char out[64], want[64];
		size_t keep = size - 1, n;

		/* The euro sign takes bytes 10..12: all of it fits or none. */
		if (keep > 10 && keep < 13)
			keep = 10;
		if (keep > sizeof(in) - 1)
			keep = sizeof(in) - 1;
		memcpy(want, in, keep);
		want[keep] = '\0';
		n = sanitize(in, out, size);
		if (strcmp(out, want) || n != keep)
			fail_msg("size %zu: got '%s' (%zu), want '%s'", size, out, n,
				 want);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_c0_and_del),
		cmocka_unit_test(test_c1),
		cmocka_unit_test(test_utf8_kept),
		cmocka_unit_test(test_malformed_utf8),
		cmocka_unit_test(test_truncation),
		cmocka_unit_test(test_every_byte_at_every_place),
		cmocka_unit_test(test_truncation_every_size),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
