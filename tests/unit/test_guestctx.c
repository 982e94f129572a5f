// SPDX-License-Identifier: GPL-2.0
/* Guest context: the kernel probe, and the per-sample table kept in perf.data. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <linux/perf_event.h>

#include "perf/perf.h"

/* This machine's kernel lacks the series: the bit alone must be refused. */
static void test_probe_on_unpatched_kernel(void **state)
{
	struct perf_event_attr attr = { .type = PERF_TYPE_SOFTWARE,
					.config = PERF_COUNT_SW_CPU_CLOCK,
					.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID,
					.sample_freq = 100,
					.freq = 1 };

	assert_int_equal(guestctx_probe(&attr), 0);
}

static void test_table_roundtrip(void **state)
{
	struct perf_sample_guest_ctx a = { 100, 0, 0x2000, 0xffffffff80100040 };
	struct perf_sample_guest_ctx b = { 100, 1, 0x3000, 0xffffffff80100040 };
	struct guestctx_table t = { 0 }, back;
	struct kp_err err = { 0 };
	void *blob;
	size_t len;

	for (int i = 0; i < 10000; i++)
		assert_int_equal(guestctx_table_add(&t, i % 3 == 0 ? NULL : i % 3 == 1 ? &a : &b), 0);
	assert_int_equal(t.nr_ctxs, 2);
	assert_int_equal(guestctx_table_encode(&t, &blob, &len), 0);
	assert_true(len < 1000);	/* repetitive indexes compress well */
	assert_int_equal(guestctx_table_decode(blob, len, 10000 * 8, "t", &back, &err), 0);
	assert_null(guestctx_of(&back, 0));
	assert_int_equal(guestctx_of(&back, 1)->cr3, 0x2000);
	assert_int_equal(guestctx_of(&back, 2)->vcpu_id, 1);
	assert_int_equal(guestctx_of(&back, 9997)->cr3, 0x2000);
	assert_null(guestctx_of(&back, 10000));
	guestctx_table_release(&back);
	/* A damaged blob is an error naming the input, never a crash. */
	((uint8_t *)blob)[len / 2] ^= 0xff;
	if (guestctx_table_decode(blob, len, 10000 * 8, "damaged", &back, &err) == 0)
		guestctx_table_release(&back);
	else
		assert_non_null(strstr(err.msg, "damaged"));
	free(blob);
	guestctx_table_release(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_probe_on_unpatched_kernel),
		cmocka_unit_test(test_table_roundtrip),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
