// SPDX-License-Identifier: GPL-2.0
/*
 * kvmprof stat's arithmetic and output without a PMU: counts grouped by
 * thousands, multiplexed counts scaled as perf stat scales them, lines and
 * -x fields, the host/guest attrs of each event, and QEMUs' counts summed
 * per guest name.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "stat_count.h"
#include "stat_events.h"
#include "stat_format.h"
#include "stat_guests.h"

static const char *grouped(double v, int decimals)
{
	static char buf[64];

	stat_group_digits(buf, sizeof(buf), v, decimals);
	return buf;
}

static void test_group_digits(void **state)
{
	(void)state;
	assert_string_equal(grouped(0, 0), "0");
	assert_string_equal(grouped(999, 0), "999");
	assert_string_equal(grouped(1000, 0), "1,000");
	assert_string_equal(grouped(123456789, 0), "123,456,789");
	assert_string_equal(grouped(1234567.891, 2), "1,234,567.89");
	assert_string_equal(grouped(0.53, 2), "0.53");
	assert_string_equal(grouped(-1234, 0), "-1,234");
}

static void test_scale_full_time(void **state)
{
	struct stat_reading r = {.value = 1000, .enabled = 500, .running = 500};
	struct stat_scaled s = stat_scale(&r);

	(void)state;
	assert_true(s.counted);
	assert_false(s.scaled);
	assert_true(s.value == 1000.0);
	assert_true(s.percent == 100.0);
}

/* On the counter a third of the time: three times the count, 33.33%. */
static void test_scale_multiplexed(void **state)
{
	struct stat_reading r = {.value = 1000, .enabled = 300, .running = 100};
	struct stat_scaled s = stat_scale(&r);

	(void)state;
	assert_true(s.counted);
	assert_true(s.scaled);
	assert_true(s.value == 3000.0);
	assert_true(s.percent > 33.33 && s.percent < 33.34);
}

static void test_scale_never_ran(void **state)
{
	struct stat_reading r = {.value = 0, .enabled = 300, .running = 0};

	(void)state;
	assert_false(stat_scale(&r).counted);
}

static void test_reading_delta_and_sum(void **state)
{
	struct stat_reading then = {10, 100, 50}, now = {25, 300, 150}, sum = {1, 2, 3};
	struct stat_reading d = stat_reading_delta(&now, &then);

	(void)state;
	assert_int_equal(d.value, 15);
	assert_int_equal(d.enabled, 200);
	assert_int_equal(d.running, 100);
	stat_reading_add(&sum, &d);
	assert_int_equal(sum.value, 16);
	assert_int_equal(sum.enabled, 202);
	assert_int_equal(sum.running, 103);
	/* A counter reopened lower never gives a huge unsigned delta. */
	d = stat_reading_delta(&then, &now);
	assert_int_equal(d.value, 0);
}

static const char *line(const struct stat_row *row, const struct stat_style *st)
{
	static char buf[512];

	stat_format_row(buf, sizeof(buf), row, st);
	return buf;
}

static void test_text_clock_line(void **state)
{
	struct stat_row row = {
		.event = "task-clock",
		.split = "host+guest",
		.supported = true,
		.clock = true,
		.reading = {1234560000, 10, 10},
		.metric = "CPUs utilized",
		.metric_value = 0.998,
	};
	struct stat_style st = {0};

	(void)state;
	assert_string_equal(line(&row, &st),
			    "          1,234.56 msec task-clock           "
			    "host+guest      #    0.998 CPUs utilized");
}

static void test_text_scaled_count(void **state)
{
	struct stat_row row = {
		.event = "cycles",
		.split = "guest",
		.supported = true,
		.reading = {1000000, 300, 100},
	};
	struct stat_style st = {.interval = true, .timestamp = 1.5};

	(void)state;
	assert_string_equal(line(&row, &st),
			    "    1.500000000          3,000,000      "
			    "cycles               guest           (33.33%)");
}

static void test_text_not_supported_or_counted(void **state)
{
	struct stat_row row = {.event = "cycles", .split = "host", .supported = false};
	struct stat_style st = {0};

	(void)state;
	assert_non_null(strstr(line(&row, &st), "   <not supported>      cycles"));
	row.supported = true;
	row.reading = (struct stat_reading){0, 100, 0};
	assert_non_null(strstr(line(&row, &st), "     <not counted>      cycles"));
}

/* -x: value, unit, event, run time, percent, part, guest; no grouping. */
static void test_csv_fields(void **state)
{
	struct stat_row row = {
		.event = "cpu-clock",
		.split = "vcpu-threads",
		.guest = "web1",
		.supported = true,
		.clock = true,
		.reading = {2500000, 400, 100},
	};
	struct stat_style st = {.sep = ";"};

	(void)state;
	assert_string_equal(line(&row, &st),
			    "10.00;msec;cpu-clock;100;25.00;vcpu-threads;web1");
	row.clock = false;
	row.guest = NULL;
	row.event = "instructions";
	row.split = "host";
	row.reading = (struct stat_reading){1234567, 5, 5};
	st.interval = true;
	st.timestamp = 0.2;
	assert_string_equal(line(&row, &st),
			    "0.200000000;1234567;;instructions;5;100.00;host;");
	row.supported = false;
	assert_string_equal(line(&row, &st),
			    "0.200000000;<not supported>;;instructions;5;0.00;host;");
}

static void test_events_defaults(void **state)
{
	struct stat_event *evs;
	size_t n;
	struct kp_err err = {0};

	(void)state;
	assert_int_equal(stat_events_parse(NULL, true, &evs, &n, &err), 0);
	assert_int_equal(n, 4);
	assert_string_equal(evs[0].name, "cpu-clock");
	assert_true(evs[0].software && evs[0].clock);
	assert_string_equal(evs[1].name, "context-switches");
	assert_true(evs[1].software && !evs[1].clock);
	assert_false(evs[2].software);
	assert_string_equal(evs[3].name, "instructions");
	free(evs);
	assert_int_equal(stat_events_parse(NULL, false, &evs, &n, &err), 0);
	assert_string_equal(evs[0].name, "task-clock");
	free(evs);
}

static void test_events_bad_name(void **state)
{
	struct stat_event *evs;
	size_t n;
	struct kp_err err = {0};

	(void)state;
	assert_int_equal(
		stat_events_parse("task-clock,no-such-event", false, &evs, &n, &err),
		-EINVAL);
	assert_null(evs);
	assert_non_null(strstr(err.msg, "'no-such-event'"));
}

/* Host is exclude_guest, guest is exclude_host; counted, never sampled. */
static void test_split_attrs(void **state)
{
	struct stat_event *evs;
	struct perf_event_attr a;
	size_t n;

	(void)state;
	assert_int_equal(stat_events_parse("cycles", false, &evs, &n, NULL), 0);
	stat_event_attr(&evs[0], STAT_SPLIT_HOST, &a);
	assert_true(a.exclude_guest && !a.exclude_host && a.disabled);
	assert_int_equal(a.read_format,
			 PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING);
	assert_int_equal(a.sample_period, 0);
	stat_event_attr(&evs[0], STAT_SPLIT_GUEST, &a);
	assert_true(!a.exclude_guest && a.exclude_host);
	stat_event_attr(&evs[0], STAT_SPLIT_ALL, &a);
	assert_true(!a.exclude_guest && !a.exclude_host);
	assert_string_equal(stat_split_name(STAT_SPLIT_VCPU), "vcpu-threads");
	free(evs);
}

/*
 * Two QEMUs named web and one db: web's counts and vCPUs add up, its pids
 * are both listed, names come out sorted, and an event one QEMU could not
 * count is summed from the QEMU that could.
 */
static void test_guests_sum_per_name(void **state)
{
	const struct stat_reading web_a[2] = {{100, 10, 10}, {0, 0, 0}};
	const struct stat_reading db[2] = {{7, 10, 10}, {3, 10, 10}};
	const struct stat_reading web_b[2] = {{50, 20, 10}, {9, 20, 20}};
	const bool all[2] = {true, true}, first[2] = {true, false};
	const struct stat_vm_counts vms[] = {
		{"web", 30, 2, web_a, first},
		{"db", 20, 1, db, all},
		{"web", 10, 4, web_b, all},
	};
	struct stat_guest *g;
	size_t n;

	(void)state;
	assert_int_equal(stat_guests_sum(vms, 3, 2, &g, &n), 0);
	assert_int_equal(n, 2);
	assert_string_equal(g[0].name, "db");
	assert_string_equal(g[1].name, "web");
	assert_int_equal(g[1].nr_qemus, 2);
	assert_int_equal(g[1].pids[0], 30);
	assert_int_equal(g[1].pids[1], 10);
	assert_int_equal(g[1].nr_vcpus, 6);
	assert_int_equal(g[1].sums[0].value, 150);
	assert_int_equal(g[1].sums[0].enabled, 30);
	assert_int_equal(g[1].sums[0].running, 20);
	assert_true(g[1].supported[1]);
	assert_int_equal(g[1].sums[1].value, 9);
	assert_int_equal(g[0].sums[1].value, 3);
	stat_guests_free(g, n);
}

static void test_guests_sum_none(void **state)
{
	struct stat_guest *g;
	size_t n = 99;

	(void)state;
	assert_int_equal(stat_guests_sum(NULL, 0, 2, &g, &n), 0);
	assert_int_equal(n, 0);
	stat_guests_free(g, n);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_group_digits),
		cmocka_unit_test(test_scale_full_time),
		cmocka_unit_test(test_scale_multiplexed),
		cmocka_unit_test(test_scale_never_ran),
		cmocka_unit_test(test_reading_delta_and_sum),
		cmocka_unit_test(test_text_clock_line),
		cmocka_unit_test(test_text_scaled_count),
		cmocka_unit_test(test_text_not_supported_or_counted),
		cmocka_unit_test(test_csv_fields),
		cmocka_unit_test(test_events_defaults),
		cmocka_unit_test(test_events_bad_name),
		cmocka_unit_test(test_split_attrs),
		cmocka_unit_test(test_guests_sum_per_name),
		cmocka_unit_test(test_guests_sum_none),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
