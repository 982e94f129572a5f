// SPDX-License-Identifier: GPL-2.0
/*
 * Guest registers from KVM's per-vCPU debugfs files, on a folder laid out as
 * the patched kernel lays out /sys/kernel/debug/kvm. The real files are read
 * in the L1 kernel by tests/integration/45-debian-guest.sh and
 * 50-kernel-series.sh.
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

#include "guest/guest.h"
#include "testutil.h"

static char root[] = "/tmp/kvmprof-kdbg.XXXXXX";

/*
 * vcpu VM/vcpuN with the given file contents (NULL: no such file). @cr3 is
 * for the first series' layout, which also had guest_cr3.
 */
static void vcpu(const char *vm, int n, const char *lstar, const char *cr3)
{
	assert_int_equal(sh("mkdir -p %s/%s/vcpu%d", root, vm, n), 0);
	if (lstar)
		assert_int_equal(
			sh("printf '%s' >%s/%s/vcpu%d/guest_lstar", lstar, root, vm, n),
			0);
	if (cr3)
		assert_int_equal(
			sh("printf '%s' >%s/%s/vcpu%d/guest_cr3", cr3, root, vm, n), 0);
}

static int setup(void **state)
{
	(void)state;
	if (!mkdtemp(root))
		return -1;
	/* pid 100: two vCPUs; vcpu0 has not entered its kernel yet. */
	vcpu("100-12", 0, "0x0\n", "0x0\n");
	vcpu("100-12", 1, "0xffffffff9a000040\n", "0x10a3f000\n");
	vcpu("100-12", 10, "0xffffffff81000040\n", NULL);
	/* pid 1000 must not match pid 100's folder, nor 100 match 1000's. */
	vcpu("1000-5", 0, "0xffffffff81600040\n", NULL);
	/* pid 200: an unpatched kernel (stock KVM files only). */
	assert_int_equal(sh("mkdir -p %s/200-9/vcpu0 && touch %s/200-9/vcpu0/tsc-offset",
			    root, root),
			 0);
	/* pid 300: only zeros. pid 400: garbage. */
	vcpu("300-7", 0, "0x0\n", "0x0\n");
	vcpu("400-3", 0, "ffffffff81000040\n", "0x1\n");
	vcpu("500-3", 0, "0x12zz\n", "0x1\n");
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	return sh("rm -rf %s", root);
}

static void test_lowest_running_vcpu(void **state)
{
	struct kvm_guest_regs r;
	struct kp_err err = {0};

	(void)state;
	assert_int_equal(kvm_debugfs_guest_regs(root, 100, &r, &err), 0);
	assert_int_equal(r.vcpu, 1);
	assert_true(r.lstar == 0xffffffff9a000040ULL);
	assert_int_equal(kvm_debugfs_guest_regs(root, 1000, &r, &err), 0);
	assert_true(r.lstar == 0xffffffff81600040ULL);
}

static void test_missing_and_unpatched(void **state)
{
	struct kvm_guest_regs r;
	struct kp_err err = {0};

	(void)state;
	assert_int_equal(kvm_debugfs_guest_regs(root, 200, &r, &err), -ENOENT);
	assert_non_null(strstr(err.msg, "pid 200"));
	kp_err_clear(&err);
	assert_int_equal(kvm_debugfs_guest_regs(root, 10, &r, &err), -ENOENT);
	kp_err_clear(&err);
	assert_int_equal(kvm_debugfs_guest_regs("/nonexistent", 100, &r, &err), -ENOENT);
	assert_non_null(strstr(err.msg, "/nonexistent"));
}

static void test_not_started_and_garbage(void **state)
{
	struct kvm_guest_regs r;
	struct kp_err err = {0};

	(void)state;
	assert_int_equal(kvm_debugfs_guest_regs(root, 300, &r, &err), -EAGAIN);
	kp_err_clear(&err);
	assert_int_equal(kvm_debugfs_guest_regs(root, 400, &r, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "unexpected contents"));
	kp_err_clear(&err);
	assert_int_equal(kvm_debugfs_guest_regs(root, 500, &r, &err), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lowest_running_vcpu),
		cmocka_unit_test(test_missing_and_unpatched),
		cmocka_unit_test(test_not_started_and_garbage),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
