// SPDX-License-Identifier: GPL-2.0
/*
 * kvmprof diff's rows: a guest recorded in two boots, under two QEMU pids,
 * is one row per symbol, matched by its name; unnamed guests, which only
 * their pid tells apart, are not matched.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "diff_rows.h"
#include "session.h"
#include "guest_fixture.h"
#include "guest_recording.h"

static char dir[] = "/tmp/kvmprof-diff.XXXXXX";
static char old_data[96], new_data[96], kallsyms[96];

/* deb2p under @pid: @sys samples in do_syscall_64, @halt in native_safe_halt. */
static void write_boot(const char *path, int pid, int unnamed_pid, int sys, int halt)
{
	struct guest_recording r;

	recording_begin(&r, path);
	recording_guest(&r, pid, "deb2p");
	recording_guest(&r, unnamed_pid, "-");
	for (int i = 0; i < sys; i++)
		recording_sample(&r, (uint32_t)pid, PERF_RECORD_MISC_GUEST_KERNEL,
				 LINK_DO + 8, 0, 0x1000, 1000);
	for (int i = 0; i < halt; i++)
		recording_sample(&r, (uint32_t)pid, PERF_RECORD_MISC_GUEST_KERNEL,
				 LINK_HALT + 8, 1, 0x2000, 1000);
	recording_sample(&r, (uint32_t)unnamed_pid, PERF_RECORD_MISC_GUEST_KERNEL,
			 LINK_DO, -1, 0, 1000);
	recording_finish(&r);
}

static void add_side(struct diff_table *t, int side, const char *path)
{
	struct symbol_opts so = {.guestkallsyms = kallsyms, .guestmount = dir};
	struct kp_err err = {0};
	struct session s;

	assert_int_equal(session_open(&s, path, "guest,dso,sym", &so, &err), 0);
	assert_int_equal(session_process(&s, &err), 0);
	if (side == DIFF_OLD)
		diff_table_init(t, &s.hists[0]);
	assert_int_equal(diff_table_add(t, side, &s.hists[0]), 0);
	session_close(&s);
}

static const struct diff_row *find(const struct diff_table *t, const char *guest,
				   const char *sym)
{
	for (size_t i = 0; i < t->nr; i++)
		if (!strcmp(t->rows[i]->cells[0], guest) &&
		    !strcmp(t->rows[i]->cells[2], sym))
			return t->rows[i];
	return NULL;
}

static void test_guest_matched_by_name(void **state)
{
	struct diff_table t;
	const struct diff_row *sys, *halt;

	(void)state;
	write_boot(old_data, 100, 101, 6, 2);
	write_boot(new_data, 555, 556, 2, 6);
	add_side(&t, DIFF_OLD, old_data);
	add_side(&t, DIFF_NEW, new_data);
	assert_true(t.has_guests);
	sys = find(&t, "deb2p", "[g] do_syscall_64");
	halt = find(&t, "deb2p", "[g] native_safe_halt");
	assert_non_null(sys);
	assert_non_null(halt);
	/* One row for both boots, the kernel object named without its pid. */
	assert_string_equal(sys->cells[1], "[guest.kernel.kallsyms]");
	assert_int_equal(sys->period[DIFF_OLD], 6000);
	assert_int_equal(sys->period[DIFF_NEW], 2000);
	assert_int_equal(halt->period[DIFF_OLD], 2000);
	assert_int_equal(halt->period[DIFF_NEW], 6000);
	assert_true(diff_delta(&t, sys) < -44.0 && diff_delta(&t, sys) > -45.0);
	/* The unnamed guests of the two boots stay apart: 2 deb2p rows + 2. */
	assert_non_null(find(&t, "guest 101", "[g] do_syscall_64"));
	assert_non_null(find(&t, "guest 556", "[g] do_syscall_64"));
	assert_int_equal(t.nr, 4);
	diff_table_release(&t);
}

static void test_sorted_by_change(void **state)
{
	struct diff_table t;

	(void)state;
	write_boot(old_data, 100, 101, 6, 2);
	write_boot(new_data, 555, 556, 5, 2);
	add_side(&t, DIFF_OLD, old_data);
	add_side(&t, DIFF_NEW, new_data);
	diff_table_sort(&t);
	/* Old: 6/9, 2/9, 1/9; new: 5/8, 2/8, 1/8. The unnamed guests, gone and new,
	 * first. */
	assert_string_equal(t.rows[0]->cells[0], "guest 556");
	assert_string_equal(t.rows[1]->cells[0], "guest 101");
	assert_string_equal(t.rows[2]->cells[2], "[g] do_syscall_64");
	assert_string_equal(t.rows[3]->cells[2], "[g] native_safe_halt");
	for (size_t i = 1; i < t.nr; i++) {
		double a = diff_delta(&t, t.rows[i - 1]), b = diff_delta(&t, t.rows[i]);

		assert_true((a < 0 ? -a : a) >= (b < 0 ? -b : b));
	}
	diff_table_release(&t);
}

static int setup(void **state)
{
	(void)state;
	if (guest_fixture_make(dir, kallsyms, sizeof(kallsyms)))
		return -1;
	snprintf(old_data, sizeof(old_data), "%s/old.data", dir);
	snprintf(new_data, sizeof(new_data), "%s/new.data", dir);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	guest_fixture_remove(dir, "/tmp/kvmprof-diff.XXXXXX");
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_guest_matched_by_name, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_sorted_by_change, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
