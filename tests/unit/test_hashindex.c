// SPDX-License-Identifier: GPL-2.0
/*
 * The hash index histogram rows, exported stacks and diff rows are found
 * by: an item is found by its hash and the caller's comparison, items
 * whose keys share a hash (or whose hashes share a slot) are all kept and
 * told apart, and growing keeps every item findable.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "base/hashindex.h"

struct item {
	uint64_t hash;
	int key;
};

static bool item_is(const void *item, const void *key)
{
	return ((const struct item *)item)->key == *(const int *)key;
}

static struct item *find(const struct hashindex *x, uint64_t hash, int key)
{
	return hashindex_find(x, hash, item_is, &key);
}

static void test_empty(void **state)
{
	struct hashindex x;

	(void)state;
	hashindex_init(&x);
	assert_null(find(&x, 1, 1));
	hashindex_release(&x);
	assert_null(find(&x, 1, 1));
}

/* Many keys, some sharing a hash, some sharing low bits: all found, through growth. */
static void test_many_and_shared_hashes(void **state)
{
	enum { N = 5000 };
	static struct item items[N];
	struct hashindex x;

	(void)state;
	hashindex_init(&x);
	for (int i = 0; i < N; i++) {
		/* Every fourth item shares its hash with the one before; low bits repeat.
		 */
		items[i].hash =
			i % 4 == 3 ? items[i - 1].hash : (uint64_t)(i / 7) << 20 | 5;
		items[i].key = i;
		assert_null(find(&x, items[i].hash, i));
		assert_int_equal(hashindex_add(&x, items[i].hash, &items[i]), 0);
		/* The first ones stay findable as the index grows. */
		assert_ptr_equal(find(&x, items[0].hash, 0), &items[0]);
	}
	assert_int_equal(x.nr, N);
	assert_true((x.mask + 1) >= 2 * x.nr);
	for (int i = 0; i < N; i++)
		assert_ptr_equal(find(&x, items[i].hash, i), &items[i]);
	/* A key not added, under a hash that is: not found. */
	assert_null(find(&x, items[10].hash, N + 1));
	assert_null(find(&x, 0xdead0000beefULL, 3));
	hashindex_release(&x);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_many_and_shared_hashes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
