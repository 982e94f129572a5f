// SPDX-License-Identifier: GPL-2.0
/*
 * Trusted paths, on real folders: owners and modes of the file and of every
 * folder leading to it, symlinks on the way, and the messages that name
 * what is wrong. The tests run as root; uid 65534 (nobody) plays the user
 * who must not be able to swap a file root reads.
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

#include "base/base.h"
#include "testutil.h"

#define NOBODY 65534

static char dir[] = "/tmp/test_pathtrust.XXXXXX";
static char path[512], path2[512];

/* A path under the test's folder. */
static const char *at(const char *rel)
{
	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	return path;
}

static void touch(const char *rel, mode_t mode)
{
	FILE *f = fopen(at(rel), "w");

	assert_non_null(f);
	fclose(f);
	assert_int_equal(chmod(at(rel), mode), 0);
}

/* kp_path_trusted() with a fresh error record. */
static int trusted(const char *p, uid_t uid, struct kp_err *err)
{
	kp_err_clear(err);
	return kp_path_trusted(p, uid, NULL, err);
}

static int setup(void **state)
{
	if (geteuid() != 0) {
		fprintf(stderr, "ERROR: test_pathtrust needs root (it chowns files)\n");
		return -1;
	}
	if (!mkdtemp(dir))
		return -1;
	return 0;
}

static int teardown(void **state)
{
	return sh("rm -rf %s", dir) ? -1 : 0;
}

/* Root's files in root's folders; /tmp, sticky, on the way. */
static void test_trusted(void **state)
{
	struct kp_err err;
	struct stat st, mine;

	assert_int_equal(mkdir(at("etc"), 0755), 0);
	touch("etc/guests.conf", 0644);
	assert_int_equal(kp_path_trusted(at("etc/guests.conf"), 0, &st, &err), 0);
	assert_int_equal(stat(at("etc/guests.conf"), &mine), 0);
	assert_int_equal(st.st_ino, mine.st_ino);
	assert_int_equal(trusted(at("etc"), 0, &err), 0);
	assert_int_equal(trusted("/", 0, &err), 0);
	/* Read-only for its owner, or no access for anyone else: fine too. */
	assert_int_equal(chmod(at("etc/guests.conf"), 0400), 0);
	assert_int_equal(trusted(at("etc/guests.conf"), 0, &err), 0);
	/* Dots and repeated slashes walk as the kernel walks them. */
	snprintf(path2, sizeof(path2), "%s//etc/./../etc/guests.conf", dir);
	assert_int_equal(trusted(path2, 0, &err), 0);
}

static void test_file_modes(void **state)
{
	struct kp_err err;

	touch("g.conf", 0664);
	assert_int_equal(trusted(at("g.conf"), 0, &err), -EPERM);
	assert_int_equal(err.code, EPERM);
	snprintf(path2, sizeof(path2),
		 "%s/g.conf: group-writable (mode 0664); fix with chmod g-w %s/g.conf",
		 dir, dir);
	assert_string_equal(err.msg, path2);

	touch("o.conf", 0646);
	assert_int_equal(trusted(at("o.conf"), 0, &err), -EPERM);
	assert_non_null(
		strstr(err.msg, "writable by others (mode 0646); fix with chmod o-w"));

	touch("go.conf", 0666);
	assert_int_equal(trusted(at("go.conf"), 0, &err), -EPERM);
	assert_non_null(strstr(err.msg, "(mode 0666); fix with chmod go-w"));

	/* The sticky exception is for folders on the way, not for the object. */
	assert_int_equal(mkdir(at("sticky"), 0755), 0);
	assert_int_equal(chmod(at("sticky"), 01777), 0);
	assert_int_equal(trusted(at("sticky"), 0, &err), -EPERM);
	assert_int_equal(trusted("/tmp", 0, &err), -EPERM);
}

static void test_file_owner(void **state)
{
	struct kp_err err;

	touch("n.conf", 0644);
	assert_int_equal(chown(at("n.conf"), NOBODY, NOBODY), 0);
	assert_int_equal(trusted(at("n.conf"), 0, &err), -EPERM);
	snprintf(path2, sizeof(path2),
		 "%s/n.conf: owned by uid 65534, not by root; fix with chown root "
		 "%s/n.conf",
		 dir, dir);
	assert_string_equal(err.msg, path2);
	/* A user may trust a file of their own. */
	assert_int_equal(trusted(at("n.conf"), NOBODY, &err), 0);
	assert_int_equal(trusted(at("n.conf"), 1000, &err), -EPERM);
	assert_non_null(strstr(err.msg, "not by root or uid 1000"));
}

/* Whoever may write a folder on the way may swap the file: refused. */
static void test_parent_folders(void **state)
{
	struct kp_err err;

	assert_int_equal(mkdir(at("user"), 0755), 0);
	assert_int_equal(mkdir(at("user/etc"), 0755), 0);
	touch("user/etc/guests.conf", 0644);
	assert_int_equal(chown(at("user"), NOBODY, NOBODY), 0);
	/* The folder holding the file is root's; its parent is not. */
	assert_int_equal(trusted(at("user/etc/guests.conf"), 0, &err), -EPERM);
	snprintf(path2, sizeof(path2),
		 "%s/user/etc/guests.conf: folder %s/user is owned by uid 65534, not "
		 "by root; fix with chown root %s/user",
		 dir, dir, dir);
	assert_string_equal(err.msg, path2);
	assert_int_equal(trusted(at("user/etc/guests.conf"), NOBODY, &err), 0);

	assert_int_equal(mkdir(at("open"), 0777), 0);
	assert_int_equal(chmod(at("open"), 0777), 0);
	touch("open/guests.conf", 0644);
	assert_int_equal(trusted(at("open/guests.conf"), 0, &err), -EPERM);
	assert_non_null(strstr(err.msg, "folder "));
	assert_non_null(strstr(err.msg, "/open is writable by its group and by others "
					"(mode 0777); fix with chmod go-w"));
	/* Sticky and root's, as /tmp: others cannot replace root's entries. */
	assert_int_equal(chmod(at("open"), 01777), 0);
	assert_int_equal(trusted(at("open/guests.conf"), 0, &err), 0);
	/* But an entry there that is not root's is refused as any other. */
	assert_int_equal(chown(at("open/guests.conf"), NOBODY, NOBODY), 0);
	assert_int_equal(trusted(at("open/guests.conf"), 0, &err), -EPERM);
}

/* A symlink is as safe as its folder, and where it leads is checked too. */
static void test_symlinks(void **state)
{
	struct kp_err err;

	assert_int_equal(mkdir(at("root"), 0755), 0);
	assert_int_equal(mkdir(at("home"), 0755), 0);
	touch("root/guests.conf", 0644);
	touch("home/guests.conf", 0644);
	assert_int_equal(chown(at("home"), NOBODY, NOBODY), 0);

	/* In root's folder, to root's file (relative and absolute). */
	assert_int_equal(symlink("guests.conf", at("root/rel")), 0);
	assert_int_equal(trusted(at("root/rel"), 0, &err), 0);
	snprintf(path2, sizeof(path2), "%s/root", dir);
	assert_int_equal(symlink(path2, at("root/abs")), 0);
	assert_int_equal(trusted(at("root/abs/guests.conf"), 0, &err), 0);

	/* In root's folder, into a user's folder: the user may swap the file. */
	snprintf(path2, sizeof(path2), "%s/home/guests.conf", dir);
	assert_int_equal(symlink(path2, at("root/to-home")), 0);
	assert_int_equal(trusted(at("root/to-home"), 0, &err), -EPERM);
	assert_non_null(strstr(err.msg, "/home is owned by uid 65534"));

	/* In a user's folder, to root's file: the user may repoint the link. */
	snprintf(path2, sizeof(path2), "%s/root/guests.conf", dir);
	assert_int_equal(symlink(path2, at("home/to-root")), 0);
	assert_int_equal(trusted(at("home/to-root"), 0, &err), -EPERM);

	/* A loop ends. */
	assert_int_equal(symlink("loop", at("root/loop")), 0);
	assert_int_equal(trusted(at("root/loop"), 0, &err), -ELOOP);
	assert_non_null(strstr(err.msg, "root/loop: "));
}

static void test_walk_errors(void **state)
{
	struct kp_err err;
	char cwd[512];

	assert_int_equal(trusted(at("missing/guests.conf"), 0, &err), -ENOENT);
	assert_int_equal(strncmp(err.msg, path, strlen(path)), 0);
	touch("file", 0644);
	assert_int_equal(trusted(at("file/guests.conf"), 0, &err), -ENOTDIR);
	assert_int_equal(trusted("", 0, &err), -ENOENT);

	/* A relative path: the current folder's path is walked too. */
	assert_non_null(getcwd(cwd, sizeof(cwd)));
	assert_int_equal(mkdir(at("cwd"), 0755), 0);
	touch("cwd/guests.conf", 0644);
	assert_int_equal(chdir(at("cwd")), 0);
	assert_int_equal(trusted("guests.conf", 0, &err), 0);
	assert_int_equal(chown(".", NOBODY, NOBODY), 0);
	assert_int_equal(trusted("guests.conf", 0, &err), -EPERM);
	assert_non_null(strstr(err.msg, "guests.conf: folder "));
	assert_int_equal(chdir(cwd), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_trusted),	   cmocka_unit_test(test_file_modes),
		cmocka_unit_test(test_file_owner), cmocka_unit_test(test_parent_folders),
		cmocka_unit_test(test_symlinks),   cmocka_unit_test(test_walk_errors),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
