// SPDX-License-Identifier: GPL-2.0
/*
 * The cache folder: one root-only folder per inspection, named by a key of
 * everything the inspection depends on (the guest's name, its disks'
 * identities and the copy limits), so that a restart serves from the cache
 * and a changed disk is inspected again.
 */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/base.h"
#include "disks.h"
#include "store-priv.h"
#include "util.h"

#define CACHE_FORMAT "gm1"

static void fnv(uint64_t *h, const void *p, size_t n)
{
	const unsigned char *c = p;

	for (size_t i = 0; i < n; i++) {
		*h ^= c[i];
		*h *= 0x100000001b3ULL;
	}
}

static void fnv_str(uint64_t *h, const char *s)
{
	fnv(h, s, strlen(s) + 1);
}

static void make_key(const struct gm_config *cfg, const struct gm_guest_conf *gc,
		     const struct gm_disk_info *ids, char key[17])
{
	uint64_t h = 0xcbf29ce484222325ULL,
		 v[4] = {cfg->max_file_size, cfg->max_total_size, cfg->max_files,
			 cfg->max_kernels};

	fnv_str(&h, CACHE_FORMAT);
	fnv_str(&h, gc->name);
	fnv(&h, v, sizeof(v));
	for (size_t i = 0; i < gc->nr_disks; i++) {
		uint64_t d[7] = {(uint64_t)ids[i].dev,
				 (uint64_t)ids[i].ino,
				 (uint64_t)ids[i].rdev,
				 ids[i].size,
				 (uint64_t)ids[i].mtime.tv_sec,
				 (uint64_t)ids[i].mtime.tv_nsec,
				 gc->disks[i].format};

		fnv_str(&h, gc->disks[i].path);
		fnv(&h, d, sizeof(d));
	}
	snprintf(key, 17, "%016" PRIx64, h);
}

int gm_cache_identify(struct gm_guest *g, struct kp_err *err)
{
	const struct gm_config *cfg = g->store->cfg;
	struct gm_disk_info ids[GM_MAX_DISKS];

	for (size_t i = 0; i < g->conf->nr_disks; i++) {
		int ret = gm_disk_identify(&g->conf->disks[i], cfg, &ids[i], err);

		if (ret)
			return ret;
	}
	g->ident.nr = g->conf->nr_disks;
	for (size_t i = 0; i < g->conf->nr_disks; i++) {
		g->ident.dev[i] = ids[i].dev;
		g->ident.ino[i] = ids[i].ino;
		g->sizes[i] = ids[i].size;
		g->vsizes[i] = ids[i].virtual_size;
		g->looks_like[i] = ids[i].looks_like;
	}
	make_key(cfg, g->conf, ids, g->key);
	return 0;
}

/* The cache folder and its parents, as far as they are missing. */
static int make_cache_dir(const char *dir, struct kp_err *err)
{
	char parent[4096], *slash;
	int ret;

	if (gm_path(parent, sizeof(parent), "%s", dir))
		return kp_errorf(err, ENAMETOOLONG, "cache %s: path too long", dir);
	slash = strrchr(parent, '/');
	if (slash && slash != parent) {
		*slash = '\0';
		ret = gm_mkdirs(parent, 0755);
		if (ret)
			return kp_errorf(err, -ret, "cache %s: %s", parent,
					 strerror(-ret));
	}
	if (mkdir(dir, 0700) && errno != EEXIST)
		return kp_errorf(err, errno, "cache %s: %s", dir, strerror(errno));
	return 0;
}

/*
 * Ours, a folder, and changeable by no one else along its whole path: a
 * user who may write a folder on the way could swap the cache for one of
 * their own, whose contents root would then serve and remove.
 */
static int check_cache_dir(const char *dir, struct kp_err *err)
{
	struct stat st;
	int ret;

	if (lstat(dir, &st))
		return kp_errorf(err, errno, "cache %s: %s", dir, strerror(errno));
	if (!S_ISDIR(st.st_mode))
		return kp_errorf(err, ENOTDIR, "cache %s: not a folder (a symlink?)",
				 dir);
	if (st.st_uid != geteuid())
		return kp_errorf(err, EPERM, "cache %s: owned by uid %u, not by us", dir,
				 (unsigned)st.st_uid);
	ret = kp_path_trusted(dir, geteuid(), NULL, err);
	if (ret) {
		kp_err_prefix(err, "cache");
		return ret;
	}
	if ((st.st_mode & 07777) != 0700 && chmod(dir, 0700))
		return kp_errorf(err, errno, "cache %s: chmod 0700: %s", dir,
				 strerror(errno));
	return 0;
}

/* Leftovers of inspections that were interrupted. */
static void remove_leftovers(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;

	while (d && (de = readdir(d))) {
		char path[4096];

		if (!strncmp(de->d_name, ".tmp-", 5) &&
		    !gm_path(path, sizeof(path), "%s/%s", dir, de->d_name))
			gm_rm_rf(path);
	}
	if (d)
		closedir(d);
}

int gm_cache_prepare(const char *dir, struct kp_err *err)
{
	int ret = make_cache_dir(dir, err);

	if (!ret)
		ret = check_cache_dir(dir, err);
	if (!ret)
		remove_leftovers(dir);
	return ret;
}

int gm_cache_key_dir(const struct gm_store *store, char *buf, size_t size,
		     const char *key)
{
	return gm_path(buf, size, "%s/%s", store->cfg->cache_dir, key);
}

/* The key a guest's cache folder had before names the folder to remove. */
void gm_cache_remember(const struct gm_guest *g, const char *key)
{
	const struct gm_store *store = g->store;
	char path[4096], old[64] = "", *buf;
	size_t len;

	if (gm_path(path, sizeof(path), "%s/by-name", store->cfg->cache_dir) ||
	    gm_mkdirs(path, 0700) ||
	    gm_path(path, sizeof(path), "%s/by-name/%s", store->cfg->cache_dir,
		    g->conf->name))
		return;
	if (!kp_read_file(path, 64, &buf, &len, NULL)) {
		snprintf(old, sizeof(old), "%.*s", (int)strcspn(buf, "\n"), buf);
		free(buf);
	}
	if (old[0] && strcmp(old, key) && strspn(old, "0123456789abcdef") == 16 &&
	    !old[16]) {
		char dir[4096];

		if (!gm_cache_key_dir(store, dir, sizeof(dir), old))
			gm_rm_rf(dir);
	}
	gm_write_file(path, key, strlen(key));
}
