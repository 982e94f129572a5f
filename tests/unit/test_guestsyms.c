// SPDX-License-Identifier: GPL-2.0
/*
 * Where a guest's kernel symbols are looked for: the candidate files in
 * order, which are only probed, the module list and tree, and the release
 * in both layouts' version files.
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

static char dir[] = "/tmp/kvmprof-gsyms.XXXXXX";
static char path[600];

/* @dir/@rel, with the folders on the way. */
static const char *put(const char *rel, const char *text)
{
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	assert_int_equal(sh("mkdir -p \"$(dirname %s)\"", path), 0);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	return path;
}

static const char *at(const char *rel)
{
	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	return path;
}

static int setup(void **state)
{
	(void)state;
	strcpy(dir, "/tmp/kvmprof-gsyms.XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	return sh("rm -rf %s", dir);
}

static void assert_file(const struct guestsyms_file *f, const char *want, bool given,
			bool runtime)
{
	assert_string_equal(f->path, want);
	assert_int_equal(f->given, given);
	assert_int_equal(f->runtime, runtime);
}

static void test_candidates_most_specific_first(void **state)
{
	struct guestsyms_opts o = {
		.mount = "/m", .vmlinux = "/k/vmlinux", .kallsyms = "/k/kallsyms"};
	struct guestsyms_file f[GUESTSYMS_FILES_MAX];

	(void)state;
	assert_int_equal(guestsyms_kernel_files(&o, "web1", 42, f, GUESTSYMS_FILES_MAX),
			 5);
	assert_file(&f[0], "/k/vmlinux", true, false);
	assert_file(&f[1], "/k/kallsyms", true, false);
	assert_file(&f[2], "/m/web1/kallsyms", false, false);
	assert_file(&f[3], "/m/42/proc/kallsyms", false, true);
	assert_file(&f[4], "/m/by-pid/42/proc/kallsyms", false, true);
	assert_int_equal(guestsyms_kernel_files(&o, "web1", 42, f, 3), 3);
	assert_file(&f[2], "/m/web1/kallsyms", false, false);
}

/* An unnamed guest has no <name>/ folder; with no mount given, the default one. */
static void test_candidates_of_unnamed_guest(void **state)
{
	struct guestsyms_opts o = {.kallsyms = "/saved/42/proc/kallsyms"};
	struct guestsyms_file f[GUESTSYMS_FILES_MAX];

	(void)state;
	assert_int_equal(guestsyms_kernel_files(&o, "-", 42, f, GUESTSYMS_FILES_MAX), 3);
	assert_file(&f[0], "/saved/42/proc/kallsyms", true, true);
	assert_file(&f[1], GUEST_MOUNT_DEFAULT "/42/proc/kallsyms", false, true);
	assert_file(&f[2], GUEST_MOUNT_DEFAULT "/by-pid/42/proc/kallsyms", false, true);
	assert_int_equal(guestsyms_kernel_files(&o, NULL, 42, f, GUESTSYMS_FILES_MAX), 3);
}

/* Records what was tried; accepts only the file named @ctx. */
static char tried[8][GUESTSYMS_PATH_MAX];
static int nr_tried;

static bool load_named(void *ctx, const struct guestsyms_file *f)
{
	snprintf(tried[nr_tried++], GUESTSYMS_PATH_MAX, "%s", f->path);
	return ctx && !strcmp(f->path, ctx);
}

static void test_absent_places_are_skipped(void **state)
{
	struct guestsyms_opts o = {.mount = dir};
	struct guestsyms_file f[GUESTSYMS_FILES_MAX];
	char want[GUESTSYMS_PATH_MAX];
	int n;

	(void)state;
	nr_tried = 0;
	put("web1/kallsyms", "x\n");
	snprintf(want, sizeof(want), "%s", put("by-pid/42/proc/kallsyms", "x\n"));
	n = guestsyms_kernel_files(&o, "web1", 42, f, GUESTSYMS_FILES_MAX);
	assert_int_equal(guestsyms_load_first(f, n, load_named, want), 2);
	assert_int_equal(nr_tried, 2); /* <name>/kallsyms failed, <pid>/ is absent */
	assert_string_equal(tried[0], at("web1/kallsyms"));
	assert_string_equal(tried[1], want);
}

/* A file the user named is tried even when absent, and nothing after it. */
static void test_given_file_ends_the_search(void **state)
{
	struct guestsyms_opts o = {.mount = dir, .kallsyms = "/nonexistent/kallsyms"};
	struct guestsyms_file f[GUESTSYMS_FILES_MAX];
	int n;

	(void)state;
	nr_tried = 0;
	put("web1/kallsyms", "x\n");
	n = guestsyms_kernel_files(&o, "web1", 42, f, GUESTSYMS_FILES_MAX);
	assert_int_equal(guestsyms_load_first(f, n, load_named, NULL), -1);
	assert_int_equal(nr_tried, 1);
	assert_string_equal(tried[0], "/nonexistent/kallsyms");
}

static void test_release_in_both_layouts(void **state)
{
	char rel[128];

	(void)state;
	assert_true(
		guestsyms_release(put("a/version", "6.12.1-amd64\n"), rel, sizeof(rel)));
	assert_string_equal(rel, "6.12.1-amd64");
	assert_true(guestsyms_release(
		put("b/proc/version",
		    "Linux version 6.1.0-57-amd64 (debian-kernel@lists.debian.org) #1\n"),
		rel, sizeof(rel)));
	assert_string_equal(rel, "6.1.0-57-amd64");
	assert_false(guestsyms_release(put("c/version", "\n"), rel, sizeof(rel)));
	assert_false(guestsyms_release(at("d/version"), rel, sizeof(rel)));
}

/* The <name>/ folder first; its release names the module tree. */
static void test_modules_from_first_folder_with_a_list(void **state)
{
	struct guestsyms_opts o = {.mount = dir};
	struct guestsyms_modules gm;
	char want[GUESTSYMS_PATH_MAX];

	(void)state;
	put("by-pid/42/proc/modules", "kvm 1000 0 - Live 0xffffffffc0000000\n");
	put("by-pid/42/proc/version", "Linux version 6.1.0-57-amd64 (x) #1\n");
	assert_true(guestsyms_modules(&o, "web1", 42, &gm));
	assert_string_equal(gm.list, at("by-pid/42/proc/modules"));
	assert_string_equal(gm.tree, at("by-pid/42/lib/modules/6.1.0-57-amd64"));
	snprintf(want, sizeof(want), "%s",
		 put("web1/modules", "kvm 1000 0 - Live 0x1\n"));
	assert_true(guestsyms_modules(&o, "web1", 42, &gm));
	assert_string_equal(gm.list, want);
	assert_string_equal(gm.tree, ""); /* no web1/version */
	put("web1/version", "6.12.1-amd64\n");
	assert_true(guestsyms_modules(&o, "web1", 42, &gm));
	assert_string_equal(gm.tree, at("web1/lib/modules/6.12.1-amd64"));
}

/* --guestmodules replaces the list; the tree still comes from the guest's folder. */
static void test_given_modules_list(void **state)
{
	struct guestsyms_opts o = {.mount = dir, .modules = "/saved/modules"};
	struct guestsyms_modules gm;

	(void)state;
	assert_true(guestsyms_modules(&o, "web1", 42, &gm));
	assert_string_equal(gm.list, "/saved/modules");
	assert_string_equal(gm.tree, "");
	put("42/proc/modules", "kvm 1000 0 - Live 0x1\n");
	put("42/proc/version", "Linux version 6.1.0-57-amd64 (x) #1\n");
	assert_true(guestsyms_modules(&o, "web1", 42, &gm));
	assert_string_equal(gm.list, "/saved/modules");
	assert_string_equal(gm.tree, at("42/lib/modules/6.1.0-57-amd64"));
	o.modules = NULL;
	assert_false(guestsyms_modules(&o, "web1", 43, &gm));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_candidates_most_specific_first),
		cmocka_unit_test(test_candidates_of_unnamed_guest),
		cmocka_unit_test_setup_teardown(test_absent_places_are_skipped, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_given_file_ends_the_search, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_release_in_both_layouts, setup,
						teardown),
		cmocka_unit_test_setup_teardown(
			test_modules_from_first_folder_with_a_list, setup, teardown),
		cmocka_unit_test_setup_teardown(test_given_modules_list, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
