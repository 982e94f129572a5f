// SPDX-License-Identifier: GPL-2.0
/*
 * A guest that reboots mid-recording gets a new KASLR slide. Recorded
 * through the recorder's own code (record_state.c, as it takes ring
 * records), the file holds a kernel map for each slide, and a report
 * names the samples of both halves: from the per-sample guest context,
 * and, recorded without it, from the maps (the LSTAR from KVM's debugfs).
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

#define QEMU_PID 999999 /* no such process: named "-" */
#define HALF	 20

static char dir[] = "/tmp/kvmprof-reboot.XXXXXX";
static char data[64], kallsyms[64], debugfs[64];

/*
 * A ring sample, with the kernel's guest context at its end when @ctx, and
 * without its IDENTIFIER when @id is false (one event: evsetup_single_event()).
 */
static void feed_sample(struct record_state *rs, uint64_t ip, uint64_t lstar,
			uint64_t time, bool ctx, bool id)
{
	struct test_sample s = {
		.h = {PERF_RECORD_SAMPLE, PERF_RECORD_MISC_GUEST_KERNEL, 0},
		.id = 7,
		.ip = ip,
		.pid = QEMU_PID,
		.tid = QEMU_PID + 1,
		.time = time,
		.period = 1000};
	struct perf_sample_guest_ctx k = {
		.vcpu_id = 0, .pt_root = 0x1000, .kernel_entry = lstar};
	uint8_t buf[sizeof(s) + sizeof(k)];
	size_t body = sizeof(s) - sizeof(s.h) - (id ? 0 : sizeof(s.id));
	struct perf_event_header *h = (struct perf_event_header *)buf;

	memcpy(buf + sizeof(s.h), id ? (void *)&s.id : (void *)&s.ip, body);
	if (ctx)
		memcpy(buf + sizeof(s.h) + body, &k, sizeof(k));
	*h = s.h;
	h->size = (uint16_t)(sizeof(s.h) + body + (ctx ? sizeof(k) : 0));
	assert_int_equal(record_state_on_record(rs, h), 0);
}

static void debugfs_lstar(uint64_t lstar)
{
	assert_int_equal(sh("mkdir -p %s/%d-11/vcpu0 && printf '%#llx\\n' "
			    ">%s/%d-11/vcpu0/guest_lstar && printf '0x1000\\n' "
			    ">%s/%d-11/vcpu0/guest_cr3",
			    debugfs, QEMU_PID, (unsigned long long)lstar, debugfs,
			    QEMU_PID, debugfs, QEMU_PID),
			 0);
}

/*
 * Record HALF samples in do_syscall_64 at SLIDE1, the guest reboots, then
 * HALF in native_safe_halt at SLIDE2, a round marker every 5 samples.
 */
static void record_reboot(bool ctx, bool with_id)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_CPU_CLOCK,
		.sample_type =
			with_id ? SAMPLE_TYPE : SAMPLE_TYPE & ~PERF_SAMPLE_IDENTIFIER,
		.sample_id_all = 1};
	struct record_state rs;
	struct kp_err err = {0};
	uint64_t id = 7;

	record_state_init(&rs, false, false);
	rs.guest_ctx = ctx;
	rs.kmaps.debugfs_dir = debugfs;
	debugfs_lstar(LINK_SYS + SLIDE1);
	assert_int_equal(pd_writer_create(data, &rs.writer, &err), 0);
	assert_int_equal(pd_writer_add_evsel(rs.writer, &attr, "cpu-clock", &id, 1), 0);
	assert_int_equal(pd_writer_begin_data(rs.writer, &err), 0);
	record_state_set_synth(&rs, &attr);
	for (int i = 0; i < 2 * HALF; i++) {
		bool second = i >= HALF;
		uint64_t slide = second ? SLIDE2 : SLIDE1;

		if (i == HALF)
			debugfs_lstar(LINK_SYS + SLIDE2);
		feed_sample(&rs, (second ? LINK_HALT : LINK_DO) + slide + 0x10,
			    LINK_SYS + slide, 1000 + (uint64_t)i, ctx, with_id);
		if (i % 5 == 4)
			assert_int_equal(record_state_finish_round(&rs), 0);
	}
	assert_int_equal(record_state_write_guests(&rs, &err), 0);
	assert_int_equal(record_state_write_contexts(&rs, &err), 0);
	assert_int_equal(pd_writer_finish(rs.writer, &err), 0);
	rs.writer = NULL;
	record_state_release(&rs);
}

/* The guest kernel maps the file holds for QEMU_PID. */
static int count_guest_maps(void)
{
	char want[64];
	struct pd_file *f;
	struct kp_err err = {0};
	const struct perf_event_header *ev;
	uint64_t pos = 0;
	int n = 0;

	snprintf(want, sizeof(want), "[guest.kernel.kallsyms.%d]", QEMU_PID);
	assert_int_equal(pd_open(data, &f, &err), 0);
	while (pd_next(f, &pos, &ev, &err) > 0)
		if (ev->type == PERF_RECORD_MMAP &&
		    !strncmp((const char *)ev + 40, want, strlen(want)))
			n++;
	pd_close(f);
	return n;
}

/* The period the report puts on symbol @name (0: no such row). */
static uint64_t period_of(const struct session *s, const char *name)
{
	const struct hists *h = &s->hists[0];

	for (size_t i = 0; i < h->nr_entries; i++)
		if (h->entries[i]->key.sym && !strcmp(h->entries[i]->key.sym->name, name))
			return h->entries[i]->period;
	return 0;
}

static void report_both_halves(void)
{
	struct symbol_opts so = {.guestkallsyms = kallsyms, .guestmount = dir};
	struct session s;
	struct kp_err err = {0};

	assert_int_equal(session_open(&s, data, "sym", &so, &err), 0);
	assert_int_equal(session_process(&s, &err), 0);
	assert_true(period_of(&s, "do_syscall_64") == HALF * 1000);
	assert_true(period_of(&s, "native_safe_halt") == HALF * 1000);
	assert_int_equal(s.hists[0].nr_entries, 2);
	session_close(&s);
}

/* Record the reboot with samples of that kind, then read both halves back. */
static void reboot_and_report(bool ctx, bool with_id)
{
	record_reboot(ctx, with_id);
	assert_int_equal(count_guest_maps(), 2);
	report_both_halves();
}

static void test_reboot_with_guest_context(void **state)
{
	(void)state;
	reboot_and_report(true, true);
}

/* One event: samples without IDENTIFIER, their pid and time a word earlier. */
static void test_reboot_one_event(void **state)
{
	(void)state;
	reboot_and_report(true, false);
	reboot_and_report(false, false);
}

static void test_reboot_from_kernel_maps(void **state)
{
	(void)state;
	reboot_and_report(false, true);
}

static int setup(void **state)
{
	(void)state;
	if (guest_fixture_make(dir, kallsyms, sizeof(kallsyms)))
		return -1;
	snprintf(data, sizeof(data), "%s/perf.data", dir);
	snprintf(debugfs, sizeof(debugfs), "%s/kvm", dir);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	guest_fixture_remove(dir, "/tmp/kvmprof-reboot.XXXXXX");
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_reboot_with_guest_context, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_reboot_from_kernel_maps, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_reboot_one_event, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
