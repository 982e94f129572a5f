// SPDX-License-Identifier: GPL-2.0
/*
 * The object pool histogram rows live in: objects come zeroed, never
 * overlap, stay where they are while more are taken (rows are pointed at),
 * freed ones are reused, and release gives everything back.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "base/pool.h"

struct obj {
	uint64_t a[19]; /* 152 bytes: an odd size, as a row's is */
};

/* Enough objects to fill the small chunks and several huge-page ones. */
enum { N = 40000 };

static void test_distinct_zeroed_stable(void **state)
{
	struct obj **objs = malloc(N * sizeof(*objs));
	struct pool p;

	(void)state;
	assert_non_null(objs);
	pool_init(&p, sizeof(struct obj));
	for (size_t i = 0; i < N; i++) {
		objs[i] = pool_zalloc(&p);
		assert_non_null(objs[i]);
		assert_int_equal((uintptr_t)objs[i] % 8, 0);
		for (size_t w = 0; w < 19; w++)
			assert_int_equal(objs[i]->a[w], 0);
		/* Marked whole: an overlap with an earlier object shows below. */
		for (size_t w = 0; w < 19; w++)
			objs[i]->a[w] = i;
	}
	for (size_t i = 0; i < N; i++)
		for (size_t w = 0; w < 19; w++)
			assert_int_equal(objs[i]->a[w], i);
	pool_release(&p);
	free(objs);
}

static void test_reuse(void **state)
{
	struct pool p;
	struct obj *a, *b, *c;

	(void)state;
	pool_init(&p, sizeof(struct obj));
	a = pool_zalloc(&p);
	b = pool_zalloc(&p);
	memset(a, 0xff, sizeof(*a));
	pool_free(&p, a);
	pool_free(&p, NULL);
	c = pool_zalloc(&p);
	assert_ptr_equal(c, a);
	for (size_t w = 0; w < 19; w++)
		assert_int_equal(c->a[w], 0);
	assert_ptr_not_equal(pool_zalloc(&p), b);
	pool_release(&p);
	/* Ready again after release. */
	assert_non_null(pool_zalloc(&p));
	pool_release(&p);
}

/* Objects smaller than a pointer still hold the free list's link. */
static void test_tiny_objects(void **state)
{
	struct pool p;
	char *x, *y;

	(void)state;
	pool_init(&p, 1);
	x = pool_zalloc(&p);
	y = pool_zalloc(&p);
	assert_true(y - x >= (ptrdiff_t)sizeof(void *) ||
		    x - y >= (ptrdiff_t)sizeof(void *));
	pool_free(&p, x);
	pool_free(&p, y);
	assert_ptr_equal(pool_zalloc(&p), y);
	assert_ptr_equal(pool_zalloc(&p), x);
	pool_release(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_distinct_zeroed_stable),
		cmocka_unit_test(test_reuse),
		cmocka_unit_test(test_tiny_objects),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
