// SPDX-License-Identifier: GPL-2.0
/* guestfs-mount's guests.conf parser: the format, its defaults and every error. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <grp.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

/* The parser is part of the daemon, not of libkvmprof: build it in. */
#include "guest/guest.h"

static int parse(const char *text, struct gm_config *cfg, struct kp_err *err)
{
	assert_int_equal(gm_config_init(cfg), 0);
	kp_err_clear(err);
	return gm_config_parse(text, strlen(text), "guests.conf", cfg, err);
}

static void test_full_example(void **state)
{
	static const char text[] =
		"# comment\n"
		"\n"
		"cache /srv/cache\n"
		"mountpoint /srv/guests\n"
		"appliance shared\n"
		"overlay libguestfs\n"
		"inspect on-access\n"
		"max-file-size 64M\n"
		"max-total-size 1G\n"
		"max-derived-size 3G\n"
		"max-files 500\n"
		"max-kernels 4\n"
		"appliance-cpus 4\n"
		"label default system_u:object_r:guest_t:s0\n"
		"label kallsyms system_u:object_r:guest_syms_t:s0:c1,c2\n"
		"\n"
		"guest web1\n"
		"    disk qcow2 /var/lib/images/web1.qcow2\n"
		"\tdisk raw /dev/vg0/web1 data\r\n"
		"    kernel 6.1.0-28-amd64\n"
		"guest db.2\n"
		"  disk raw /images/db2.img   \n";
	struct gm_config cfg;
	struct kp_err err;

	assert_int_equal(parse(text, &cfg, &err), 0);
	assert_string_equal(cfg.cache_dir, "/srv/cache");
	assert_string_equal(cfg.mountpoint, "/srv/guests");
	assert_true(cfg.shared_appliance);
	assert_true(cfg.libguestfs_overlay);
	assert_true(cfg.lazy);
	assert_int_equal(cfg.max_file_size, 64ULL << 20);
	assert_int_equal(cfg.max_total_size, 1ULL << 30);
	assert_int_equal(cfg.max_derived_size, 3ULL << 30);
	assert_int_equal(cfg.max_files, 500);
	assert_int_equal(cfg.max_kernels, 4);
	assert_int_equal(cfg.appliance_cpus, 4);
	assert_int_equal(cfg.nr_guests, 2);
	assert_string_equal(cfg.guests[0].name, "web1");
	assert_int_equal(cfg.guests[0].nr_disks, 2);
	assert_string_equal(cfg.guests[0].disks[0].path, "/var/lib/images/web1.qcow2");
	assert_int_equal(cfg.guests[0].disks[0].format, GM_FMT_QCOW2);
	/* The path is the rest of the line: spaces inside are kept, trailing ones not. */
	assert_string_equal(cfg.guests[0].disks[1].path, "/dev/vg0/web1 data");
	assert_int_equal(cfg.guests[0].disks[1].format, GM_FMT_RAW);
	assert_string_equal(cfg.guests[0].kernel, "6.1.0-28-amd64");
	assert_int_equal(cfg.guests[0].line, 17);
	assert_string_equal(cfg.guests[1].name, "db.2");
	assert_string_equal(cfg.guests[1].disks[0].path, "/images/db2.img");
	assert_null(cfg.guests[1].kernel);
	assert_string_equal(gm_config_label(&cfg, GM_KIND_KALLSYMS),
			    "system_u:object_r:guest_syms_t:s0:c1,c2");
	assert_string_equal(gm_config_label(&cfg, GM_KIND_VMLINUX),
			    "system_u:object_r:guest_t:s0");
	gm_config_release(&cfg);
}

static void test_defaults(void **state)
{
	struct gm_config cfg;
	struct kp_err err;

	assert_int_equal(parse("guest a\ndisk raw /a.img\n", &cfg, &err), 0);
	assert_string_equal(cfg.cache_dir, GM_DEFAULT_CACHE);
	assert_string_equal(cfg.mountpoint, GUEST_MOUNT_DEFAULT);
	assert_false(cfg.shared_appliance);
	assert_false(cfg.libguestfs_overlay);
	assert_false(cfg.lazy);
	assert_int_equal(cfg.max_file_size, 256ULL << 20);
	assert_int_equal(cfg.max_derived_size, 2ULL << 30);
	assert_int_equal(cfg.appliance_cpus, 2);
	assert_string_equal(gm_config_label(&cfg, GM_KIND_INFO), GM_DEFAULT_CONTEXT);
	gm_config_release(&cfg);

	/* No guests at all is valid: the mount is then empty. */
	assert_int_equal(parse("# nothing\n", &cfg, &err), 0);
	assert_int_equal(cfg.nr_guests, 0);
	gm_config_release(&cfg);
}

struct bad_case {
	const char *text;
	const char *where; /* "guests.conf:LINE:" */
	const char *why;   /* part of the message */
};

static const struct bad_case bad_cases[] = {
	{"guest a\ndisk raw /a\nfrobnicate 1\n",
	 "guests.conf:3:", "unknown directive 'frobnicate'"},
	{"disk raw /a\n", "guests.conf:1:", "outside a 'guest' block"},
	{"kernel 6.1\n", "guests.conf:1:", "outside a 'guest' block"},
	{"guest a/b\ndisk raw /a\n", "guests.conf:1:", "invalid guest name 'a/b'"},
	{"guest ..\ndisk raw /a\n", "guests.conf:1:", "invalid guest name"},
	{"guest a b\ndisk raw /a\n", "guests.conf:1:", "takes one name"},
	{"guest\n", "guests.conf:1:", "wants a name"},
	{"guest by-pid\ndisk raw /a\n", "guests.conf:1:", "reserved"},
	{"guest a\ndisk raw /a\nguest a\ndisk raw /b\n",
	 "guests.conf:3:", "defined twice"},
	{"guest a\ndisk vmdk /a\n", "guests.conf:2:", "raw or qcow2"},
	{"guest a\ndisk /a\n", "guests.conf:2:", "raw or qcow2"},
	{"guest a\ndisk raw a.img\n", "guests.conf:2:", "must be absolute"},
	{"guest a\ndisk raw\n", "guests.conf:2:", "must be absolute"},
	{"guest a\ndisk raw /a\nguest b\ndisk qcow2 /a\n",
	 "guests.conf:4:", "already listed for guest 'a'"},
	{"guest a\ndisk raw /a\nkernel 6.1\nkernel 6.2\n",
	 "guests.conf:4:", "second 'kernel'"},
	{"guest a\ndisk raw /a\nkernel ../x\n",
	 "guests.conf:3:", "invalid kernel version"},
	{"guest a\n\n# no disk\nguest b\ndisk raw /b\n",
	 "guests.conf:1:", "guest 'a' has no 'disk'"},
	{"guest a\ndisk raw /a\ncache /x\n", "guests.conf:3:", "global setting"},
	{"cache relative\n", "guests.conf:1:", "must be absolute"},
	{"cache\n", "guests.conf:1:", "wants a value"},
	{"appliance sometimes\n", "guests.conf:1:", "'per-guest' or 'shared'"},
	{"inspect never\n", "guests.conf:1:", "'startup' or 'on-access'"},
	{"overlay none\n", "guests.conf:1:", "'private' or 'libguestfs'"},
	{"guest a\ndisk raw /a\noverlay private\n", "guests.conf:3:", "global setting"},
	{"max-file-size 12X\n", "guests.conf:1:", "bad size"},
	{"max-file-size 100\n", "guests.conf:1:", "bad size"},
	{"max-file-size 99999999999999999999G\n", "guests.conf:1:", "bad size"},
	{"max-files 0\n", "guests.conf:1:", "whole number"},
	{"max-files 12a\n", "guests.conf:1:", "whole number"},
	{"max-kernels 1000\n", "guests.conf:1:", "whole number"},
	{"appliance-cpus 0\n", "guests.conf:1:", "whole number"},
	{"appliance-cpus 17\n", "guests.conf:1:", "whole number"},
	{"label kallsyms\n", "guests.conf:1:", "kind and an SELinux context"},
	{"label kallsyms not-a-context\n", "guests.conf:1:", "not an SELinux context"},
	{"label kallsyms a:b:c d\n", "guests.conf:1:", "not an SELinux context"},
	{"label kallsyms a::c\n", "guests.conf:1:", "not an SELinux context"},
	{"label symbols a:b:c\n", "guests.conf:1:", "unknown file kind 'symbols'"},
	{"guest a\ndisk raw /a\x01\n", "guests.conf:2:", "control character"},
};

static void test_errors_name_file_and_line(void **state)
{
	for (size_t i = 0; i < sizeof(bad_cases) / sizeof(bad_cases[0]); i++) {
		const struct bad_case *c = &bad_cases[i];
		struct gm_config cfg;
		struct kp_err err;
		int ret = parse(c->text, &cfg, &err);

		if (ret >= 0 || strncmp(err.msg, c->where, strlen(c->where)) ||
		    !strstr(err.msg, c->why))
			fail_msg(
				"case %zu (%s): ret %d, message '%s', wanted '%s ... %s'",
				i, c->text, ret, err.msg, c->where, c->why);
		gm_config_release(&cfg);
	}
}

static void test_long_line_and_nul(void **state)
{
	char *text = malloc(GM_MAX_LINE + 64);
	struct gm_config cfg;
	struct kp_err err;

	strcpy(text, "guest a\ndisk raw /");
	memset(text + strlen(text), 'x', GM_MAX_LINE);
	strcpy(text + strlen("guest a\ndisk raw /") + GM_MAX_LINE, "\n");
	assert_int_equal(parse(text, &cfg, &err), -E2BIG);
	assert_non_null(strstr(err.msg, "guests.conf:2: line longer"));
	gm_config_release(&cfg);
	free(text);

	assert_int_equal(gm_config_init(&cfg), 0);
	kp_err_clear(&err);
	assert_int_equal(gm_config_parse("guest a\0", 8, "guests.conf", &cfg, &err),
			 -EINVAL);
	assert_non_null(strstr(err.msg, "NUL"));
	gm_config_release(&cfg);
}

static void test_limits(void **state)
{
	struct gm_config cfg;
	struct kp_err err;
	char *text = malloc(64 * 1024);
	size_t n = 0;

	n += (size_t)sprintf(text + n, "guest a\n");
	for (int i = 0; i <= GM_MAX_DISKS; i++)
		n += (size_t)sprintf(text + n, "disk raw /d%d\n", i);
	assert_int_equal(parse(text, &cfg, &err), -E2BIG);
	assert_non_null(strstr(err.msg, "guests.conf:18: too many disks"));
	gm_config_release(&cfg);

	n = 0;
	for (int i = 0; i <= GM_MAX_GUESTS; i++)
		n += (size_t)sprintf(text + n, "guest g%d\ndisk raw /d%d\n", i, i);
	assert_int_equal(parse(text, &cfg, &err), -E2BIG);
	assert_non_null(strstr(err.msg, "too many guests"));
	gm_config_release(&cfg);
	free(text);
}

/* allow-backing: global, absolute, repeatable up to a limit; none by default. */
static void test_allow_backing(void **state)
{
	struct gm_config cfg;
	struct kp_err err;
	char *text = malloc(64 * 1024);
	size_t n = 0;

	assert_int_equal(parse("guest a\ndisk raw /a\n", &cfg, &err), 0);
	assert_int_equal(cfg.nr_allow_backing, 0);
	gm_config_release(&cfg);

	assert_int_equal(parse("allow-backing /srv/base images\n"
			       "allow-backing /var/lib/libvirt/images\n"
			       "guest a\ndisk qcow2 /a\n",
			       &cfg, &err),
			 0);
	assert_int_equal(cfg.nr_allow_backing, 2);
	assert_string_equal(cfg.allow_backing[0], "/srv/base images");
	assert_string_equal(cfg.allow_backing[1], "/var/lib/libvirt/images");
	gm_config_release(&cfg);

	assert_int_equal(parse("allow-backing images\n", &cfg, &err), -EINVAL);
	assert_non_null(
		strstr(err.msg, "guests.conf:1: 'allow-backing' wants an absolute"));
	gm_config_release(&cfg);
	assert_int_equal(parse("allow-backing\n", &cfg, &err), -EINVAL);
	gm_config_release(&cfg);
	assert_int_equal(parse("guest a\ndisk raw /a\nallow-backing /b\n", &cfg, &err),
			 -EINVAL);
	assert_non_null(strstr(err.msg, "guests.conf:3: 'allow-backing' is a global"));
	gm_config_release(&cfg);

	for (int i = 0; i <= GM_MAX_ALLOW_BACKING; i++)
		n += (size_t)sprintf(text + n, "allow-backing /b%d\n", i);
	assert_int_equal(parse(text, &cfg, &err), -E2BIG);
	assert_non_null(strstr(err.msg, "too many 'allow-backing'"));
	gm_config_release(&cfg);
	free(text);
}

static void test_sizes_and_versions(void **state)
{
	uint64_t v;

	assert_int_equal(gm_parse_size("4096", &v), 0);
	assert_int_equal(v, 4096);
	assert_int_equal(gm_parse_size("2K", &v), 0);
	assert_int_equal(v, 2048);
	assert_int_equal(gm_parse_size("3MiB", &v), 0);
	assert_int_equal(v, 3ULL << 20);
	assert_int_equal(gm_parse_size("1G", &v), 0);
	assert_int_equal(v, 1ULL << 30);
	assert_int_equal(gm_parse_size("-1", &v), -EINVAL);
	assert_int_equal(gm_parse_size("1Gx", &v), -EINVAL);
	assert_int_equal(gm_parse_size("", &v), -EINVAL);

	assert_true(gm_version_valid("6.12.117+deb12-amd64"));
	assert_true(gm_version_valid("5.14.0-427.el9.x86_64"));
	assert_true(gm_version_valid("6.1~rc1"));
	assert_false(gm_version_valid(""));
	assert_false(gm_version_valid("."));
	assert_false(gm_version_valid(".."));
	assert_false(gm_version_valid("6.1/../x"));
	assert_false(gm_version_valid("6.1 x"));
	assert_false(gm_version_valid("6.1\n"));
}

static void test_load_file(void **state)
{
	char path[] = "/tmp/gm-config-XXXXXX";
	int fd = mkstemp(path);
	struct gm_config cfg;
	struct kp_err err = {0};
	static const char text[] = "guest a\ndisk raw /a.img\nbogus\n";

	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, sizeof(text) - 1), (ssize_t)sizeof(text) - 1);
	close(fd);
	assert_int_equal(gm_config_load(path, &cfg, &err), -EINVAL);
	assert_non_null(strstr(err.msg, ":3: unknown directive 'bogus'"));
	assert_int_equal(strncmp(err.msg, path, strlen(path)), 0);
	gm_config_release(&cfg);
	unlink(path);

	kp_err_clear(&err);
	assert_int_equal(gm_config_load("/nonexistent/guests.conf", &cfg, &err), -ENOENT);
	assert_non_null(strstr(err.msg, "/nonexistent/guests.conf"));
	gm_config_release(&cfg);
}

/*
 * qemu-user: a global setting naming an account; one that does not exist is
 * an error when the trust is worked out, not a silent "trust no one".
 */
static void test_qemu_user(void **state)
{
	struct guest_trust t;
	struct gm_config cfg;
	struct kp_err err = {0};

	assert_int_equal(parse("qemu-user nobody\n", &cfg, &err), 0);
	assert_string_equal(cfg.qemu_user, "nobody");
	assert_int_equal(guest_trust_of(&cfg, &t, &err), 0);
	assert_string_equal(t.qemu_user, "nobody");
	assert_int_equal(t.nr, 2); /* root (also the caller) and nobody */
	gm_config_release(&cfg);

	assert_int_equal(parse("qemu-user no-such-user-here\n", &cfg, &err), 0);
	assert_int_equal(guest_trust_of(&cfg, &t, &err), -EINVAL);
	assert_string_equal(err.msg, "qemu-user no-such-user-here: no such user");
	gm_config_release(&cfg);

	assert_int_equal(parse("guest a\nqemu-user nobody\n", &cfg, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "global setting"));
	gm_config_release(&cfg);
	assert_int_equal(parse("qemu-user nobody\nqemu-user root\n", &cfg, &err),
			 -EEXIST);
	gm_config_release(&cfg);
	assert_int_equal(parse("qemu-user a/b\n", &cfg, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "invalid user name"));
	gm_config_release(&cfg);
}

static void write_conf(const char *path, mode_t mode)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs("guest a\n  disk raw /a.img\n", f);
	fclose(f);
	assert_int_equal(chmod(path, mode), 0);
}

/* gm_config_load() as uid 65534, in a child: 0 when the file loads. */
static int load_as_nobody(const char *path)
{
	pid_t pid = fork();
	int status;

	assert_true(pid >= 0);
	if (!pid) {
		struct gm_config cfg;

		if (setgroups(0, NULL) || setresgid(65534, 65534, 65534) ||
		    setresuid(65534, 65534, 65534))
			_exit(2);
		_exit(gm_config_load(path, &cfg, NULL) ? 1 : 0);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/*
 * The daemon opens, as root, every disk guests.conf names: a file, or a
 * folder leading to it, that someone else may change is refused, named.
 */
static void test_load_checks_owner(void **state)
{
	char dir[] = "/tmp/gm-config-XXXXXX", etc[64], path[96], want[256];
	struct gm_config cfg;
	struct kp_err err = {0};

	assert_non_null(mkdtemp(dir));
	snprintf(etc, sizeof(etc), "%s/etc", dir);
	snprintf(path, sizeof(path), "%s/guests.conf", etc);
	assert_int_equal(mkdir(etc, 0755), 0);
	write_conf(path, 0644);
	assert_int_equal(gm_config_load(path, &cfg, &err), 0);
	gm_config_release(&cfg);

	assert_int_equal(chmod(path, 0664), 0);
	assert_int_equal(gm_config_load(path, &cfg, &err), -EPERM);
	snprintf(want, sizeof(want),
		 "%s: group-writable (mode 0664); fix with chmod g-w %s", path, path);
	assert_string_equal(err.msg, want);
	gm_config_release(&cfg);

	kp_err_clear(&err);
	assert_int_equal(chmod(path, 0644), 0);
	assert_int_equal(chown(path, 65534, 65534), 0);
	assert_int_equal(gm_config_load(path, &cfg, &err), -EPERM);
	assert_non_null(strstr(err.msg, "owned by uid 65534, not by root"));
	gm_config_release(&cfg);

	/* Root's file in a folder a user owns: the user may replace it. */
	kp_err_clear(&err);
	assert_int_equal(chown(path, 0, 0), 0);
	assert_int_equal(chown(etc, 65534, 65534), 0);
	assert_int_equal(gm_config_load(path, &cfg, &err), -EPERM);
	snprintf(want, sizeof(want), "%s: folder %s is owned by uid 65534", path, etc);
	assert_int_equal(strncmp(err.msg, want, strlen(want)), 0);
	gm_config_release(&cfg);

	/* A user reads a guests.conf of their own (kvmprof record, unprivileged). */
	assert_int_equal(chmod(dir, 0755), 0);
	assert_int_equal(chown(path, 65534, 65534), 0);
	assert_int_equal(load_as_nobody(path), 0);
	/* But not one another user could change. */
	assert_int_equal(chmod(path, 0666), 0);
	assert_int_equal(load_as_nobody(path), 1);

	assert_int_equal(unlink(path), 0);
	assert_int_equal(rmdir(etc), 0);
	assert_int_equal(rmdir(dir), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_full_example),
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_errors_name_file_and_line),
		cmocka_unit_test(test_long_line_and_nul),
		cmocka_unit_test(test_limits),
		cmocka_unit_test(test_allow_backing),
		cmocka_unit_test(test_sizes_and_versions),
		cmocka_unit_test(test_load_file),
		cmocka_unit_test(test_load_checks_owner),
		cmocka_unit_test(test_qemu_user),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
