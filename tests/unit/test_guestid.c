// SPDX-License-Identifier: GPL-2.0
/*
 * Guest identity: QEMU's -name option, and the disk image a process holds
 * open matched against guestfs-mount's guest list (a real process, a real
 * file, real /proc).
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
	static const char argv1[] = "qemu-system-x86_64\0-m\0" "256\0-name\0guest=web1,debug-threads=on";
	static const char argv2[] = "qemu\0-name\0db,,2\0";
	static const char argv3[] = "qemu\0-name\0../etc";
	char name[GUEST_NAME_MAX];

	assert_int_equal(guest_name_from_argv(argv1, sizeof(argv1), name, sizeof(name)), 0);
	assert_string_equal(name, "web1");
	assert_int_equal(guest_name_from_argv(argv2, sizeof(argv2), name, sizeof(name)), 0);
	assert_string_equal(name, "db,2");
	assert_int_equal(guest_name_from_argv(argv3, sizeof(argv3), name, sizeof(name)), -EINVAL);
	assert_int_equal(guest_name_from_argv("qemu", 5, name, sizeof(name)), -ENOENT);
}

static void test_name_from_open_disk(void **state)
{
	char dir[] = "/tmp/kvmprof-gid.XXXXXX", disk[128], other[128], conf[128];
	char name[GUEST_NAME_MAX] = "";
	int go[2];
	pid_t child;
	FILE *f;

	assert_non_null(mkdtemp(dir));
	snprintf(disk, sizeof(disk), "%s/web2.img", dir);
	snprintf(other, sizeof(other), "%s/db.qcow2", dir);
	snprintf(conf, sizeof(conf), "%s/guests.conf", dir);
	close(open(disk, O_CREAT | O_WRONLY, 0600));
	close(open(other, O_CREAT | O_WRONLY, 0600));
	f = fopen(conf, "w");
	fprintf(f, "# a guest list\ncache /var/cache/x\nguest db\n  disk qcow2 %s\n"
		   "guest web2\n  disk raw %s\n  kernel 6.12.0\n", other, disk);
	fclose(f);
	assert_int_equal(pipe(go), 0);
	child = fork();
	if (child == 0) {
		/* A stand-in for QEMU: holds the disk open, as a VMM does. */
		int fd = open(disk, O_RDONLY);
		char c;

		(void)fd;
		close(go[1]);
		read(go[0], &c, 1);
		_exit(0);
	}
	close(go[0]);
	usleep(200000);
	assert_int_equal(guest_name_from_disks(child, conf, name, sizeof(name)), 0);
	assert_string_equal(name, "web2");
	assert_int_equal(guest_name_from_disks(getpid(), conf, name, sizeof(name)), -ENOENT);
	assert_int_equal(guest_name_from_disks(child, "/nonexistent.conf", name, sizeof(name)),
			 -ENOENT);
	close(go[1]);
	waitpid(child, NULL, 0);
	unlink(disk);
	unlink(other);
	unlink(conf);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_name_option),
		cmocka_unit_test(test_name_from_open_disk),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
