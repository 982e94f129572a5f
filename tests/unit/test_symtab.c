// SPDX-License-Identifier: GPL-2.0
/* Sorted-table lookup, text range and KASLR slide derivation. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <cmocka.h>

#include "ksym/ksym.h"

static struct symtab *sample_table(void)
{
	struct symtab *st = symtab_new();

	/* Deliberately out of order, with an alias at 0x...1000. */
	assert_int_equal(symtab_add(st, 0xffffffff81002000, 'T', "do_syscall_64", NULL),
			 0);
	assert_int_equal(symtab_add(st, 0xffffffff81000000, 'T', "_text", NULL), 0);
	assert_int_equal(
		symtab_add(st, 0xffffffff81001000, 'T', "entry_SYSCALL_64", NULL), 0);
	assert_int_equal(symtab_add(st, 0xffffffff81001000, 't', "alias", NULL), 0);
	assert_int_equal(symtab_add(st, 0xffffffff81003000, 'T', "_etext", NULL), 0);
	assert_int_equal(symtab_add(st, 0xffffffff82000000, 'D', "some_data", NULL), 0);
	assert_int_equal(symtab_finish(st), 0);
	return st;
}

static void test_sorted_and_sizes(void **state)
{
	struct symtab *st = sample_table();

	assert_int_equal(st->nr, 6);
	for (size_t i = 1; i < st->nr; i++)
		assert_true(st->syms[i - 1].addr <= st->syms[i].addr);
	assert_string_equal(st->syms[0].name, "_text");
	assert_int_equal(st->syms[0].size, 0x1000);
	assert_int_equal(st->text_start, 0xffffffff81000000);
	assert_int_equal(st->text_end, 0xffffffff81003000);
	symtab_free(st);
}

/*
 * A distance of 4 GiB or more (per-CPU symbols at 0, the text at the top)
 * is kept as the most a size holds, not wrapped to a short one.
 */
static void test_sizes_capped(void **state)
{
	struct symtab *st = symtab_new();
	const struct ksym *s;
	uint64_t off;

	assert_int_equal(symtab_add(st, 0, 'A', "fixed_percpu_data", NULL), 0);
	assert_int_equal(symtab_add(st, 0x10000, 'A', "cpu_number", NULL), 0);
	assert_int_equal(symtab_add(st, 0xffffffff81000000, 'T', "_text", NULL), 0);
	assert_int_equal(symtab_add(st, 0xffffffff81001000, 'T', "_etext", NULL), 0);
	assert_int_equal(symtab_finish(st), 0);
	assert_int_equal(st->syms[0].size, 0x10000);
	assert_int_equal(st->syms[1].size, UINT32_MAX);
	assert_int_equal(st->syms[2].size, 0x1000);
	/* Distances do not bound lookups: an address far past still names it. */
	s = symtab_lookup(st, 0x200000000, 0, &off);
	assert_non_null(s);
	assert_string_equal(s->name, "cpu_number");
	assert_int_equal(off, 0x200000000 - 0x10000);
	assert_int_equal(ksym_size_cap(0x100000000), UINT32_MAX);
	assert_int_equal(ksym_size_cap(UINT32_MAX - 1), UINT32_MAX - 1);
	symtab_free(st);
}

static void test_lookup_offsets(void **state)
{
	struct symtab *st = sample_table();
	const struct ksym *s;
	uint64_t off;

	s = symtab_lookup(st, 0xffffffff81002010, 0, &off);
	assert_non_null(s);
	assert_string_equal(s->name, "do_syscall_64");
	assert_int_equal(off, 0x10);
	/*
	 * Equal addresses in a size-less table: as in perf, only the last alias
	 * gets a length (up to the next address), so it is the one shown.
	 */
	s = symtab_lookup(st, 0xffffffff81001000, 0, &off);
	assert_string_equal(s->name, "alias");
	assert_int_equal(off, 0);
	/* Every alias stays findable by name. */
	assert_non_null(symtab_find(st, "entry_SYSCALL_64"));
	assert_null(symtab_lookup(st, 0xffffffff80000000, 0, &off));
	symtab_free(st);
}

static void test_lookup_text_range(void **state)
{
	struct symtab *st = sample_table();

	assert_non_null(symtab_lookup_text(st, 0xffffffff81002fff, 0, NULL));
	assert_null(symtab_lookup_text(st, 0xffffffff82000010, 0, NULL));
	assert_null(symtab_lookup_text(st, 0xffffffff81003000, 0, NULL));
	symtab_free(st);
}

static void test_slide_from_anchor(void **state)
{
	struct symtab *st = sample_table();
	struct kp_err err = {0};
	int64_t slide = 0;
	const struct ksym *s;

	assert_int_equal(symtab_slide_from_anchor(st, "entry_SYSCALL_64",
						  0xffffffff9a201000, &slide, &err),
			 0);
	assert_int_equal(slide, 0x19200000);
	s = symtab_lookup(st, 0xffffffff9a202004, slide, NULL);
	assert_string_equal(s->name, "do_syscall_64");

	assert_int_equal(symtab_slide_from_anchor(st, "entry_SYSCALL_64",
						  0xffffffff9a201400, &slide, &err),
			 -EINVAL);
	assert_non_null(strstr(err.msg, "2 MiB"));
	kp_err_clear(&err);
	assert_int_equal(symtab_slide_from_anchor(st, "no_such", 0, &slide, &err),
			 -ENOENT);
	assert_non_null(strstr(err.msg, "no_such"));
	symtab_free(st);
}

/*
 * A table of runtime addresses has the anchor where it ran: slide 0, found
 * by address. Another place in the kernel (where an address seen earlier
 * pointed, say) or a module's symbol of that name is searched by name.
 */
static void test_slide_zero_in_place(void **state)
{
	struct symtab *st = sample_table();
	int64_t slide = 1;

	(void)state;
	assert_int_equal(symtab_slide_from_anchor(st, "entry_SYSCALL_64",
						  0xffffffff81001000, &slide, NULL),
			 0);
	assert_int_equal(slide, 0);
	/* do_syscall_64 is there: not the anchor, which is 2 MiB off. */
	assert_int_equal(symtab_slide_from_anchor(st, "entry_SYSCALL_64",
						  0xffffffff81202000, &slide, NULL),
			 -EINVAL);
	assert_int_equal(symtab_slide_from_anchor(st, "do_syscall_64", 0xffffffff81202000,
						  &slide, NULL),
			 0);
	assert_int_equal(slide, 0x200000);
	symtab_free(st);

	/* Named twice: the one where it ran (by name, the first: -EINVAL). */
	st = symtab_new();
	assert_int_equal(
		symtab_add(st, 0xffffffff81000100, 't', "entry_SYSCALL_64", NULL), 0);
	assert_int_equal(
		symtab_add(st, 0xffffffff81001000, 'T', "entry_SYSCALL_64", NULL), 0);
	assert_int_equal(symtab_finish(st), 0);
	assert_int_equal(symtab_slide_from_anchor(st, "entry_SYSCALL_64",
						  0xffffffff81001000, &slide, NULL),
			 0);
	assert_int_equal(slide, 0);
	symtab_free(st);
}

static void test_negative_slide(void **state)
{
	struct symtab *st = sample_table();
	int64_t slide;

	/* A kernel loaded below its link address gives a negative slide. */
	assert_int_equal(
		symtab_slide_from_anchor(st, "_text", 0xffffffff80e00000, &slide, NULL),
		0);
	assert_true(slide < 0);
	assert_string_equal(symtab_lookup(st, 0xffffffff80e02000, slide, NULL)->name,
			    "do_syscall_64");
	symtab_free(st);
}

/* One table, two guests running its kernel at different slides: lookups interleave. */
static void test_one_table_two_slides(void **state)
{
	struct symtab *st = sample_table();
	const int64_t a = 0x19200000, b = 0x2a400000;
	uint64_t off;

	for (int i = 0; i < 2; i++) {
		assert_string_equal(
			symtab_lookup(st, 0xffffffff81002010 + a, a, &off)->name,
			"do_syscall_64");
		assert_int_equal(off, 0x10);
		assert_string_equal(
			symtab_lookup(st, 0xffffffff81000004 + b, b, &off)->name,
			"_text");
		assert_int_equal(off, 4);
		assert_non_null(symtab_lookup_text(st, 0xffffffff81002fff + a, a, NULL));
		assert_null(symtab_lookup_text(st, 0xffffffff81002fff + a, b, NULL));
	}
	symtab_free(st);
}

/* Sized (ELF) tables: perf's choose_best_symbol() rules, and sizes bound lookups. */
static void test_sized_aliases_follow_perf(void **state)
{
	struct symtab *st = symtab_new();

	st->bounded = true;
	symtab_add(st, 0x1000, 'W', "weak_one", NULL);
	symtab_add(st, 0x1000, 't', "local_one", NULL);
	symtab_add(st, 0x1000, 'T', "__global_underscored", NULL);
	symtab_add(st, 0x1000, 'T', "global_plain", NULL);
	symtab_add(st, 0x2000, 'T', "short", NULL);
	symtab_add(st, 0x2000, 'T', "longer_name", NULL);
	for (size_t i = 0; i < st->nr; i++)
		st->syms[i].size = 0x10;
	assert_int_equal(symtab_finish(st), 0);
	/* non-weak > weak, global > local, fewer leading underscores win */
	assert_string_equal(symtab_lookup(st, 0x1008, 0, NULL)->name, "global_plain");
	/* then the longer name */
	assert_string_equal(symtab_lookup(st, 0x2000, 0, NULL)->name, "longer_name");
	/* past the ELF size: padding, not code */
	assert_null(symtab_lookup(st, 0x1010, 0, NULL));
	symtab_free(st);
}

static void test_many_symbols(void **state)
{
	struct symtab *st = symtab_new();
	char name[32];

	for (unsigned i = 0; i < 100000; i++) {
		snprintf(name, sizeof(name), "f%u", i);
		assert_int_equal(
			symtab_add(st, 0x1000 + (uint64_t)i * 16, 't', name, NULL), 0);
	}
	assert_int_equal(symtab_finish(st), 0);
	for (unsigned i = 0; i < 100000; i += 997) {
		uint64_t off;
		const struct ksym *s =
			symtab_lookup(st, 0x1000 + (uint64_t)i * 16 + 5, 0, &off);

		snprintf(name, sizeof(name), "f%u", i);
		assert_string_equal(s->name, name);
		assert_int_equal(off, 5);
	}
	symtab_free(st);
}

/* The symbol a lookup must find: the last one at or below @addr, by a linear scan. */
static const struct ksym *linear_lookup(const struct symtab *st, uint64_t addr)
{
	const struct ksym *found = NULL;

	for (size_t i = 0; i < st->nr && st->syms[i].addr <= addr; i++)
		if (!found || st->syms[i].addr != found->addr)
			found = &st->syms[i];
	return found;
}

static uint64_t next_random(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

/*
 * Lookups go through a bucket index: a table shaped like a kernel's (dense
 * text, then modules a gigabyte away, runs of symbols in one bucket, empty
 * buckets; with @percpu, its absolute per-cpu symbols near 0 too, so that
 * the table spans nearly all 64 bits) must answer every address as a full
 * search would.
 */
static void check_bucket_index(bool percpu)
{
	struct symtab *st = symtab_new();
	uint64_t x = 0x2545f4914f6cdd1dULL, addr = 0xffffffff81000000ULL;
	const uint64_t mod = 0xffffffffc0000000ULL;
	char name[32];

	for (int i = 0; percpu && i < 60; i++) {
		snprintf(name, sizeof(name), "percpu_%d", i);
		assert_int_equal(symtab_add(st, (uint64_t)i * 0x1000, 'A', name, NULL),
				 0);
	}
	for (int i = 0; i < 3000; i++) {
		/* Mostly small steps, now and then a jump over many buckets. */
		addr += next_random(&x) % 8 ? next_random(&x) % 300
					    : next_random(&x) % 200000;
		snprintf(name, sizeof(name), "text_%d", i);
		assert_int_equal(symtab_add(st, addr, 't', name, NULL), 0);
	}
	for (int i = 0; i < 500; i++) {
		snprintf(name, sizeof(name), "mod_%d", i);
		assert_int_equal(symtab_add(st, mod + (uint64_t)i * 64, 't', name, "m"),
				 0);
	}
	assert_int_equal(symtab_finish(st), 0);
	assert_true(st->nr_buckets > 1 && st->nr_buckets <= st->nr_addrs + 66);
	for (int i = 0; i < 40000; i++) {
		uint64_t probe, off;
		const struct ksym *want, *got;

		switch (i % 4) {
		case 0: /* at a symbol, or next to one */
			probe = st->syms[next_random(&x) % st->nr].addr +
				next_random(&x) % 3 - 1;
			break;
		case 1: /* on a bucket boundary */
			probe = st->addrs[0] +
				((next_random(&x) % st->nr_buckets) << st->bucket_shift) -
				next_random(&x) % 2;
			break;
		case 2: /* anywhere in the kernel's span, or a little outside it */
			probe = 0xffffffff81000000ULL - 4096 +
				next_random(&x) %
					(mod + 500 * 64 + 8192 - 0xffffffff81000000ULL);
			break;
		default: /* far outside */
			probe = next_random(&x);
		}
		want = linear_lookup(st, probe);
		got = symtab_lookup(st, probe, 0, &off);
		if (want != got && (!want || !got || want->addr != got->addr))
			fail_msg("%#llx: got %s, want %s", (unsigned long long)probe,
				 got ? got->name : "none", want ? want->name : "none");
	}
	symtab_free(st);
}

static void test_bucket_index_matches_linear_search(void **state)
{
	(void)state;
	check_bucket_index(false);
	check_bucket_index(true);
}

/* The kallsyms parser skips names longer than SYMTAB_TEXT_BOUND_MAX. */
/*
 * Sorting keeps the order symbols were added in among equal addresses, for
 * the shapes sources give: all in order; in order but for a tail (a
 * kernel's modules) above, among, or below the rest; in no order at all.
 * Checked against a reference: a stable insertion sort of the same adds.
 */
static void check_sort(uint64_t *x, size_t n, size_t in_order, uint64_t tail_base,
		       uint64_t stride)
{
	struct symtab *st = symtab_new();
	uint64_t *addr = calloc(n, sizeof(*addr));
	size_t *want = calloc(n, sizeof(*want));
	char name[32];

	assert_non_null(addr);
	assert_non_null(want);
	for (size_t i = 0; i < n; i++) {
		/* Few distinct addresses: many aliases, across prefix and tail. */
		if (i < in_order)
			addr[i] = (i ? addr[i - 1] : 0x1000) + next_random(x) % 3 * 16;
		else
			addr[i] = tail_base + next_random(x) % (n * 8) * stride;
		snprintf(name, sizeof(name), "s%zu", i);
		assert_int_equal(symtab_add(st, addr[i], 't', name, NULL), 0);
	}
	for (size_t i = 0; i < n; i++) {
		size_t j = i;

		for (; j && addr[want[j - 1]] > addr[i]; j--)
			want[j] = want[j - 1];
		want[j] = i;
	}
	assert_int_equal(symtab_finish(st), 0);
	assert_int_equal(st->nr, n);
	for (size_t i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "s%zu", want[i]);
		assert_string_equal(st->syms[i].name, name);
	}
	/* Finished, the table is in order: one more add in order stays so. */
	assert_int_equal(st->in_order, n);
	symtab_free(st);
	free(addr);
	free(want);
}

static void test_sort_is_stable(void **state)
{
	uint64_t x = 0x9e3779b97f4a7c15ULL;

	check_sort(&x, 3000, 3000, 0, 2);	   /* all in order */
	check_sort(&x, 3000, 2500, 1ULL << 40, 2); /* a tail above the rest */
	check_sort(&x, 3000, 2500, 0x1000, 2);	   /* a tail among the rest */
	check_sort(&x, 3000, 2500, 0, 2);	   /* a tail below, and equal to some */
	check_sort(&x, 3000, 1, 0x1000, 2);	   /* no order */
	/* Addresses that differ in every byte, wrapping around. */
	check_sort(&x, 3000, 1, 0, 0x00f1e2d3c4b5a697ULL);
	check_sort(&x, 1, 1, 0, 2);
}

static void test_text_bound_names_fit_their_max(void **state)
{
	(void)state;
	for (int i = 0; i < SYMTAB_TEXT_BOUNDS; i++)
		assert_true(strlen(symtab_text_bound_name[i]) <= SYMTAB_TEXT_BOUND_MAX);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sorted_and_sizes),
		cmocka_unit_test(test_sizes_capped),
		cmocka_unit_test(test_lookup_offsets),
		cmocka_unit_test(test_lookup_text_range),
		cmocka_unit_test(test_slide_from_anchor),
		cmocka_unit_test(test_slide_zero_in_place),
		cmocka_unit_test(test_negative_slide),
		cmocka_unit_test(test_one_table_two_slides),
		cmocka_unit_test(test_sized_aliases_follow_perf),
		cmocka_unit_test(test_many_symbols),
		cmocka_unit_test(test_bucket_index_matches_linear_search),
		cmocka_unit_test(test_sort_is_stable),
		cmocka_unit_test(test_text_bound_names_fit_their_max),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
