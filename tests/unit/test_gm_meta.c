// SPDX-License-Identifier: GPL-2.0
/*
 * guestfs-mount's inspection record (the cache's "meta" file), its info and
 * info.json renderings, and the sanitizing of guest-controlled strings.
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

/* Parts of the daemon, not of libkvmprof: build them in. */
#include "guest/guest.h"
#include "meta.h"
#include "util.h"

static void fill(struct gm_meta *m)
{
	struct gm_kernel *k;

	memset(m, 0, sizeof(*m));
	snprintf(m->os, sizeof(m->os), "linux");
	snprintf(m->distro, sizeof(m->distro), "debian");
	snprintf(m->product, sizeof(m->product), "Debian GNU/Linux 12 (bookworm)");
	snprintf(m->osversion, sizeof(m->osversion), "12.8");
	snprintf(m->hostname, sizeof(m->hostname), "web 1");
	snprintf(m->arch, sizeof(m->arch), "x86_64");
	snprintf(m->root, sizeof(m->root), "/dev/sda2");
	snprintf(m->mounts[0][0], sizeof(m->mounts[0][0]), "/");
	snprintf(m->mounts[0][1], sizeof(m->mounts[0][1]), "/dev/sda2");
	snprintf(m->mounts[1][0], sizeof(m->mounts[1][0]), "/boot efi");
	snprintf(m->mounts[1][1], sizeof(m->mounts[1][1]), "/dev/sda1");
	m->nr_mounts = 2;
	k = gm_meta_add_kernel(m, "6.1.0-57-amd64");
	snprintf(k->vmlinuz, sizeof(k->vmlinuz), "/boot/vmlinuz-6.1.0-57-amd64");
	k->has_vmlinuz = k->has_config = k->has_sysmap = k->sysmap_placeholder = true;
	k->symsrc = GM_SYMS_VMLINUZ;
	k->nr_syms = 94266;
	snprintf(k->build_id, sizeof(k->build_id),
		 "6a2b4ac77585b8cf102cba771300e573c8489b69");
	k->nr_modules = 9;
	k = gm_meta_add_kernel(m, "6.12.117+deb12-amd64");
	k->has_debug_vmlinux = true;
	k->symsrc = GM_SYMS_DEBUG_VMLINUX;
	k->nr_syms = 5;
	k = gm_meta_add_kernel(m, "6.10.1");
	snprintf(k->error, sizeof(k->error), "no symbol source");
	gm_meta_note(m, "a note with a \033[31mcontrol\033[0m sequence");
	m->files = 28;
	m->bytes = 26328802;
	m->inspected_at = 1764752213;
	m->launch_s = 12.1;
	gm_meta_sort_kernels(m);
}

static void test_sort_newest_first(void **state)
{
	struct gm_meta m;

	fill(&m);
	assert_int_equal(m.nr_kernels, 3);
	assert_string_equal(m.kernels[0].ver, "6.12.117+deb12-amd64");
	assert_string_equal(m.kernels[1].ver, "6.10.1");
	assert_string_equal(m.kernels[2].ver, "6.1.0-57-amd64");
	assert_non_null(gm_meta_kernel(&m, "6.10.1"));
	assert_null(gm_meta_kernel(&m, "6.10"));
	/* Notes are sanitized: no escape character survives. */
	assert_null(strchr(m.notes[0], '\033'));
	gm_meta_release(&m);
}

static void test_save_load_roundtrip(void **state)
{
	char path[] = "/tmp/gm-meta-XXXXXX";
	struct gm_meta m, l;
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	close(fd);
	fill(&m);
	assert_int_equal(gm_meta_save(&m, path), 0);
	assert_int_equal(gm_meta_load(&l, path), 0);
	assert_string_equal(l.product, m.product);
	assert_string_equal(l.hostname, "web 1");
	assert_int_equal(l.nr_mounts, 2);
	assert_string_equal(l.mounts[1][0], "/boot efi");
	assert_string_equal(l.mounts[1][1], "/dev/sda1");
	assert_int_equal(l.nr_kernels, 3);
	for (size_t i = 0; i < 3; i++) {
		assert_string_equal(l.kernels[i].ver, m.kernels[i].ver);
		assert_int_equal(l.kernels[i].symsrc, m.kernels[i].symsrc);
		assert_int_equal(l.kernels[i].nr_syms, m.kernels[i].nr_syms);
		assert_string_equal(l.kernels[i].build_id, m.kernels[i].build_id);
		assert_string_equal(l.kernels[i].error, m.kernels[i].error);
		assert_int_equal(l.kernels[i].sysmap_placeholder,
				 m.kernels[i].sysmap_placeholder);
	}
	assert_int_equal(l.bytes, 26328802);
	assert_int_equal(l.inspected_at, 1764752213);
	assert_int_equal(l.nr_notes, 1);
	gm_meta_release(&l);

	/* A truncated record (no "end") is not trusted. */
	assert_int_equal(truncate(path, 100), 0);
	assert_int_equal(gm_meta_load(&l, path), -EINVAL);
	unlink(path);
	gm_meta_release(&m);
}

/* A concluded error keeps its errno across a restart: store.c's hint tests it. */
static void test_error_code_roundtrip(void **state)
{
	char path[] = "/tmp/gm-meta-XXXXXX";
	struct gm_meta m = {0}, l;
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	close(fd);
	snprintf(m.error, sizeof(m.error), "no operating system found on the disk");
	m.error_code = ENOMEDIUM;
	assert_int_equal(gm_meta_save(&m, path), 0);
	assert_int_equal(gm_meta_load(&l, path), 0);
	assert_string_equal(l.error, m.error);
	assert_int_equal(l.error_code, ENOMEDIUM);
	gm_meta_release(&l);
	unlink(path);
}

static void test_info_text_and_json(void **state)
{
	struct gm_guest_conf gc = {.name = "web1", .nr_disks = 1};
	struct gm_buf text = {0}, json = {0};
	struct gm_info_ctx c = {.conf = &gc, .state = "ready", .def_why = "newest"};
	uint64_t sizes[1] = {12345};
	struct gm_meta m;

	gc.disks[0].path = "/images/web\"1.qcow2";
	gc.disks[0].format = GM_FMT_QCOW2;
	fill(&m);
	c.meta = &m;
	c.def = &m.kernels[0];
	c.key = "0123456789abcdef";
	c.disk_sizes = sizes;
	gm_info_text(&text, &c);
	gm_info_json(&json, &c);
	assert_false(text.failed || json.failed);
	assert_non_null(strstr(text.data, "state: ready\n"));
	assert_non_null(strstr(text.data, "kernel: 6.12.117+deb12-amd64 (newest)\n"));
	assert_non_null(
		strstr(text.data, "symbols: debug vmlinux (.symtab), 5 symbols\n"));
	assert_non_null(strstr(text.data,
			       "kernels: 6.12.117+deb12-amd64 6.10.1 6.1.0-57-amd64\n"));
	assert_non_null(
		strstr(text.data, "disk: /images/web\"1.qcow2 (qcow2, 12345 bytes)\n"));
	assert_non_null(strstr(text.data, "symbols none (no symbol source)"));
	/* JSON: the quote in the path is escaped, the default kernel is marked. */
	assert_non_null(strstr(json.data, "\"path\": \"/images/web\\\"1.qcow2\""));
	assert_non_null(strstr(json.data, "\"kernel\": \"6.12.117+deb12-amd64\""));
	assert_non_null(strstr(json.data, "\"default\": true"));
	assert_non_null(strstr(json.data, "\"source\": \"debug-vmlinux\""));
	assert_non_null(strstr(json.data, "\"error\": null"));
	gm_buf_release(&text);
	gm_buf_release(&json);

	/* Before any inspection: state and disks only. */
	c.meta = NULL;
	c.def = NULL;
	c.state = "error";
	c.error = "disk /x: No such file or directory";
	gm_info_json(&json, &c);
	assert_non_null(
		strstr(json.data, "\"error\": \"disk /x: No such file or directory\""));
	assert_null(strstr(json.data, "\"kernels\""));
	gm_buf_release(&json);
	gm_meta_release(&m);
}

static void test_sanitize_and_json_escape(void **state)
{
	struct gm_buf b = {0};
	char out[16];

	gm_sanitize(out, sizeof(out), "a\nb\tc\033[0m\xc3\xa9zzzzzzzzzzzzzz");
	assert_string_equal(out, "a?b?c?[0m??zzzz");
	gm_buf_json_string(&b, "q\"b\\n\x01\x7f");
	assert_string_equal(b.data, "\"q\\\"b\\\\n\\u0001\\u007f\"");
	gm_buf_release(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sort_newest_first),
		cmocka_unit_test(test_save_load_roundtrip),
		cmocka_unit_test(test_error_code_roundtrip),
		cmocka_unit_test(test_info_text_and_json),
		cmocka_unit_test(test_sanitize_and_json_escape),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
