// SPDX-License-Identifier: GPL-2.0
/*
 * Guest kernel maps written while recording: one per guest, with the LSTAR
 * from the guest context or, without it, from a debugfs folder laid out as
 * the patched kernel lays out /sys/kernel/debug/kvm; and timestamps that
 * readers sorting each round put ahead of the guest's samples.
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
#include "testutil.h"

#define SAMPLE_TYPE                                                                     \
	(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | \
	 PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD)

static char root[] = "/tmp/kvmprof-gkmap.XXXXXX";

/* The records written, one after another. */
static uint8_t out[8192];
static size_t out_len;
static int nr_out;

static int capture(void *ctx, const struct perf_event_header *ev)
{
	(void)ctx;
	assert_true(out_len + ev->size <= sizeof(out));
	memcpy(out + out_len, ev, ev->size);
	out_len += ev->size;
	nr_out++;
	return 0;
}

static const struct synth synth = {SAMPLE_TYPE, true, 0, capture, NULL};

struct mmap_rec {
	struct perf_event_header h;
	uint32_t pid, tid;
	uint64_t start, len, pgoff;
	char filename[];
};

/* The n-th record captured. */
static const struct mmap_rec *record(int n)
{
	size_t off = 0;

	for (int i = 0; i < n; i++)
		off += ((const struct perf_event_header *)(out + off))->size;
	return (const struct mmap_rec *)(out + off);
}

/* The trailer's pid and time (TID, TIME, CPU, IDENTIFIER for SAMPLE_TYPE). */
static void trailer(const struct mmap_rec *r, uint32_t *pid, uint64_t *time)
{
	const uint8_t *end = (const uint8_t *)r + r->h.size;

	memcpy(pid, end - 32, 4);
	memcpy(time, end - 24, 8);
}

static void vcpu_lstar(int pid, const char *lstar)
{
	assert_int_equal(
		sh("mkdir -p %s/%d-11/vcpu0 && printf '%s' >%s/%d-11/vcpu0/guest_lstar"
		   " && printf '0x1000\\n' >%s/%d-11/vcpu0/guest_cr3",
		   root, pid, lstar, root, pid, root, pid),
		0);
}

static int setup(void **state)
{
	(void)state;
	out_len = 0;
	nr_out = 0;
	return mkdtemp(root) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	sh("rm -rf %s", root);
	strcpy(root, "/tmp/kvmprof-gkmap.XXXXXX");
	return 0;
}

static void test_context_lstar_once_per_guest(void **state)
{
	struct guestkmaps t = {.debugfs_dir = root};
	const struct mmap_rec *r;
	uint32_t pid;
	uint64_t time;

	(void)state;
	assert_int_equal(guestkmaps_note(&t, &synth, 4242, 0xffffffff9a000040ULL, 1000),
			 0);
	assert_int_equal(guestkmaps_note(&t, &synth, 4242, 0xffffffff9a000040ULL, 1000),
			 0);
	assert_int_equal(nr_out, 2);
	r = record(1);
	assert_int_equal(r->h.type, PERF_RECORD_MMAP);
	assert_int_equal(r->h.misc, PERF_RECORD_MISC_GUEST_KERNEL);
	assert_int_equal(r->pid, 4242);
	assert_true(r->pgoff == 0xffffffff9a000040ULL);
	/* The map covers the text below entry_SYSCALL_64 too. */
	assert_true(r->start == 0xffffffff80000000ULL && r->start + r->len == ~0ULL);
	assert_string_equal(r->filename, "[guest.kernel.kallsyms.4242]entry_SYSCALL_64");
	trailer(r, &pid, &time);
	assert_int_equal(pid, 4242);
	assert_true(time == 0);
	/* Before it, the same for perf's default guest, on behalf of 4242. */
	r = record(0);
	assert_int_equal(r->pid, 0);
	assert_true(r->pgoff == 0xffffffff9a000040ULL);
	assert_string_equal(r->filename, "[guest.kernel.kallsyms]entry_SYSCALL_64");
	trailer(r, &pid, &time);
	assert_int_equal(pid, 4242);
	assert_non_null(guestkmaps_find(&t, 4242));
	assert_true(guestkmaps_find(&t, 4242)->lstar == 0xffffffff9a000040ULL);
	/* A second guest gets its own map; pid 0 or less is nobody's. */
	assert_int_equal(guestkmaps_note(&t, &synth, 77, 0xffffffff81000040ULL, 1000), 0);
	assert_int_equal(guestkmaps_note(&t, &synth, 0, 0xffffffff81000040ULL, 1000), 0);
	assert_int_equal(nr_out, 4);
	assert_int_equal(record(3)->pid, 77);
	guestkmaps_release(&t);
}

static void test_debugfs_without_context(void **state)
{
	struct guestkmaps t = {.debugfs_dir = root};

	(void)state;
	vcpu_lstar(300, "0xffffffffa2a00080\n");
	assert_int_equal(guestkmaps_note(&t, &synth, 300, 0, 1000), 0);
	assert_int_equal(nr_out, 2);
	assert_true(record(1)->pgoff == 0xffffffffa2a00080ULL);
	assert_string_equal(record(1)->filename,
			    "[guest.kernel.kallsyms.300]entry_SYSCALL_64");
	/* No folder for this pid (or a kernel without the series): no map, no error. */
	assert_int_equal(guestkmaps_note(&t, &synth, 301, 0, 1000), 0);
	assert_int_equal(nr_out, 2);
	guestkmaps_release(&t);
}

/* A guest that has not entered its kernel yet is asked again, once per round. */
static void test_debugfs_retried_per_round(void **state)
{
	struct guestkmaps t = {.debugfs_dir = root};

	(void)state;
	vcpu_lstar(400, "0x0\n");
	assert_int_equal(guestkmaps_note(&t, &synth, 400, 0, 1000), 0);
	vcpu_lstar(400, "0xffffffff81e00040\n");
	assert_int_equal(guestkmaps_note(&t, &synth, 400, 0, 1000), 0);
	assert_int_equal(nr_out, 0);
	guestkmaps_round(&t);
	assert_int_equal(guestkmaps_note(&t, &synth, 400, 0, 1000), 0);
	assert_int_equal(nr_out, 2);
	assert_true(record(1)->pgoff == 0xffffffff81e00040ULL);
	guestkmaps_release(&t);
}

/* The map's time: the latest seen as of the next-to-last round marker. */
static void test_time_two_rounds_back(void **state)
{
	struct guestkmaps t = {.debugfs_dir = root};
	uint32_t pid;
	uint64_t time;

	(void)state;
	guestkmaps_saw_time(&t, 100);
	guestkmaps_round(&t);
	guestkmaps_saw_time(&t, 250);
	guestkmaps_saw_time(&t, 200);
	guestkmaps_round(&t);
	guestkmaps_saw_time(&t, 300);
	assert_int_equal(guestkmaps_note(&t, &synth, 5, 0xffffffff81000040ULL, 1000), 0);
	trailer(record(0), &pid, &time);
	assert_true(time == 100);
	guestkmaps_round(&t);
	assert_int_equal(guestkmaps_note(&t, &synth, 6, 0xffffffff81000040ULL, 1000), 0);
	trailer(record(2), &pid, &time);
	assert_true(time == 250);
	guestkmaps_release(&t);
}

/*
 * A guest that rebooted: its LSTAR changes, and a new map is written at the
 * time of the first sample that shows it; the old kernel's samples drained
 * later (older) write nothing.
 */
static void test_reboot_writes_a_new_map(void **state)
{
	struct guestkmaps t = {.debugfs_dir = root};
	uint32_t pid;
	uint64_t time;

	(void)state;
	guestkmaps_saw_time(&t, 100);
	guestkmaps_round(&t);
	guestkmaps_round(&t);
	assert_int_equal(guestkmaps_note(&t, &synth, 9, 0xffffffff9a000040ULL, 500), 0);
	assert_int_equal(nr_out, 2);
	assert_int_equal(guestkmaps_note(&t, &synth, 9, 0xffffffffa4000040ULL, 900), 0);
	assert_int_equal(nr_out, 4);
	assert_true(record(3)->pgoff == 0xffffffffa4000040ULL);
	assert_string_equal(record(3)->filename,
			    "[guest.kernel.kallsyms.9]entry_SYSCALL_64");
	trailer(record(3), &pid, &time);
	assert_true(time == 900);
	/* Another vCPU's ring, drained later, still had the old kernel's samples. */
	assert_int_equal(guestkmaps_note(&t, &synth, 9, 0xffffffff9a000040ULL, 850), 0);
	assert_int_equal(guestkmaps_note(&t, &synth, 9, 0xffffffffa4000040ULL, 950), 0);
	assert_int_equal(nr_out, 4);
	assert_int_equal(guestkmaps_find(&t, 9)->nr_maps, 2);
	assert_true(guestkmaps_find(&t, 9)->lstar == 0xffffffffa4000040ULL);
	guestkmaps_release(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_context_lstar_once_per_guest, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_debugfs_without_context, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_reboot_writes_a_new_map, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_debugfs_retried_per_round, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_time_two_rounds_back, setup,
						teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
