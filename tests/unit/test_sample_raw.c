// SPDX-License-Identifier: GPL-2.0
/*
 * PERF_SAMPLE_RAW: a tracepoint sample's record is handed out in place,
 * and one whose size runs past its sample is refused.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "perf/perf.h"
#include "test_sample.h"

static struct pd_file *write_and_open(const struct test_raw_sample *s, size_t n,
				      char *path)
{
	struct perf_event_attr attr = {.type = PERF_TYPE_TRACEPOINT,
				       .config = 103,
				       .sample_type = RAW_SAMPLE_TYPE,
				       .sample_period = 1,
				       .sample_id_all = 1};
	struct pd_writer *w;
	struct pd_file *f;
	uint64_t id = 7;
	struct kp_err err = {0};
	int fd = mkstemp(path);

	close(fd);
	assert_int_equal(pd_writer_create(path, &w, &err), 0);
	assert_int_equal(pd_writer_add_evsel(w, &attr, "kvm:kvm_exit", &id, 1), 0);
	assert_int_equal(pd_writer_begin_data(w, &err), 0);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(pd_writer_append(w, &s[i], sizeof(s[i]), &err), 0);
	assert_int_equal(pd_writer_finish(w, &err), 0);
	assert_int_equal(pd_open(path, &f, &err), 0);
	return f;
}

static struct test_raw_sample sample(uint32_t raw_size)
{
	struct test_raw_sample s = {.h = {PERF_RECORD_SAMPLE, 0, sizeof(s)},
				    .id = 7,
				    .pid = 10,
				    .tid = 11,
				    .time = 1000,
				    .period = 1,
				    .raw_size = raw_size};

	for (size_t i = 0; i < sizeof(s.raw); i++)
		s.raw[i] = (uint8_t)(i + 1);
	return s;
}

static void raw_in_place(void **state)
{
	char path[40] = "/tmp/kvmprof-raw.XXXXXX";
	struct test_raw_sample s = sample(60);
	struct pd_file *f = write_and_open(&s, 1, path);
	const struct perf_event_header *ev;
	struct pd_sample ps;
	uint64_t pos = 0;

	assert_int_equal(pd_next(f, &pos, &ev, NULL), 1);
	assert_int_equal(pd_parse_sample(f, ev, &ps, NULL), 0);
	assert_int_equal(ps.raw_size, 60);
	assert_memory_equal(ps.raw, s.raw, 60);
	assert_ptr_equal(ps.raw,
			 (const uint8_t *)ev + offsetof(struct test_raw_sample, raw));
	assert_int_equal(ps.tid, 11);
	pd_close(f);
	unlink(path);
	strcat(path, ".old");
	unlink(path);
}

static void raw_past_the_sample(void **state)
{
	char path[40] = "/tmp/kvmprof-raw.XXXXXX";
	struct test_raw_sample s = sample(61);
	struct pd_file *f = write_and_open(&s, 1, path);
	const struct perf_event_header *ev;
	struct pd_sample ps;
	struct kp_err err = {0};
	uint64_t pos = 0;

	assert_int_equal(pd_next(f, &pos, &ev, NULL), 1);
	assert_true(pd_parse_sample(f, ev, &ps, &err) < 0);
	assert_non_null(strstr(err.msg, "shorter than its sample_type"));
	pd_close(f);
	unlink(path);
	strcat(path, ".old");
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(raw_in_place),
		cmocka_unit_test(raw_past_the_sample),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
