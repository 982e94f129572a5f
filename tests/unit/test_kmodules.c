// SPDX-License-Identifier: GPL-2.0
/*
 * Guest modules: a /proc/modules list places each module's text; symbols
 * come from the module file of that name in a module tree (compressed or
 * not, '-' and '_' alike), at text offsets plus the load address.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "testutil.h"

#include "machine/machine.h"

static char dir[] = "/tmp/kvmprof-kmod.XXXXXX";

static const char module_src[] =
	"static const char mi[] __attribute__((section(\".modinfo\"), used)) =\n"
	"	\"name=fake_mod\";\n"
	"__attribute__((section(\".text\"))) int first_fn(int x) { return x + 1; }\n"
	"__attribute__((section(\".text\"))) int second_fn(int x) { return x * 7; }\n";

static int setup(void **state)
{
	char path[256];
	FILE *f;

	if (!mkdtemp(dir))
		return -1;
	snprintf(path, sizeof(path), "%s/m.c", dir);
	f = fopen(path, "w");
	if (!f)
		return -1;
	fputs(module_src, f);
	fclose(f);
	snprintf(path, sizeof(path), "%s/modules", dir);
	f = fopen(path, "w");
	if (!f)
		return -1;
	fputs("fake_mod 8192 0 - Live 0xffffffffc0100000\n"
	      "hidden 4096 0 - Live 0x0000000000000000\n",
	      f);
	fclose(f);
	return sh("cd %s && mkdir -p tree/kernel/drivers && "
		  "cc -O1 -fno-pic -fno-asynchronous-unwind-tables -c m.c -o "
		  "tree/kernel/drivers/fake-mod.ko && xz tree/kernel/drivers/fake-mod.ko",
		  dir);
}

static int teardown(void **state)
{
	return sh("rm -rf %s", dir);
}

static void test_modules_placed_and_named(void **state)
{
	char list[256], tree[256];
	struct kp_err err = {0};
	struct dso_cache dsos;
	struct kmodules km;
	const struct dso *d = NULL;
	const struct ksym *s;

	dso_cache_init(&dsos);
	snprintf(list, sizeof(list), "%s/modules", dir);
	snprintf(tree, sizeof(tree), "%s/tree", dir);
	assert_int_equal(kmodules_load(&km, list, tree, &dsos, &err), 0);
	/* A hidden (zero) address says nothing about where a module is. */
	assert_int_equal(km.nr, 1);
	s = kmodules_lookup(&km, 0xffffffffc0100000ULL, &d);
	assert_non_null(d);
	assert_string_equal(d->name, "[fake_mod]");
	assert_non_null(s);
	assert_string_equal(s->name, "first_fn");
	s = kmodules_lookup(&km, 0xffffffffc0100000ULL + 0x10, &d);
	assert_non_null(s);
	assert_string_equal(s->name, "second_fn");
	d = NULL;
	assert_null(kmodules_lookup(&km, 0xffffffffc0100000ULL + 8192, &d));
	assert_null(d);
	kmodules_release(&km);
	dso_cache_release(&dsos);
}

static void test_missing_list_is_named(void **state)
{
	struct kp_err err = {0};
	struct dso_cache dsos;
	struct kmodules km;

	dso_cache_init(&dsos);
	assert_int_equal(kmodules_load(&km, "/nonexistent/modules", NULL, &dsos, &err),
			 -ENOENT);
	assert_non_null(strstr(err.msg, "/nonexistent/modules"));
	kmodules_release(&km);
	dso_cache_release(&dsos);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_modules_placed_and_named),
		cmocka_unit_test(test_missing_list_is_named),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
