// SPDX-License-Identifier: GPL-2.0
/* /proc/kallsyms and System.map text parsing. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "ksym/ksym.h"

static const char proc_kallsyms[] = "ffffffff81000000 T _text\n"
				    "ffffffff81000000 T startup_64\n"
				    "ffffffff81e00000 T entry_SYSCALL_64\n"
				    "ffffffff81f00000 T _etext\n"
				    "ffffffffc0002000 t kvm_vcpu_ioctl\t[kvm]\n"
				    "ffffffffc0001000 t svm_vcpu_run\t[kvm_amd]\n";

static int parse(const char *text, struct symtab **out, struct kp_err *err)
{
	struct symtab *st = symtab_new();
	int ret = kallsyms_parse(text, strlen(text), "fixture", st, err);

	*out = st;
	return ret;
}

static void test_proc_kallsyms_modules(void **state)
{
	struct symtab *st;
	struct kp_err err = {0};
	const struct ksym *s;

	assert_int_equal(parse(proc_kallsyms, &st, &err), 0);
	assert_int_equal(st->nr, 6);
	s = symtab_lookup(st, 0xffffffffc0001010, 0, NULL);
	assert_string_equal(s->name, "svm_vcpu_run");
	assert_string_equal(s->module, "kvm_amd");
	s = symtab_lookup(st, 0xffffffffc0002000, 0, NULL);
	assert_string_equal(s->module, "kvm");
	assert_null(symtab_lookup(st, 0xffffffff81000010, 0, NULL)->module);
	assert_int_equal(st->text_start, 0xffffffff81000000);
	assert_int_equal(st->text_end, 0xffffffff81f00000);
	symtab_free(st);
}

static void test_debian_placeholder(void **state)
{
	struct symtab *st;
	struct kp_err err = {0};

	assert_int_equal(parse("ffffffffffffffff B The real System.map is in the "
			       "linux-image-<version>-dbg package\n",
			       &st, &err),
			 -ENODATA);
	assert_non_null(strstr(err.msg, "placeholder"));
	assert_non_null(strstr(err.msg, "fixture"));
	symtab_free(st);
}

static void test_unprivileged_zeros(void **state)
{
	struct symtab *st;
	struct kp_err err = {0};

	assert_int_equal(
		parse("0000000000000000 T _text\n0000000000000000 T foo\n", &st, &err),
		-EPERM);
	symtab_free(st);
}

static void test_malformed_line_named(void **state)
{
	struct symtab *st;
	struct kp_err err = {0};

	assert_int_equal(
		parse("ffffffff81000000 T _text\nthis is not a symbol\n", &st, &err),
		-EINVAL);
	assert_non_null(strstr(err.msg, "fixture:2"));
	symtab_free(st);
	kp_err_clear(&err);
	assert_int_equal(parse("ffffffff81000000 T name\t[unterminated\n", &st, &err),
			 -EINVAL);
	symtab_free(st);
	kp_err_clear(&err);
	assert_int_equal(parse("fffffffff81000000000 T too_long_address\n", &st, &err),
			 -EINVAL);
	symtab_free(st);
}

/* The address of symbol @name in @st, or 0. */
static uint64_t addr_of(const struct symtab *st, const char *name)
{
	for (size_t i = 0; i < st->nr; i++)
		if (!strcmp(st->syms[i].name, name))
			return st->syms[i].addr;
	return 0;
}

/*
 * Addresses of every width up to 16 digits, either case, each at the end
 * of a line or of the buffer; a 17th digit or a non-digit among the 16 is
 * a malformed line.
 */
static void test_address_forms(void **state)
{
	static const char *const bad[] = {
		"ffffffff810000001 T seventeen_digits\n",
		"ffffffff8100z000 T letter_inside\n",
		"ffffffff81000000x T letter_after\n",
		"ffffffff81000000",
	};
	struct symtab *st;
	struct kp_err err = {0};

	(void)state;
	assert_int_equal(parse("FFFFFFFF81000010 T upper\n"
			       "ffffffff8AbCdEf0 T mixed\n"
			       "c1000000 T eight\n"
			       "1 t one\n"
			       "0123456789abcdef T last_no_newline",
			       &st, &err),
			 0);
	assert_int_equal(st->nr, 5);
	assert_true(addr_of(st, "upper") == 0xffffffff81000010ULL);
	assert_true(addr_of(st, "mixed") == 0xffffffff8abcdef0ULL);
	assert_true(addr_of(st, "eight") == 0xc1000000ULL);
	assert_true(addr_of(st, "one") == 1);
	assert_true(addr_of(st, "last_no_newline") == 0x0123456789abcdefULL);
	symtab_free(st);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(parse(bad[i], &st, &err), -EINVAL);
		assert_non_null(strstr(err.msg, "fixture:1"));
		symtab_free(st);
		kp_err_clear(&err);
	}
}

/* @c's value as a hex digit, or -1. */
static int digit_value(int c)
{
	const char *digits = "0123456789abcdef", *at;

	if (c >= 'A' && c <= 'F')
		c += 'a' - 'A';
	at = c ? strchr(digits, c) : NULL;
	return at ? (int)(at - digits) : -1;
}

/*
 * Every byte but the newline at each of the 16 places of an address: a
 * line is read, with that digit's value in place, exactly when the byte is
 * a hex digit.
 */
static void test_address_every_byte(void **state)
{
	struct symtab *st;
	struct kp_err err = {0};

	(void)state;
	for (int c = 1; c < 256; c++)
		for (int at = 0; at < 16 && c != '\n'; at++) {
			char line[] = "ffffffff81000000 T x\n";
			uint64_t want = 0xffffffff81000000ULL;
			int d = digit_value(c), shift = 4 * (15 - at);

			line[at] = (char)c;
			if (d < 0) {
				assert_int_equal(parse(line, &st, &err), -EINVAL);
			} else {
				want = (want & ~(0xfULL << shift)) | (uint64_t)d << shift;
				assert_int_equal(parse(line, &st, &err), 0);
				assert_true(st->syms[0].addr == want);
			}
			symtab_free(st);
			kp_err_clear(&err);
		}
}

static void test_crlf_and_blank_lines(void **state)
{
	struct symtab *st;

	assert_int_equal(
		parse("\nffffffff81000000 T _text\r\n\r\nffffffff81000010 t x\r\n", &st,
		      NULL),
		0);
	assert_int_equal(st->nr, 2);
	assert_string_equal(st->syms[1].name, "x");
	symtab_free(st);
}

/*
 * 3M blank lines and one symbol: what is reserved from the line count is
 * capped (2M symbols), not 3M symbols' worth for a one-symbol table.
 */
static void test_reserve_capped(void **state)
{
	static const char line[] = "ffffffff81000000 T only_one\n";
	size_t blanks = 3u << 20, len = blanks + sizeof(line) - 1;
	char *buf = malloc(len);
	struct symtab *st = symtab_new();
	struct kp_err err = {0};

	(void)state;
	assert_non_null(buf);
	memset(buf, '\n', blanks);
	memcpy(buf + blanks, line, sizeof(line) - 1);
	assert_int_equal(kallsyms_parse(buf, len, "blanks", st, &err), 0);
	assert_int_equal(st->nr, 1);
	assert_true(st->alloc <= (1u << 21));
	symtab_free(st);
	free(buf);
}

/*
 * Lines shorter than a real table's (what is reserved assumes 13 bytes or
 * more each): more symbols than reserved, all of them kept.
 */
static void test_short_lines_grow(void **state)
{
	enum { N = 50000 };
	char *buf = malloc(N * 8), *p = buf;
	struct symtab *st = symtab_new();
	struct kp_err err = {0};

	(void)state;
	assert_non_null(buf);
	for (int i = 0; i < N; i++)
		p += sprintf(p, "%x t %c\n", 1 + i % 15, 'a' + i % 26);
	assert_int_equal(kallsyms_parse(buf, (size_t)(p - buf), "short", st, &err), 0);
	assert_int_equal(st->nr, N);
	symtab_free(st);
	free(buf);
}

static void test_write_roundtrip_with_slide(void **state)
{
	struct symtab *st, *again;
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);

	assert_int_equal(parse(proc_kallsyms, &st, NULL), 0);
	assert_int_equal(kallsyms_write(st, 0x200000, out), 0);
	fclose(out);
	assert_true(kallsyms_text_detect(buf, len));
	assert_int_equal(parse(buf, &again, NULL), 0);
	assert_int_equal(again->nr, st->nr);
	for (size_t i = 0; i < st->nr; i++) {
		assert_int_equal(again->syms[i].addr, st->syms[i].addr + 0x200000);
		assert_string_equal(again->syms[i].name, st->syms[i].name);
	}
	symtab_free(st);
	symtab_free(again);
	free(buf);
}

static void test_detect(void **state)
{
	assert_true(kallsyms_text_detect(proc_kallsyms, sizeof(proc_kallsyms) - 1));
	assert_false(kallsyms_text_detect("\x7f"
					  "ELF",
					  4));
	assert_false(kallsyms_text_detect("hello world\n", 12));
	assert_false(kallsyms_text_detect("ffff T", 6));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_proc_kallsyms_modules),
		cmocka_unit_test(test_debian_placeholder),
		cmocka_unit_test(test_unprivileged_zeros),
		cmocka_unit_test(test_malformed_line_named),
		cmocka_unit_test(test_address_forms),
		cmocka_unit_test(test_address_every_byte),
		cmocka_unit_test(test_crlf_and_blank_lines),
		cmocka_unit_test(test_reserve_capped),
		cmocka_unit_test(test_short_lines_grow),
		cmocka_unit_test(test_write_roundtrip_with_slide),
		cmocka_unit_test(test_detect),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
