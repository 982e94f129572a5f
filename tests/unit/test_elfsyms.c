// SPDX-License-Identifier: GPL-2.0
/*
 * ELF symbol sources: a vmlinux-like executable and a module-like relocatable
 * object, both compiled at test time, cross-checked against binutils' nm; and
 * a shared object's code labels and PLT entries, which user-space tables
 * keep as perf does, PLT addresses cross-checked against objdump.
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

#include "testutil.h"

#include "ksym/ksym.h"
#include "base/base.h"

static char dir[] = "/tmp/kvmprof-elfsyms.XXXXXX";

static const char module_src[] =
	"static const char modinfo[] __attribute__((section(\".modinfo\"), used)) =\n"
	"	\"license=GPL\\0name=fakemod\";\n"
	"__attribute__((section(\".text\"))) int first_fn(int x) { return x + 1; }\n"
	"__attribute__((section(\".text\"))) int second_fn(int x) { return x * 7; }\n"
	"__attribute__((section(\".text.unlikely\"), aligned(64))) int cold_fn(int x)\n"
	"{ return x * 3; }\n"
	"__attribute__((section(\".init.text\"))) int init_fn(void) { return 0; }\n"
	"int data_var = 5;\n";

static const char exec_src[] =
	"void hot_loop(void) { for (;;) __asm__ volatile(\"\"); }\n"
	"__attribute__((noinline)) static void helper(void) { hot_loop(); }\n"
	"void _start(void) { helper(); }\n";

/*
 * Labels as ld.so's _start is one: no type, no size. Those in text are
 * code; one in data is not.
 */
static const char labels_src[] = "__asm__(\".text\\n.globl entry_label\\nentry_label:\\n"
				 "nop; nop; nop; nop\\nlocal_label:\\nnop; nop\\n"
				 ".data\\ndata_label:\\n.quad 0\\n.text\\n\");\n"
				 "int after_labels(int x) { return x + 1; }\n";

/* Calls through the PLT, built with and without IBT's second PLT (.plt.sec). */
static const char plt_src[] =
	"extern int ext_one(int);\n"
	"extern int ext_two(int);\n"
	"int calls_out(int x) { return ext_one(x) + ext_two(x); }\n";

static int setup(void **state)
{
	FILE *f;

	if (!mkdtemp(dir))
		return -1;
	f = fopen(strcat(strcpy((char[256]){0}, dir), "/mod.c"), "w");
	fputs(module_src, f);
	fclose(f);
	f = fopen(strcat(strcpy((char[256]){0}, dir), "/exec.c"), "w");
	fputs(exec_src, f);
	fclose(f);
	f = fopen(strcat(strcpy((char[256]){0}, dir), "/labels.c"), "w");
	fputs(labels_src, f);
	fclose(f);
	/* And as a 32-bit (x32) object: its symbols take libelf's calls. */
	if (sh("cd %s && cc -O1 -fPIC -shared -nostdlib labels.c -o labels.so && "
	       "cc -mx32 -O1 -fPIC -shared -nostdlib labels.c -o labels32.so",
	       dir))
		return -1;
	f = fopen(strcat(strcpy((char[256]){0}, dir), "/plt.c"), "w");
	fputs(plt_src, f);
	fclose(f);
	if (sh("cd %s && cc -O1 -g -fPIC -shared -nostdlib plt.c -o plt.so && "
	       "cc -O1 -fPIC -shared -nostdlib -fcf-protection=full -Wl,-z,ibtplt plt.c "
	       "-o pltibt.so && objcopy --only-keep-debug plt.so plt.debug && "
	       "objcopy --strip-all plt.so plt.stripped",
	       dir))
		return -1;
	if (sh("cd %s && cc -O1 -fno-pic -fno-asynchronous-unwind-tables -c mod.c -o "
	       "mod.ko",
	       dir))
		return -1;
	/* A static, non-PIE executable linked at a kernel-like address, with a build-id.
	 */
	if (sh("cd %s && cc -O1 -fno-pic -no-pie -static -nostdlib -mcmodel=kernel "
	       "-Wl,--build-id=sha1 -Wl,-Ttext-segment=0xffffffff81000000 exec.c -o "
	       "vmlinux",
	       dir))
		return -1;
	return 0;
}

static int teardown(void **state)
{
	return sh("rm -rf %s", dir);
}

static struct symtab *load(const char *file, struct kmod_layout *layout)
{
	char path[256];
	struct kp_err err = {0};
	struct symtab *st;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	if (symsrc_load_file(path, SYMSRC_MAX_DEFAULT, &st, layout, &err))
		fail_msg("%s", err.msg);
	return st;
}

/* Every text symbol nm reports must be in the table at the same address. */
static void test_vmlinux_matches_nm(void **state)
{
	struct symtab *st = load("vmlinux", NULL);
	char cmd[512], name[256], type;
	unsigned long long addr;
	int checked = 0;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "nm --defined-only %s/vmlinux", dir);
	p = popen(cmd, "r");
	while (fscanf(p, "%llx %c %255s", &addr, &type, name) == 3) {
		const struct ksym *s;

		if (type != 't' && type != 'T')
			continue;
		s = symtab_find(st, name);
		assert_non_null(s);
		assert_int_equal(s->addr, addr);
		assert_int_equal(s->type, type);
		checked++;
	}
	pclose(p);
	assert_true(checked >= 3);
	assert_true(st->build_id_len == 20);
	symtab_free(st);
}

static void test_vmlinux_build_id_matches_readelf(void **state)
{
	struct symtab *st = load("vmlinux", NULL);
	char cmd[512], expect[64] = "", got[41];
	FILE *p;

	snprintf(cmd, sizeof(cmd), "readelf -n %s/vmlinux | sed -n 's/.*Build ID: *//p'",
		 dir);
	p = popen(cmd, "r");
	assert_non_null(fgets(expect, sizeof(expect), p));
	pclose(p);
	expect[strcspn(expect, "\n")] = '\0';
	buildid_to_hex(st->build_id, st->build_id_len, got);
	assert_string_equal(got, expect);
	symtab_free(st);
}

static void test_module_layout(void **state)
{
	struct kmod_layout layout;
	struct symtab *st = load("mod.ko", &layout);
	const struct ksym *first, *second, *cold;

	assert_string_equal(layout.name, "fakemod");
	first = symtab_find_any(st, "first_fn");
	second = symtab_find_any(st, "second_fn");
	cold = symtab_find_any(st, "cold_fn");
	assert_non_null(first);
	assert_non_null(second);
	assert_non_null(cold);
	assert_string_equal(first->module, "fakemod");
	/* .text first at the module base, then .text.unlikely, aligned. */
	assert_int_equal(first->addr, 0);
	assert_true(second->addr > first->addr);
	assert_true(cold->addr > second->addr);
	assert_int_equal(cold->addr % 64, 0);
	assert_true(cold->addr < layout.text_size);
	/* Init code is freed after load and data lives elsewhere: neither is text. */
	assert_null(symtab_find_any(st, "init_fn"));
	assert_null(symtab_find_any(st, "data_var"));
	assert_true(layout.core_size >= layout.text_size);
	kmod_layout_release(&layout);
	symtab_free(st);
}

static void test_module_compressed_forms(void **state)
{
	static const char *const forms[][2] = {
		{"xz -k -f", "mod.ko.xz"},
		{"zstd -q -k -f", "mod.ko.zst"},
		{"gzip -k -f", "mod.ko.gz"},
	};
	struct symtab *plain = load("mod.ko", NULL);

	for (size_t i = 0; i < sizeof(forms) / sizeof(forms[0]); i++) {
		struct symtab *st;

		assert_int_equal(sh("cd %s && %s mod.ko", dir, forms[i][0]), 0);
		st = load(forms[i][1], NULL);
		assert_int_equal(st->nr, plain->nr);
		for (size_t j = 0; j < st->nr; j++) {
			assert_int_equal(st->syms[j].addr, plain->syms[j].addr);
			assert_string_equal(st->syms[j].name, plain->syms[j].name);
		}
		symtab_free(st);
	}
	symtab_free(plain);
}

static void test_truncated_elf_fails_cleanly(void **state)
{
	char path[256];
	struct kp_err err = {0};
	char *buf;
	size_t len;
	struct symtab *st;

	snprintf(path, sizeof(path), "%s/vmlinux", dir);
	assert_int_equal(kp_read_file(path, KP_FILE_MAX, &buf, &len, &err), 0);
	for (size_t cut = 16; cut < len; cut = cut * 2 + 7) {
		kp_err_clear(&err);
		if (symsrc_load_buffer(buf, cut, "truncated", SYMSRC_MAX_DEFAULT, &st,
				       NULL, &err) == 0)
			symtab_free(st);
		else
			assert_non_null(strstr(err.msg, "truncated"));
	}
	free(buf);
}

/*
 * A failure is a failure even for a caller that wants no message: damaged
 * compressed data once loaded "successfully" when no struct kp_err was given.
 */
static void test_failure_without_err(void **state)
{
	static const unsigned char bad_zstd[64] = {0x28, 0xb5, 0x2f, 0xfd, 0xff, 0xff};
	struct symtab *st = NULL;

	(void)state;
	assert_true(symsrc_load_buffer(bad_zstd, sizeof(bad_zstd), "bad.ko.zst",
				       SYMSRC_MAX_DEFAULT, &st, NULL, NULL) < 0);
	assert_null(st);
}

/* The address nm gives @name in @file, or 0. */
static uint64_t nm_address(const char *file, const char *name)
{
	char cmd[512], line[256];
	unsigned long long addr = 0;
	char type, sym[128];
	FILE *p;

	snprintf(cmd, sizeof(cmd), "nm %s/%s", dir, file);
	p = popen(cmd, "r");
	assert_non_null(p);
	while (fgets(line, sizeof(line), p))
		if (sscanf(line, "%llx %c %127s", &addr, &type, sym) == 3 &&
		    !strcmp(sym, name))
			break;
		else
			addr = 0;
	pclose(p);
	return addr;
}

static void check_code_labels(const char *file)
{
	char path[256];
	struct kp_err err = {0};
	struct kp_mapping map;
	struct symtab *st = symtab_new();
	uint64_t entry = nm_address(file, "entry_label");
	uint64_t local = nm_address(file, "local_label");
	uint64_t after = nm_address(file, "after_labels");
	const struct ksym *sym;
	uint64_t off;

	assert_non_null(st);
	assert_true(entry && local == entry + 4 && after > local);
	snprintf(path, sizeof(path), "%s/%s", dir, file);
	assert_int_equal(kp_map_file(path, KP_FILE_MAX, &map, &err), 0);
	if (elfsyms_load_user(map.data, map.len, path, st, NULL, &err))
		fail_msg("%s", err.msg);
	kp_unmap_file(&map);
	sym = symtab_lookup(st, entry + 3, 0, &off);
	assert_non_null(sym);
	assert_string_equal(sym->name, "entry_label");
	assert_int_equal(off, 3);
	sym = symtab_lookup(st, local + 1, 0, &off);
	assert_non_null(sym);
	assert_string_equal(sym->name, "local_label");
	/* A sizeless label ends where the next symbol starts. */
	sym = symtab_lookup(st, after, 0, &off);
	assert_non_null(sym);
	assert_string_equal(sym->name, "after_labels");
	for (size_t i = 0; i < st->nr; i++)
		assert_string_not_equal(st->syms[i].name, "data_label");
	symtab_free(st);
}

static void test_user_code_labels(void **state)
{
	(void)state;
	check_code_labels("labels.so");
	check_code_labels("labels32.so");
}

/* objdump's address for "<@name>:" in @file's disassembly, or 0. */
static uint64_t objdump_address(const char *file, const char *name)
{
	char cmd[512], line[256], want[160];
	unsigned long long addr;
	uint64_t found = 0;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "objdump -d %s/%s", dir, file);
	snprintf(want, sizeof(want), "<%s>:", name);
	p = popen(cmd, "r");
	assert_non_null(p);
	while (fgets(line, sizeof(line), p))
		if (strstr(line, want) && sscanf(line, "%llx", &addr) == 1)
			found = addr;
	pclose(p);
	return found;
}

static struct symtab *load_user_file(const char *file, const char *loaded)
{
	char path[256], loaded_path[256];
	struct kp_err err = {0};
	struct kp_mapping map, orig = {0};
	struct symtab *st = symtab_new();
	int ret;

	assert_non_null(st);
	snprintf(path, sizeof(path), "%s/%s", dir, file);
	assert_int_equal(kp_map_file(path, KP_FILE_MAX, &map, &err), 0);
	if (loaded) {
		snprintf(loaded_path, sizeof(loaded_path), "%s/%s", dir, loaded);
		assert_int_equal(kp_map_file(loaded_path, KP_FILE_MAX, &orig, &err), 0);
		ret = elfsyms_load_user_symbols(map.data, map.len, path, orig.data,
						orig.len, st, &err);
	} else {
		ret = elfsyms_load_user(map.data, map.len, path, st, NULL, &err);
	}
	if (ret)
		fail_msg("%s", err.msg);
	kp_unmap_file(&map);
	kp_unmap_file(&orig);
	return st;
}

/* Each PLT entry objdump names is named the same, over its whole entry. */
static void check_plt_names(struct symtab *st, const char *disassembled)
{
	static const char *const names[] = {"ext_one@plt", "ext_two@plt"};
	const struct ksym *sym;
	uint64_t off;

	for (size_t i = 0; i < 2; i++) {
		uint64_t addr = objdump_address(disassembled, names[i]);

		assert_true(addr != 0);
		sym = symtab_lookup(st, addr + 15, 0, &off);
		assert_non_null(sym);
		assert_string_equal(sym->name, names[i]);
		assert_int_equal(off, 15);
	}
}

static void test_user_plt_entries(void **state)
{
	struct symtab *st;

	(void)state;
	st = load_user_file("plt.so", NULL);
	check_plt_names(st, "plt.so");
	symtab_free(st);
	/* With IBT the calls go through .plt.sec, not .plt. */
	st = load_user_file("pltibt.so", NULL);
	check_plt_names(st, "pltibt.so");
	symtab_free(st);
	/* A debug file has no PLT contents: the entries come from the file as loaded. */
	st = load_user_file("plt.debug", "plt.stripped");
	check_plt_names(st, "plt.so");
	assert_non_null(
		symtab_lookup(st, objdump_address("plt.so", "calls_out"), 0, NULL));
	symtab_free(st);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_failure_without_err),
		cmocka_unit_test(test_vmlinux_matches_nm),
		cmocka_unit_test(test_vmlinux_build_id_matches_readelf),
		cmocka_unit_test(test_module_layout),
		cmocka_unit_test(test_module_compressed_forms),
		cmocka_unit_test(test_truncated_elf_fails_cleanly),
		cmocka_unit_test(test_user_code_labels),
		cmocka_unit_test(test_user_plt_entries),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
