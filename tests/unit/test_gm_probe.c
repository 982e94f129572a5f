// SPDX-License-Identifier: GPL-2.0
/*
 * guestfs-mount's disk checks: which first bytes QEMU's format probing would
 * take for an image format, and disk identification with real qemu-img.
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

/* Parts of the daemon, not of libkvmprof: build them in. */
#include "../../guestfs-mount/config.c"
#include "../../guestfs-mount/disks.c"
#include "../../guestfs-mount/util.c"

static const char *probe(const void *buf, size_t len)
{
	return gm_probe_magic(buf, len);
}

static void test_magics(void **state)
{
	unsigned char buf[GM_PROBE_BYTES];

	memset(buf, 0, sizeof(buf));
	assert_null(probe(buf, sizeof(buf)));
	/* An MBR is raw. */
	buf[510] = 0x55;
	buf[511] = 0xaa;
	assert_null(probe(buf, sizeof(buf)));
	assert_string_equal(probe("QFI\xfb\0\0\0\3", 8), "qcow2");
	assert_string_equal(probe("QED\0", 4), "qed");
	assert_string_equal(probe("vhdxfile", 8), "vhdx");
	assert_string_equal(probe("conectix", 8), "vpc");
	assert_string_equal(probe("KDMV", 4), "vmdk");
	assert_string_equal(probe("WithoutFreeSpace", 16), "parallels");
	assert_string_equal(probe("LUKS\xba\xbe\0\1", 8), "luks");
	memset(buf, 0, sizeof(buf));
	memcpy(buf + 0x40, "\x7f\x10\xda\xbe", 4);
	assert_string_equal(probe(buf, sizeof(buf)), "vdi");
	/* Too short to hold the magic. */
	assert_null(probe("QFI", 3));
}

/* A string literal without its NUL. */
#define PROBE(s) probe(s, sizeof(s) - 1)

static void test_vmdk_text(void **state)
{
	assert_string_equal(PROBE("# Disk DescriptorFile\nversion=1\n"), "vmdk");
	assert_string_equal(PROBE("   \n  \r\n# c\nversion=3\r\n"), "vmdk");
	/* QEMU takes only lines of spaces as blank. */
	assert_null(PROBE("\nversion=1\n"));
	assert_null(PROBE("hello\nversion=1\n"));
	assert_null(PROBE("version=4\n"));
	assert_null(PROBE("version=1"));
}

static void test_identify(void **state)
{
	char dir[] = "/tmp/gm-probe-XXXXXX", raw[64], q[64], evil[64], cmd[512], msg[512];
	struct gm_disk_info info;
	struct gm_disk d;

	/* The daemon needs qemu-img too: its absence is a broken set-up, not a skip. */
	if (system("command -v qemu-img >/dev/null"))
		fail_msg("qemu-img not installed (scripts/deps.sh installs qemu-utils)");
	assert_non_null(mkdtemp(dir));
	snprintf(raw, sizeof(raw), "%s/a.raw", dir);
	snprintf(q, sizeof(q), "%s/a.qcow2", dir);
	snprintf(evil, sizeof(evil), "%s/evil.raw", dir);
	snprintf(cmd, sizeof(cmd),
		 "truncate -s 1000 %s && qemu-img create -q -f qcow2 %s 1M && "
		 "qemu-img create -q -f qcow2 -b %s -F raw %s",
		 raw, q, raw, evil);
	assert_int_equal(system(cmd), 0);

	d.path = raw;
	d.format = GM_FMT_RAW;
	assert_int_equal(gm_disk_identify(&d, true, &info, msg, sizeof(msg)), 0);
	assert_int_equal(info.size, 1000);
	assert_int_equal(info.virtual_size, 1024);
	assert_null(info.looks_like);

	d.path = q;
	d.format = GM_FMT_QCOW2;
	assert_int_equal(gm_disk_identify(&d, true, &info, msg, sizeof(msg)), 0);
	assert_int_equal(info.virtual_size, 1 << 20);

	/* A raw disk whose content is a qcow2 header: a hint, or refused when strict. */
	d.path = evil;
	d.format = GM_FMT_RAW;
	assert_int_equal(gm_disk_identify(&d, false, &info, msg, sizeof(msg)), 0);
	assert_string_equal(info.looks_like, "qcow2");
	assert_int_equal(gm_disk_identify(&d, true, &info, msg, sizeof(msg)), -1);
	assert_non_null(strstr(msg, "starts like a qcow2 image"));

	/* A raw file configured as qcow2. */
	d.path = raw;
	d.format = GM_FMT_QCOW2;
	assert_int_equal(gm_disk_identify(&d, false, &info, msg, sizeof(msg)), -1);
	assert_non_null(strstr(msg, "no qcow2 header"));

	/* A qcow2 over a backing file, format recorded: accepted. */
	snprintf(cmd, sizeof(cmd), "qemu-img rebase -q -u -F raw -b %s %s", raw, q);
	assert_int_equal(system(cmd), 0);
	d.path = q;
	assert_int_equal(gm_disk_identify(&d, false, &info, msg, sizeof(msg)), 0);

	d.path = "/nonexistent/disk.img";
	assert_int_equal(gm_disk_identify(&d, false, &info, msg, sizeof(msg)), -1);
	assert_non_null(strstr(msg, "No such file"));

	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_magics),
		cmocka_unit_test(test_vmdk_text),
		cmocka_unit_test(test_identify),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
