// SPDX-License-Identifier: GPL-2.0
/*
 * Real kernels: Debian's (scripts/fetch-debian-kernels.sh) and the
 * project's own (kernel/build.sh), decoded from $KVMPROF_CACHE, which make
 * check and make unit fill first: a missing one is a failure.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <errno.h>
#include <glob.h>

#include "ksym/ksym.h"

static const struct ksym *must_find(const struct symtab *st, const char *name)
{
	const struct ksym *s = symtab_find(st, name);

	if (!s)
		fail_msg("%s: symbol %s missing", st->source, name);
	return s;
}

/* ---- real kernels from $KVMPROF_CACHE, put there by make check / make unit ---- */

/* @sub's matches in the cache, or a failure naming what is missing and who makes it. */
static void cache_glob(const char *sub, const char *maker, glob_t *g)
{
	const char *cache = getenv("KVMPROF_CACHE");
	char pattern[512];

	snprintf(pattern, sizeof(pattern), "%s/%s",
		 cache && *cache ? cache : "/var/cache/kvmprof", sub);
	if (glob(pattern, 0, NULL, g))
		fail_msg("no %s: run %s (make check and make unit do)", pattern, maker);
}

static uint8_t *read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	uint8_t *p;
	long n;

	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	p = malloc((size_t)n);
	*len = fread(p, 1, (size_t)n, f);
	fclose(f);
	return p;
}

static void check_real_kernel(const char *path, const struct symtab *st)
{
	static const char *const wanted[] = {"_text",	      "_stext",
					     "_etext",	      "entry_SYSCALL_64",
					     "do_syscall_64", "__x64_sys_getpid"};
	uint64_t text = must_find(st, "_text")->addr,
		 etext = must_find(st, "_etext")->addr;
	uint64_t prev = 0;
	size_t ntext = 0;

	if (st->nr <= 50000)
		fail_msg("%s: only %zu symbols", path, st->nr);
	for (size_t i = 0; i < sizeof(wanted) / sizeof(wanted[0]); i++)
		must_find(st, wanted[i]);
	assert_true(must_find(st, "_stext")->addr - text < 0x200000);
	assert_true(symtab_in_text(st, must_find(st, "entry_SYSCALL_64")->addr));
	assert_true(symtab_in_text(st, must_find(st, "do_syscall_64")->addr));
	assert_true(symtab_in_text(st, must_find(st, "__x64_sys_getpid")->addr));
	/* Inside [_text, _etext): ordered, and code only. */
	for (size_t i = 0; i < st->nr; i++) {
		const struct ksym *s = &st->syms[i];

		if (s->addr < text || s->addr >= etext)
			continue;
		assert_true(s->addr >= prev);
		if (!ksym_is_text(s->type))
			fail_msg("%s: %c %s inside the text", path, s->type, s->name);
		prev = s->addr;
		ntext++;
	}
	assert_true(ntext > 20000);
	assert_true(st->build_id_len == 20);
}

static void check_debian_series(const char *series)
{
	char sub[128];
	glob_t g;

	snprintf(sub, sizeof(sub), "debian-kernels/*/boot/vmlinuz-%s.*", series);
	cache_glob(sub, "scripts/fetch-debian-kernels.sh", &g);
	for (size_t i = 0; i < g.gl_pathc; i++) {
		struct symtab *st = symtab_new();
		struct kp_err err = {0};
		size_t len = 0;
		uint8_t *img = read_file(g.gl_pathv[i], &len);

		if (!img)
			fail_msg("%s: cannot be read", g.gl_pathv[i]);
		if (kimage_load_symbols(img, len, KP_DECOMPRESS_MAX, st, &err))
			fail_msg("%s: %s", g.gl_pathv[i], err.msg);
		check_real_kernel(g.gl_pathv[i], st);
		print_message("[   INFO   ] %s: %s\n", g.gl_pathv[i], st->source);
		symtab_free(st);
		free(img);
	}
	globfree(&g);
}

/* The two series scripts/fetch-debian-kernels.sh fetches, both. */
static void test_debian_kernels(void **state)
{
	check_debian_series("6.1");
	check_debian_series("6.12");
}

/* ---- the project's own kernel build, checked against its real System.map ---- */

struct tsym {
	uint64_t addr;
	char type;
	const char *name;
};

static int tsym_cmp(const void *a, const void *b)
{
	const struct tsym *x = a, *y = b;
	int r;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	r = strcmp(x->name, y->name);
	return r ? r : x->type - y->type;
}

/* Text symbols of a System.map; the lines stay in @buf. */
static size_t map_text_syms(char *buf, struct tsym **out)
{
	size_t n = 0, cap = 1024;
	struct tsym *v = malloc(cap * sizeof(*v));

	for (char *line = strtok(buf, "\n"); line; line = strtok(NULL, "\n")) {
		char *type, *name, *end;
		uint64_t addr = strtoull(line, &end, 16);

		if (end[0] != ' ' || !end[1] || end[2] != ' ')
			continue;
		type = end + 1;
		name = end + 3;
		if (!ksym_is_text(*type))
			continue;
		if (n == cap)
			v = realloc(v, (cap *= 2) * sizeof(*v));
		v[n++] = (struct tsym){addr, *type, name};
	}
	qsort(v, n, sizeof(*v), tsym_cmp);
	*out = v;
	return n;
}

static size_t table_text_syms(const struct symtab *st, struct tsym **out)
{
	struct tsym *v = malloc((st->nr + 1) * sizeof(*v));
	size_t n = 0;

	for (size_t i = 0; i < st->nr; i++)
		if (ksym_is_text(st->syms[i].type))
			v[n++] = (struct tsym){st->syms[i].addr, st->syms[i].type,
					       st->syms[i].name};
	qsort(v, n, sizeof(*v), tsym_cmp);
	*out = v;
	return n;
}

static void compare_with_map(const char *dir, const struct symtab *st)
{
	char path[600];
	size_t len = 0, nmap, ntab;
	struct tsym *map, *tab;
	char *buf;

	snprintf(path, sizeof(path), "%s/System.map", dir);
	buf = (char *)read_file(path, &len);
	assert_non_null(buf);
	buf = realloc(buf, len + 1);
	buf[len] = '\0';
	nmap = map_text_syms(buf, &map);
	ntab = table_text_syms(st, &tab);
	for (size_t i = 0; i < nmap && i < ntab; i++)
		if (tsym_cmp(&map[i], &tab[i]))
			fail_msg("%s: System.map has %#llx %c %s, kallsyms %#llx %c %s",
				 dir, (unsigned long long)map[i].addr, map[i].type,
				 map[i].name, (unsigned long long)tab[i].addr,
				 tab[i].type, tab[i].name);
	assert_int_equal(nmap, ntab);
	print_message("[   INFO   ] %s: %zu text symbols, all equal to System.map\n", dir,
		      ntab);
	free(map);
	free(tab);
	free(buf);
}

static void test_project_kernel(void **state)
{
	glob_t g;

	cache_glob("kernel/*/System.map", "kernel/build.sh", &g);
	for (size_t i = 0; i < g.gl_pathc; i++) {
		char *dir = strdup(g.gl_pathv[i]), path[600];
		struct symtab *st = symtab_new();
		struct kp_err err = {0};
		size_t len = 0;
		uint8_t *img;

		*strrchr(dir, '/') = '\0';
		snprintf(path, sizeof(path), "%s/bzImage", dir);
		img = read_file(path, &len);
		if (!img)
			fail_msg("%s: missing next to System.map", path);
		if (kimage_load_symbols(img, len, KP_DECOMPRESS_MAX, st, &err))
			fail_msg("%s: %s", path, err.msg);
		compare_with_map(dir, st);
		symtab_free(st);
		free(img);
		free(dir);
	}
	globfree(&g);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_debian_kernels),
		cmocka_unit_test(test_project_kernel),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
