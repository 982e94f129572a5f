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
#include "fields.h"
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

/*
 * Every field set to a value that loading nothing would not give: what fill()
 * leaves out, and other kernels whose flags are each other's complement, so
 * that every flag is set in one of them and a swap of two shows.
 */
static void fill_all(struct gm_meta *m)
{
	struct gm_kernel *k;

	fill(m);
	snprintf(m->error, sizeof(m->error), "an error the inspection concluded");
	m->error_code = ENOMEDIUM;
	snprintf(m->boot_default, sizeof(m->boot_default), "6.1.0-57-amd64");
	m->inspect_s = 2.5;
	m->extract_s = 3.5;
	m->derive_s = 4.5;
	m->launch_s = 1.5;
	gm_meta_note(m, "a second note");
	free(m->kernels);
	m->kernels = NULL;
	m->nr_kernels = 0;
	k = gm_meta_add_kernel(m, "6.12.117+deb12-amd64");
	snprintf(k->vmlinuz, sizeof(k->vmlinuz), "/boot/vmlinuz-6.12.117+deb12-amd64");
	k->has_vmlinuz = k->has_sysmap = k->has_debug_sysmap = k->debug_mismatch = true;
	k->symsrc = GM_SYMS_VMLINUZ;
	k->nr_syms = 94266;
	snprintf(k->build_id, sizeof(k->build_id),
		 "6a2b4ac77585b8cf102cba771300e573c8489b69");
	k->nr_modules = 11;
	k->modules_bad = 3;
	snprintf(k->error, sizeof(k->error), "kept though symbols were found");
	k = gm_meta_add_kernel(m, "6.1.0-57-amd64");
	snprintf(k->vmlinuz, sizeof(k->vmlinuz), "/boot/vmlinuz-6.1.0-57-amd64");
	k->has_config = k->has_debug_vmlinux = k->sysmap_placeholder = true;
	snprintf(k->build_id, sizeof(k->build_id),
		 "0123456789abcdef0123456789abcdef01234567");
	k->nr_modules = 9;
	snprintf(k->error, sizeof(k->error), "no symbol source");
	gm_meta_sort_kernels(m);
}

static void assert_kernel_equal(const struct gm_kernel *l, const struct gm_kernel *m)
{
	assert_string_equal(l->ver, m->ver);
	assert_string_equal(l->vmlinuz, m->vmlinuz);
	assert_int_equal(l->has_vmlinuz, m->has_vmlinuz);
	assert_int_equal(l->has_config, m->has_config);
	assert_int_equal(l->has_sysmap, m->has_sysmap);
	assert_int_equal(l->has_debug_vmlinux, m->has_debug_vmlinux);
	assert_int_equal(l->has_debug_sysmap, m->has_debug_sysmap);
	assert_int_equal(l->sysmap_placeholder, m->sysmap_placeholder);
	assert_int_equal(l->debug_mismatch, m->debug_mismatch);
	assert_int_equal(l->symsrc, m->symsrc);
	assert_int_equal(l->nr_syms, m->nr_syms);
	assert_string_equal(l->build_id, m->build_id);
	assert_int_equal(l->nr_modules, m->nr_modules);
	assert_int_equal(l->modules_bad, m->modules_bad);
	assert_string_equal(l->error, m->error);
	/* Whatever a later field is, it must come back too. */
	assert_memory_equal(l, m, sizeof(*l));
}

static void assert_meta_equal(const struct gm_meta *l, const struct gm_meta *m)
{
	struct gm_meta a = *l, b = *m;

	assert_string_equal(l->error, m->error);
	assert_string_equal(l->os, m->os);
	assert_string_equal(l->distro, m->distro);
	assert_string_equal(l->product, m->product);
	assert_string_equal(l->osversion, m->osversion);
	assert_string_equal(l->hostname, m->hostname);
	assert_string_equal(l->arch, m->arch);
	assert_string_equal(l->root, m->root);
	assert_string_equal(l->boot_default, m->boot_default);
	assert_int_equal(l->nr_mounts, m->nr_mounts);
	for (size_t i = 0; i < m->nr_mounts; i++) {
		assert_string_equal(l->mounts[i][0], m->mounts[i][0]);
		assert_string_equal(l->mounts[i][1], m->mounts[i][1]);
	}
	assert_int_equal(l->nr_kernels, m->nr_kernels);
	for (size_t i = 0; i < m->nr_kernels; i++)
		assert_kernel_equal(&l->kernels[i], &m->kernels[i]);
	assert_int_equal(l->nr_notes, m->nr_notes);
	for (size_t i = 0; i < m->nr_notes; i++)
		assert_string_equal(l->notes[i], m->notes[i]);
	assert_int_equal(l->files, m->files);
	assert_int_equal(l->bytes, m->bytes);
	assert_int_equal(l->inspected_at, m->inspected_at);
	/* Saved with 2 decimals: the values are chosen to survive that. */
	assert_true(l->launch_s == m->launch_s);
	assert_true(l->inspect_s == m->inspect_s);
	assert_true(l->extract_s == m->extract_s);
	assert_true(l->derive_s == m->derive_s);
	a.kernels = b.kernels = NULL;
	assert_memory_equal(&a, &b, sizeof(a));
}

static void test_roundtrip_every_field(void **state)
{
	char path[] = "/tmp/gm-meta-XXXXXX";
	struct gm_meta m, l;
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	close(fd);
	fill_all(&m);
	assert_int_equal(gm_meta_save(&m, path), 0);
	assert_int_equal(gm_meta_load(&l, path), 0);
	assert_meta_equal(&l, &m);
	unlink(path);
	gm_meta_release(&l);
	gm_meta_release(&m);
}

/* Is @f set in @m, or for a kernel's field in one of its kernels? */
static bool field_set(const struct gm_field *f, const struct gm_meta *m)
{
	if (f->scope == FS_META)
		return !gm_field_empty(f, gm_field_at(f, m));
	for (size_t i = 0; i < m->nr_kernels; i++)
		if (!gm_field_empty(f, gm_field_at(f, &m->kernels[i])))
			return true;
	return false;
}

/* What size the member a field of @type describes has; 0: any. */
static size_t type_size(enum gm_field_type type)
{
	switch (type) {
	case FT_BOOL:
	case FT_FILE:
		return sizeof(bool);
	case FT_INT:
		return sizeof(int);
	case FT_UINT:
		return sizeof(unsigned);
	case FT_U64:
		return sizeof(uint64_t);
	case FT_SECS:
		return sizeof(double);
	case FT_TIME:
		return sizeof(time_t);
	case FT_SYMSRC:
		return sizeof(enum gm_symsrc);
	case FT_CTXSTR:
		return sizeof(const char *);
	default:
		return 0;
	}
}

/* Does @g share the cache file line of the field before it? */
static bool same_line(const struct gm_field *g)
{
	return g > gm_fields && g->cache && g[-1].cache && g[-1].scope == g->scope &&
	       !strcmp(g[-1].cache, g->cache);
}

/* Is @f's cache key used again, by a line after the one @f is on? */
static bool key_used_later(const struct gm_field *f)
{
	for (const struct gm_field *g = f + 1; g < GM_FIELDS_END; g++)
		if (!same_line(g) && g->cache && !strcmp(g->cache, f->cache))
			return true;
	return false;
}

/*
 * The table is sound: each field has a type its member fits, fill_all() sets
 * it (so that the round trip below proves it is saved and loaded), and a
 * cache key names one line of one scope.
 */
static void test_field_table(void **state)
{
	struct gm_meta m;

	fill_all(&m);
	for (const struct gm_field *f = gm_fields; f < GM_FIELDS_END; f++) {
		size_t size = type_size(f->type);

		assert_true(!size || f->size == size);
		assert_true(f->type != FT_STR || f->size > 1);
		if (!f->cache)
			continue; /* not in the cache: nothing to round-trip */
		if (!field_set(f, &m))
			fail_msg("fill_all() leaves field %zu (%s) empty",
				 (size_t)(f - gm_fields), f->cache);
		if (key_used_later(f))
			fail_msg("cache key %s on two lines", f->cache);
	}
	gm_meta_release(&m);
}

/* Does @g carry on the list of files @g - 1 started? */
static bool same_list(const struct gm_field *g)
{
	return g->type == FT_FILE && g[-1].type == FT_FILE &&
	       !strcmp(g[-1].json, g->json);
}

/*
 * What info and info.json make of the table is unambiguous: a text has one
 * "%s" at most, and a key is used once per object (a list of files takes
 * the rows next to each other that name it).
 */
static void test_field_table_info(void **state)
{
	for (const struct gm_field *f = gm_fields; f < GM_FIELDS_END; f++) {
		const char *pct = f->text ? strchr(f->text, '%') : NULL;

		assert_true(!pct || (pct[1] == 's' && !strchr(pct + 1, '%')));
		for (const struct gm_field *g = f + 1; f->json && g < GM_FIELDS_END; g++)
			if (g->scope == f->scope && g->json &&
			    !strcmp(g->json, f->json) && !same_list(g))
				fail_msg("info.json key %s twice", f->json);
	}
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

/* gm_meta_load() of a cache file that holds @body between its format and end lines. */
static int load_body(struct gm_meta *m, const char *body)
{
	char path[] = "/tmp/gm-meta-XXXXXX";
	int fd = mkstemp(path), ret;
	FILE *f;

	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	assert_non_null(f);
	fprintf(f, "format 2\n%send\n", body);
	assert_int_equal(fclose(f), 0);
	ret = gm_meta_load(m, path);
	unlink(path);
	return ret;
}

/*
 * A damaged cache file is refused (and the guest inspected again) rather
 * than served with fields read as 0; keys a later version wrote are skipped.
 */
static void test_load_damaged(void **state)
{
	static const char *const bad[] = {
		"k-vmlinuz /boot/vmlinuz\n",		/* before any kernel */
		"kernel ../1.0\n",			/* not a version */
		"kernel 1.0\nk-files 1 0 1\n",		/* too few values */
		"kernel 1.0\nk-modules 4294967296 0\n", /* over unsigned */
		"kernel 1.0\nk-symbols vmlinuz many\n",
		"files 12x\n",
		"times 1.00 2.00\n",
		"mount /only-a-mountpoint\n",
	};
	struct gm_meta m;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (load_body(&m, bad[i]) != -EINVAL)
			fail_msg("loaded: %s", bad[i]);
	assert_int_equal(load_body(&m, "later-key 1 2 3\nos\nhostname a\033b\n"), 0);
	/* Strings are sanitized on loading too: the file may have been damaged. */
	assert_string_equal(m.hostname, "a?b");
	assert_string_equal(m.os, "");
	gm_meta_release(&m);
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

static void render(struct gm_buf *text, struct gm_buf *json, const struct gm_meta *m)
{
	struct gm_guest_conf gc = {.name = "web1", .nr_disks = 1};
	struct gm_info_ctx c = {
		.conf = &gc, .state = "ready", .def_why = "bootloader default"};

	gc.disks[0].path = "/images/web1.qcow2";
	gc.disks[0].format = GM_FMT_QCOW2;
	c.meta = m;
	c.def = gm_meta_kernel(m, m->boot_default);
	c.key = "0123456789abcdef";
	gm_info_text(text, &c);
	gm_info_json(json, &c);
	assert_false(text->failed || json->failed);
}

/* What info and info.json say of fill_all(), to the byte: scripts read both. */
static const char every_field_text[] =
	"guest: web1\n"
	"state: ready\n"
	"disk: /images/web1.qcow2 (qcow2)\n"
	"os: linux\n"
	"distro: debian\n"
	"product: Debian GNU/Linux 12 (bookworm)\n"
	"version: 12.8\n"
	"hostname: web 1\n"
	"arch: x86_64\n"
	"root: /dev/sda2\n"
	"mount: /dev/sda2 on /\n"
	"mount: /dev/sda1 on /boot efi\n"
	"kernels: 6.12.117+deb12-amd64 6.1.0-57-amd64\n"
	"kernel: 6.1.0-57-amd64 (bootloader default)\n"
	"symbols: none (no symbol source)\n"
	"build-id: 0123456789abcdef0123456789abcdef01234567\n"
	"kernel 6.12.117+deb12-amd64: files vmlinuz System.map debug-System.map; "
	"modules 11 (3 unreadable); symbols kallsyms tables decoded from "
	"/boot/vmlinuz-6.12.117+deb12-amd64, 94266 symbols\n"
	"kernel 6.1.0-57-amd64: files config debug-vmlinux System.map(placeholder); "
	"modules 9; symbols none (no symbol source)\n"
	"copied: 28 files, 26328802 bytes\n"
	"inspected: 2025-12-03T08:56:53Z (appliance launch 1.5 s, inspection 2.5 s, "
	"copy 3.5 s, symbols 4.5 s)\n"
	"cache: 0123456789abcdef\n"
	"note: a note with a ?[31mcontrol?[0m sequence\n"
	"note: a second note\n";

static const char every_field_json[] =
	"{\n"
	"  \"guest\": \"web1\",\n"
	"  \"state\": \"ready\",\n"
	"  \"error\": null,\n"
	"  \"disks\": [{\"path\": \"/images/web1.qcow2\", \"format\": \"qcow2\"}],\n"
	"  \"os\": \"linux\",\n"
	"  \"distro\": \"debian\",\n"
	"  \"product\": \"Debian GNU/Linux 12 (bookworm)\",\n"
	"  \"version\": \"12.8\",\n"
	"  \"hostname\": \"web 1\",\n"
	"  \"arch\": \"x86_64\",\n"
	"  \"root\": \"/dev/sda2\",\n"
	"  \"mounts\": [{\"mountpoint\": \"/\", \"device\": \"/dev/sda2\"}, "
	"{\"mountpoint\": \"/boot efi\", \"device\": \"/dev/sda1\"}],\n"
	"  \"kernel\": \"6.1.0-57-amd64\",\n"
	"  \"kernel_choice\": \"bootloader default\",\n"
	"  \"kernels\": [\n"
	"    {\"version\": \"6.12.117+deb12-amd64\", \"default\": false, "
	"\"image\": \"/boot/vmlinuz-6.12.117+deb12-amd64\", "
	"\"files\": [\"vmlinuz\", \"System.map\", \"debug-System.map\"], "
	"\"system_map_placeholder\": false, \"symbols\": {\"source\": \"vmlinuz\", "
	"\"count\": 94266, \"error\": \"kept though symbols were found\"}, "
	"\"build_id\": \"6a2b4ac77585b8cf102cba771300e573c8489b69\", \"modules\": 11, "
	"\"modules_unreadable\": 3},\n"
	"    {\"version\": \"6.1.0-57-amd64\", \"default\": true, "
	"\"image\": \"/boot/vmlinuz-6.1.0-57-amd64\", "
	"\"files\": [\"config\", \"debug-vmlinux\"], \"system_map_placeholder\": true, "
	"\"symbols\": {\"source\": \"none\", \"count\": 0, \"error\": \"no symbol "
	"source\"}, "
	"\"build_id\": \"0123456789abcdef0123456789abcdef01234567\", \"modules\": 9, "
	"\"modules_unreadable\": 0}\n"
	"  ],\n"
	"  \"copied\": {\"files\": 28, \"bytes\": 26328802},\n"
	"  \"inspected_at\": 1764752213,\n"
	"  \"seconds\": {\"launch\": 1.50, \"inspection\": 2.50, \"copy\": 3.50, "
	"\"symbols\": 4.50},\n"
	"  \"cache\": \"0123456789abcdef\",\n"
	"  \"notes\": [\"a note with a ?[31mcontrol?[0m sequence\", \"a second note\"]\n"
	"}\n";

/*
 * info and info.json carry every field but three, byte for byte as scripts
 * read them: the meta's error is the guest's error (from gm_info_ctx), its
 * boot-default the kernel choice, a kernel's debug_mismatch a note.
 */
static void test_info_every_field(void **state)
{
	struct gm_buf text = {0}, json = {0};
	struct gm_meta m;

	fill_all(&m);
	render(&text, &json, &m);
	assert_string_equal(text.data, every_field_text);
	assert_string_equal(json.data, every_field_json);
	gm_buf_release(&text);
	gm_buf_release(&json);

	/* Before a root was found, info has what was copied and when, no OS. */
	m.root[0] = '\0';
	render(&text, &json, &m);
	assert_string_equal(text.data,
			    "guest: web1\n"
			    "state: ready\n"
			    "disk: /images/web1.qcow2 (qcow2)\n"
			    "copied: 28 files, 26328802 bytes\n"
			    "inspected: 2025-12-03T08:56:53Z (appliance launch 1.5 s, "
			    "inspection 2.5 s, copy 3.5 s, symbols 4.5 s)\n"
			    "cache: 0123456789abcdef\n"
			    "note: a note with a ?[31mcontrol?[0m sequence\n"
			    "note: a second note\n");
	/* info.json always has every key: "root": null. */
	assert_non_null(strstr(json.data, "  \"root\": null,\n  \"mounts\""));
	gm_buf_release(&text);
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
	/* C1 (UTF-8 or raw) and malformed bytes never become \u0080..\u009f. */
	gm_buf_json_string(&b, "\xc2\x9b"
			       "1\x9b"
			       "2\xc0\x80"
			       "caf\xc3\xa9");
	assert_string_equal(b.data, "\"??1?2??caf\xc3\xa9\"");
	gm_buf_release(&b);
}

/* ESC, OSC, CSI and their C1 forms, in UTF-8 and raw. */
#define EVIL                       \
	"\033]0;pwned\007\xc2\x9b" \
	"31m\x9b"                  \
	"32m\x9d"

/* Set every string field of @rec in @scope to @s, as a damaged cache file could. */
static void set_strings(void *rec, enum gm_field_scope scope, const char *s)
{
	for (const struct gm_field *f = gm_fields; f < GM_FIELDS_END; f++)
		if (f->scope == scope && f->type == FT_STR)
			snprintf((char *)rec + f->off, f->size, "%s", s);
}

/* info and info.json of a cache file whose every guest string has escapes. */
static void test_info_no_escapes(void **state)
{
	char path[] = "/tmp/gm-meta-XXXXXX";
	struct gm_buf text = {0}, json = {0};
	struct gm_meta m, l;
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	close(fd);
	fill_all(&m);
	set_strings(&m, FS_META, EVIL);
	for (size_t i = 0; i < m.nr_kernels; i++)
		set_strings(&m.kernels[i], FS_KERNEL, EVIL);
	snprintf(m.notes[0], sizeof(m.notes[0]), "%s", EVIL);
	snprintf(m.mounts[0][0], sizeof(m.mounts[0][0]), "/%s", EVIL);
	assert_int_equal(gm_meta_save(&m, path), 0);
	assert_int_equal(gm_meta_load(&l, path), 0);
	unlink(path);
	render(&text, &json, &l);
	for (size_t i = 0; i < text.len; i++)
		if ((text.data[i] < ' ' && text.data[i] != '\n') || text.data[i] >= 0x7f)
			fail_msg("info: byte %#x at %zu", (unsigned char)text.data[i], i);
	for (size_t i = 0; i < json.len; i++)
		if ((json.data[i] < ' ' && json.data[i] != '\n') || json.data[i] >= 0x7f)
			fail_msg("info.json: byte %#x at %zu",
				 (unsigned char)json.data[i], i);
	/* Nor escaped: a JSON reader would decode it back into a control. */
	assert_null(strstr(json.data, "\\u00"));
	assert_non_null(strstr(text.data, "?]0;pwned???31m?32m?"));
	gm_buf_release(&text);
	gm_buf_release(&json);
	gm_meta_release(&l);
	gm_meta_release(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sort_newest_first),
		cmocka_unit_test(test_field_table),
		cmocka_unit_test(test_field_table_info),
		cmocka_unit_test(test_save_load_roundtrip),
		cmocka_unit_test(test_error_code_roundtrip),
		cmocka_unit_test(test_roundtrip_every_field),
		cmocka_unit_test(test_load_damaged),
		cmocka_unit_test(test_info_text_and_json),
		cmocka_unit_test(test_info_every_field),
		cmocka_unit_test(test_sanitize_and_json_escape),
		cmocka_unit_test(test_info_no_escapes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
