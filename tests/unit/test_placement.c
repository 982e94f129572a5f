// SPDX-License-Identifier: GPL-2.0
/*
 * Where a guest's kernel runs: of every source of its slide, the first in
 * the order of trust wins, and none is guessed.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "ksym/ksym.h"
#include "machine/machine.h"

#define LINK_TEXT  0xffffffff81000000ULL
#define LINK_ENTRY 0xffffffff81c00080ULL /* entry_SYSCALL_64 at link time */
#define STEP	   ((int64_t)KP_SLIDE_ALIGN)

static struct machines ms;

/* Guest 42 with a link-time table loaded, as a report has it when placing. */
static struct machine *loaded_guest(void)
{
	struct symtab *st = symtab_new();
	struct machine *m;

	assert_non_null(st);
	assert_int_equal(symtab_add(st, LINK_TEXT, 'T', "_text", NULL), 0);
	assert_int_equal(symtab_add(st, LINK_ENTRY, 'T', "entry_SYSCALL_64", NULL), 0);
	assert_int_equal(symtab_add(st, LINK_TEXT + 0x1000000, 'T', "_etext", NULL), 0);
	assert_int_equal(symtab_finish(st), 0);
	assert_int_equal(machines_init(&ms), 0);
	m = machines_guest(&ms, 42);
	assert_non_null(m);
	dso_set_symtab(m->kernel, st);
	return m;
}

/* A kernel map record naming entry_SYSCALL_64 at @slide, for guest @pid. */
static void kernel_map(int pid, int64_t slide)
{
	struct machine *m = machines_guest(&ms, pid);

	assert_non_null(m);
	snprintf(m->ref_sym, sizeof(m->ref_sym), "entry_SYSCALL_64");
	m->ref_runtime = LINK_ENTRY + (uint64_t)slide;
}

static void assert_placed(const struct machine *m, int64_t slide, const char *source)
{
	assert_true(m->slide_known);
	assert_true(m->slide == slide);
	assert_string_equal(m->slide_source, source);
	machines_release(&ms);
}

/* Every source at once, each with its own slide. */
static struct guest_slide_hints all(void)
{
	return (struct guest_slide_hints){
		.forced = true,
		.forced_slide = STEP,
		.lstar = LINK_ENTRY + 2 * STEP,
		.recorded = true,
		.recorded_slide = 3 * STEP,
		.recorded_source = "debugfs",
		.def = machines_find_guest(&ms, 0),
		.runtime_table = true,
	};
}

static void test_forced_slide_first(void **state)
{
	struct machine *m = loaded_guest();
	struct guest_slide_hints h;

	(void)state;
	kernel_map(42, 4 * STEP);
	kernel_map(0, 5 * STEP);
	h = all();
	machine_place_guest_kernel(m, &h);
	assert_placed(m, STEP, "--guest-slide");
}

static void test_lstar_before_recorded_slide_and_maps(void **state)
{
	struct machine *m = loaded_guest();
	struct guest_slide_hints h;

	(void)state;
	kernel_map(42, 4 * STEP);
	h = all();
	h.forced = false;
	machine_place_guest_kernel(m, &h);
	assert_placed(m, 2 * STEP, "guest context (LSTAR)");
}

/* An LSTAR the table does not fit is no slide: the recorded one is next. */
static void test_misaligned_lstar_falls_back_to_recorded(void **state)
{
	struct machine *m = loaded_guest();
	struct guest_slide_hints h = all();

	(void)state;
	h.forced = false;
	h.lstar += 0x1000;
	machine_place_guest_kernel(m, &h);
	assert_placed(m, 3 * STEP, "debugfs");
	m = loaded_guest();
	h.recorded_source = NULL;
	machine_place_guest_kernel(m, &h);
	assert_placed(m, 3 * STEP, "recorded");
}

static void test_own_map_before_default_guests(void **state)
{
	struct machine *m = loaded_guest();
	struct guest_slide_hints h = {.runtime_table = true};

	(void)state;
	kernel_map(42, 4 * STEP);
	kernel_map(0, 5 * STEP);
	h.def = machines_find_guest(&ms, 0);
	machine_place_guest_kernel(m, &h);
	assert_placed(m, 4 * STEP, "kernel map (entry_SYSCALL_64)");
}

/* perf kvm without --guestmount: the default guest's map stands for every guest. */
static void test_default_guests_map_lends_its_slide(void **state)
{
	struct machine *m = loaded_guest();
	struct guest_slide_hints h = {.runtime_table = true};

	(void)state;
	kernel_map(0, 5 * STEP);
	h.def = machines_find_guest(&ms, 0);
	machine_place_guest_kernel(m, &h);
	assert_placed(m, 5 * STEP, "kernel map (entry_SYSCALL_64)");
}

static void test_runtime_table_last(void **state)
{
	struct machine *m = loaded_guest();
	struct guest_slide_hints h = {.runtime_table = true};

	(void)state;
	machine_place_guest_kernel(m, &h);
	assert_placed(m, 0, "runtime kallsyms");
}

/* Nothing known: no slide is guessed. */
static void test_no_source_leaves_slide_unknown(void **state)
{
	struct machine *m = loaded_guest();
	struct guest_slide_hints h = {0};

	(void)state;
	machine_place_guest_kernel(m, &h);
	assert_false(m->slide_known);
	machines_release(&ms);
}

/* A map that arrives once the slide is known does not move the kernel. */
static void test_late_map_keeps_a_known_slide(void **state)
{
	struct machine *m = loaded_guest();
	struct guest_slide_hints h = {.lstar = LINK_ENTRY + 2 * STEP};

	(void)state;
	machine_place_guest_kernel(m, &h);
	kernel_map(42, 4 * STEP);
	machine_place_kernel(m);
	assert_placed(m, 2 * STEP, "guest context (LSTAR)");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_forced_slide_first),
		cmocka_unit_test(test_lstar_before_recorded_slide_and_maps),
		cmocka_unit_test(test_misaligned_lstar_falls_back_to_recorded),
		cmocka_unit_test(test_own_map_before_default_guests),
		cmocka_unit_test(test_default_guests_map_lends_its_slide),
		cmocka_unit_test(test_runtime_table_last),
		cmocka_unit_test(test_no_source_leaves_slide_unknown),
		cmocka_unit_test(test_late_map_keeps_a_known_slide),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
