// SPDX-License-Identifier: GPL-2.0
/*
 * The table report counts host samples in before resolving them: every
 * sample is counted once in its class (address and context) whatever the
 * order, through the table's growth and its delayed counting; a fold hands
 * each class over once and leaves the table empty; a full class spills
 * into a second slot instead of wrapping.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "sample_classes.h"

enum { NR_CTX = 300, NR_AT = 700 };

/* Expected periods and counts by context and address, filled as samples go in. */
struct expect {
	uint64_t period[NR_CTX][NR_AT];
	uint32_t samples[NR_CTX][NR_AT];
	uint32_t folded[NR_CTX][NR_AT]; /* slots handed over */
};

static char comms[NR_CTX][8];

/* Context @i: contexts 168 apart differ only in their thread name. */
static struct sample_ctx ctx_nr(int i)
{
	return (struct sample_ctx){
		.owner = &comms[i % 7],
		.comm = comms[i],
		.pid = (i / 7) % 3 - 1,
		.cpu = (i / 21) % 2,
		.evsel = (uint16_t)((i / 42) % 2),
		.level = (uint8_t)((i / 84) % 2),
	};
}

static bool same_ctx(const struct sample_ctx *a, const struct sample_ctx *b)
{
	return a->owner == b->owner && a->comm == b->comm && a->pid == b->pid &&
	       a->cpu == b->cpu && a->evsel == b->evsel && a->level == b->level;
}

/* Which context number the fold's context is (each one is distinct). */
static int ctx_index(const struct sample_ctx *c)
{
	for (int i = 0; i < NR_CTX; i++) {
		struct sample_ctx want = ctx_nr(i);

		if (same_ctx(&want, c))
			return i;
	}
	fail_msg("fold handed over a context never added");
	return -1;
}

static int check_class(void *arg, const struct sample_ctx *ctx,
		       const struct sample_class *c)
{
	struct expect *e = arg;
	int i = ctx_index(ctx);

	assert_true(c->at < NR_AT);
	assert_int_equal(c->samples, e->samples[i][c->at]);
	assert_int_equal(c->period, e->period[i][c->at]);
	e->folded[i][c->at]++;
	return 0;
}

static void test_every_sample_once(void **state)
{
	struct expect *e = calloc(1, sizeof(*e));
	struct sample_classes t;
	size_t nr = 0;

	(void)state;
	assert_non_null(e);
	sample_classes_init(&t);
	assert_false(sample_classes_pending(&t));
	srand(7);
	/* 300 x 700 possible classes, 400k samples: the table grows several times. */
	for (int n = 0; n < 400000; n++) {
		int i = rand() % NR_CTX, at = rand() % NR_AT;
		uint64_t period = 1 + (uint64_t)(rand() % 1000);
		struct sample_ctx c = ctx_nr(i);

		assert_int_equal(sample_classes_add(&t, &c, (uint64_t)at, period), 0);
		e->period[i][at] += period;
		e->samples[i][at]++;
	}
	assert_true(sample_classes_pending(&t));
	assert_int_equal(sample_classes_fold(&t, check_class, e), 0);
	for (int i = 0; i < NR_CTX; i++)
		for (int at = 0; at < NR_AT; at++) {
			assert_int_equal(e->folded[i][at], e->samples[i][at] ? 1 : 0);
			nr += e->folded[i][at];
		}
	assert_true(nr > 100000);
	assert_false(sample_classes_pending(&t));
	sample_classes_release(&t);
	free(e);
}

static int count_one_each(void *arg, const struct sample_ctx *ctx,
			  const struct sample_class *c)
{
	(void)ctx;
	assert_int_equal(c->samples, 1);
	++*(int *)arg;
	return 0;
}

/*
 * Contexts that differ in one field only stay apart: thousands of them, so
 * that their lookups pass each other in the table of contexts.
 */
static void test_contexts_told_apart(void **state)
{
	static char names[4096];

	(void)state;
	for (int field = 0; field < 6; field++) {
		int n = field == 5 ? 256 : 4096, folds = 0;
		struct sample_classes t;

		sample_classes_init(&t);
		for (int i = 0; i < n; i++) {
			struct sample_ctx c = {names, names, 1, 2, 3, 0};

			if (field == 0)
				c.owner = &names[i];
			else if (field == 1)
				c.comm = &names[i];
			else if (field == 2)
				c.pid = i;
			else if (field == 3)
				c.cpu = i;
			else if (field == 4)
				c.evsel = (uint16_t)i;
			else
				c.level = (uint8_t)i;
			assert_int_equal(sample_classes_add(&t, &c, 0, 1), 0);
		}
		assert_int_equal(sample_classes_fold(&t, count_one_each, &folds), 0);
		assert_int_equal(folds, n);
		sample_classes_release(&t);
	}
}

static int count_folds(void *arg, const struct sample_ctx *ctx,
		       const struct sample_class *c)
{
	(void)ctx;
	(void)c;
	++*(int *)arg;
	return 0;
}

/* A fold empties the table: a second one hands nothing over; new samples count anew. */
static void test_fold_empties(void **state)
{
	struct sample_classes t;
	struct sample_ctx c = ctx_nr(1);
	int folds = 0;

	(void)state;
	sample_classes_init(&t);
	/* Fewer samples than are counted late: all of them still in the queue. */
	assert_int_equal(sample_classes_add(&t, &c, 5, 10), 0);
	assert_int_equal(sample_classes_add(&t, &c, 6, 10), 0);
	assert_true(sample_classes_pending(&t));
	assert_int_equal(sample_classes_fold(&t, count_folds, &folds), 0);
	assert_int_equal(folds, 2);
	folds = 0;
	assert_int_equal(sample_classes_fold(&t, count_folds, &folds), 0);
	assert_int_equal(folds, 0);
	assert_int_equal(sample_classes_add(&t, &c, 5, 10), 0);
	assert_int_equal(sample_classes_fold(&t, count_folds, &folds), 0);
	assert_int_equal(folds, 1);
	sample_classes_release(&t);
}

static int stop_at_second(void *arg, const struct sample_ctx *ctx,
			  const struct sample_class *c)
{
	(void)ctx;
	(void)c;
	return ++*(int *)arg == 2 ? -42 : 0;
}

/* The callback's error ends the fold and comes back; the table is left empty. */
static void test_fold_error(void **state)
{
	struct sample_classes t;
	struct sample_ctx c = ctx_nr(2);
	int calls = 0;

	(void)state;
	sample_classes_init(&t);
	for (uint64_t at = 0; at < 100; at++)
		assert_int_equal(sample_classes_add(&t, &c, at, 1), 0);
	assert_int_equal(sample_classes_fold(&t, stop_at_second, &calls), -42);
	assert_int_equal(calls, 2);
	assert_false(sample_classes_pending(&t));
	sample_classes_release(&t);
}

struct spill {
	uint64_t samples;
	uint64_t period;
	int slots;
};

static int sum_spill(void *arg, const struct sample_ctx *ctx,
		     const struct sample_class *c)
{
	struct spill *s = arg;

	(void)ctx;
	assert_int_equal(c->at, 9);
	s->samples += c->samples;
	s->period += c->period;
	s->slots++;
	return 0;
}

/* A class at its sample limit takes no more: the rest opens a second slot. */
static void test_full_class_spills(void **state)
{
	struct sample_classes t;
	struct sample_ctx c = ctx_nr(3);
	struct spill s = {0};
	struct sample_class *slot = NULL;

	(void)state;
	sample_classes_init(&t);
	/* Enough samples that the first is counted in its slot, not queued. */
	for (int i = 0; i <= SAMPLE_CLASSES_AHEAD; i++)
		assert_int_equal(sample_classes_add(&t, &c, 9, 1), 0);
	for (size_t i = 0; i <= t.mask; i++)
		if (t.slots[i].samples)
			slot = &t.slots[i];
	assert_non_null(slot);
	assert_int_equal(slot->samples, 1);
	slot->samples = UINT32_MAX - 1;
	slot->period = UINT32_MAX - 1;
	for (int i = 0; i < 10; i++)
		assert_int_equal(sample_classes_add(&t, &c, 9, 1), 0);
	assert_int_equal(sample_classes_fold(&t, sum_spill, &s), 0);
	assert_int_equal(s.slots, 2);
	/* UINT32_MAX - 1, the 16 queued and 10 more: the first counted filled it. */
	assert_int_equal(s.samples, (uint64_t)UINT32_MAX - 1 + SAMPLE_CLASSES_AHEAD + 10);
	assert_int_equal(s.period, s.samples);
	sample_classes_release(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_sample_once),
		cmocka_unit_test(test_contexts_told_apart),
		cmocka_unit_test(test_fold_empties),
		cmocka_unit_test(test_fold_error),
		cmocka_unit_test(test_full_class_spills),
	};

	for (int i = 0; i < NR_CTX; i++)
		comms[i][0] = (char)('a' + i % 26);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
