// SPDX-License-Identifier: GPL-2.0
/*
 * The served tree of one guest, built from a cache folder laid out as an
 * inspection leaves it: the default kernel's files at the top, every kernel
 * under kernels/<version>/, module trees with compressed modules served
 * decompressed under their plain names, and the by-pid view in the layout
 * perf kvm --guestmount reads (lib/guest/layout.h).
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

#include "artifacts.h"
#include "inspect.h"
#include "tree.h"

/* The node at @path ("a/b/c") below @n, or NULL. */
static struct gm_node *at(struct gm_node *n, const char *path)
{
	char buf[256], *save, *comp;

	snprintf(buf, sizeof(buf), "%s", path);
	for (comp = strtok_r(buf, "/", &save); n && comp;
	     comp = strtok_r(NULL, "/", &save))
		n = n->dir ? gm_node_child(n, comp) : NULL;
	return n;
}

static void make_kernel(const char *keydir, const char *ver)
{
	assert_int_equal(sh("set -e; d='%s/" GM_K_DIR "/%s'; mkdir -p \"$d/" GM_D_MODULES
			    "/kernel/fs\"; for f in " GM_F_KALLSYMS " " GM_F_MODULES
			    " " GM_F_VERSION " " GM_F_NOTES " " GM_F_BUILD_ID
			    " " GM_F_VMLINUZ
			    "; do echo %s >\"$d/$f\"; done; echo ko >\"$d/" GM_D_MODULES
			    "/kernel/fs/ext4.ko.xz\"; echo dep >\"$d/" GM_D_MODULES
			    "/modules.dep\"",
			    keydir, ver, ver),
			 0);
}

static void test_layout(void **state)
{
	char keydir[] = "/tmp/kvmprof-tree.XXXXXX";
	struct gm_meta meta = {0};
	struct gm_kernel *old, *cur;
	struct gm_tree *t;
	struct gm_node *root, *pv, *n;

	assert_non_null(mkdtemp(keydir));
	make_kernel(keydir, "6.1.0");
	make_kernel(keydir, "6.12.0");
	cur = gm_meta_add_kernel(&meta, "6.12.0");
	old = gm_meta_add_kernel(&meta, "6.1.0");
	assert_non_null(cur);
	assert_non_null(old);
	cur = &meta.kernels[0];
	cur->has_vmlinuz = true;
	cur->symsrc = GM_SYMS_VMLINUZ;
	meta.kernels[1].symsrc = GM_SYMS_VMLINUZ;

	t = gm_tree_build("web", NULL, keydir, &meta, &meta.kernels[1], 1, "info", 4,
			  "{}", 2);
	assert_non_null(t);
	root = t->root;
	/* The default kernel (6.1.0 here, not the newest) at the top. */
	n = at(root, GUEST_F_KALLSYMS);
	assert_non_null(n);
	assert_non_null(strstr(n->path, "/6.1.0/"));
	assert_int_equal(n->kind, GM_KIND_KALLSYMS);
	assert_non_null(at(root, GUEST_F_INFO));
	assert_non_null(at(root, GUEST_F_INFO_JSON));
	/* Every kernel under kernels/; 6.12.0's vmlinux is made on first use. */
	n = at(root, GUEST_D_KERNELS "/6.12.0/" GUEST_F_VMLINUX);
	assert_non_null(n);
	assert_int_equal(n->lazy, GM_LAZY_VMLINUX);
	assert_null(at(root, GUEST_D_KERNELS "/6.1.0/" GUEST_F_VMLINUX));
	/* Module trees: .ko.xz served as .ko, decompressed on first use. */
	n = at(root, GUEST_D_LIB_MODULES "/6.12.0/kernel/fs/ext4.ko");
	assert_non_null(n);
	assert_int_equal(n->lazy, GM_LAZY_MODULE);
	assert_null(at(root, GUEST_D_LIB_MODULES "/6.12.0/kernel/fs/ext4.ko.xz"));
	assert_true(at(root, GUEST_D_LIB_MODULES "/6.12.0/kernel")->module_tree);
	/* perf's by-pid layout, for the default kernel and for each one. */
	pv = t->pidview;
	assert_non_null(pv);
	assert_ptr_equal(pv, t->pidviews[1]);
	assert_ptr_equal(at(pv, GUEST_PID_KALLSYMS), at(root, GUEST_F_KALLSYMS));
	assert_non_null(at(pv, GUEST_PID_MODULES));
	assert_non_null(at(pv, GUEST_PID_VERSION));
	assert_non_null(at(pv, GUEST_PID_NOTES));
	assert_non_null(at(pv, GUEST_D_LIB_MODULES "/6.1.0/modules.dep"));
	assert_non_null(strstr(at(t->pidviews[0], GUEST_PID_KALLSYMS)->path, "/6.12.0/"));
	assert_int_equal(at(t->pidviews[0], GUEST_PID_KALLSYMS)->kernel, 0);
	gm_tree_free(t);
	gm_meta_release(&meta);
	sh("rm -rf '%s'", keydir);
}

static void test_pending(void **state)
{
	/* Before an inspection: only info, and no by-pid view. */
	struct gm_tree *t =
		gm_tree_build("web", NULL, NULL, NULL, NULL, 1, "pending", 7, "{}", 2);

	assert_non_null(t);
	assert_non_null(at(t->root, GUEST_F_INFO));
	assert_null(at(t->root, GUEST_F_KALLSYMS));
	assert_null(t->pidview);
	gm_tree_free(t);
}

/* Nodes of the module tree below @n, folders included. */
static size_t count_nodes(const struct gm_node *n)
{
	size_t nr = 0;

	for (size_t i = 0; n->dir && i < n->nr_kids; i++)
		nr += 1 + count_nodes(n->kids[i]);
	return nr;
}

/* Folders count against max-files: a tree of 40 empty folders is cut at 10. */
static void test_folders_counted(void **state)
{
	char keydir[] = "/tmp/kvmprof-tree.XXXXXX";
	struct gm_meta meta = {0};
	struct gm_config cfg;
	struct gm_tree *t;
	struct gm_node *md;

	assert_non_null(mkdtemp(keydir));
	make_kernel(keydir, "6.1.0");
	assert_int_equal(sh("cd '%s/" GM_K_DIR "/6.1.0/" GM_D_MODULES "' && "
			    "for i in $(seq 40); do mkdir -p d$i/e; done",
			    keydir),
			 0);
	assert_non_null(gm_meta_add_kernel(&meta, "6.1.0"));
	meta.kernels[0].symsrc = GM_SYMS_VMLINUZ;
	assert_int_equal(gm_config_init(&cfg), 0);
	cfg.max_files = 10;

	t = gm_tree_build("web", &cfg, keydir, &meta, &meta.kernels[0], 1, "info", 4,
			  "{}", 2);
	assert_non_null(t);
	md = at(t->root, GUEST_D_LIB_MODULES "/6.1.0");
	assert_non_null(md);
	assert_int_equal(count_nodes(md), 10);
	assert_true(t->modules_cut);
	gm_tree_free(t);

	/* Within the limit nothing is cut. */
	cfg.max_files = 1000;
	t = gm_tree_build("web", &cfg, keydir, &meta, &meta.kernels[0], 1, "info", 4,
			  "{}", 2);
	assert_non_null(t);
	assert_int_equal(count_nodes(at(t->root, GUEST_D_LIB_MODULES "/6.1.0")),
			 4 + 2 * 40);
	assert_false(t->modules_cut);
	gm_tree_free(t);
	gm_config_release(&cfg);
	gm_meta_release(&meta);
	sh("rm -rf '%s'", keydir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_layout),
		cmocka_unit_test(test_pending),
		cmocka_unit_test(test_folders_counted),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
