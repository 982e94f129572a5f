// SPDX-License-Identifier: GPL-2.0
#include "dso.h"

#include <stdlib.h>
#include <string.h>

#include <errno.h>
#include <stdio.h>
#include <unistd.h>

#include "ksym/buildid.h"
#include "vdso.h"
#include "base/fileio.h"

#define DEBUG_ROOT "/usr/lib/debug"

void dso_cache_init(struct dso_cache *c)
{
	hashmap_init(&c->by_name);
}

static void dso_free(struct dso *d)
{
	symtab_free(d->symtab);
	elf_segments_release(&d->segs);
	free(d->name);
	free(d->error);
	free(d);
}

void dso_cache_release(struct dso_cache *c)
{
	for (size_t i = 0; i < c->by_name.cap; i++)
		if (c->by_name.keys[i]) {
			/* Collisions chain through ->name comparisons: see dso_cache_get.
			 */
			struct dso **list = c->by_name.vals[i];

			for (size_t j = 0; list[j]; j++)
				dso_free(list[j]);
			free(list);
		}
	hashmap_release(&c->by_name);
}

static struct dso *dso_new(const char *name, enum dso_kind kind)
{
	struct dso *d = calloc(1, sizeof(*d));
	const char *slash;

	if (!d || !(d->name = strdup(name))) {
		free(d);
		return NULL;
	}
	slash = strrchr(d->name, '/');
	d->short_name = slash && d->name[0] == '/' ? slash + 1 : d->name;
	d->kind = kind;
	return d;
}

/* Buckets are NULL-terminated arrays: full 64-bit hash collisions are rare. */
struct dso *dso_cache_get(struct dso_cache *c, const char *name, enum dso_kind kind)
{
	uint64_t key = hash_bytes(name, strlen(name));
	struct dso **list = hashmap_get(&c->by_name, key), **grown;
	size_t n = 0;
	struct dso *d;

	for (; list && list[n]; n++)
		if (!strcmp(list[n]->name, name))
			return list[n];
	d = dso_new(name, kind);
	if (!d)
		return NULL;
	grown = realloc(list, (n + 2) * sizeof(*grown));
	if (!grown || hashmap_put(&c->by_name, key, grown)) {
		if (grown && !list)
			free(grown);
		dso_free(d);
		return NULL;
	}
	grown[n] = d;
	grown[n + 1] = NULL;
	return d;
}

void dso_set_symtab(struct dso *d, struct symtab *st)
{
	symtab_free(d->symtab);
	d->symtab = st;
	d->tried = true;
}

/*
 * Distributions strip binaries and ship their .symtab in debug packages,
 * found by build-id: /usr/lib/debug/.build-id/ab/cdef....debug (as perf and
 * gdb do). Its PLT entries are named from @loaded, the file as loaded,
 * since the debug file keeps none of the PLT's contents. Returns the richer
 * table, or NULL to keep @st.
 */
static struct symtab *load_debug_file(const struct dso *d, const struct symtab *st,
				      const struct kp_mapping *loaded)
{
	char hex[2 * KP_BUILD_ID_MAX + 1], path[512];
	struct kp_mapping map;
	struct symtab *dbg;
	int ret;

	if (st->build_id_len < 2)
		return NULL;
	buildid_to_hex(st->build_id, st->build_id_len, hex);
	snprintf(path, sizeof(path), "%s/.build-id/%.2s/%s.debug", DEBUG_ROOT, hex,
		 hex + 2);
	if (access(path, R_OK) || kp_map_file(path, KP_FILE_MAX, &map, NULL))
		return NULL;
	dbg = symtab_new();
	ret = dbg ? elfsyms_load_user_symbols(map.data, map.len, path, loaded->data,
					      loaded->len, dbg, NULL)
		  : -ENOMEM;
	kp_unmap_file(&map);
	if (ret || !dbg->nr) {
		symtab_free(dbg);
		return NULL;
	}
	memcpy(dbg->build_id, st->build_id, st->build_id_len);
	dbg->build_id_len = st->build_id_len;
	symtab_set_source(dbg, "%s", d->name);
	return dbg;
}

/*
 * "[vdso]" is no file: it is read from this process's own image, and only
 * when the recording holds a build-id for it, which load_user() then
 * compares, so another kernel's vDSO is not named from ours. The recorded
 * build-id is of the recorder's (64-bit) vDSO: a 32-bit process's samples
 * there, which perf names "[vdso32]", would be misnamed.
 */
static int load_vdso(struct dso *d, struct symtab *st, struct kp_err *err)
{
	const void *base;
	size_t len;

	if (!d->want_build_id_len)
		return kp_errorf(err, ENOENT,
				 "[vdso]: no build-id recorded to check it by");
	if (vdso_image(&base, &len))
		return kp_errorf(err, ENOENT, "[vdso]: this process has no vDSO to read");
	return elfsyms_load_user(base, len, d->name, st, &d->segs, err);
}

static void load_user(struct dso *d)
{
	struct kp_err err = {0};
	struct symtab *st = symtab_new();
	struct kp_mapping map = {0};
	int ret;

	d->tried = true;
	if (!st)
		return;
	if (!strcmp(d->name, "[vdso]")) {
		ret = load_vdso(d, st, &err);
	} else {
		ret = kp_map_file(d->name, KP_FILE_MAX, &map, &err);
		if (!ret)
			ret = elfsyms_load_user(map.data, map.len, d->name, st, &d->segs,
						&err);
	}
	if (ret) {
		d->error = strdup(err.msg);
		kp_unmap_file(&map);
		symtab_free(st);
		return;
	}
	/* A file rebuilt since recording would name the wrong functions. */
	if (d->want_build_id_len &&
	    (st->build_id_len != d->want_build_id_len ||
	     memcmp(st->build_id, d->want_build_id, d->want_build_id_len))) {
		d->build_id_mismatch = true;
		d->error = strdup("build-id differs from the recorded one");
		kp_unmap_file(&map);
		symtab_free(st);
		return;
	}
	d->symtab = load_debug_file(d, st, &map);
	kp_unmap_file(&map);
	if (d->symtab)
		symtab_free(st);
	else
		d->symtab = st;
}

const struct ksym *dso_lookup_user(struct dso *d, uint64_t file_off, uint64_t *offset)
{
	uint64_t vaddr;

	if (!d->tried)
		load_user(d);
	if (!d->symtab)
		return NULL;
	vaddr = elf_segments_offset_to_vaddr(&d->segs, file_off);
	if (vaddr == UINT64_MAX)
		return NULL;
	return symtab_lookup(d->symtab, vaddr, 0, offset);
}
