// SPDX-License-Identifier: GPL-2.0
/* The default kernel of a guest's GRUB, from grub.cfg and grubenv text. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

/* Part of the daemon, not of libkvmprof: build it in. */
#include "grub.h"

/* What grub-mkconfig writes on Debian 12 with two kernels (trimmed). */
static const char debian_cfg[] =
	"if [ -s $prefix/grubenv ]; then\n"
	"  set have_grubenv=true\n"
	"  load_env\n"
	"fi\n"
	"if [ \"${next_entry}\" ] ; then\n"
	"   set default=\"${next_entry}\"\n"
	"   set next_entry=\n"
	"   save_env next_entry\n"
	"   set boot_once=true\n"
	"else\n"
	"   set default=\"${saved_entry}\"\n"
	"fi\n"
	"menuentry 'Debian GNU/Linux' --class debian --class gnu-linux --class gnu "
	"--class os "
	"$menuentry_id_option 'gnulinux-simple-7c2f' {\n"
	"\tload_video\n"
	"\tinsmod ext2\n"
	"\techo\t'Loading Linux 6.12.117+deb12-amd64 ...'\n"
	"\tlinux\t/vmlinuz-6.12.117+deb12-amd64 root=UUID=7c2f ro  quiet\n"
	"\tinitrd\t/initrd.img-6.12.117+deb12-amd64\n"
	"}\n"
	"submenu 'Advanced options for Debian GNU/Linux' $menuentry_id_option "
	"'gnulinux-advanced-7c2f' {\n"
	"\tmenuentry 'Debian GNU/Linux, with Linux 6.12.117+deb12-amd64' --class debian "
	"$menuentry_id_option 'gnulinux-6.12.117+deb12-amd64-advanced-7c2f' {\n"
	"\t\tlinux\t/vmlinuz-6.12.117+deb12-amd64 root=UUID=7c2f ro  quiet\n"
	"\t}\n"
	"\tmenuentry 'Debian GNU/Linux, with Linux 6.1.0-57-amd64' --class debian "
	"$menuentry_id_option 'gnulinux-6.1.0-57-amd64-advanced-7c2f' {\n"
	"\t\tlinux\t/boot/vmlinuz-6.1.0-57-amd64 root=UUID=7c2f ro  quiet\n"
	"\t}\n"
	"}\n";

static int dflt(const char *cfg, const char *env, char *ver)
{
	return gm_grub_default(cfg, strlen(cfg), env, env ? strlen(env) : 0, ver, 128);
}

static void test_saved_entry_by_id_path(void **state)
{
	char ver[128];

	(void)state;
	assert_int_equal(
		dflt(debian_cfg,
		     "# GRUB Environment Block\nsaved_entry=gnulinux-advanced-7c2f>"
		     "gnulinux-6.1.0-57-amd64-advanced-7c2f\n######\n",
		     ver),
		0);
	assert_string_equal(ver, "6.1.0-57-amd64");
}

static void test_saved_entry_by_title_and_index(void **state)
{
	char ver[128];

	(void)state;
	assert_int_equal(
		dflt(debian_cfg,
		     "saved_entry=Advanced options for Debian GNU/Linux>Debian GNU/Linux,"
		     " with Linux 6.1.0-57-amd64\n",
		     ver),
		0);
	assert_string_equal(ver, "6.1.0-57-amd64");
	assert_int_equal(dflt(debian_cfg, "saved_entry=1>0\n", ver), 0);
	assert_string_equal(ver, "6.12.117+deb12-amd64");
	/* No saved entry: GRUB boots entry 0. */
	assert_int_equal(dflt(debian_cfg, NULL, ver), 0);
	assert_string_equal(ver, "6.12.117+deb12-amd64");
	/* A submenu as the default boots its first entry. */
	assert_int_equal(dflt(debian_cfg, "saved_entry=gnulinux-advanced-7c2f\n", ver),
			 0);
	assert_string_equal(ver, "6.12.117+deb12-amd64");
}

static void test_plain_default_index(void **state)
{
	static const char cfg[] =
		"set default=\"1\"\n"
		"menuentry 'a' { linux /boot/vmlinuz-5.10.0-1-amd64 ro\n}\n"
		"menuentry 'b' {\n linux /vmlinuz-6.1.0-2-amd64 ro\n}\n";
	char ver[128];

	(void)state;
	assert_int_equal(dflt(cfg, NULL, ver), 0);
	assert_string_equal(ver, "6.1.0-2-amd64");
}

/*
 * Menu entries written by hand, each on one line: GRUB reads "{", "}" and
 * ";" as separators wherever they stand outside quotes and "${...}".
 */
static const char one_line_cfg[] =
	"set timeout=5\n"
	"set default=\"${saved_entry}\"\n"
	"menuentry \"Linux 6.1\" { linux /boot/vmlinuz-6.1.0-57-amd64 ro }\n"
	"menuentry 'Linux 6.12 {new}' --id linux-612 { "
	"linux /vmlinuz-6.12.117+deb12-amd64 ro; initrd /initrd.img-6.12.117 }\n"
	"submenu 'Old' { menuentry 'Linux 5.10' { linux /vmlinuz-5.10.0-30-amd64 } }\n"
	"menuentry 'Rescue' {\n"
	"\tlinux /boot/vmlinuz-6.1.0-57-amd64 single }\n";

static void test_one_line_menuentry(void **state)
{
	char ver[128];

	(void)state;
	/* No saved entry: the first one-line entry. */
	assert_int_equal(dflt(one_line_cfg, NULL, ver), 0);
	assert_string_equal(ver, "6.1.0-57-amd64");
	/* Its closing brace ended it: the next entry is a sibling, by index or id. */
	assert_int_equal(dflt(one_line_cfg, "saved_entry=1\n", ver), 0);
	assert_string_equal(ver, "6.12.117+deb12-amd64");
	assert_int_equal(dflt(one_line_cfg, "saved_entry=linux-612\n", ver), 0);
	assert_string_equal(ver, "6.12.117+deb12-amd64");
	assert_int_equal(dflt(one_line_cfg, "saved_entry=Linux 6.12 {new}\n", ver), 0);
	assert_string_equal(ver, "6.12.117+deb12-amd64");
	/* A submenu and its entry on one line. */
	assert_int_equal(dflt(one_line_cfg, "saved_entry=Old>Linux 5.10\n", ver), 0);
	assert_string_equal(ver, "5.10.0-30-amd64");
	/* The brace that closes the entry after its linux line. */
	assert_int_equal(dflt(one_line_cfg, "saved_entry=3\n", ver), 0);
	assert_string_equal(ver, "6.1.0-57-amd64");
	assert_int_equal(dflt(one_line_cfg, "saved_entry=4\n", ver), -ENOENT);
}

static void test_cannot_tell(void **state)
{
	char ver[128];

	(void)state;
	assert_int_equal(dflt(debian_cfg, "saved_entry=no such entry\n", ver), -ENOENT);
	assert_int_equal(dflt(debian_cfg, "saved_entry=7\n", ver), -ENOENT);
	assert_int_equal(dflt("set default=\"${chosen}\"\nmenuentry 'a' {\n"
			      "linux /vmlinuz-1\n}\n",
			      NULL, ver),
			 -ENOENT);
	assert_int_equal(dflt("", NULL, ver), -ENOENT);
	assert_int_equal(dflt("menuentry 'x' {\n linux /boot/bzImage\n}\n", NULL, ver),
			 -ENOENT);
	/* Unbalanced braces and garbage: no crash, no answer or a bounded one. */
	dflt("}}}{{{ menuentry menuentry\n\n\nset default=\n linux\n", NULL, ver);
}

static void test_limits(void **state)
{
	size_t n = GM_GRUB_MAX_ENTRIES + 1, len = n * 32;
	char *cfg = malloc(len + 1), ver[128];

	(void)state;
	assert_non_null(cfg);
	cfg[0] = '\0';
	for (size_t i = 0; i < n; i++)
		strcat(cfg, "menuentry 'x' {\n}\n");
	assert_int_equal(gm_grub_default(cfg, strlen(cfg), NULL, 0, ver, sizeof(ver)),
			 -E2BIG);
	free(cfg);
	assert_int_equal(gm_grub_default(debian_cfg, GM_GRUB_MAX_CFG + 1, NULL, 0, ver,
					 sizeof(ver)),
			 -E2BIG);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_saved_entry_by_id_path),
		cmocka_unit_test(test_saved_entry_by_title_and_index),
		cmocka_unit_test(test_plain_default_index),
		cmocka_unit_test(test_one_line_menuentry),
		cmocka_unit_test(test_cannot_tell),
		cmocka_unit_test(test_limits),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
