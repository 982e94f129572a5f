// SPDX-License-Identifier: GPL-2.0
/*
 * Guest identity: QEMU's -name option, and the one QEMU-to-guest matcher
 * (an open disk, by device and inode, wins over -name) on real processes,
 * real files and real /proc.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "guest/guest.h"

static void test_name_option(void **state)
{
	static const char argv1[] = "qemu-system-x86_64\0-m\0"
				    "256\0-name\0guest=web1,debug-threads=on";
	static const char argv2[] = "qemu\0-name\0db,,2\0";
	static const char argv3[] = "qemu\0-name\0../etc";
	char name[GUEST_NAME_MAX];

	assert_int_equal(guest_name_from_argv(argv1, sizeof(argv1), name, sizeof(name)),
			 0);
	assert_string_equal(name, "web1");
	assert_int_equal(guest_name_from_argv(argv2, sizeof(argv2), name, sizeof(name)),
			 0);
	assert_string_equal(name, "db,2");
	assert_int_equal(guest_name_from_argv(argv3, sizeof(argv3), name, sizeof(name)),
			 -EINVAL);
	assert_int_equal(guest_name_from_argv("qemu", 5, name, sizeof(name)), -ENOENT);
}

/*
 * A stand-in for QEMU: /bin/sh with "-name NAME" in its argv, waiting on a
 * pipe, holding @disk open (when given) as a VMM holds its image.
 */
static pid_t start_vmm(const char *disk, const char *name, int *go)
{
	int p[2];
	pid_t child;

	assert_int_equal(pipe(p), 0);
	child = fork();
	if (child == 0) {
		if (disk && open(disk, O_RDONLY) < 0)
			_exit(1);
		dup2(p[0], 0);
		close(p[1]);
		execl("/bin/sh", "sh", "-c", "read x", "-name", name, (char *)NULL);
		_exit(127);
	}
	close(p[0]);
	*go = p[1];
	usleep(200000);
	return child;
}

static void stop_vmm(pid_t child, int go)
{
	close(go);
	waitpid(child, NULL, 0);
}

static void test_match(void **state)
{
	char dir[] = "/tmp/kvmprof-gid.XXXXXX", disk[128], other[128], conf[128];
	char name[GUEST_NAME_MAX] = "", text[512];
	struct guest_ident *ids;
	struct guest_trust trust;
	struct gm_config cfg;
	struct kp_err err = {0};
	pid_t child;
	int go;

	assert_non_null(mkdtemp(dir));
	snprintf(disk, sizeof(disk), "%s/web2.img", dir);
	snprintf(other, sizeof(other), "%s/db.qcow2", dir);
	snprintf(conf, sizeof(conf), "%s/guests.conf", dir);
	close(open(disk, O_CREAT | O_WRONLY, 0600));
	close(open(other, O_CREAT | O_WRONLY, 0600));
	snprintf(text, sizeof(text),
		 "# a guest list\ncache /var/cache/x\nguest db\n  disk qcow2 %s\n"
		 "guest web2\n  disk raw %s\n  kernel 6.12.0\n",
		 other, disk);
	assert_int_equal(gm_config_init(&cfg), 0);
	if (gm_config_parse(text, strlen(text), conf, &cfg, &err))
		fail_msg("%s", err.msg);
	assert_int_equal(guest_idents_of(&cfg, &ids), 0);
	assert_int_equal(guest_trust_of(&cfg, &trust, &err), 0);

	/* The open disk wins over a -name that names another configured guest. */
	child = start_vmm(disk, "db", &go);
	assert_int_equal(guest_match_pid(child, ids, cfg.nr_guests, &trust), 1);
	assert_int_equal(
		guest_name_of_vmm(child, ids, cfg.nr_guests, &trust, name, sizeof(name)),
		0);
	assert_string_equal(name, "web2");
	stop_vmm(child, go);

	/* No disk open: -name picks the configured guest. */
	child = start_vmm(NULL, "db", &go);
	assert_int_equal(guest_match_pid(child, ids, cfg.nr_guests, &trust), 0);
	stop_vmm(child, go);

	/* A guest guests.conf does not list is named by -name, and matches nothing. */
	child = start_vmm(NULL, "elsewhere", &go);
	assert_int_equal(guest_match_pid(child, ids, cfg.nr_guests, &trust), -ENOENT);
	assert_int_equal(
		guest_name_of_vmm(child, ids, cfg.nr_guests, &trust, name, sizeof(name)),
		0);
	assert_string_equal(name, "elsewhere");
	stop_vmm(child, go);

	assert_int_equal(guest_match_pid(getpid(), ids, cfg.nr_guests, &trust), -ENOENT);
	assert_int_not_equal(guest_name_of_vmm(getpid(), ids, cfg.nr_guests, &trust, name,
					       sizeof(name)),
			     0);
	free(ids);
	gm_config_release(&cfg);
	unlink(disk);
	unlink(other);
	rmdir(dir);
}

static void test_parse_pid(void **state)
{
	assert_int_equal(guest_parse_pid("1234"), 1234);
	assert_int_equal(guest_parse_pid("0"), -1);
	assert_int_equal(guest_parse_pid("012"), -1);
	assert_int_equal(guest_parse_pid("12a"), -1);
	assert_int_equal(guest_parse_pid(""), -1);
	assert_int_equal(guest_parse_pid("99999999999"), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_name_option),
		cmocka_unit_test(test_match),
		cmocka_unit_test(test_parse_pid),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
