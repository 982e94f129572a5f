// SPDX-License-Identifier: GPL-2.0
/*
 * The default kernel of a guest's GRUB, from grub.cfg and grubenv text and
 * Boot Loader Specification entries.
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

static int dflt_bls(const char *cfg, const char *env, const struct gm_bls_file *bls,
		    size_t nr_bls, char *ver)
{
	struct gm_grub_text t = {
		.cfg = cfg,
		.cfg_len = strlen(cfg),
		.env = env,
		.env_len = env ? strlen(env) : 0,
		.bls = bls,
		.nr_bls = nr_bls,
	};

	return gm_grub_default(&t, ver, 128);
}

static int dflt(const char *cfg, const char *env, char *ver)
{
	return dflt_bls(cfg, env, NULL, 0, ver);
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

/*
 * What grub2-mkconfig writes on Fedora 39 (trimmed): 10_linux only runs
 * blscfg, which makes the menu from /boot/loader/entries.
 */
static const char fedora_cfg[] =
	"set pager=1\n"
	"\n"
	"if [ -f ${config_directory}/grubenv ]; then\n"
	"  load_env -f ${config_directory}/grubenv\n"
	"elif [ -s $prefix/grubenv ]; then\n"
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
	"### BEGIN /etc/grub.d/10_linux ###\n"
	"insmod part_gpt\n"
	"insmod ext2\n"
	"set root='hd0,gpt2'\n"
	"search --no-floppy --fs-uuid --set=root 3b1c6e4d-6b0e-4b8e-9a4f-0c2d9e8f7a61\n"
	"insmod blscfg\n"
	"blscfg\n"
	"### END /etc/grub.d/10_linux ###\n"
	"### BEGIN /etc/grub.d/30_uefi-firmware ###\n"
	"if [ \"$grub_platform\" = \"efi\" ]; then\n"
	"\tfwsetup --is-supported\n"
	"\tif [ \"$?\" = 0 ]; then\n"
	"\t\tmenuentry 'UEFI Firmware Settings' $menuentry_id_option 'uefi-firmware' {\n"
	"\t\t\tfwsetup\n"
	"\t\t}\n"
	"\tfi\n"
	"fi\n"
	"### END /etc/grub.d/30_uefi-firmware ###\n";

#define MID "8e1c3a0b5f2a4c7e9d6b1f0a2c3d4e5f"
#define BLS(v)                                                       \
	"title Fedora Linux (" v ") 39 (Thirty Nine)\n"              \
	"version " v "\n"                                            \
	"linux /vmlinuz-" v "\n"                                     \
	"initrd /initramfs-" v ".img\n"                              \
	"options root=UUID=3b1c6e4d-6b0e-4b8e-9a4f-0c2d9e8f7a61 ro " \
	"rootflags=subvol=root "                                     \
	"rhgb quiet\n"                                               \
	"grub_users $grub_users\n"                                   \
	"grub_arg --unrestricted\n"                                  \
	"grub_class fedora\n"

/* As kernel-install writes them; listed in readdir order, not blscfg's. */
static const char bls_old[] = BLS("6.5.6-300.fc39.x86_64");
static const char bls_new[] = BLS("6.11.9-100.fc39.x86_64");
static const char bls_rescue[] = BLS("0-rescue-" MID);
static const struct gm_bls_file fedora_bls[] = {
	{MID "-0-rescue.conf", bls_rescue, sizeof(bls_rescue) - 1},
	{MID "-6.5.6-300.fc39.x86_64.conf", bls_old, sizeof(bls_old) - 1},
	{MID "-6.11.9-100.fc39.x86_64.conf", bls_new, sizeof(bls_new) - 1},
};
#define NR_BLS (sizeof(fedora_bls) / sizeof(fedora_bls[0]))

static const char fedora_env[] =
	"# GRUB Environment Block\n"
	"# WARNING: Do not edit this file by tools other than grub-editenv!!!\n"
	"saved_entry=" MID "-6.5.6-300.fc39.x86_64\n"
	"menu_auto_hide=1\n"
	"boot_success=1\n"
	"boot_indeterminate=0\n"
	"##################################################################\n";

static void test_bls_saved_entry(void **state)
{
	char ver[128];

	(void)state;
	/* saved_entry names an entry by its file name without ".conf". */
	assert_int_equal(dflt_bls(fedora_cfg, fedora_env, fedora_bls, NR_BLS, ver), 0);
	assert_string_equal(ver, "6.5.6-300.fc39.x86_64");
	/* Or by its title. */
	assert_int_equal(dflt_bls(fedora_cfg,
				  "saved_entry=Fedora Linux (6.11.9-100.fc39.x86_64) 39 "
				  "(Thirty Nine)\n",
				  fedora_bls, NR_BLS, ver),
			 0);
	assert_string_equal(ver, "6.11.9-100.fc39.x86_64");
	/* An entry since removed: GRUB's choice is not known. */
	assert_int_equal(dflt_bls(fedora_cfg,
				  "saved_entry=" MID "-6.2.9-300.fc38.x86_64\n",
				  fedora_bls, NR_BLS, ver),
			 -ENOENT);
}

static void test_bls_newest_first(void **state)
{
	char ver[128];

	(void)state;
	/* No saved entry: blscfg's first, the newest version (6.11 > 6.5 > 0-rescue). */
	assert_int_equal(dflt_bls(fedora_cfg, "saved_entry=\n", fedora_bls, NR_BLS, ver),
			 0);
	assert_string_equal(ver, "6.11.9-100.fc39.x86_64");
	assert_int_equal(dflt_bls(fedora_cfg, NULL, fedora_bls, NR_BLS, ver), 0);
	assert_string_equal(ver, "6.11.9-100.fc39.x86_64");
	assert_int_equal(dflt_bls(fedora_cfg, "saved_entry=1\n", fedora_bls, NR_BLS, ver),
			 0);
	assert_string_equal(ver, "6.5.6-300.fc39.x86_64");
	assert_int_equal(dflt_bls(fedora_cfg, "saved_entry=2\n", fedora_bls, NR_BLS, ver),
			 0);
	assert_string_equal(ver, "0-rescue-" MID);
	/* The menu entry after blscfg's. */
	assert_int_equal(dflt_bls(fedora_cfg, "saved_entry=uefi-firmware\n", fedora_bls,
				  NR_BLS, ver),
			 -ENOENT);
	/* Without a blscfg command GRUB never reads the entries. */
	assert_int_equal(dflt_bls(debian_cfg, NULL, fedora_bls, NR_BLS, ver), 0);
	assert_string_equal(ver, "6.12.117+deb12-amd64");
}

static void test_bls_vercmp(void **state)
{
	(void)state;
	assert_true(gm_bls_vercmp("6.11.9-100.fc39.x86_64", "6.5.6-300.fc39.x86_64") > 0);
	assert_true(gm_bls_vercmp("6.5.6-300.fc39.x86_64", "6.5.6-300.fc39.x86_64") == 0);
	assert_true(gm_bls_vercmp("6.5.10", "6.5.9") > 0);
	assert_true(gm_bls_vercmp("6.5.010", "6.5.10") == 0);
	assert_true(gm_bls_vercmp("6.6.0-0.rc1", "6.6.0") > 0);
	assert_true(gm_bls_vercmp("6.6.0~rc1", "6.6.0") < 0);
	assert_true(gm_bls_vercmp("1.0a", "1.0") > 0);
	assert_true(gm_bls_vercmp("1.0.1", "1.0a") > 0);
	assert_true(gm_bls_vercmp("0-rescue-" MID, "4.18.0-513.el8.x86_64") < 0);
}

static void test_bls_limits(void **state)
{
	size_t n = GM_BLS_MAX_FILES + 1;
	struct gm_bls_file *many = calloc(n, sizeof(*many)), big = fedora_bls[1];
	char ver[128];

	(void)state;
	assert_non_null(many);
	for (size_t i = 0; i < n; i++)
		many[i] = fedora_bls[1];
	assert_int_equal(dflt_bls(fedora_cfg, NULL, many, n, ver), -E2BIG);
	free(many);
	big.len = GM_BLS_MAX_FILE + 1;
	assert_int_equal(dflt_bls(fedora_cfg, NULL, &big, 1, ver), -E2BIG);
	/* A file the appliance could not read (NULL text) and an odd name. */
	big = (struct gm_bls_file){MID "-x.conf", NULL, 0};
	assert_int_equal(dflt_bls(fedora_cfg, NULL, &big, 1, ver), -E2BIG);
	big = (struct gm_bls_file){"x.cfg", bls_old, sizeof(bls_old) - 1};
	assert_int_equal(dflt_bls(fedora_cfg, NULL, &big, 1, ver), -E2BIG);
	/* Garbage: no crash; no title, version or kernel. */
	big = (struct gm_bls_file){"g.conf", "title\nversion\t\nlinux /boot/\n\n\x01",
				   30};
	assert_int_equal(dflt_bls(fedora_cfg, NULL, &big, 1, ver), -ENOENT);
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
	assert_int_equal(dflt(cfg, NULL, ver), -E2BIG);
	free(cfg);
	assert_int_equal(
		gm_grub_default(&(struct gm_grub_text){.cfg = debian_cfg,
						       .cfg_len = GM_GRUB_MAX_CFG + 1},
				ver, sizeof(ver)),
		-E2BIG);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_saved_entry_by_id_path),
		cmocka_unit_test(test_saved_entry_by_title_and_index),
		cmocka_unit_test(test_plain_default_index),
		cmocka_unit_test(test_one_line_menuentry),
		cmocka_unit_test(test_bls_saved_entry),
		cmocka_unit_test(test_bls_newest_first),
		cmocka_unit_test(test_bls_vercmp),
		cmocka_unit_test(test_bls_limits),
		cmocka_unit_test(test_cannot_tell),
		cmocka_unit_test(test_limits),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
