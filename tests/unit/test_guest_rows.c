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

#include "session.h"
#include "guest_fixture.h"
#include "guest_recording.h"
#include "testutil.h"

#define QEMU_PID 999998 /* no such process */
#define SAMPLES	 40
#define PERIOD	 1000

static char dir[] = "/tmp/kvmprof-guest-rows.XXXXXX";
static char data[64], kallsyms[64];

/* Sample i: vCPU i % 2, CR3 0x1000 or 0x2000 by (i / 2) % 2, one address. */
static void write_samples(void)
{
	struct guest_recording r;

	recording_begin(&r, data);
	recording_guest(&r, QEMU_PID, "deb2p");
	for (int i = 0; i < SAMPLES; i++)
		recording_sample(&r, QEMU_PID, PERF_RECORD_MISC_GUEST_KERNEL,
				 LINK_DO + 0x10, i % 2, (i / 2) % 2 ? 0x2000 : 0x1000,
				 PERIOD);
	recording_finish(&r);
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

/*
 * Without guest context, the vCPU comes from the thread's name: samples
 * alternating between QEMU's "CPU 0/KVM", "CPU 1/KVM" and a thread of
 * another name fall into three vCPU rows (the last "-").
 */
static void test_vcpu_from_thread_names(void **state)
{
	static const char *const names[] = {"CPU 0/KVM", "CPU 1/KVM", "worker"};
	struct symbol_opts so = {.guestkallsyms = kallsyms, .guestmount = dir};
	struct guest_recording r;
	struct kp_err err = {0};
	struct session s;
	const struct hists *h;
	int seen[3] = {0};

	(void)state;
	recording_begin(&r, data);
	recording_guest(&r, QEMU_PID, "deb2p");
	for (int t = 0; t < 3; t++)
		recording_comm(&r, QEMU_PID, QEMU_PID + 1 + t, names[t]);
	for (int i = 0; i < 3 * SAMPLES; i++)
		recording_thread_sample(&r, QEMU_PID, QEMU_PID + 1 + (uint32_t)(i % 3),
					PERF_RECORD_MISC_GUEST_KERNEL, LINK_DO + 0x10, -1,
					0, PERIOD);
	recording_finish(&r);
	assert_int_equal(session_open(&s, data, "vcpu,sym", &so, &err), 0);
	assert_int_equal(session_process(&s, &err), 0);
	h = &s.hists[0];
	assert_int_equal(h->nr_entries, 3);
	for (size_t i = 0; i < h->nr_entries; i++) {
		int vcpu = h->entries[i]->key.vcpu;

		assert_true(vcpu >= -1 && vcpu <= 1);
		assert_int_equal(h->entries[i]->samples, SAMPLES);
		seen[vcpu + 1]++;
	}
	assert_true(seen[0] == 1 && seen[1] == 1 && seen[2] == 1);
	session_close(&s);
	write_samples(); /* the file the other tests read */
}

/*
 * Threads whose samples interleave, remembered in the same place (tids
 * MACHINE_RECENT apart): each sample still counts under its own name.
 */
static void test_interleaved_threads(void **state)
{
	const int a = 700, b = 700 + MACHINE_RECENT;
	struct symbol_opts so = {.guestkallsyms = kallsyms, .guestmount = dir};
	struct guest_recording r;
	struct kp_err err = {0};
	struct session s;
	const struct hists *h;

	(void)state;
	recording_begin(&r, data);
	recording_comm(&r, a, a, "alpha");
	recording_comm(&r, b, b, "beta");
	for (int i = 0; i < 3 * SAMPLES; i++)
		recording_thread_sample(&r, i % 3 ? (uint32_t)a : (uint32_t)b,
					i % 3 ? (uint32_t)a : (uint32_t)b,
					PERF_RECORD_MISC_USER, 0x401000, -1, 0, PERIOD);
	recording_finish(&r);
	assert_int_equal(session_open(&s, data, "comm", &so, &err), 0);
	assert_int_equal(session_process(&s, &err), 0);
	h = &s.hists[0];
	assert_int_equal(h->nr_entries, 2);
	for (size_t i = 0; i < h->nr_entries; i++) {
		const char *comm = h->entries[i]->key.comm;

		assert_non_null(comm);
		assert_int_equal(h->entries[i]->samples,
				 strcmp(comm, "alpha") ? SAMPLES : 2 * SAMPLES);
		assert_true(!strcmp(comm, "alpha") || !strcmp(comm, "beta"));
	}
	session_close(&s);
	write_samples(); /* the file the other tests read */
}

static int setup(void **state)
{
	(void)state;
	if (guest_fixture_make(dir, kallsyms, sizeof(kallsyms)))
		return -1;
	snprintf(data, sizeof(data), "%s/perf.data", dir);
	write_samples();
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
		cmocka_unit_test(test_vcpu_from_thread_names),
		cmocka_unit_test(test_interleaved_threads),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
