// SPDX-License-Identifier: GPL-2.0
/*
 * guestfs-mount's view of a running guest: which installed kernel its LSTAR
 * fits, the slide, relocated kallsyms, and the running section of info.
 * Kernels and debugfs files are laid out in a scratch folder as the cache
 * and the kernel series lay them out.
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

/* Parts of the daemon, not of libkvmprof: build them in. */
#include "guest/guest.h"
#include "live.h"
#include "meta.h"
#include "util.h"

static char dir[] = "/tmp/kvmprof-live.XXXXXX";
static char keydir[256], dbg[256];
static struct gm_meta meta;

/* Two kernels whose entry_SYSCALL_64 lie 2 MiB apart, as Debian's 6.1 and 6.12. */
static const char k_old[] = "0000000000000000 D fixed_percpu_data\n"
			    "ffffffff81000000 T _text\n"
			    "ffffffff81c00080 T entry_SYSCALL_64\n"
			    "ffffffff81c00100 T entry_SYSCALL_64_after_hwframe\n"
			    "ffffffff82000000 T _etext\n";
static const char k_new[] = "0000000000000000 D fixed_percpu_data\n"
			    "ffffffff81000000 T _text\n"
			    "ffffffff81e00080 T entry_SYSCALL_64\n"
			    "ffffffff81e00200 T do_syscall_64\n"
			    "ffffffff82200000 T _etext\n";

static void kernel(const char *ver, const char *text)
{
	FILE *f;
	char path[512];

	assert_int_equal(sh("mkdir -p %s/k/%s", keydir, ver), 0);
	snprintf(path, sizeof(path), "%s/k/%s/kallsyms", keydir, ver);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	gm_meta_add_kernel(&meta, ver);
}

static void lstar(const char *val)
{
	assert_int_equal(
		sh("mkdir -p %s/42-7/vcpu0 && printf '%s\\n' >%s/42-7/vcpu0/guest_lstar"
		   " && printf '0x1000\\n' >%s/42-7/vcpu0/guest_cr3",
		   dbg, val, dbg, dbg),
		0);
}

static int setup(void **state)
{
	(void)state;
	if (!mkdtemp(dir))
		return -1;
	snprintf(keydir, sizeof(keydir), "%s/key", dir);
	snprintf(dbg, sizeof(dbg), "%s/kvm", dir);
	memset(&meta, 0, sizeof(meta));
	kernel("6.1.0-57-amd64", k_old);
	kernel("6.12.117+deb12-amd64", k_new);
	gm_meta_sort_kernels(&meta); /* newest first: 6.12 is kernels[0] */
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	gm_meta_release(&meta);
	return sh("rm -rf %s", dir);
}

static void test_relocate_moves_kernel_addresses_only(void **state)
{
	char out[sizeof(k_new)];

	(void)state;
	assert_int_equal(gm_live_relocate(k_new, sizeof(k_new) - 1, 0x2a400000, out), 0);
	out[sizeof(k_new) - 1] = '\0';
	assert_non_null(strstr(out, "0000000000000000 D fixed_percpu_data\n"));
	assert_non_null(strstr(out, "ffffffffab400000 T _text\n"));
	assert_non_null(strstr(out, "ffffffffac200080 T entry_SYSCALL_64\n"));
	assert_int_equal(strlen(out), strlen(k_new));
	assert_int_equal(gm_live_relocate("ffffffff8100 T x\n", 17, 0, out), -EINVAL);
	assert_int_equal(gm_live_relocate("ffffffff8100000X T x\n", 21, 0, out), -EINVAL);
}

static void test_default_kernel_wins_a_tie_and_names_the_other(void **state)
{
	struct gm_live l;

	(void)state;
	lstar("0xffffffff9a200080"); /* 6.12 + 0x18400000, or 6.1 + 0x18600000 */
	gm_live_probe(dbg, 42, &meta, keydir, &meta.kernels[0], NULL, &l);
	assert_int_equal(l.kernel, 0);
	assert_true(l.slide == 0x18400000);
	assert_string_equal(l.also, "6.1.0-57-amd64");
	assert_non_null(strstr(l.kallsyms, "ffffffff9a200080 T entry_SYSCALL_64\n"));
	gm_live_release(&l);
}

static void test_negative_slide_excludes_a_kernel(void **state)
{
	struct gm_live l;

	(void)state;
	lstar("0xffffffff81c00080"); /* 6.1 unslid; 6.12 would need -2 MiB */
	gm_live_probe(dbg, 42, &meta, keydir, &meta.kernels[0], NULL, &l);
	assert_int_equal(l.kernel, 1);
	assert_true(l.slide == 0);
	assert_string_equal(l.also, "");
	gm_live_release(&l);
}

/* Aligned, but 1 GiB or more above either kernel: KASLR never goes that far. */
static void test_slide_past_kaslr_range_excludes_kernels(void **state)
{
	struct gm_live l;

	(void)state;
	lstar("0xffffffffc1e00080"); /* 6.12 + 1 GiB, 6.1 + 1 GiB + 2 MiB */
	gm_live_probe(dbg, 42, &meta, keydir, &meta.kernels[0], NULL, &l);
	assert_int_equal(l.kernel, -1);
	assert_null(l.kallsyms);
	gm_live_release(&l);
}

static void test_unexplained_lstar_and_no_files(void **state)
{
	struct gm_live l, again;

	(void)state;
	lstar("0xffffffff81c00081"); /* not 2 MiB-aligned against either */
	gm_live_probe(dbg, 42, &meta, keydir, &meta.kernels[0], NULL, &l);
	assert_int_equal(l.kernel, -1);
	assert_null(l.kallsyms);
	assert_non_null(strstr(l.why, "LSTAR 0xffffffff81c00081 is no installed kernel"));
	gm_live_release(&l);
	gm_live_probe(dbg, 43, &meta, keydir, &meta.kernels[0], NULL, &l);
	assert_int_equal(l.kernel, -1);
	assert_non_null(strstr(l.why, "pid 43"));
	/* The same LSTAR again reuses the earlier work. */
	lstar("0xffffffff9a200080");
	gm_live_probe(dbg, 42, &meta, keydir, &meta.kernels[0], NULL, &l);
	assert_int_equal(l.kernel, 0);
	gm_live_probe(dbg, 42, &meta, keydir, &meta.kernels[0], &l, &again);
	assert_int_equal(again.kernel, 0);
	assert_null(l.kallsyms);
	gm_live_release(&l);
	gm_live_release(&again);
}

/*
 * An LSTAR no kernel fits was tried again at every refresh (once a second,
 * under the store lock): every kallsyms file read and parsed each time. It
 * is remembered now, until the pid, the LSTAR or the kernels change. The
 * proof: after the first probe a kernel's file is changed so that it would
 * fit; a retry would find it.
 */
static void test_unmatched_lstar_not_retried(void **state)
{
	char path[512];
	struct gm_live l, again;
	FILE *f;

	(void)state;
	lstar("0xffffffff9a200081");
	gm_live_probe(dbg, 42, &meta, keydir, &meta.kernels[0], NULL, &l);
	assert_int_equal(l.kernel, -1);
	snprintf(path, sizeof(path), "%s/k/%s/kallsyms", keydir, meta.kernels[0].ver);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("ffffffff81000000 T _text\n"
	      "ffffffff81e00081 T entry_SYSCALL_64\n",
	      f);
	fclose(f);

	gm_live_probe(dbg, 42, &meta, keydir, &meta.kernels[0], &l, &again);
	assert_int_equal(again.kernel, -1); /* not read again */
	assert_non_null(strstr(again.why, "is no installed kernel"));
	gm_live_release(&l);
	/* A new kernel set (the caller passes no old result): tried again. */
	gm_live_probe(dbg, 42, &meta, keydir, &meta.kernels[0], NULL, &l);
	assert_int_equal(l.kernel, 0);
	gm_live_release(&l);
	gm_live_release(&again);
}

static void test_info_running_section(void **state)
{
	static const char json[] = "{\n  \"guest\": \"web1\"\n}\n";
	static const char text[] = "guest: web1\n";
	struct gm_info_running r = {.pid = 4242,
				    .kernel = "6.12.117+deb12-amd64",
				    .slide = 0x18400000,
				    .lstar = 0xffffffff9a200080ULL,
				    .also = "6.1.0-57-amd64"};
	struct gm_buf b = {0};

	(void)state;
	gm_info_add_running(&b, json, sizeof(json) - 1, true, &r);
	assert_string_equal(b.data,
			    "{\n  \"guest\": \"web1\",\n  \"running\": {\"pid\": 4242, "
			    "\"kernel\": \"6.12.117+deb12-amd64\", \"slide\": "
			    "\"0x18400000\", \"lstar\": \"0xffffffff9a200080\", "
			    "\"also_fits\": \"6.1.0-57-amd64\", \"error\": null}\n}\n");
	gm_buf_release(&b);
	memset(&b, 0, sizeof(b));
	r.kernel = NULL;
	r.why = "no vCPU files";
	gm_info_add_running(&b, text, sizeof(text) - 1, false, &r);
	assert_string_equal(
		b.data,
		"guest: web1\nrunning: qemu pid 4242\nslide: unknown (no vCPU files)\n");
	gm_buf_release(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_relocate_moves_kernel_addresses_only),
		cmocka_unit_test(test_default_kernel_wins_a_tie_and_names_the_other),
		cmocka_unit_test(test_negative_slide_excludes_a_kernel),
		cmocka_unit_test(test_slide_past_kaslr_range_excludes_kernels),
		cmocka_unit_test(test_unexplained_lstar_and_no_files),
		cmocka_unit_test(test_info_running_section),
		/* Last: it rewrites a kernel's kallsyms. */
		cmocka_unit_test(test_unmatched_lstar_not_retried),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
