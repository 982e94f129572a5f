// SPDX-License-Identifier: GPL-2.0
/* Guest context: the kernel probe, its record, and the per-sample table in perf.data. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zstd.h>
#include <cmocka.h>

#include <linux/perf_event.h>

#include "perf/perf.h"

/* This machine's kernel lacks the series: the bit alone must be refused. */
static void test_probe_on_unpatched_kernel(void **state)
{
	struct perf_event_attr attr = {.type = PERF_TYPE_SOFTWARE,
				       .config = PERF_COUNT_SW_CPU_CLOCK,
				       .sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID,
				       .sample_freq = 100,
				       .freq = 1};

	assert_int_equal(guestctx_probe(&attr), -EINVAL);
}

/* An event the kernel refuses with or without the bit is not the bit's fault. */
static void test_probe_blames_the_event_first(void **state)
{
	struct perf_event_attr attr = {.type = PERF_TYPE_SOFTWARE,
				       .config = PERF_COUNT_SW_MAX + 100,
				       .sample_type = PERF_SAMPLE_IP};

	(void)state;
	assert_int_equal(guestctx_probe(&attr), -ENOENT);
}

/* Each reason for a refused probe has its own message, naming the fix. */
static void test_explain(void **state)
{
	struct guestctx_host kvm = {.has_kvm = true, .paranoid = 2};
	struct guestctx_host nokvm = {.has_kvm = false, .paranoid = 2};
	char buf[160];

	(void)state;
	guestctx_explain(-EINVAL, &kvm, buf, sizeof(buf));
	assert_non_null(strstr(buf, "not supported by this kernel: it has KVM but not "
				    "PERF_SAMPLE_GUEST_CTX"));
	guestctx_explain(-EINVAL, &nokvm, buf, sizeof(buf));
	assert_non_null(strstr(buf, "not supported by this kernel: it has no KVM"));
	guestctx_explain(-EACCES, &kvm, buf, sizeof(buf));
	assert_non_null(strstr(buf, "not permitted: perf_event_paranoid is 2"));
	guestctx_explain(-EMFILE, &kvm, buf, sizeof(buf));
	assert_non_null(strstr(buf, "unavailable: "));
}

/* This machine has KVM, and the host facts must say so. */
static void test_host_probe(void **state)
{
	struct guestctx_host h;

	(void)state;
	guestctx_host_probe(&h);
	if (!access("/dev/kvm", F_OK))
		assert_true(h.has_kvm);
	assert_true(h.paranoid >= -1 && h.paranoid <= 4);
}

/* The kernel's v2 record, with the VM from the sample's pid. */
static void test_from_sample(void **state)
{
	struct perf_sample_guest_ctx k = {.vcpu_id = 3,
					  .reserved = 0,
					  .pt_root = 0x2000,
					  .kernel_entry = 0xffffffff81e00040};
	struct guest_ctx c = guest_ctx_from_sample(&k, 4242);

	(void)state;
	assert_int_equal(sizeof(k), 24);
	assert_int_equal(c.pid, 4242);
	assert_int_equal(c.vcpu_id, 3);
	assert_int_equal(c.cr3, 0x2000);
	assert_int_equal(c.lstar, 0xffffffff81e00040);
}

/*
 * A table as kvmprof wrote it on the first kernel series, built byte by
 * byte: magic, counts, {pid, vcpu, cr3, lstar} records, per-sample indexes.
 */
static void test_reads_v1_tables(void **state)
{
	uint8_t raw[24 + 24 + 3 * 4] = "KPCTX1";
	uint64_t counts[2] = {1, 3};
	uint32_t ids[3] = {0, 1, 1}, pid = 77, vcpu = 2;
	uint64_t cr3 = 0x5000, lstar = 0xffffffff9aa00040;
	struct guestctx_table t;
	struct kp_err err = {0};
	uint8_t z[256];
	size_t n;

	(void)state;
	memcpy(raw + 8, counts, 16);
	memcpy(raw + 24, &pid, 4);
	memcpy(raw + 28, &vcpu, 4);
	memcpy(raw + 32, &cr3, 8);
	memcpy(raw + 40, &lstar, 8);
	memcpy(raw + 48, ids, sizeof(ids));
	n = ZSTD_compress(z, sizeof(z), raw, sizeof(raw), 3);
	assert_false(ZSTD_isError(n));
	assert_int_equal(guestctx_table_decode(z, n, 3 * 8, "v1", &t, &err), 0);
	assert_null(guestctx_of(&t, 0));
	assert_int_equal(guestctx_of(&t, 2)->pid, 77);
	assert_int_equal(guestctx_of(&t, 2)->vcpu_id, 2);
	assert_int_equal(guestctx_of(&t, 1)->cr3, 0x5000);
	assert_int_equal(guestctx_of(&t, 1)->lstar, 0xffffffff9aa00040);
	guestctx_table_release(&t);
}

static void test_table_roundtrip(void **state)
{
	struct guest_ctx a = {100, 0, 0x2000, 0xffffffff80100040};
	struct guest_ctx b = {100, 1, 0x3000, 0xffffffff80100040};
	struct guestctx_table t = {0}, back;
	struct kp_err err = {0};
	void *blob;
	size_t len;

	for (int i = 0; i < 10000; i++)
		assert_int_equal(guestctx_table_add(&t, i % 3 == 0   ? NULL
							: i % 3 == 1 ? &a
								     : &b),
				 0);
	assert_int_equal(t.nr_ctxs, 2);
	assert_int_equal(guestctx_table_encode(&t, &blob, &len), 0);
	assert_true(len < 1000); /* repetitive indexes compress well */
	assert_int_equal(guestctx_table_decode(blob, len, 10000 * 8, "t", &back, &err),
			 0);
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
		cmocka_unit_test(test_probe_blames_the_event_first),
		cmocka_unit_test(test_explain),
		cmocka_unit_test(test_host_probe),
		cmocka_unit_test(test_from_sample),
		cmocka_unit_test(test_reads_v1_tables),
		cmocka_unit_test(test_table_roundtrip),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
