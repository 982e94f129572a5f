// SPDX-License-Identifier: GPL-2.0
/* A kernel's slide from its LSTAR, and the range KASLR can produce. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "ksym/ksym.h"

#define LINK_TEXT  0xffffffff81000000ULL
#define LINK_ENTRY 0xffffffff81c00080ULL /* entry_SYSCALL_64 at link time */
#define SLIDE	   0x18400000LL		 /* a KASLR slide: a multiple of 2 MiB */

static struct symtab *table(uint64_t text, uint64_t entry)
{
	struct symtab *st = symtab_new();

	assert_non_null(st);
	assert_int_equal(symtab_add(st, text, 'T', "_text", NULL), 0);
	assert_int_equal(symtab_add(st, entry, 'T', "entry_SYSCALL_64", NULL), 0);
	assert_int_equal(symtab_add(st, text + 0x1000000, 'T', "_etext", NULL), 0);
	assert_int_equal(symtab_finish(st), 0);
	return st;
}

static void test_slide_from_lstar(void **state)
{
	struct symtab *st = table(LINK_TEXT, LINK_ENTRY);
	int64_t slide = 0;

	(void)state;
	assert_int_equal(kaslr_slide_from_lstar(st, LINK_ENTRY + SLIDE, &slide, NULL), 0);
	assert_true(slide == SLIDE);
	assert_int_equal(kaslr_slide_from_lstar(st, LINK_ENTRY, &slide, NULL), 0);
	assert_true(slide == 0);
	symtab_free(st);
}

/* Off by a page: no KASLR step, so another kernel runs; the slide is left alone. */
static void test_misaligned_lstar_is_refused(void **state)
{
	struct symtab *st = table(LINK_TEXT, LINK_ENTRY);
	struct kp_err err = {0};
	int64_t slide = 42;

	(void)state;
	assert_int_equal(
		kaslr_slide_from_lstar(st, LINK_ENTRY + SLIDE + 0x1000, &slide, &err),
		-EINVAL);
	assert_non_null(strstr(err.msg, "2 MiB"));
	assert_true(slide == 42);
	symtab_free(st);
}

static void test_table_without_entry(void **state)
{
	struct symtab *st = symtab_new();
	struct kp_err err = {0};
	int64_t slide;

	(void)state;
	assert_int_equal(symtab_add(st, LINK_TEXT, 'T', "_text", NULL), 0);
	assert_int_equal(symtab_finish(st), 0);
	assert_int_equal(kaslr_slide_from_lstar(st, LINK_ENTRY, &slide, &err), -ENOENT);
	assert_non_null(strstr(err.msg, "entry_SYSCALL_64"));
	symtab_free(st);
}

/*
 * A runtime kallsyms saved at an earlier boot (slide 0x2a400000) read for a
 * boot at a smaller slide: the difference is negative, and right.
 */
static void test_runtime_table_of_another_boot(void **state)
{
	const int64_t then = 0x2a400000;
	struct symtab *st = table(LINK_TEXT + then, LINK_ENTRY + then);
	int64_t slide;

	(void)state;
	assert_int_equal(kaslr_slide_from_lstar(st, LINK_ENTRY + SLIDE, &slide, NULL), 0);
	assert_true(slide == SLIDE - then);
	assert_false(kaslr_slide_possible(slide));
	assert_string_equal(symtab_lookup(st, LINK_ENTRY + SLIDE + 4, slide, NULL)->name,
			    "entry_SYSCALL_64");
	symtab_free(st);
}

static void test_kaslr_range(void **state)
{
	(void)state;
	assert_true(kaslr_slide_possible(0));
	assert_true(kaslr_slide_possible(SLIDE));
	assert_true(kaslr_slide_possible(KASLR_MAX_SLIDE - KP_SLIDE_ALIGN));
	assert_false(kaslr_slide_possible(KASLR_MAX_SLIDE));
	assert_false(kaslr_slide_possible(-(int64_t)KP_SLIDE_ALIGN));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_slide_from_lstar),
		cmocka_unit_test(test_misaligned_lstar_is_refused),
		cmocka_unit_test(test_table_without_entry),
		cmocka_unit_test(test_runtime_table_of_another_boot),
		cmocka_unit_test(test_kaslr_range),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
