// SPDX-License-Identifier: GPL-2.0
/*
 * A machine's processes and their maps: a lookup finds the map that holds
 * an address in the process that asked, whatever lookups came before it
 * and however the maps changed since (lookups remember where they found
 * the last address, and which process asked last).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "machine/machine.h"

static int setup(void **state)
{
	struct machines *ms = test_calloc(1, sizeof(*ms));

	if (!ms || machines_init(ms))
		return -1;
	*state = ms;
	return 0;
}

static int teardown(void **state)
{
	struct machines *ms = *state;

	machines_release(ms);
	test_free(ms);
	return 0;
}

/* The name of the object that holds @addr in process @pid, or NULL. */
static const char *dso_at(struct machines *ms, int pid, uint64_t addr)
{
	const struct map *map = machine_find_map(&ms->host, pid, addr);

	return map ? map->dso->name : NULL;
}

static void add(struct machines *ms, int pid, uint64_t start, uint64_t len,
		const char *name)
{
	assert_int_equal(machine_add_map(ms, &ms->host, pid, start, len, 0, name), 0);
}

static void test_lookup_by_range(void **state)
{
	struct machines *ms = *state;

	add(ms, 10, 0x1000, 0x1000, "/a");
	add(ms, 10, 0x5000, 0x1000, "/c");
	add(ms, 10, 0x3000, 0x1000, "/b");
	assert_string_equal(dso_at(ms, 10, 0x1000), "/a");
	assert_string_equal(dso_at(ms, 10, 0x1fff), "/a");
	assert_null(dso_at(ms, 10, 0x2000));
	assert_string_equal(dso_at(ms, 10, 0x3800), "/b");
	assert_string_equal(dso_at(ms, 10, 0x5000), "/c");
	assert_null(dso_at(ms, 10, 0x6000));
	assert_null(dso_at(ms, 10, 0x0fff));
	assert_null(dso_at(ms, 11, 0x1000));
}

/* A map added before the one found last moves it in the array. */
static void test_lookup_after_insert_before_last(void **state)
{
	struct machines *ms = *state;

	add(ms, 10, 0x5000, 0x1000, "/c");
	add(ms, 10, 0x7000, 0x1000, "/d");
	assert_string_equal(dso_at(ms, 10, 0x7100), "/d");
	add(ms, 10, 0x1000, 0x1000, "/a");
	add(ms, 10, 0x3000, 0x1000, "/b");
	assert_string_equal(dso_at(ms, 10, 0x7100), "/d");
	assert_string_equal(dso_at(ms, 10, 0x1100), "/a");
	assert_string_equal(dso_at(ms, 10, 0x3100), "/b");
	assert_string_equal(dso_at(ms, 10, 0x5100), "/c");
}

/*
 * Lookups alternating between two objects (the two maps tried first) and
 * a third; maps added in front shift both: every answer stays right.
 */
static void test_lookup_alternating_after_inserts(void **state)
{
	struct machines *ms = *state;

	add(ms, 10, 0x5000, 0x1000, "/c");
	add(ms, 10, 0x7000, 0x1000, "/d");
	add(ms, 10, 0x9000, 0x1000, "/e");
	for (int round = 0; round < 3; round++) {
		for (int i = 0; i < 4; i++) {
			assert_string_equal(dso_at(ms, 10, 0x5100), "/c");
			assert_string_equal(dso_at(ms, 10, 0x9100), "/e");
		}
		assert_string_equal(dso_at(ms, 10, 0x7100), "/d");
		assert_null(dso_at(ms, 10, 0x6100));
		/* In front of all: the remembered places now hold other maps. */
		add(ms, 10, 0x1000 - 0x100 * (uint64_t)round, 0x80, round ? "/b" : "/a");
	}
	assert_string_equal(dso_at(ms, 10, 0x5100), "/c");
	assert_string_equal(dso_at(ms, 10, 0x1000), "/a");
	assert_string_equal(dso_at(ms, 10, 0xf00), "/b");
}

/* A new mmap over the map found last replaces it, in whole or in part. */
static void test_lookup_after_replace(void **state)
{
	struct machines *ms = *state;

	add(ms, 10, 0x1000, 0x4000, "/old");
	assert_string_equal(dso_at(ms, 10, 0x2000), "/old");
	add(ms, 10, 0x2000, 0x1000, "/new");
	assert_string_equal(dso_at(ms, 10, 0x2000), "/new");
	assert_string_equal(dso_at(ms, 10, 0x1000), "/old");
	/* Only the part before the hole is kept (no split). */
	assert_null(dso_at(ms, 10, 0x3000));
	add(ms, 10, 0x0, 0x10000, "/all");
	assert_string_equal(dso_at(ms, 10, 0x1000), "/all");
	assert_string_equal(dso_at(ms, 10, 0x2000), "/all");
}

/* Alternating processes, and a process whose maps appear after a miss. */
static void test_lookup_across_processes(void **state)
{
	struct machines *ms = *state;

	add(ms, 10, 0x1000, 0x1000, "/ten");
	add(ms, 20, 0x1000, 0x1000, "/twenty");
	for (int i = 0; i < 3; i++) {
		assert_string_equal(dso_at(ms, 10, 0x1800), "/ten");
		assert_string_equal(dso_at(ms, 20, 0x1800), "/twenty");
	}
	assert_null(dso_at(ms, 30, 0x1800));
	add(ms, 30, 0x1000, 0x1000, "/thirty");
	assert_string_equal(dso_at(ms, 30, 0x1800), "/thirty");
	assert_string_equal(dso_at(ms, 10, 0x1800), "/ten");
	/* Processes remembered in the same place: pids MACHINE_RECENT apart. */
	add(ms, 10 + MACHINE_RECENT, 0x1000, 0x1000, "/other");
	for (int i = 0; i < 3; i++) {
		assert_string_equal(dso_at(ms, 10 + MACHINE_RECENT, 0x1800), "/other");
		assert_string_equal(dso_at(ms, 10, 0x1800), "/ten");
	}
	assert_null(dso_at(ms, 10 + 2 * MACHINE_RECENT, 0x1800));
}

/* A fork copies the parent's maps; the child's own mmaps stay its own. */
static void test_lookup_after_fork(void **state)
{
	struct machines *ms = *state;

	add(ms, 10, 0x1000, 0x1000, "/parent");
	assert_string_equal(dso_at(ms, 10, 0x1800), "/parent");
	assert_int_equal(machine_fork(ms, &ms->host, 10, 11, 11), 0);
	assert_string_equal(dso_at(ms, 11, 0x1800), "/parent");
	add(ms, 11, 0x1000, 0x1000, "/child");
	assert_string_equal(dso_at(ms, 11, 0x1800), "/child");
	assert_string_equal(dso_at(ms, 10, 0x1800), "/parent");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_lookup_by_range, setup, teardown),
		cmocka_unit_test_setup_teardown(test_lookup_after_insert_before_last,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_lookup_alternating_after_inserts,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_lookup_after_replace, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_lookup_across_processes, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_lookup_after_fork, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
