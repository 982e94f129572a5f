// SPDX-License-Identifier: GPL-2.0
/*
 * Guest kernel samples reuse their cached histogram row, as host samples
 * do, but only when every input the sort keys see is the same: samples at
 * one guest address from two vCPUs and two address spaces (CR3) must still
 * fall into a row per vCPU or per CR3 when those are sort keys.
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

#include "perf/perf.h"
#include "record_state.h"
#include "session.h"
#include "guest_fixture.h"
#include "test_sample.h"
#include "testutil.h"

#define QEMU_PID 999998 /* no such process: named "-" */
#define SAMPLES	 40
#define PERIOD	 1000

static char dir[] = "/tmp/kvmprof-guest-rows.XXXXXX";
static char data[64], kallsyms[64];

struct ring_sample {
	struct test_sample s;
	struct perf_sample_guest_ctx ctx;
};

/* Sample @i: vCPU i % 2, CR3 0x1000 or 0x2000 by (i / 2) % 2, one address. */
static void feed_sample(struct record_state *rs, int i)
{
	struct ring_sample r = {
		.s = {.h = {PERF_RECORD_SAMPLE, PERF_RECORD_MISC_GUEST_KERNEL, sizeof(r)},
		      .id = 7,
		      .ip = LINK_DO + SLIDE1 + 0x10,
		      .pid = QEMU_PID,
		      .tid = QEMU_PID + 1 + i % 2,
		      .time = 1000 + (uint64_t)i,
		      .period = PERIOD},
		.ctx = {.vcpu_id = (uint32_t)(i % 2),
			.pt_root = (i / 2) % 2 ? 0x2000 : 0x1000,
			.kernel_entry = LINK_SYS + SLIDE1},
	};

	assert_int_equal(record_state_on_record(rs, &r.s.h), 0);
}

static void record_samples(void)
{
	struct perf_event_attr attr = {.type = PERF_TYPE_SOFTWARE,
				       .config = PERF_COUNT_SW_CPU_CLOCK,
				       .sample_type = SAMPLE_TYPE,
				       .sample_id_all = 1};
	struct record_state rs;
	struct kp_err err = {0};
	uint64_t id = 7;

	record_state_init(&rs, false, false);
	rs.guest_ctx = true;
	assert_int_equal(pd_writer_create(data, &rs.writer, &err), 0);
	assert_int_equal(pd_writer_add_evsel(rs.writer, &attr, "cpu-clock", &id, 1), 0);
	assert_int_equal(pd_writer_begin_data(rs.writer, &err), 0);
	record_state_set_synth(&rs, &attr);
	for (int i = 0; i < SAMPLES; i++) {
		feed_sample(&rs, i);
		if (i % 5 == 4)
			assert_int_equal(record_state_finish_round(&rs), 0);
	}
	assert_int_equal(record_state_write_guests(&rs, &err), 0);
	assert_int_equal(record_state_write_contexts(&rs, &err), 0);
	assert_int_equal(pd_writer_finish(rs.writer, &err), 0);
	rs.writer = NULL;
	record_state_release(&rs);
}

/*
 * Report sorted by @keys: @rows rows, each do_syscall_64 with an equal
 * share of the samples.
 */
static void check_rows(const char *keys, size_t rows)
{
	struct symbol_opts so = {.guestkallsyms = kallsyms, .guestmount = dir};
	struct session s;
	struct kp_err err = {0};
	const struct hists *h;

	assert_int_equal(session_open(&s, data, keys, &so, &err), 0);
	assert_int_equal(session_process(&s, &err), 0);
	h = &s.hists[0];
	assert_int_equal(h->nr_entries, rows);
	for (size_t i = 0; i < h->nr_entries; i++) {
		const struct hist_entry *e = h->entries[i];

		assert_non_null(e->key.sym);
		assert_string_equal(e->key.sym->name, "do_syscall_64");
		assert_int_equal(e->samples, SAMPLES / rows);
		assert_int_equal(e->period, SAMPLES / rows * PERIOD);
	}
	session_close(&s);
}

static void test_one_row_without_vcpu_or_cr3(void **state)
{
	(void)state;
	check_rows("guest,sym", 1);
}

static void test_row_per_vcpu(void **state)
{
	(void)state;
	check_rows("vcpu,sym", 2);
}

static void test_row_per_cr3(void **state)
{
	(void)state;
	check_rows("cr3,sym", 2);
}

static void test_row_per_vcpu_and_cr3(void **state)
{
	(void)state;
	check_rows("guest,vcpu,cr3,sym", 4);
}

static int setup(void **state)
{
	(void)state;
	if (guest_fixture_make(dir, kallsyms, sizeof(kallsyms)))
		return -1;
	snprintf(data, sizeof(data), "%s/perf.data", dir);
	record_samples();
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	guest_fixture_remove(dir, "/tmp/kvmprof-guest-rows.XXXXXX");
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_one_row_without_vcpu_or_cr3),
		cmocka_unit_test(test_row_per_vcpu),
		cmocka_unit_test(test_row_per_cr3),
		cmocka_unit_test(test_row_per_vcpu_and_cr3),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
