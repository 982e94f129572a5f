// SPDX-License-Identifier: GPL-2.0
/*
 * The order report prints its rows in: heaviest first, and rows of equal
 * period by symbol name (unresolved first), thread name, object name,
 * address, then pid, CPU, CR3, vCPU and mode, so that the output does not
 * depend on the order samples came in.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "hist.h"
#include "ksym/symtab.h"
#include "machine/dso.h"

static struct ksym sym_a = {.name = "alpha"}, sym_b = {.name = "beta"};
static struct dso dso_x = {.name = "/usr/lib/x.so"}, dso_y = {.name = "/usr/lib/y.so"};

/* In the order they must come out: each differs from the next in one field. */
static const struct hist_key want[] = {
	{.comm = "cc1", .dso = &dso_x, .sym = NULL, .addr = 0x10, .cpu = 0},
	{.comm = "cc1", .dso = &dso_x, .sym = NULL, .addr = 0x20, .cpu = 0},
	{.comm = "cc1", .dso = &dso_y, .sym = NULL, .addr = 0x10, .cpu = 0},
	{.comm = "as", .dso = &dso_x, .sym = &sym_a, .cpu = 0},
	{.comm = "cc1", .dso = &dso_x, .sym = &sym_a, .cpu = 0},
	{.comm = "cc1", .dso = &dso_x, .sym = &sym_a, .cpu = 1},
	{.comm = "cc1", .dso = &dso_x, .sym = &sym_b, .pid = 1, .cpu = 0},
	{.comm = "cc1", .dso = &dso_x, .sym = &sym_b, .pid = 2, .cpu = 0},
	{.comm = "cc1", .dso = &dso_x, .sym = &sym_b, .pid = 2, .cpu = 0, .cr3 = 5},
	{.comm = "cc1",
	 .dso = &dso_x,
	 .sym = &sym_b,
	 .pid = 2,
	 .cpu = 0,
	 .cr3 = 5,
	 .vcpu = 1},
	{.comm = "cc1",
	 .dso = &dso_x,
	 .sym = &sym_b,
	 .pid = 2,
	 .cpu = 0,
	 .cr3 = 5,
	 .vcpu = 1,
	 .level = LEVEL_USER},
};

#define NR (sizeof(want) / sizeof(want[0]))

static bool same(const struct hist_key *a, const struct hist_key *b)
{
	return a->comm == b->comm && a->dso == b->dso && a->sym == b->sym &&
	       a->addr == b->addr && a->pid == b->pid && a->cpu == b->cpu &&
	       a->cr3 == b->cr3 && a->vcpu == b->vcpu && a->level == b->level;
}

/* Equal periods, added in a shuffled order, a heavier row last: sorted as @want. */
static void test_ties_broken_by_key(void **state)
{
	static const char *const spec = "comm,pid,dso,sym,cpu,cr3,vcpu,cpumode";
	struct hist_key heavy = {.comm = "zz", .dso = &dso_y, .sym = &sym_b, .cpu = 3};
	struct kp_err err = {0};
	struct hists h;

	(void)state;
	for (int round = 0; round < 20; round++) {
		size_t order[NR];

		assert_int_equal(hists_init(&h, spec, &err), 0);
		for (size_t i = 0; i < NR; i++)
			order[i] = i;
		srand((unsigned int)round);
		for (size_t i = NR - 1; i > 0; i--) {
			size_t j = (size_t)rand() % (i + 1), t = order[i];

			order[i] = order[j];
			order[j] = t;
		}
		for (size_t i = 0; i < NR; i++)
			assert_non_null(hists_add(&h, &want[order[i]], 100));
		assert_non_null(hists_add(&h, &heavy, 500));
		hists_sort(&h);
		assert_int_equal(h.nr_entries, NR + 1);
		assert_true(same(&h.entries[0]->key, &heavy));
		for (size_t i = 0; i < NR; i++)
			if (!same(&h.entries[i + 1]->key, &want[i]))
				fail_msg("round %d: row %zu is not the expected one",
					 round, i + 1);
		hists_release(&h);
	}
}

static int cmp_name(const char *a, const char *b)
{
	return strcmp(a ? a : "", b ? b : "");
}

/* The order, as the file's comment states it: < 0 when @a comes first. */
static int spec_order(const struct hist_entry *a, const struct hist_entry *b)
{
	const struct hist_key *x = &a->key, *y = &b->key;
	int c;

	if (a->period != b->period)
		return a->period > b->period ? -1 : 1;
	c = cmp_name(x->sym ? x->sym->name : NULL, y->sym ? y->sym->name : NULL);
	if (!c)
		c = cmp_name(x->comm, y->comm);
	if (!c)
		c = cmp_name(x->dso ? x->dso->name : NULL, y->dso ? y->dso->name : NULL);
	if (c)
		return c;
	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->cpu < y->cpu ? -1 : x->cpu > y->cpu;
}

/*
 * Thousands of rows, periods from a small range so that ties abound: the
 * sort's runs and merges put every neighbour pair in order.
 */
static void test_many_rows_in_order(void **state)
{
	static const char *const comms[] = {"as", "cc1", "ld", "sh"};
	static struct ksym syms[3] = {
		{.name = "alpha"}, {.name = "beta"}, {.name = "gamma"}};
	struct kp_err err = {0};
	struct hists h;

	(void)state;
	assert_int_equal(hists_init(&h, "comm,pid,dso,sym,cpu", &err), 0);
	srand(11);
	for (int i = 0; i < 20000; i++) {
		int s = rand() % 4;
		struct hist_key k = {
			.comm = comms[rand() % 4],
			.pid = rand() % 3,
			.dso = rand() % 2 ? &dso_x : &dso_y,
			.sym = s < 3 ? &syms[s] : NULL,
			.addr = (uint64_t)(rand() % 50),
			.cpu = rand() % 2,
		};

		assert_non_null(hists_add(&h, &k, 100 * (uint64_t)(1 + rand() % 5)));
	}
	hists_sort(&h);
	assert_true(h.nr_entries > 1000);
	for (size_t i = 1; i < h.nr_entries; i++)
		if (spec_order(h.entries[i - 1], h.entries[i]) >= 0)
			fail_msg("rows %zu and %zu out of order", i - 1, i);
	hists_release(&h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ties_broken_by_key),
		cmocka_unit_test(test_many_rows_in_order),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
