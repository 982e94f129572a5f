// SPDX-License-Identifier: GPL-2.0
#include "kmodules.h"

#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/fileio.h"
#include "ksym/symsrc.h"

#define KMODULES_MAX 8192

/* "nf_tables.ko.xz" and "nf-tables" both name module nf_tables. */
static void normalise(const char *in, char *out, size_t size)
{
	size_t n = 0;

	for (; *in && *in != '.' && n + 1 < size; in++)
		out[n++] = *in == '-' ? '_' : *in;
	out[n] = '\0';
}

static struct kmodules *walking; /* nftw() has no context argument */

static int index_file(const char *path, const struct stat *sb, int type, struct FTW *ftw)
{
	const char *base = path + ftw->base;
	char name[64];
	char *copy;
	uint64_t key;

	if (type != FTW_F || !strstr(base, ".ko"))
		return 0;
	normalise(base, name, sizeof(name));
	key = hash_bytes(name, strlen(name));
	if (hashmap_get(&walking->files, key))
		return 0;
	copy = strdup(path);
	if (!copy || hashmap_put(&walking->files, key, copy)) {
		free(copy);
		return -1;
	}
	return walking->files.nr > KMODULES_MAX * 4; /* a hostile tree stops here */
}

static int mod_cmp(const void *a, const void *b)
{
	const struct kmodule *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

static int parse_line(struct kmodules *km, const char *line, struct dso_cache *dsos)
{
	struct kmodule *m;
	char name[64], dso_name[80];
	unsigned long long size, addr;

	/* name size refcount deps state address [taint] */
	if (sscanf(line, "%63s %llu %*s %*s %*s %llx", name, &size, &addr) != 3 || !addr)
		return 0; /* address hidden (0) or a line we do not know: skip it */
	if (km->nr >= KMODULES_MAX)
		return -E2BIG;
	m = &km->mods[km->nr];
	memset(m, 0, sizeof(*m));
	snprintf(m->name, sizeof(m->name), "%s", name);
	m->start = addr;
	m->size = size;
	snprintf(dso_name, sizeof(dso_name), "[%s]", name);
	m->dso = dso_cache_get(dsos, dso_name, DSO_KERNEL);
	if (!m->dso)
		return -ENOMEM;
	km->nr++;
	return 0;
}

int kmodules_load(struct kmodules *km, const char *modules_file, const char *tree,
		  struct dso_cache *dsos, struct kp_err *err)
{
	char *buf, *line, *save = NULL;
	size_t len;
	int ret;

	memset(km, 0, sizeof(*km));
	hashmap_init(&km->files);
	ret = kp_read_file(modules_file, 16 << 20, &buf, &len, err);
	if (ret)
		return ret;
	km->mods = calloc(KMODULES_MAX, sizeof(*km->mods));
	if (!km->mods) {
		free(buf);
		return kp_errorf(err, ENOMEM, "%s: out of memory", modules_file);
	}
	for (line = strtok_r(buf, "\n", &save); line && !ret;
	     line = strtok_r(NULL, "\n", &save))
		ret = parse_line(km, line, dsos);
	free(buf);
	if (ret)
		return kp_errorf(err, -ret, "%s: %s", modules_file,
				 ret == -E2BIG ? "too many modules" : "out of memory");
	qsort(km->mods, km->nr, sizeof(*km->mods), mod_cmp);
	if (tree) {
		walking = km;
		nftw(tree, index_file, 16,
		     FTW_PHYS); /* never follow links out of the tree */
		walking = NULL;
	}
	return 0;
}

static void load_symbols(struct kmodules *km, struct kmodule *m)
{
	char name[64];
	const char *path;
	struct symtab *st;

	m->dso->tried = true;
	normalise(m->name, name, sizeof(name));
	path = hashmap_get(&km->files, hash_bytes(name, strlen(name)));
	if (path && !symsrc_load_file(path, SYMSRC_MAX_DEFAULT, &st, NULL, NULL))
		dso_set_symtab(m->dso, st);
}

const struct ksym *kmodules_lookup(struct kmodules *km, uint64_t ip,
				   const struct dso **dso)
{
	size_t lo = 0, hi = km->nr;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		struct kmodule *m = &km->mods[mid];

		if (ip < m->start) {
			hi = mid;
		} else if (ip - m->start >= m->size) {
			lo = mid + 1;
		} else {
			*dso = m->dso;
			if (!m->dso->tried)
				load_symbols(km, m);
			if (!m->dso->symtab)
				return NULL;
			/*
			 * Its table holds text offsets, and may be shared with
			 * other guests loading the same file elsewhere.
			 */
			return symtab_lookup(m->dso->symtab, ip, (int64_t)m->start, NULL);
		}
	}
	return NULL;
}

void kmodules_release(struct kmodules *km)
{
	for (size_t i = 0; i < km->files.cap; i++)
		if (km->files.keys[i])
			free(km->files.vals[i]);
	hashmap_release(&km->files);
	free(km->mods);
	memset(km, 0, sizeof(*km));
}
