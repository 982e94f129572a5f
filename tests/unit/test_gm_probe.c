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
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

/* Parts of the daemon, not of libkvmprof: build them in. */
#include "base/base.h"
#include "guest/guest.h"
#include "backing.h"
#include "disks.h"
#include "testutil.h"
#include "util.h"

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

/* The folder gm_disk_identify() works in: the daemon's cache. */
static const char *work_dir;
/* guests.conf's allow-backing folders (at most two here). */
static char *allow[2];
static size_t nr_allow;

/* gm_disk_identify() with a fresh error record, as each caller passes one. */
static int identify(char *path, enum gm_format fmt, bool strict,
		    struct gm_disk_info *info, struct kp_err *err)
{
	struct gm_disk d = {.path = path, .format = fmt};
	struct gm_config cfg = {.cache_dir = (char *)work_dir,
				.libguestfs_overlay = strict,
				.allow_backing = allow,
				.nr_allow_backing = nr_allow};

	kp_err_clear(err);
	return gm_disk_identify(&d, &cfg, info, err);
}

static void allow_backing(const char *dir)
{
	nr_allow = 0;
	if (dir)
		allow[nr_allow++] = (char *)dir;
}

static void write_file(const char *path, const void *data, size_t len)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	assert_int_equal(fwrite(data, 1, len, f), len);
	assert_int_equal(fclose(f), 0);
}

/* Refusals that need no qemu-img: each names the disk and has its own errno. */
static void test_identify_errors(void **state)
{
	char dir[] = "/tmp/gm-probe-XXXXXX", path[64], cmd[128];
	unsigned char zeros[4096] = {0};
	struct gm_disk_info info;
	struct kp_err err;

	/* The daemon needs qemu-img too: its absence is a broken set-up, not a skip. */
	if (system("command -v qemu-img >/dev/null"))
		fail_msg("qemu-img not installed (scripts/deps.sh installs qemu-utils)");
	assert_non_null(mkdtemp(dir));
	work_dir = dir;

	snprintf(path, sizeof(path), "%s/missing.img", dir);
	assert_int_equal(identify(path, GM_FMT_RAW, false, &info, &err), -ENOENT);
	assert_int_equal(err.code, ENOENT);
	assert_non_null(strstr(err.msg, path));
	assert_non_null(strstr(err.msg, "No such file"));

	/* A raw file configured as qcow2: the configured format is wrong. */
	snprintf(path, sizeof(path), "%s/zeros.raw", dir);
	write_file(path, zeros, sizeof(zeros));
	assert_int_equal(identify(path, GM_FMT_QCOW2, false, &info, &err), -EMEDIUMTYPE);
	assert_non_null(strstr(err.msg, path));
	assert_non_null(strstr(err.msg, "no qcow2 header"));
	/* The same file as raw is fine. */
	assert_int_equal(identify(path, GM_FMT_RAW, true, &info, &err), 0);
	assert_int_equal(err.code, 0);

	snprintf(path, sizeof(path), "%s/empty.raw", dir);
	write_file(path, zeros, 0);
	assert_int_equal(identify(path, GM_FMT_RAW, false, &info, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "empty"));

	assert_int_equal(identify(dir, GM_FMT_RAW, false, &info, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "not a regular file"));

	/* A raw disk that starts like qcow2: a hint, or refused when QEMU would probe. */
	snprintf(path, sizeof(path), "%s/looks.raw", dir);
	memcpy(zeros, "QFI\xfb", 4);
	write_file(path, zeros, sizeof(zeros));
	assert_int_equal(identify(path, GM_FMT_RAW, false, &info, &err), 0);
	assert_string_equal(info.looks_like, "qcow2");
	assert_int_equal(identify(path, GM_FMT_RAW, true, &info, &err), -EPERM);
	assert_non_null(strstr(err.msg, path));
	assert_non_null(strstr(err.msg, "starts like a qcow2 image"));

	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
}

static void test_identify(void **state)
{
	char dir[] = "/tmp/gm-probe-XXXXXX", raw[64], q[64], evil[64], cmd[512];
	struct gm_disk_info info;
	struct kp_err err;

	/* The daemon needs qemu-img too: its absence is a broken set-up, not a skip. */
	if (system("command -v qemu-img >/dev/null"))
		fail_msg("qemu-img not installed (scripts/deps.sh installs qemu-utils)");
	assert_non_null(mkdtemp(dir));
	work_dir = dir;
	snprintf(raw, sizeof(raw), "%s/a.raw", dir);
	snprintf(q, sizeof(q), "%s/a.qcow2", dir);
	snprintf(evil, sizeof(evil), "%s/evil.raw", dir);
	snprintf(cmd, sizeof(cmd),
		 "truncate -s 1000 %s && qemu-img create -q -f qcow2 %s 1M && "
		 "qemu-img create -q -f qcow2 -b %s -F raw %s",
		 raw, q, raw, evil);
	assert_int_equal(system(cmd), 0);

	assert_int_equal(identify(raw, GM_FMT_RAW, true, &info, &err), 0);
	assert_int_equal(info.size, 1000);
	assert_int_equal(info.virtual_size, 1024);
	assert_null(info.looks_like);

	assert_int_equal(identify(q, GM_FMT_QCOW2, true, &info, &err), 0);
	assert_int_equal(info.virtual_size, 1 << 20);

	/* A raw disk whose content is a qcow2 header: a hint, or refused when strict. */
	assert_int_equal(identify(evil, GM_FMT_RAW, false, &info, &err), 0);
	assert_string_equal(info.looks_like, "qcow2");
	assert_int_equal(identify(evil, GM_FMT_RAW, true, &info, &err), -EPERM);
	assert_non_null(strstr(err.msg, "starts like a qcow2 image"));

	/* A raw file configured as qcow2. */
	assert_int_equal(identify(raw, GM_FMT_QCOW2, false, &info, &err), -EMEDIUMTYPE);
	assert_non_null(strstr(err.msg, "no qcow2 header"));

	/* A qcow2 over a backing file, format recorded, its folder allowed: accepted. */
	snprintf(cmd, sizeof(cmd), "qemu-img rebase -q -u -F raw -b %s %s", raw, q);
	assert_int_equal(system(cmd), 0);
	allow_backing(dir);
	assert_int_equal(identify(q, GM_FMT_QCOW2, false, &info, &err), 0);

	/* Strict: a qcow2's guest-visible start is read through qemu-img. */
	assert_int_equal(identify(q, GM_FMT_QCOW2, true, &info, &err), 0);
	assert_null(info.looks_like);
	snprintf(cmd, sizeof(cmd), "qemu-img create -q -f qcow2 -b %s -F raw %s", evil,
		 q);
	assert_int_equal(system(cmd), 0);
	assert_int_equal(identify(q, GM_FMT_QCOW2, true, &info, &err), -EPERM);
	assert_non_null(strstr(err.msg, q));
	assert_non_null(strstr(err.msg, "starts like a qcow2 image"));
	allow_backing(NULL);

	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
}

/* identify() of @q as qcow2 fails with @code and a message holding each string given. */
static void refused(char *q, int code, ...) __attribute__((sentinel));

static void refused(char *q, int code, ...)
{
	struct gm_disk_info info;
	struct kp_err err;
	const char *want;
	int ret = identify(q, GM_FMT_QCOW2, false, &info, &err);
	va_list ap;

	if (ret != -code)
		fail_msg("%s: got %d (%s), wanted %d", q, ret, err.msg, -code);
	va_start(ap, code);
	while ((want = va_arg(ap, const char *)))
		if (!strstr(err.msg, want))
			fail_msg("%s: message '%s' lacks '%s'", q, err.msg, want);
	va_end(ap);
}

static int accepted(char *q)
{
	struct gm_disk_info info;
	struct kp_err err;
	int ret = identify(q, GM_FMT_QCOW2, false, &info, &err);

	if (ret)
		print_message("%s: %s\n", q, err.msg);
	return ret;
}

/*
 * Backing files: a qcow2 may name any host file or device as a raw backing
 * file, and the appliance's QEMU would open it as part of the guest's disk.
 * Only regular files whose real path lies in an allow-backing folder pass,
 * down the whole chain, each name resolved as QEMU resolves it.
 */
static void test_backing_chain(void **state)
{
	char dir[] = "/tmp/gm-probe-XXXXXX", base[64], out[64], q[64], mid[80], cur[80],
	     prev[80];

	assert_non_null(mkdtemp(dir));
	work_dir = dir;
	snprintf(base, sizeof(base), "%s/base", dir);
	snprintf(out, sizeof(out), "%s/other", dir);
	snprintf(q, sizeof(q), "%s/web1.qcow2", dir);
	snprintf(mid, sizeof(mid), "%s/mid.qcow2", base);
	assert_int_equal(sh("mkdir %s %s && truncate -s 1M %s/b.raw %s/o.raw", base, out,
			    base, out),
			 0);

	/* A host secret as a raw backing file: refused, named with the disk. */
	assert_int_equal(
		sh("qemu-img create -q -f qcow2 -u -b /etc/shadow -F raw %s 1M", q), 0);
	allow_backing(base);
	refused(q, EPERM, q, "backing file /etc/shadow is outside every allow-backing",
		NULL);
	/* No allow-backing at all: every chain is refused. */
	allow_backing(NULL);
	assert_int_equal(
		sh("qemu-img rebase -q -u -f qcow2 -F raw -b %s/b.raw %s", base, q), 0);
	refused(q, EPERM, "outside every allow-backing folder", NULL);
	allow_backing(base);
	assert_int_equal(accepted(q), 0);

	/* A symlink in the allowed folder is judged by where it leads. */
	assert_int_equal(sh("ln -s /etc/shadow %s/link.raw && qemu-img rebase -q -u -f "
			    "qcow2 -F raw -b %s/link.raw %s",
			    base, base, q),
			 0);
	refused(q, EPERM, "link.raw (really /etc/shadow) is outside", NULL);
	/* So is an allowed-looking path that climbs out. */
	assert_int_equal(
		sh("qemu-img rebase -q -u -f qcow2 -F raw -b %s/../other/o.raw %s", base,
		   q),
		0);
	refused(q, EPERM, "(really /tmp/", "/other/o.raw) is outside", NULL);

	/* Device nodes never, even with everything allowed. */
	allow_backing("/");
	assert_int_equal(sh("qemu-img rebase -q -u -f qcow2 -F raw -b /dev/null %s", q),
			 0);
	refused(q, EPERM, "backing file /dev/null is a device node", NULL);
	assert_int_equal(
		sh("mknod %s/blk b 7 200 && qemu-img rebase -q -u -f qcow2 -F raw "
		   "-b %s/blk %s",
		   base, base, q),
		0);
	refused(q, EPERM, "/blk is a device node", NULL);
	/* Not a file name: a protocol, or a format that names files of its own. */
	assert_int_equal(
		sh("qemu-img rebase -q -u -f qcow2 -F raw -b nbd://127.0.0.1/x %s", q),
		0);
	refused(q, EPERM, "nbd://127.0.0.1/x is not a file name", NULL);
	assert_int_equal(
		sh("qemu-img rebase -q -u -f qcow2 -F vmdk -b %s/b.raw %s", base, q), 0);
	refused(q, EPERM, "backing format vmdk is not raw or qcow2", NULL);
	allow_backing(base);

	/*
	 * Relative names are relative to the image that names them: web1 ->
	 * base/mid.qcow2 -> b.raw (in base/, not next to web1). The layer
	 * that names a refused file is named.
	 */
	assert_int_equal(
		sh("qemu-img create -q -f qcow2 -u -b b.raw -F raw %s 1M && "
		   "cd %s && qemu-img create -q -f qcow2 -u -b base/mid.qcow2 -F "
		   "qcow2 %s 1M",
		   mid, dir, q),
		0);
	assert_int_equal(accepted(q), 0);
	assert_int_equal(
		sh("qemu-img rebase -q -u -f qcow2 -F raw -b ../other/o.raw %s", mid), 0);
	refused(q, EPERM, "layer 1 (", "mid.qcow2): backing file", "other/o.raw", NULL);

	/* A chain deeper than the bound, all in the allowed folder. */
	snprintf(prev, sizeof(prev), "%s/b.raw", base);
	for (int i = 0; i < GM_CHAIN_MAX; i++) {
		snprintf(cur, sizeof(cur), "%s/l%d.qcow2", base, i);
		assert_int_equal(sh("qemu-img create -q -f qcow2 -u -b %s -F %s %s 1M",
				    prev, i ? "qcow2" : "raw", cur),
				 0);
		snprintf(prev, sizeof(prev), "%s", cur);
	}
	assert_int_equal(sh("qemu-img rebase -q -u -f qcow2 -F qcow2 -b %s %s", cur, q),
			 0);
	refused(q, ELOOP, "deeper than", NULL);

	allow_backing(NULL);
	assert_int_equal(sh("rm -rf %s", dir), 0);
}

/*
 * External data files (qcow2 data-file): QEMU reads the guest's data from
 * them, so the same rules hold. QEMU resolves a relative data file against
 * its own working folder, not the image's: refused.
 */
static void test_data_file(void **state)
{
	char dir[] = "/tmp/gm-probe-XXXXXX", base[64], q[64], mid[80];

	assert_non_null(mkdtemp(dir));
	work_dir = dir;
	snprintf(base, sizeof(base), "%s/base", dir);
	snprintf(q, sizeof(q), "%s/web1.qcow2", dir);
	snprintf(mid, sizeof(mid), "%s/mid.qcow2", base);
	assert_int_equal(sh("mkdir %s %s/other", base, dir), 0);

	assert_int_equal(
		sh("qemu-img create -q -f qcow2 -o data_file=%s/other/d.raw %s 1M", dir,
		   q),
		0);
	allow_backing(base);
	refused(q, EPERM, q, "data file", "other/d.raw is outside every allow-backing",
		NULL);
	allow_backing(NULL);
	refused(q, EPERM, "data file", NULL);
	allow_backing(dir);
	assert_int_equal(accepted(q), 0);

	/* A host file or device as data file: refused like a backing file. */
	assert_int_equal(sh("qemu-img amend -q -f qcow2 -o data_file=/etc/shadow %s", q),
			 0);
	refused(q, EPERM, "data file /etc/shadow is outside", NULL);
	allow_backing("/");
	assert_int_equal(sh("qemu-img amend -q -f qcow2 -o data_file=/dev/null %s", q),
			 0);
	refused(q, EPERM, "data file /dev/null is a device node", NULL);
	allow_backing(dir);
	assert_int_equal(sh("qemu-img amend -q -f qcow2 -o data_file=d.raw %s", q), 0);
	refused(q, EPERM, "data file d.raw is a relative path", NULL);

	/* A data file of a deeper layer is checked too, and that layer named. */
	allow_backing(base);
	assert_int_equal(
		sh("qemu-img create -q -f qcow2 -o data_file=%s/other/m.raw %s 1M "
		   "&& qemu-img create -q -f qcow2 -u -b %s -F qcow2 %s 1M",
		   dir, mid, mid, q),
		0);
	refused(q, EPERM, "layer 1 (", "mid.qcow2): data file", "is outside", NULL);

	allow_backing(NULL);
	assert_int_equal(sh("rm -rf %s", dir), 0);
}

/*
 * qemu-img's output is read into a bounded buffer. Cut short, the part with
 * "backing-filename" could be missing, and the chain would seem to end at
 * the disk: output that fills the buffer is refused. A qemu-img first in
 * PATH prints 70 KB of an image with no backing file.
 */
static void test_info_output_bounded(void **state)
{
	char dir[] = "/tmp/gm-probe-XXXXXX", q[64], bin[64], script[80];
	char *old_path = strdup(getenv("PATH")), *new_path;
	struct gm_disk_info info;
	struct kp_err err;
	FILE *f;

	assert_non_null(mkdtemp(dir));
	work_dir = dir;
	snprintf(q, sizeof(q), "%s/web1.qcow2", dir);
	snprintf(bin, sizeof(bin), "%s/bin", dir);
	assert_int_equal(sh("qemu-img create -q -f qcow2 %s 1M && mkdir %s", q, bin), 0);
	snprintf(script, sizeof(script), "%s/qemu-img", bin);
	f = fopen(script, "w");
	assert_non_null(f);
	fprintf(f, "#!/bin/sh\n"
		   "printf '{\"virtual-size\": 1048576, \"pad\": \"'\n"
		   "head -c 70000 /dev/zero | tr '\\0' x\n"
		   "printf '\"}\\n'\n");
	assert_int_equal(fclose(f), 0);
	assert_int_equal(chmod(script, 0755), 0);
	assert_true(asprintf(&new_path, "%s:%s", bin, old_path) > 0);
	setenv("PATH", new_path, 1);
	assert_int_equal(identify(q, GM_FMT_QCOW2, false, &info, &err), -EIO);
	setenv("PATH", old_path, 1);
	assert_non_null(strstr(err.msg, q));
	assert_non_null(strstr(err.msg, "qemu-img info printed more than"));

	free(new_path);
	free(old_path);
	assert_int_equal(sh("rm -rf %s", dir), 0);
}

/* A qemu-img first in PATH that logs each output file and its folder's mode. */
static void spy_qemu_img(const char *bin, const char *log)
{
	char real[256] = "", path[128];
	FILE *f = popen("command -v qemu-img", "r");

	assert_non_null(f);
	assert_non_null(fgets(real, sizeof(real), f));
	pclose(f);
	real[strcspn(real, "\n")] = '\0';
	assert_int_equal(mkdir(bin, 0755), 0);
	snprintf(path, sizeof(path), "%s/qemu-img", bin);
	f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f,
		"#!/bin/sh\n"
		"for a; do case $a in of=*) f=${a#of=}; "
		"echo \"$f $(stat -c %%a:%%u \"${f%%/*}\")\" >>'%s';; esac; done\n"
		"exec '%s' \"$@\"\n",
		log, real);
	fclose(f);
	assert_int_equal(chmod(path, 0755), 0);
}

/*
 * For a qcow2 disk, qemu-img dd copies the guest-visible first bytes into a
 * file it creates by name. The name must be in a fresh 0700 folder inside
 * the cache, never one in a shared folder such as /tmp, where another user
 * could have a symlink waiting at it; and nothing may be left behind.
 */
static void test_head_copy_is_private(void **state)
{
	char dir[] = "/tmp/gm-probe-XXXXXX", cache[64], q[64], bin[64], log[64];
	char *old_path = strdup(getenv("PATH")), *new_path, *text, *sp, *rest,
	     folder[128];
	struct gm_disk_info info;
	struct kp_err err;
	size_t len;

	if (system("command -v qemu-img >/dev/null"))
		fail_msg("qemu-img not installed (scripts/deps.sh installs qemu-utils)");
	assert_non_null(mkdtemp(dir));
	snprintf(cache, sizeof(cache), "%s/cache", dir);
	snprintf(q, sizeof(q), "%s/a.qcow2", dir);
	snprintf(bin, sizeof(bin), "%s/bin", dir);
	snprintf(log, sizeof(log), "%s/spy.log", dir);
	assert_int_equal(mkdir(cache, 0700), 0);
	assert_int_equal(sh("qemu-img create -q -f qcow2 %s 1M", q), 0);
	spy_qemu_img(bin, log);

	assert_true(asprintf(&new_path, "%s:%s", bin, old_path) > 0);
	setenv("PATH", new_path, 1);
	work_dir = cache;
	assert_int_equal(identify(q, GM_FMT_QCOW2, true, &info, &err), 0);
	setenv("PATH", old_path, 1);

	/* One output: dir/cache/.tmp-head-XXXXXX/FILE, its folder 0700 root's. */
	assert_int_equal(kp_read_file(log, 4096, &text, &len, NULL), 0);
	assert_int_equal(strchr(text, '\n') - text + 1, (long)len);
	sp = strchr(text, ' ');
	assert_non_null(sp);
	assert_string_equal(sp, " 700:0\n");
	snprintf(folder, sizeof(folder), "%s/.tmp-head-", cache);
	assert_int_equal(strncmp(text, folder, strlen(folder)), 0);
	rest = text + strlen(folder);
	assert_true(strlen(rest) > 7 && rest[6] == '/');
	assert_null(memchr(rest, '/', 6));
	/* The private folder is gone: the cache is as empty as it was. */
	assert_int_equal(sh("test -z \"$(ls -A %s)\"", cache), 0);

	free(text);
	free(new_path);
	free(old_path);
	assert_int_equal(sh("rm -rf %s", dir), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_magics),
		cmocka_unit_test(test_vmdk_text),
		cmocka_unit_test(test_identify_errors),
		cmocka_unit_test(test_identify),
		cmocka_unit_test(test_backing_chain),
		cmocka_unit_test(test_data_file),
		cmocka_unit_test(test_info_output_bounded),
		cmocka_unit_test(test_head_copy_is_private),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
