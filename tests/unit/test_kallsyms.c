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

static void assert_same_table(const struct symtab *a, const struct symtab *b)
{
	assert_int_equal(a->nr, b->nr);
	for (size_t i = 0; i < a->nr; i++) {
		assert_int_equal(a->syms[i].addr, b->syms[i].addr);
		assert_int_equal(a->syms[i].type, b->syms[i].type);
		assert_string_equal(a->syms[i].name, b->syms[i].name);
		assert_true(!a->syms[i].module == !b->syms[i].module);
		if (a->syms[i].module)
			assert_string_equal(a->syms[i].module, b->syms[i].module);
	}
	assert_true(a->text_start == b->text_start && a->text_end == b->text_end);
}

/*
 * @len bytes of @text parsed from memory and read from a file a piece at a
 * time (kallsyms_parse_fd), in 64 KiB pieces and in the smallest, which
 * must agree, errors included; the first's table is returned.
 */
static int parse_both(const char *text, size_t len, const char *what, struct symtab **out,
		      struct kp_err *err)
{
	static const size_t pieces[] = {0, KALLSYMS_PIECE_MIN};
	struct symtab *st = symtab_new();
	struct kp_err mem_err = {0};
	FILE *f = tmpfile();
	int ret;

	assert_non_null(f);
	assert_int_equal(fwrite(text, 1, len, f), len);
	assert_int_equal(fflush(f), 0);
	ret = kallsyms_parse(text, len, what, st, &mem_err);
	for (size_t i = 0; i < sizeof(pieces) / sizeof(pieces[0]); i++) {
		struct symtab *from_fd = symtab_new();
		struct kp_err fd_err = {0};

		assert_int_equal(kallsyms_parse_fd(fileno(f), len, pieces[i], what,
						   from_fd, &fd_err),
				 ret);
		assert_string_equal(fd_err.msg, mem_err.msg);
		if (!ret)
			assert_same_table(st, from_fd);
		symtab_free(from_fd);
	}
	fclose(f);
	if (err)
		*err = mem_err;
	*out = st;
	return ret;
}

static int parse(const char *text, struct symtab **out, struct kp_err *err)
{
	return parse_both(text, strlen(text), "fixture", out, err);
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

/* The text range as a search of the finished table finds it. */
static void expect_text_range_found_len(const char *text, size_t len)
{
	const struct ksym *start, *end;
	struct kp_err err = {0};
	struct symtab *st;

	assert_int_equal(parse_both(text, len, "fixture", &st, &err), 0);
	start = symtab_find(st, "_text");
	if (!start)
		start = symtab_find(st, "_stext");
	end = symtab_find(st, "_etext");
	assert_int_equal(st->text_start, start ? start->addr : 0);
	assert_int_equal(st->text_end, end ? end->addr : 0);
	assert_false(st->text_range_set);
	symtab_free(st);
}

static void expect_text_range_found(const char *text)
{
	expect_text_range_found_len(text, strlen(text));
}

/*
 * The parser notes _text, _stext and _etext as it reads them; what it
 * notes must be what symtab_finish() would have searched for: the first
 * kernel symbol of each name in address order, never a module's.
 */
static void test_text_range_noted(void **state)
{
	(void)state;
	expect_text_range_found(proc_kallsyms);
	/* Out of address order, and _etext twice: the lower one. */
	expect_text_range_found("ffffffff82000000 T _etext\n"
				"ffffffff81000000 T _text\n"
				"ffffffff81f00000 T _etext\n");
	/* Only _stext; names that only begin like the bounds. */
	expect_text_range_found("ffffffff81000000 T _stext\n"
				"ffffffff81000100 T _texts\n"
				"ffffffff81000200 t _etex\n"
				"ffffffff81e00000 T _etext\n");
	/* A module's _text and _etext are not the kernel's. */
	expect_text_range_found("ffffffffc0000000 t _text\t[evil]\n"
				"ffffffffc0001000 t _etext\t[evil]\n"
				"ffffffff81000000 T do_one\n");
	/* A NUL inside a name ends it, in the table as here. */
	expect_text_range_found_len("ffffffff81000000 T _text\0\0xt\n"
				    "ffffffff81100000 T _etext\0\n",
				    56);
	expect_text_range_found("ffffffffc0000000 t _text\t[evil]\n"
				"ffffffff81000000 T _text\n"
				"ffffffff81000000 T _stext\n"
				"ffffffff81800000 T _etext\n");
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
	symtab_free(st);
	assert_int_equal(parse_both(buf, len, "blanks", &st, &err), 0);
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
	symtab_free(st);
	assert_int_equal(parse_both(buf, (size_t)(p - buf), "short", &st, &err), 0);
	assert_int_equal(st->nr, N);
	symtab_free(st);
	free(buf);
}

/*
 * Read a piece at a time, lines fall across pieces at every offset: lines
 * of every length from 20 to 120 bytes, modules, CRLF and blank lines, the
 * last without its newline; both ways give the same table.
 */
static void test_read_in_pieces(void **state)
{
	enum { N = 12000 };
	char *buf = malloc(N * 140), *p = buf;
	struct symtab *st;
	struct kp_err err = {0};

	(void)state;
	assert_non_null(buf);
	for (int i = 0; i < N; i++) {
		int pad = i % 101;

		p += sprintf(
			p, "ffffffff%08x %c sym_%d_%.*s", 0x81000000 + i * 16,
			i % 7 ? 't' : 'T', i, pad,
			"abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzabcdefghij"
			"klmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyz");
		if (i % 5 == 0)
			p += sprintf(p, "\t[mod%d]", i % 13);
		p += sprintf(p, "%s", i % 11 == 0 ? "\r\n" : i % 17 == 0 ? "\n\n" : "\n");
	}
	p--; /* the last line without its newline */
	assert_int_equal(parse_both(buf, (size_t)(p - buf), "pieces", &st, &err), 0);
	assert_int_equal(st->nr, N);
	symtab_free(st);
	free(buf);
}

/* A line longer than a piece, and one past the size given: errors, or not read. */
static void test_read_long_line_and_size(void **state)
{
	size_t len = 200000;
	char *buf = malloc(len + 64);
	struct symtab *st;
	struct kp_err err = {0};
	int n = sprintf(buf, "ffffffff81000000 T first\nffffffff81000010 T ");
	FILE *f = tmpfile();

	(void)state;
	memset(buf + n, 'x', len - (size_t)n);
	memcpy(buf + len, "\nffffffff81000020 T last\n", 26);
	assert_int_equal(parse_both(buf, len + 26, "long", &st, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "long:2: not a kallsyms"));
	symtab_free(st);

	/* Only the first @size bytes are parsed: a file that grew since. */
	assert_non_null(f);
	fputs(proc_kallsyms, f);
	fputs("garbage that is no line\n", f);
	fflush(f);
	st = symtab_new();
	assert_int_equal(
		kallsyms_parse_fd(fileno(f), strlen(proc_kallsyms), 0, "grown", st, &err),
		0);
	assert_int_equal(st->nr, 6);
	symtab_free(st);
	/* Pieces too small for a line that parses are refused. */
	st = symtab_new();
	assert_int_equal(kallsyms_parse_fd(fileno(f), strlen(proc_kallsyms),
					   KALLSYMS_PIECE_MIN - 1, "small", st, &err),
			 -EINVAL);
	symtab_free(st);
	fclose(f);
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
		cmocka_unit_test(test_text_range_noted),
		cmocka_unit_test(test_debian_placeholder),
		cmocka_unit_test(test_unprivileged_zeros),
		cmocka_unit_test(test_malformed_line_named),
		cmocka_unit_test(test_address_forms),
		cmocka_unit_test(test_address_every_byte),
		cmocka_unit_test(test_crlf_and_blank_lines),
		cmocka_unit_test(test_reserve_capped),
		cmocka_unit_test(test_short_lines_grow),
		cmocka_unit_test(test_read_in_pieces),
		cmocka_unit_test(test_read_long_line_and_size),
		cmocka_unit_test(test_write_roundtrip_with_slide),
		cmocka_unit_test(test_detect),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
