// SPDX-License-Identifier: GPL-2.0
/*
 * The symbol cache: a stored table comes back whole for the same image
 * file, and only for it; damaged, foreign or untrusted entries are misses;
 * and symsrc_load_file() really serves a Debian vmlinuz and a big kallsyms
 * file from it, and leaves small text and /proc/kallsyms out.
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
#include <fcntl.h>
#include <glob.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ksym/ksym.h"
#include "symtab_fixture.h"
#include "testutil.h"

struct fixture {
	char dir[64];	 /* a trusted temporary folder */
	char cache[128]; /* the cache folder under it, not there yet */
	char image[128]; /* a file standing for a kernel image */
	char entry[256]; /* the cache's one entry, once stored */
	struct stat image_st;
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	FILE *img;

	snprintf(f->dir, sizeof(f->dir), "/tmp/kvmprof-symcache.XXXXXX");
	assert_non_null(mkdtemp(f->dir));
	snprintf(f->cache, sizeof(f->cache), "%s/a/b/symbols", f->dir);
	snprintf(f->image, sizeof(f->image), "%s/vmlinuz", f->dir);
	img = fopen(f->image, "w");
	assert_non_null(img);
	fputs("not really a kernel", img);
	fclose(img);
	assert_int_equal(stat(f->image, &f->image_st), 0);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	sh("rm -rf '%s'", f->dir);
	free(f);
	return 0;
}

static struct symtab *sample_table(void)
{
	struct symtab *st = sample_kernel_table();

	symtab_set_source(st, "bzImage zstd, Linux 6.12.0 kallsyms, 6 symbols");
	st->build_id_len = 20;
	for (int i = 0; i < 20; i++)
		st->build_id[i] = (uint8_t)(0xa0 + i);
	return st;
}

static void assert_same(const struct symtab *a, const struct symtab *b)
{
	assert_same_symbols(a, b);
	assert_string_equal(a->source, b->source);
	assert_int_equal(a->build_id_len, b->build_id_len);
	assert_memory_equal(a->build_id, b->build_id, a->build_id_len);
	assert_true(a->text_start == b->text_start && a->text_end == b->text_end);
}

/* Store the sample table for the fixture's image; find the entry's name. */
static struct symtab *store_sample(struct fixture *f)
{
	struct symtab *st = sample_table();
	struct kp_err err = {0};
	glob_t g;
	char pattern[192];

	assert_int_equal(symcache_store(f->cache, &f->image_st, 1000, st, &err), 0);
	snprintf(pattern, sizeof(pattern), "%s/*.ksym", f->cache);
	assert_int_equal(glob(pattern, 0, NULL, &g), 0);
	assert_int_equal(g.gl_pathc, 1);
	snprintf(f->entry, sizeof(f->entry), "%s", g.gl_pathv[0]);
	globfree(&g);
	return st;
}

static void expect_miss(const struct fixture *f, uint64_t max, const char *why_part)
{
	struct kp_err why = {0};
	struct symtab *back = (struct symtab *)1;

	assert_int_equal(symcache_load(f->cache, &f->image_st, max, &back, &why),
			 -ENOENT);
	assert_null(back);
	if (!strstr(why.msg, why_part))
		fail_msg("miss says \"%s\", expected \"%s\"", why.msg, why_part);
}

/*
 * With KVMPROF_SEED_DIR set, keep a real entry as fuzz_symcache's seeds
 * (make-seeds.sh), behind the first byte that picks a fuzz input's path:
 * copied elsewhere, and at the address it names.
 */
static void keep_seed(const char *entry)
{
	const char *seeds = getenv("KVMPROF_SEED_DIR");

	if (!seeds)
		return;
	assert_int_equal(
		sh("{ printf '\\0'; cat '%s'; } >'%s/copied.ksym'", entry, seeds), 0);
	assert_int_equal(
		sh("{ printf '\\1'; cat '%s'; } >'%s/in-place.ksym'", entry, seeds), 0);
}

static void test_roundtrip(void **state)
{
	struct fixture *f = *state;
	struct symtab *st = store_sample(f), *back = NULL;
	struct stat sb;

	assert_int_equal(symcache_load(f->cache, &f->image_st, 1000, &back, NULL), 0);
	assert_same(st, back);
	assert_string_equal(symtab_lookup(back, 0xffffffff81001010ULL, 0, NULL)->name,
			    "do_syscall_64");
	keep_seed(f->entry);
	/* Created private: the folders and the entry. */
	assert_int_equal(stat(f->cache, &sb), 0);
	assert_int_equal(sb.st_mode & 07777, 0700);
	assert_int_equal(stat(f->entry, &sb), 0);
	assert_int_equal(sb.st_mode & 077, 0);
	symtab_free(back);
	symtab_free(st);
}

/*
 * An entry is laid out for one address; a second table from it while the
 * first holds that address is copied, with its name pointers moved, and
 * must be the same table.
 */
static void test_mapped_elsewhere(void **state)
{
	struct fixture *f = *state;
	struct symtab *st = store_sample(f), *first = NULL, *second = NULL;

	assert_int_equal(symcache_load(f->cache, &f->image_st, 1000, &first, NULL), 0);
	assert_int_equal(symcache_load(f->cache, &f->image_st, 1000, &second, NULL), 0);
	assert_true(first->syms_in_map && first->index_in_map);
	assert_false(second->syms_in_map);
	assert_true(second->index_in_map);
	assert_ptr_not_equal(first->owned_map, second->owned_map);
	/* The copy's names are in its own mapping, not the first's. */
	for (size_t i = 0; i < second->nr; i++) {
		const char *name = second->syms[i].name;

		assert_true(name >= (char *)second->owned_map &&
			    name < (char *)second->owned_map + second->owned_map_len);
	}
	assert_same(st, first);
	assert_same(st, second);
	symtab_free(first);
	assert_same(st, second);
	symtab_free(second);
	symtab_free(st);
}

/*
 * symtab_find() on a cached table searches its order by name; it must
 * answer as the scan of a parsed table does: the first core symbol of the
 * name, by address order, never a module's.
 */
static void test_find_by_name(void **state)
{
	static const char *const names[] = {"dup", "alpha", "zeta", "absent", "dup2"};
	struct fixture *f = *state;
	struct symtab *st = symtab_new(), *back = NULL;
	struct kp_err err = {0};

	assert_int_equal(symtab_add(st, 0xffffffff81000000ULL, 'T', "_text", NULL), 0);
	assert_int_equal(symtab_add(st, 0xffffffff81000100ULL, 't', "dup", NULL), 0);
	assert_int_equal(symtab_add(st, 0xffffffff81000200ULL, 'T', "alpha", NULL), 0);
	assert_int_equal(symtab_add(st, 0xffffffff81000300ULL, 't', "dup", NULL), 0);
	assert_int_equal(symtab_add(st, 0xffffffff81000400ULL, 'T', "zeta", NULL), 0);
	assert_int_equal(symtab_add(st, 0xffffffffc0000000ULL, 't', "dup2", "mod"), 0);
	assert_int_equal(symtab_add(st, 0xffffffffc0000100ULL, 't', "zeta", "mod"), 0);
	assert_int_equal(symtab_finish(st), 0);
	assert_int_equal(symcache_store(f->cache, &f->image_st, 0, st, &err), 0);
	assert_int_equal(symcache_load(f->cache, &f->image_st, 1000, &back, NULL), 0);
	assert_non_null(back->by_name);
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		const struct ksym *a = symtab_find(st, names[i]);
		const struct ksym *b = symtab_find(back, names[i]);

		assert_true(!a == !b);
		if (a)
			assert_int_equal(a - st->syms, b - back->syms);
	}
	assert_int_equal(symtab_find(back, "dup") - back->syms, 1);
	assert_null(symtab_find(back, "dup2"));
	symtab_free(back);
	symtab_free(st);
}

static void test_nothing_stored(void **state)
{
	struct fixture *f = *state;

	expect_miss(f, 1000, f->cache);
}

/* Rewriting the image changes its identity: the old entry no longer applies. */
static void test_changed_image(void **state)
{
	struct fixture *f = *state;
	struct symtab *st = store_sample(f);
	struct timespec times[2] = {{0, UTIME_OMIT}, {0, UTIME_NOW}};

	/* Same size and mtime kept: only the change time tells. */
	times[1] = f->image_st.st_mtim;
	usleep(10000);
	assert_int_equal(utimensat(AT_FDCWD, f->image, times, 0), 0);
	assert_int_equal(stat(f->image, &f->image_st), 0);
	expect_miss(f, 1000, "No such file");
	symtab_free(st);
}

/* An entry put under another image's name is refused by its header. */
static void test_entry_of_other_image(void **state)
{
	struct fixture *f = *state;
	struct symtab *st = store_sample(f), *back = NULL;
	char first[256], pattern[192];
	glob_t g;

	snprintf(first, sizeof(first), "%s", f->entry);
	assert_int_equal(sh("touch '%s'", f->image), 0);
	assert_int_equal(stat(f->image, &f->image_st), 0);
	assert_int_equal(symcache_store(f->cache, &f->image_st, 1000, st, NULL), 0);
	assert_int_equal(symcache_load(f->cache, &f->image_st, 1000, &back, NULL), 0);
	symtab_free(back);
	snprintf(pattern, sizeof(pattern), "%s/*.ksym", f->cache);
	assert_int_equal(glob(pattern, 0, NULL, &g), 0);
	assert_int_equal(g.gl_pathc, 2);
	/* The second entry is whichever is not the first. */
	snprintf(f->entry, sizeof(f->entry), "%s",
		 strcmp(g.gl_pathv[0], first) ? g.gl_pathv[0] : g.gl_pathv[1]);
	globfree(&g);
	assert_int_equal(rename(first, f->entry), 0);
	expect_miss(f, 1000, "another file");
	symtab_free(st);
}

static void test_over_limit(void **state)
{
	struct fixture *f = *state;
	struct symtab *st = store_sample(f);

	expect_miss(f, 999, "size limit");
	symtab_free(st);
}

static void write_bytes(const char *path, const void *p, size_t len)
{
	FILE *out = fopen(path, "w");

	assert_non_null(out);
	assert_int_equal(fwrite(p, 1, len, out), len);
	fclose(out);
}

static uint8_t *read_bytes(const char *path, size_t *len)
{
	struct stat sb;
	uint8_t *p;
	FILE *in = fopen(path, "r");

	assert_non_null(in);
	assert_int_equal(fstat(fileno(in), &sb), 0);
	p = malloc((size_t)sb.st_size);
	*len = fread(p, 1, (size_t)sb.st_size, in);
	fclose(in);
	return p;
}

/*
 * Everything a table offers, on one that may be damaged: lookups and
 * searches read only inside the entry (a name pointer outside it would
 * fault here), and what walks every symbol finds the damage first.
 * Returns whether the table held together.
 */
static bool use_everything(const struct symtab *back, const struct symtab *st)
{
	bool sound = !symtab_check(back);
	FILE *null = fopen("/dev/null", "w");
	const struct ksym *s;
	void *blob = NULL;
	size_t len;

	assert_non_null(null);
	for (size_t i = 0; i < st->nr; i++) {
		for (uint64_t d = 0; d < 3; d++)
			if ((s = symtab_lookup(back, st->syms[i].addr + d, 0, NULL)))
				assert_true(strlen(s->name) < 4096);
		if ((s = symtab_find(back, st->syms[i].name)))
			assert_true(strlen(s->name) < 4096);
		if ((s = symtab_find_any(back, st->syms[i].name)))
			assert_true(strlen(s->name) < 4096);
	}
	symtab_find(back, "no_such_symbol");
	assert_int_equal(kallsyms_write(back, 0, null), sound ? 0 : -EINVAL);
	assert_int_equal(!ksymblob_encode(back, &blob, &len), sound);
	free(blob);
	fclose(null);
	return sound;
}

/*
 * Every cut and every flipped byte: a miss, or a table that answers only
 * from inside the entry, whether used in place or copied.
 */
static void test_damaged_entries(void **state)
{
	struct fixture *f = *state;
	struct symtab *st = store_sample(f), *in_place, *copied;
	size_t len, broken = 0;
	bool sound;
	uint8_t *good = read_bytes(f->entry, &len);

	for (size_t cut = 0; cut < len; cut++) {
		write_bytes(f->entry, good, cut);
		expect_miss(f, 1000, f->entry);
	}
	for (size_t at = 0; at < len; at++) {
		good[at] ^= 0x41;
		write_bytes(f->entry, good, len);
		good[at] ^= 0x41;
		in_place = copied = NULL;
		if (symcache_load(f->cache, &f->image_st, 1000, &in_place, NULL))
			continue;
		/* While the first holds its address, a second is a checked copy. */
		if (!symcache_load(f->cache, &f->image_st, 1000, &copied, NULL)) {
			assert_false(copied->syms_in_map);
			assert_true(use_everything(copied, st));
		}
		/* Only the unchecked words (source text, build-id) or a miss. */
		assert_int_equal(in_place->nr, st->nr);
		assert_non_null(in_place->refused);
		sound = use_everything(in_place, st);
		broken += !sound;
		/* Damage anything refused is damage the whole check finds. */
		assert_int_equal(*in_place->refused > 0, !sound);
		symtab_free(copied);
		symtab_free(in_place);
		/* The next is another entry: this one's count goes (and it, if damaged).
		 */
		symcache_drop_damaged(NULL);
	}
	/* Damage only a whole read finds: in the symbols, names and indexes. */
	assert_true(broken > 0);
	free(good);
	symtab_free(st);
}

/*
 * A table used in place and then changed: its symbols move to memory of
 * its own, checked, and a name added outside the entry is found like the
 * entry's own.
 */
static void test_changed_after_load(void **state)
{
	struct fixture *f = *state;
	struct symtab *st = store_sample(f), *back = NULL;
	const struct ksym *s;

	assert_int_equal(symcache_load(f->cache, &f->image_st, 1000, &back, NULL), 0);
	assert_true(back->unverified && back->syms_in_map);
	assert_int_equal(
		symtab_add(back, 0xffffffff81e80000ULL, 't', "added_later", NULL), 0);
	assert_int_equal(symtab_finish(back), 0);
	assert_false(back->unverified || back->syms_in_map);
	s = symtab_lookup(back, 0xffffffff81e80010ULL, 0, NULL);
	assert_non_null(s);
	assert_string_equal(s->name, "added_later");
	assert_string_equal(symtab_lookup(back, 0xffffffff81001010ULL, 0, NULL)->name,
			    "do_syscall_64");
	assert_non_null(symtab_find(back, "added_later"));
	symtab_free(back);
	symtab_free(st);
}

/* A name pointer or bucket out of range, in an entry used in place. */
static void test_damage_found_by_lookups(void **state)
{
	struct fixture *f = *state;
	struct symtab *st = store_sample(f), *back = NULL;
	size_t len;
	uint8_t *e = read_bytes(f->entry, &len);
	const struct ksym *hit;
	struct ksym *syms;
	size_t k;

	assert_int_equal(symcache_load(f->cache, &f->image_st, 1000, &back, NULL), 0);
	assert_true(back->syms_in_map && back->unverified);
	hit = symtab_lookup(back, 0xffffffff81001010ULL, 0, NULL);
	assert_non_null(hit);
	k = (size_t)(hit - back->syms);
	syms = (struct ksym *)(e + ((const uint8_t *)back->syms -
				    (const uint8_t *)back->owned_map));
	symtab_free(back);

	syms[k].name = (const char *)(uintptr_t)0x1000;
	write_bytes(f->entry, e, len);
	assert_int_equal(symcache_load(f->cache, &f->image_st, 1000, &back, NULL), 0);
	assert_null(symtab_lookup(back, 0xffffffff81001010ULL, 0, NULL));
	assert_int_equal(*back->refused, 1);
	assert_null(symtab_find(back, "do_syscall_64"));
	assert_int_equal(symtab_check(back), -EINVAL);
	/* Nor does it become a table of its own, to be changed. */
	assert_int_equal(symtab_add(back, 0xffffffff81002000ULL, 't', "added", NULL),
			 -EINVAL);
	symtab_free(back);
	symcache_drop_damaged(NULL);
	free(e);
	symtab_free(st);
}

static char damage_msg[2][512];
static int damage_msgs;

static void damage_said(const struct kp_err *err)
{
	if (damage_msgs < 2)
		snprintf(damage_msg[damage_msgs], sizeof(damage_msg[0]), "%s", err->msg);
	damage_msgs++;
}

/* The entry of the sample table, with a name pointer out of range. */
static void damage_sample_entry(struct fixture *f)
{
	struct symtab *back = NULL;
	size_t len, k;
	uint8_t *e = read_bytes(f->entry, &len);
	struct ksym *syms;

	assert_int_equal(symcache_load(f->cache, &f->image_st, 1000, &back, NULL), 0);
	k = (size_t)(symtab_lookup(back, 0xffffffff81001010ULL, 0, NULL) - back->syms);
	syms = (struct ksym *)(e + ((const uint8_t *)back->syms -
				    (const uint8_t *)back->owned_map));
	syms[k].name = (const char *)(uintptr_t)0x1000;
	symtab_free(back);
	write_bytes(f->entry, e, len);
	free(e);
}

/*
 * An entry whose damage cost a lookup its answer is removed once the
 * command is done, and said; a sound one stays, unsaid; one replaced since
 * it was mapped is not the damaged file, and stays.
 */
static void test_damaged_entry_dropped(void **state)
{
	struct fixture *f = *state;
	struct symtab *st = store_sample(f), *back = NULL;
	unsigned long *count;
	struct stat sb;

	damage_msgs = 0;
	assert_int_equal(symcache_load(f->cache, &f->image_st, 1000, &back, NULL), 0);
	assert_non_null(symtab_lookup(back, 0xffffffff81001010ULL, 0, NULL));
	count = back->refused;
	symtab_free(back);
	/* Loaded again (a guest of the same kernel): one count for the entry. */
	assert_int_equal(symcache_load(f->cache, &f->image_st, 1000, &back, NULL), 0);
	assert_true(back->refused && back->refused == count);
	symtab_free(back);
	symcache_drop_damaged(damage_said);
	assert_int_equal(damage_msgs, 0);
	assert_int_equal(stat(f->entry, &sb), 0);

	damage_sample_entry(f);
	symcache_drop_damaged(damage_said); /* the loads above refused nothing */
	assert_int_equal(damage_msgs, 0);
	assert_int_equal(symcache_load(f->cache, &f->image_st, 1000, &back, NULL), 0);
	assert_null(symtab_lookup(back, 0xffffffff81001010ULL, 0, NULL));
	symtab_free(back); /* its count outlives it */
	symcache_drop_damaged(damage_said);
	assert_int_equal(damage_msgs, 1);
	assert_non_null(strstr(damage_msg[0], f->entry));
	assert_non_null(strstr(damage_msg[0], "(1 reads of it refused): removed"));
	assert_int_equal(stat(f->entry, &sb), -1);

	/* Damaged, then stored afresh by another run before this one is done. */
	symtab_free(store_sample(f));
	damage_sample_entry(f);
	assert_int_equal(symcache_load(f->cache, &f->image_st, 1000, &back, NULL), 0);
	assert_null(symtab_lookup(back, 0xffffffff81001010ULL, 0, NULL));
	symtab_free(store_sample(f));
	symcache_drop_damaged(damage_said);
	symtab_free(back);
	assert_int_equal(damage_msgs, 2);
	assert_non_null(strstr(damage_msg[1], "it has been replaced or removed since"));
	assert_int_equal(symcache_load(f->cache, &f->image_st, 1000, &back, NULL), 0);
	assert_non_null(symtab_lookup(back, 0xffffffff81001010ULL, 0, NULL));
	symtab_free(back);
	symcache_drop_damaged(damage_said);
	assert_int_equal(damage_msgs, 2);
	symtab_free(st);
}

static size_t count_entries(const struct fixture *f)
{
	char pattern[192];
	glob_t g;
	size_t n;

	snprintf(pattern, sizeof(pattern), "%s/*.ksym", f->cache);
	if (glob(pattern, 0, NULL, &g))
		return 0;
	n = g.gl_pathc;
	globfree(&g);
	return n;
}

/* Past SYMCACHE_ENTRIES, the oldest stored go; so do stale temporaries. */
static void test_pruned(void **state)
{
	struct fixture *f = *state;
	struct symtab *st = sample_table(), *back;
	struct stat images[SYMCACHE_ENTRIES + 2];
	char stale[256], fresh[256];

	for (size_t i = 0; i < SYMCACHE_ENTRIES + 2; i++) {
		images[i] = f->image_st;
		images[i].st_ino += i;
		/* Stored at distinct times: file times move in clock ticks. */
		usleep(11000);
		assert_int_equal(symcache_store(f->cache, &images[i], 1000, st, NULL), 0);
		if (!i) {
			snprintf(stale, sizeof(stale), "%s/0123456789abcdef.ksym.aaaaaa",
				 f->cache);
			snprintf(fresh, sizeof(fresh), "%s/0123456789abcdef.ksym.bbbbbb",
				 f->cache);
			assert_int_equal(sh("touch -d '2 hours ago' '%s' && touch '%s'",
					    stale, fresh),
					 0);
		}
		assert_int_equal(count_entries(f),
				 i < SYMCACHE_ENTRIES ? i + 1 : SYMCACHE_ENTRIES);
	}
	for (size_t i = 0; i < SYMCACHE_ENTRIES + 2; i++) {
		back = NULL;
		assert_int_equal(symcache_load(f->cache, &images[i], 1000, &back, NULL),
				 i < 2 ? -ENOENT : 0);
		symtab_free(back);
	}
	assert_int_equal(access(stale, F_OK), -1);
	assert_int_equal(access(fresh, F_OK), 0);
	symtab_free(st);
}

static void test_untrusted(void **state)
{
	struct fixture *f = *state;
	struct symtab *st = store_sample(f);
	char link[300];

	assert_int_equal(chmod(f->entry, 0620), 0);
	expect_miss(f, 1000, "only they may write");
	assert_int_equal(chmod(f->entry, 0600), 0);
	assert_int_equal(chmod(f->cache, 0777), 0);
	expect_miss(f, 1000, "writable");
	assert_int_equal(chmod(f->cache, 0700), 0);
	/* An entry that is a symlink, even to a good entry, is not followed. */
	snprintf(link, sizeof(link), "%s.real", f->entry);
	assert_int_equal(rename(f->entry, link), 0);
	assert_int_equal(symlink(link, f->entry), 0);
	expect_miss(f, 1000, f->entry);
	symtab_free(st);
}

static void test_default_dir(void **state)
{
	char dir[256];

	(void)state;
	setenv("KVMPROF_SYMBOL_CACHE", "/x/cache", 1);
	assert_true(symcache_default_dir(dir, sizeof(dir)));
	assert_string_equal(dir, "/x/cache");
	/* Set but empty: no cache, whatever else is set. */
	setenv("KVMPROF_SYMBOL_CACHE", "", 1);
	setenv("HOME", "/x/home", 1);
	assert_false(symcache_default_dir(dir, sizeof(dir)));
	unsetenv("KVMPROF_SYMBOL_CACHE");
	setenv("XDG_CACHE_HOME", "/x/xdg", 1);
	assert_true(symcache_default_dir(dir, sizeof(dir)));
	assert_string_equal(dir, "/x/xdg/kvmprof/symbols");
	unsetenv("XDG_CACHE_HOME");
	setenv("HOME", "/x/home", 1);
	assert_true(symcache_default_dir(dir, sizeof(dir)));
	assert_string_equal(dir, "/x/home/.cache/kvmprof/symbols");
	unsetenv("HOME");
	assert_false(symcache_default_dir(dir, sizeof(dir)));
}

/* ---- through symsrc_load_file(), with Debian's 6.12 vmlinuz ---- */

static void copy_debian_vmlinuz(const char *to)
{
	const char *cache = getenv("KVMPROF_CACHE");
	char pattern[512];
	glob_t g;

	snprintf(pattern, sizeof(pattern),
		 "%s/debian-kernels/linux-image-6.12*/boot/vmlinuz-*",
		 cache && *cache ? cache : "/var/cache/kvmprof");
	if (glob(pattern, 0, NULL, &g))
		fail_msg("no %s: run scripts/fetch-debian-kernels.sh (make check does)",
			 pattern);
	assert_int_equal(sh("cp '%s' '%s'", g.gl_pathv[0], to), 0);
	globfree(&g);
}

static struct symtab *load(const char *path)
{
	struct kp_err err = {0};
	struct symtab *st = NULL;

	if (symsrc_load_file(path, SYMSRC_MAX_DEFAULT, &st, NULL, &err))
		fail_msg("%s", err.msg);
	return st;
}

/*
 * Mark the stored entry, whose source starts with @source: a table that
 * comes back marked came from the cache.
 */
static void mark_entry(struct fixture *f, const char *source)
{
	size_t len;
	uint8_t *p;
	glob_t g;
	char pattern[192];
	static const char marker[] = "from the cache";
	/* The header: magic, identity, kernel and blob sizes, then the source. */
	size_t source_at = 8 + 7 * 8 + 2 * 8;

	snprintf(pattern, sizeof(pattern), "%s/*.ksym", f->cache);
	assert_int_equal(glob(pattern, 0, NULL, &g), 0);
	assert_int_equal(g.gl_pathc, 1);
	snprintf(f->entry, sizeof(f->entry), "%s", g.gl_pathv[0]);
	globfree(&g);
	p = read_bytes(f->entry, &len);
	assert_true(len > source_at + sizeof(marker));
	assert_memory_equal(p + source_at, source, strlen(source));
	memcpy(p + source_at, marker, sizeof(marker));
	write_bytes(f->entry, p, len);
	free(p);
}

/*
 * @image changed since @first was read from it and @cached came from the
 * cache: read again, not from the cache (the unmarked source). Ends the
 * test's use of the cache and frees the tables.
 */
static void expect_read_again(const char *image, struct symtab *first,
			      struct symtab *cached)
{
	struct symtab *again = load(image);

	assert_string_equal(again->source, first->source);
	symsrc_set_cache(NULL, NULL);
	symtab_free(again);
	symtab_free(cached);
	symtab_free(first);
}

static void test_vmlinuz_served_from_cache(void **state)
{
	struct fixture *f = *state;
	struct symtab *decoded, *cached;

	copy_debian_vmlinuz(f->image);
	symsrc_set_cache(f->cache, NULL);
	decoded = load(f->image);
	assert_true(decoded->nr > 100000);
	mark_entry(f, "bzImage zstd");
	cached = load(f->image);
	assert_string_equal(cached->source, "from the cache");
	strcpy(cached->source, decoded->source);
	assert_same(decoded, cached);
	/* Touched: decoded again, and stored again. */
	assert_int_equal(sh("touch '%s'", f->image), 0);
	expect_read_again(f->image, decoded, cached);
}

/* ---- kallsyms text ---- */

/*
 * A kernel's /proc/kallsyms as a guest's copy has it, @nr lines: core
 * symbols, the text bounds and a module's, whose names say which they are.
 */
static void write_kallsyms(const char *path, int nr)
{
	FILE *out = fopen(path, "w");

	assert_non_null(out);
	fprintf(out, "ffffffff81000000 T _text\n");
	for (int i = 0; i < nr - 4; i++)
		fprintf(out, "%016llx %c core_function_number_%d\n",
			0xffffffff81001000ULL + (unsigned long long)i * 0x40,
			i % 7 ? 't' : 'T', i);
	fprintf(out, "ffffffff82000000 T _etext\n");
	fprintf(out, "ffffffffc0001000 t mod_init_one\t[some_mod]\n");
	fprintf(out, "ffffffffc0001100 t mod_exit_one\t[some_mod]\n");
	fclose(out);
}

static void test_kallsyms_served_from_cache(void **state)
{
	struct fixture *f = *state;
	struct symtab *parsed, *cached;
	const struct ksym *mod;
	struct stat sb;

	/* 40000 lines: well over SYMCACHE_TEXT_MIN. */
	write_kallsyms(f->image, 40000);
	assert_int_equal(stat(f->image, &sb), 0);
	assert_true((uint64_t)sb.st_size >= SYMCACHE_TEXT_MIN);
	symsrc_set_cache(f->cache, NULL);
	parsed = load(f->image);
	assert_int_equal(parsed->nr, 40000);
	assert_int_equal(count_entries(f), 1);
	mark_entry(f, f->image);
	cached = load(f->image);
	assert_string_equal(cached->source, "from the cache");
	strcpy(cached->source, parsed->source);
	assert_same(parsed, cached);
	mod = symtab_lookup(cached, 0xffffffffc0001104ULL, 0, NULL);
	assert_non_null(mod);
	assert_string_equal(mod->name, "mod_exit_one");
	assert_string_equal(mod->module, "some_mod");
	/* Rewritten: parsed again. */
	write_kallsyms(f->image, 40000);
	expect_read_again(f->image, parsed, cached);
}

/* Small text parses faster than a lookup pays; /proc/kallsyms is no regular file. */
static void test_small_or_proc_kallsyms_not_cached(void **state)
{
	struct fixture *f = *state;
	struct symtab *st;

	write_kallsyms(f->image, 2000);
	symsrc_set_cache(f->cache, NULL);
	st = load(f->image);
	assert_int_equal(st->nr, 2000);
	symtab_free(st);
	st = load("/proc/kallsyms");
	symtab_free(st);
	symsrc_set_cache(NULL, NULL);
	assert_int_equal(count_entries(f), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_roundtrip, setup, teardown),
		cmocka_unit_test_setup_teardown(test_mapped_elsewhere, setup, teardown),
		cmocka_unit_test_setup_teardown(test_find_by_name, setup, teardown),
		cmocka_unit_test_setup_teardown(test_nothing_stored, setup, teardown),
		cmocka_unit_test_setup_teardown(test_changed_image, setup, teardown),
		cmocka_unit_test_setup_teardown(test_entry_of_other_image, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_over_limit, setup, teardown),
		cmocka_unit_test_setup_teardown(test_damaged_entries, setup, teardown),
		cmocka_unit_test_setup_teardown(test_damage_found_by_lookups, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_damaged_entry_dropped, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_changed_after_load, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pruned, setup, teardown),
		cmocka_unit_test_setup_teardown(test_untrusted, setup, teardown),
		cmocka_unit_test(test_default_dir),
		cmocka_unit_test_setup_teardown(test_vmlinuz_served_from_cache, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_kallsyms_served_from_cache, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_small_or_proc_kallsyms_not_cached,
						setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
