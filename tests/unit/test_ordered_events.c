// SPDX-License-Identifier: GPL-2.0
/*
 * Ordered events: a round's records handed back by time (ties in file
 * order), samples with their file-order ordinal, rounds of samples alone in
 * file order, and files without times delivered as they are read.
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
#include "test_sample.h"
#include "testutil.h"

#define MAX_SEEN 16

static char dir[] = "/tmp/kvmprof-oe.XXXXXX";
static char data[64];
static struct pd_writer *w;
static bool id_all;

/* What the callback saw, in delivery order. */
struct seen {
	uint32_t type;
	uint64_t ip; /* samples: the tag the test gave; COMM: 0 */
	uint64_t ordinal;
};

static struct seen seen[MAX_SEEN];
static size_t nr_seen;
static size_t fail_at = MAX_SEEN; /* the delivery that fails with -EIO */

static int append(void *ctx, const struct perf_event_header *ev)
{
	struct kp_err err = {0};

	(void)ctx;
	return pd_writer_append(w, ev, ev->size, &err);
}

static void begin(bool sample_id_all)
{
	struct perf_event_attr attr = {0};
	uint64_t id = 7;
	struct kp_err err = {0};

	id_all = sample_id_all;
	attr.type = PERF_TYPE_SOFTWARE;
	attr.config = PERF_COUNT_SW_CPU_CLOCK;
	attr.sample_type = SAMPLE_TYPE;
	attr.sample_id_all = sample_id_all;
	assert_int_equal(pd_writer_create(data, &w, &err), 0);
	assert_int_equal(pd_writer_add_evsel(w, &attr, "cpu-clock", &id, 1), 0);
	assert_int_equal(pd_writer_begin_data(w, &err), 0);
}

static void sample(uint64_t ip, uint64_t time)
{
	struct test_sample s = {
		.h = {PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, sizeof(s)},
		.id = 7,
		.ip = ip,
		.pid = 10,
		.tid = 10,
		.time = time,
		.period = 1,
	};

	assert_int_equal(append(NULL, &s.h), 0);
}

static void comm(uint64_t time)
{
	struct synth s = {SAMPLE_TYPE, id_all, time, append, NULL};

	assert_int_equal(synth_comm(&s, 10, 10, "worker"), 0);
}

static void round_end(void)
{
	struct perf_event_header h = {PD_RECORD_FINISHED_ROUND, 0, sizeof(h)};

	assert_int_equal(append(NULL, &h), 0);
}

static void finish(void)
{
	struct kp_err err = {0};

	assert_int_equal(pd_writer_finish(w, &err), 0);
}

static int record(void *ctx, const struct ordered_event *e, struct kp_err *err)
{
	(void)ctx;
	if (nr_seen == fail_at)
		return kp_errorf(err, EIO, "delivery %zu fails", nr_seen);
	assert_true(nr_seen < MAX_SEEN);
	assert_true(!e->sample == (e->ev->type != PERF_RECORD_SAMPLE));
	seen[nr_seen++] = (struct seen){e->ev->type, e->sample ? e->sample->ip : 0,
					e->sample ? e->ordinal : 0};
	return 0;
}

/* Read the file back as the report does; returns the first error. */
static int replay(void)
{
	const struct perf_event_header *ev;
	struct ordered_events oe;
	struct kp_err err = {0};
	struct pd_file *f;
	uint64_t pos = 0;
	int ret;

	assert_int_equal(pd_open(data, &f, &err), 0);
	ordered_events_init(&oe, f, record, NULL);
	while ((ret = pd_next(f, &pos, &ev, &err)) > 0) {
		ret = ev->type == PD_RECORD_FINISHED_ROUND
			      ? ordered_events_flush(&oe, &err)
			      : ordered_events_queue(&oe, ev, &err);
		if (ret)
			break;
	}
	if (!ret)
		ret = ordered_events_flush(&oe, &err);
	ordered_events_release(&oe);
	pd_close(f);
	return ret;
}

static void assert_seen(size_t i, uint32_t type, uint64_t ip, uint64_t ordinal)
{
	assert_true(i < nr_seen);
	assert_int_equal(seen[i].type, type);
	assert_int_equal(seen[i].ip, ip);
	assert_int_equal(seen[i].ordinal, ordinal);
}

static int setup(void **state)
{
	(void)state;
	nr_seen = 0;
	fail_at = MAX_SEEN;
	strcpy(dir, "/tmp/kvmprof-oe.XXXXXX");
	if (!mkdtemp(dir))
		return -1;
	snprintf(data, sizeof(data), "%s/perf.data", dir);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	return sh("rm -rf %s", dir);
}

/* A COMM between samples of two CPUs: each record lands at its time. */
static void test_round_in_time_order(void **state)
{
	(void)state;
	begin(true);
	sample(0xa, 30);
	sample(0xb, 10);
	comm(20);
	sample(0xc, 20); /* the COMM's time: after it, as in the file */
	round_end();
	finish();
	assert_int_equal(replay(), 0);
	assert_int_equal(nr_seen, 4);
	assert_seen(0, PERF_RECORD_SAMPLE, 0xb, 1);
	assert_seen(1, PERF_RECORD_COMM, 0, 0);
	assert_seen(2, PERF_RECORD_SAMPLE, 0xc, 2);
	assert_seen(3, PERF_RECORD_SAMPLE, 0xa, 0);
}

/* Samples commute: a round of samples alone is not sorted. */
static void test_samples_alone_keep_file_order(void **state)
{
	(void)state;
	begin(true);
	sample(0xa, 30);
	sample(0xb, 10);
	round_end();
	finish();
	assert_int_equal(replay(), 0);
	assert_int_equal(nr_seen, 2);
	assert_seen(0, PERF_RECORD_SAMPLE, 0xa, 0);
	assert_seen(1, PERF_RECORD_SAMPLE, 0xb, 1);
}

/* A round is done at FINISHED_ROUND: later rounds never reach back into it. */
static void test_rounds_stay_apart(void **state)
{
	(void)state;
	begin(true);
	sample(0xa, 50);
	round_end();
	comm(10);
	sample(0xb, 5);
	finish(); /* the last round ends with the file */
	assert_int_equal(replay(), 0);
	assert_int_equal(nr_seen, 3);
	assert_seen(0, PERF_RECORD_SAMPLE, 0xa, 0);
	assert_seen(1, PERF_RECORD_SAMPLE, 0xb, 1);
	assert_seen(2, PERF_RECORD_COMM, 0, 0);
}

/* Without sample_id_all a COMM has no time: records go through as read. */
static void test_untimed_file_in_file_order(void **state)
{
	(void)state;
	begin(false);
	sample(0xa, 30);
	comm(0);
	sample(0xb, 10);
	finish();
	assert_int_equal(replay(), 0);
	assert_int_equal(nr_seen, 3);
	assert_seen(0, PERF_RECORD_SAMPLE, 0xa, 0);
	assert_seen(1, PERF_RECORD_COMM, 0, 0);
	assert_seen(2, PERF_RECORD_SAMPLE, 0xb, 1);
}

/* A failed delivery stops the round and its error comes back. */
static void test_delivery_error_stops(void **state)
{
	(void)state;
	begin(true);
	sample(0xa, 30);
	comm(20);
	sample(0xb, 10);
	round_end();
	sample(0xc, 40);
	finish();
	fail_at = 1;
	assert_int_equal(replay(), -EIO);
	assert_int_equal(nr_seen, 1);
	assert_seen(0, PERF_RECORD_SAMPLE, 0xb, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_round_in_time_order, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_samples_alone_keep_file_order, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_rounds_stay_apart, setup, teardown),
		cmocka_unit_test_setup_teardown(test_untimed_file_in_file_order, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_delivery_error_stops, setup,
						teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
