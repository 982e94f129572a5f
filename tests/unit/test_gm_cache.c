// SPDX-License-Identifier: GPL-2.0
/*
 * The daemon's cache folder: made 0700, and refused when anyone but root
 * could change it or a folder leading to it. The tests run as root; uid
 * 65534 (nobody) plays the user who must not be able to swap the cache.
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
#include "store-priv.h"
#include "testutil.h"

#define NOBODY 65534

static char dir[] = "/tmp/test_gm_cache.XXXXXX";
static char parent[128], cache[160];

/* gm_cache_prepare() of dir/NAME/cache with a fresh error record. */
static int prepare(const char *name, struct kp_err *err)
{
	snprintf(parent, sizeof(parent), "%s/%s", dir, name);
	snprintf(cache, sizeof(cache), "%s/cache", parent);
	kp_err_clear(err);
	return gm_cache_prepare(cache, err);
}

static mode_t mode_of(const char *path)
{
	struct stat st;

	assert_int_equal(lstat(path, &st), 0);
	return st.st_mode & 07777;
}

static int setup(void **state)
{
	if (geteuid() != 0) {
		fprintf(stderr, "ERROR: test_gm_cache needs root (it chowns folders)\n");
		return -1;
	}
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	return sh("rm -rf %s", dir) ? -1 : 0;
}

static void test_made_private(void **state)
{
	struct kp_err err;
	char path[256];

	assert_int_equal(prepare("new", &err), 0);
	assert_int_equal(mode_of(cache), 0700);
	assert_int_equal(mode_of(parent), 0755);

	/* Leftovers of an interrupted inspection go; the rest stays. */
	snprintf(path, sizeof(path), "%s/.tmp-0123-abc", cache);
	assert_int_equal(mkdir(path, 0700), 0);
	snprintf(path, sizeof(path), "%s/0123456789abcdef", cache);
	assert_int_equal(mkdir(path, 0700), 0);
	assert_int_equal(chmod(cache, 0750), 0);
	assert_int_equal(prepare("new", &err), 0);
	assert_int_equal(mode_of(cache), 0700);
	assert_int_equal(access(path, F_OK), 0);
	snprintf(path, sizeof(path), "%s/.tmp-0123-abc", cache);
	assert_int_equal(access(path, F_OK), -1);
}

/* A user who owns or may write a folder on the way may swap the cache. */
static void test_parent_not_trusted(void **state)
{
	struct kp_err err;
	char want[1024];

	assert_int_equal(prepare("user", &err), 0);
	assert_int_equal(chown(parent, NOBODY, NOBODY), 0);
	assert_int_equal(prepare("user", &err), -EPERM);
	snprintf(want, sizeof(want),
		 "cache: %s: folder %s is owned by uid 65534, not by root; fix with "
		 "chown root %s",
		 cache, parent, parent);
	assert_string_equal(err.msg, want);

	assert_int_equal(prepare("open", &err), 0);
	assert_int_equal(chmod(parent, 0777), 0);
	assert_int_equal(prepare("open", &err), -EPERM);
	assert_non_null(strstr(err.msg, "is writable by its group and by others"));
	assert_non_null(strstr(err.msg, parent));

	/* Further up counts as much as the folder holding the cache. */
	snprintf(want, sizeof(want), "%s/up", dir);
	assert_int_equal(mkdir(want, 0755), 0);
	assert_int_equal(chown(want, NOBODY, NOBODY), 0);
	assert_int_equal(prepare("up/var", &err), -EPERM);
	assert_non_null(strstr(err.msg, "/up is owned by uid 65534"));
}

static void test_cache_not_trusted(void **state)
{
	struct kp_err err;
	char target[512];

	assert_int_equal(prepare("gw", &err), 0);
	assert_int_equal(chmod(cache, 0770), 0);
	assert_int_equal(prepare("gw", &err), -EPERM);
	assert_non_null(
		strstr(err.msg, "group-writable (mode 0770); fix with chmod g-w"));

	assert_int_equal(prepare("theirs", &err), 0);
	assert_int_equal(chown(cache, NOBODY, NOBODY), 0);
	assert_int_equal(prepare("theirs", &err), -EPERM);
	assert_non_null(strstr(err.msg, "owned by uid 65534"));

	/* A symlink in the cache's place is not followed. */
	assert_int_equal(prepare("link", &err), 0);
	assert_int_equal(rmdir(cache), 0);
	snprintf(target, sizeof(target), "%s/new/cache", dir);
	assert_int_equal(symlink(target, cache), 0);
	assert_int_equal(prepare("link", &err), -ENOTDIR);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_made_private),
		cmocka_unit_test(test_parent_not_trusted),
		cmocka_unit_test(test_cache_not_trusted),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
