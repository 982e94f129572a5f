// SPDX-License-Identifier: GPL-2.0
/*
 * Report output: the percentage formatter every row goes through must print
 * exactly what printf's "%7.2f" prints, ties and all, since reports are
 * compared with perf's line by line.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <inttypes.h>

#include "output.h"

static void check_one(double v)
{
	char got[64], want[64];
	size_t n = output_percent(v, got, sizeof(got));

	snprintf(want, sizeof(want), "%7.2f", v);
	if (strcmp(got, want) || n != strlen(want))
		fail_msg("%.17g: got '%s' (%zu), printf '%s'", v, got, n, want);
}

/* Binary-exact halves: printf rounds them to even. */
static void test_exact_ties(void **state)
{
	static const double ties[] = {0.125,  0.375,  0.625, 0.875, 1.125,  2.5 / 100,
				      12.345, 99.995, 0.005, 0.015, 50.125, 33.375};

	(void)state;
	for (size_t i = 0; i < sizeof(ties) / sizeof(ties[0]); i++)
		check_one(ties[i]);
}

static void test_edges(void **state)
{
	static const double v[] = {0.0,	      1e-300,	 0.004999999,  0.005000001,
				   0.01,      0.1,	 9.995,	       9.994999,
				   99.99,     99.999,	 100.0,	       1234.5678,
				   99999.994, 99999.996, 123456789.125};

	(void)state;
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		check_one(v[i]);
}

/* Shares as reports compute them: 100 * part / total, for many of each. */
static void test_shares(void **state)
{
	uint64_t x = 0x9e3779b97f4a7c15ULL;

	(void)state;
	for (int i = 0; i < 2000000; i++) {
		uint64_t total, part;

		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		total = (x >> 20) % (i & 1 ? 2000000 : 1000000000000ULL) + 1;
		part = (x & 0xfffff) * 997 % (total + 1);
		check_one(100.0 * (double)part / (double)total);
	}
	for (uint64_t total = 1; total <= 2000; total++)
		for (uint64_t part = 0; part <= total; part++)
			check_one(100.0 * (double)part / (double)total);
}

/* An unresolved address prints as perf prints it: "[.] 0x%016" PRIx64. */
static void test_address_cells(void **state)
{
	static const uint64_t addrs[] = {
		0,	   1, 0xf, 0x10, 0x401136, 0x7f0123456789, 0xffffffff81000000ULL,
		UINT64_MAX};
	struct hist_entry e = {0};

	(void)state;
	e.key.level = LEVEL_USER;
	for (size_t i = 0; i < sizeof(addrs) / sizeof(addrs[0]); i++) {
		char got[64], want[64];
		size_t n;

		e.key.addr = addrs[i];
		n = output_cell(&e, SORT_SYM, got, sizeof(got));
		snprintf(want, sizeof(want), "[.] 0x%016" PRIx64, addrs[i]);
		assert_string_equal(got, want);
		assert_int_equal(n, strlen(want));
	}
	/* Too small a buffer: cut, never overrun, length of what is there. */
	e.key.addr = 0x401136;
	assert_int_equal(output_cell(&e, SORT_SYM, (char[8]){0}, 8), 7);
}

/* Each cell's returned length is the length of what it wrote. */
static void test_cell_lengths(void **state)
{
	struct hist_entry e = {0};

	(void)state;
	e.key.comm = "cc1\x1b[2J";
	e.key.pid = 42;
	e.key.cpu = 3;
	e.key.vcpu = -1;
	e.key.cr3 = 0x1234000;
	e.key.level = LEVEL_KERNEL;
	for (int k = 0; k < SORT__MAX; k++) {
		char buf[64];
		size_t n = output_cell(&e, (enum sort_key)k, buf, sizeof(buf));

		assert_int_equal(n, strlen(buf));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exact_ties),   cmocka_unit_test(test_edges),
		cmocka_unit_test(test_shares),	     cmocka_unit_test(test_address_cells),
		cmocka_unit_test(test_cell_lengths),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
