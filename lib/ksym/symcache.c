// SPDX-License-Identifier: GPL-2.0
#include "symcache.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "base/pathtrust.h"
#include "ksymblob.h"

#define ENTRY_MAGIC "KPSYMC2"

/* Everything a stat() says that a change to the file would change. */
struct image_id {
	uint64_t dev;
	uint64_t ino;
	uint64_t size;
	int64_t mtime_sec;
	int64_t mtime_nsec;
	int64_t ctime_sec;
	int64_t ctime_nsec;
};

/* An entry: this header, then the blob, in the machine's own byte order. */
struct entry_header {
	char magic[8];
	struct image_id id;
	uint64_t kernel_len; /* the decompressed kernel's size */
	uint64_t blob_len;
	char source[128];
	uint8_t build_id[KP_BUILD_ID_MAX];
	uint32_t build_id_len;
};

_Static_assert(sizeof(struct entry_header) % 8 == 0,
	       "the blob after the header must be 8-byte aligned in the mapping");

static struct image_id image_id_of(const struct stat *sb)
{
	return (struct image_id){
		.dev = (uint64_t)sb->st_dev,
		.ino = (uint64_t)sb->st_ino,
		.size = (uint64_t)sb->st_size,
		.mtime_sec = sb->st_mtim.tv_sec,
		.mtime_nsec = sb->st_mtim.tv_nsec,
		.ctime_sec = sb->st_ctim.tv_sec,
		.ctime_nsec = sb->st_ctim.tv_nsec,
	};
}

/* FNV-1a over the identity: the name only spreads entries, the header decides. */
static uint64_t image_id_hash(const struct image_id *id)
{
	const unsigned char *p = (const unsigned char *)id;
	uint64_t h = 0xcbf29ce484222325ULL;

	for (size_t i = 0; i < sizeof(*id); i++)
		h = (h ^ p[i]) * 0x100000001b3ULL;
	return h;
}

static int entry_path(char *buf, size_t size, const char *dir, const struct image_id *id)
{
	int n = snprintf(buf, size, "%s/%016" PRIx64 ".ksym", dir, image_id_hash(id));

	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

bool symcache_default_dir(char *buf, size_t size)
{
	const char *env = getenv("KVMPROF_SYMBOL_CACHE");
	int n;

	if (env)
		n = snprintf(buf, size, "%s", env);
	else if ((env = getenv("XDG_CACHE_HOME")) && env[0] == '/')
		n = snprintf(buf, size, "%s/kvmprof/symbols", env);
	else if ((env = getenv("HOME")) && env[0] == '/')
		n = snprintf(buf, size, "%s/.cache/kvmprof/symbols", env);
	else
		return false;
	return n > 0 && (size_t)n < size;
}

/* ---- reading ---- */

static int miss(struct kp_err *why, const char *path, const char *what)
{
	kp_errorf(why, ENOENT, "%s: %s", path, what);
	return -ENOENT;
}

/* An entry this user owns, that no one else may write, of a bounded size. */
static int open_entry(const char *path, struct stat *sb, struct kp_err *why)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);

	if (fd < 0)
		return miss(why, path, strerror(errno));
	if (fstat(fd, sb) || !S_ISREG(sb->st_mode) || sb->st_uid != geteuid() ||
	    (sb->st_mode & (S_IWGRP | S_IWOTH)) ||
	    (uint64_t)sb->st_size > SYMCACHE_ENTRY_MAX ||
	    (size_t)sb->st_size < sizeof(struct entry_header)) {
		close(fd);
		return miss(why, path,
			    "not a regular file of this user's, of a sane size, "
			    "that only they may write");
	}
	return fd;
}

static int entry_table(const struct entry_header *h, const char *path, uint64_t max,
		       struct symtab **out, struct kp_err *why)
{
	struct kp_err err = {0};

	if (h->kernel_len > max)
		return miss(why, path, "its kernel is over this run's size limit");
	if (h->build_id_len > KP_BUILD_ID_MAX || !memchr(h->source, 0, sizeof(h->source)))
		return miss(why, path, "malformed header");
	if (ksymblob_decode_raw(h + 1, h->blob_len, path, out, &err))
		return miss(why, path, err.msg);
	memcpy((*out)->source, h->source, sizeof(h->source));
	memcpy((*out)->build_id, h->build_id, h->build_id_len);
	(*out)->build_id_len = h->build_id_len;
	return 0;
}

/*
 * The entry is mapped, not read: its pages are the page cache's, so the
 * table's names cost no memory of their own and nothing is copied.
 */
int symcache_load(const char *dir, const struct stat *image, uint64_t max,
		  struct symtab **out, struct kp_err *why)
{
	struct image_id id = image_id_of(image);
	struct kp_err err = {0};
	const struct entry_header *h;
	char path[4096];
	struct stat sb;
	void *map;
	int fd, ret;

	*out = NULL;
	if (entry_path(path, sizeof(path), dir, &id))
		return miss(why, dir, "name too long");
	if (kp_path_trusted(dir, geteuid(), NULL, &err))
		return miss(why, dir, err.msg);
	fd = open_entry(path, &sb, why);
	if (fd < 0)
		return fd;
	map = mmap(NULL, (size_t)sb.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (map == MAP_FAILED)
		return miss(why, path, strerror(errno));
	h = map;
	if (memcmp(h->magic, ENTRY_MAGIC, sizeof(h->magic)) ||
	    memcmp(&h->id, &id, sizeof(id)))
		ret = miss(why, path, "made for another file or version");
	else if (h->blob_len != (uint64_t)sb.st_size - sizeof(*h))
		ret = miss(why, path, "truncated");
	else
		ret = entry_table(h, path, max, out, why);
	if (ret) {
		munmap(map, (size_t)sb.st_size);
		return ret;
	}
	(*out)->owned_map = map;
	(*out)->owned_map_len = (size_t)sb.st_size;
	return 0;
}

/* ---- writing ---- */

/* mkdir -p, mode 0700 for what it creates. */
static int make_dirs(const char *dir, struct kp_err *err)
{
	char path[4096], c;
	size_t len = strlen(dir);

	if (len >= sizeof(path))
		return kp_errorf(err, ENAMETOOLONG, "%s: name too long", dir);
	memcpy(path, dir, len + 1);
	for (char *p = path + 1;; p++) {
		if (*p != '/' && *p)
			continue;
		c = *p;
		*p = '\0';
		if (mkdir(path, 0700) && errno != EEXIST)
			return kp_errorf(err, errno, "%s: %s", path, strerror(errno));
		*p = c;
		if (!c)
			return 0;
	}
}

static int write_all(int fd, const void *buf, size_t len)
{
	size_t done = 0;

	while (done < len) {
		ssize_t n = write(fd, (const char *)buf + done, len - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		done += (size_t)n;
	}
	return 0;
}

/*
 * Write the entry beside its final name, then rename it into place: never
 * rewritten in place, since readers map it (a cut mapping faults).
 */
static int write_entry(const char *path, const struct entry_header *h, const void *blob,
		       struct kp_err *err)
{
	char tmp[4096 + 16];
	int fd, ret;

	snprintf(tmp, sizeof(tmp), "%s.XXXXXX", path);
	fd = mkstemp(tmp);
	if (fd < 0)
		return kp_errorf(err, errno, "%s: %s", tmp, strerror(errno));
	ret = write_all(fd, h, sizeof(*h));
	if (!ret)
		ret = write_all(fd, blob, h->blob_len);
	if (close(fd) && !ret)
		ret = -errno;
	if (!ret && rename(tmp, path))
		ret = -errno;
	if (ret) {
		unlink(tmp);
		return kp_errorf(err, -ret, "%s: %s", path, strerror(-ret));
	}
	return 0;
}

static bool is_entry(const char *name)
{
	return strlen(name) == 21 && !strcmp(name + 16, ".ksym");
}

static bool is_temporary(const char *name)
{
	return strlen(name) == 28 && !memcmp(name + 16, ".ksym.", 6);
}

static bool older(const struct timespec *a, const struct timespec *b)
{
	return a->tv_sec < b->tv_sec ||
	       (a->tv_sec == b->tv_sec && a->tv_nsec < b->tv_nsec);
}

/*
 * Count the entries in @d and name the oldest stored. A temporary file
 * older than an hour is a writer's killed between mkstemp() and rename():
 * it goes.
 */
static size_t scan_entries(DIR *d, char oldest[32])
{
	struct timespec best = {0};
	struct dirent *de;
	struct stat sb;
	size_t n = 0;

	while ((de = readdir(d))) {
		if (fstatat(dirfd(d), de->d_name, &sb, AT_SYMLINK_NOFOLLOW) ||
		    !S_ISREG(sb.st_mode))
			continue;
		if (is_temporary(de->d_name) && sb.st_mtim.tv_sec < time(NULL) - 3600)
			unlinkat(dirfd(d), de->d_name, 0);
		if (!is_entry(de->d_name))
			continue;
		if (!n++ || older(&sb.st_mtim, &best)) {
			best = sb.st_mtim;
			snprintf(oldest, 32, "%s", de->d_name);
		}
	}
	return n;
}

/* At most SYMCACHE_ENTRIES: the oldest stored go first. */
static void prune(const char *dir)
{
	char oldest[32];

	for (int i = 0; i < 16; i++) {
		DIR *d = opendir(dir);
		size_t n;

		if (!d)
			return;
		n = scan_entries(d, oldest);
		if (n > SYMCACHE_ENTRIES)
			unlinkat(dirfd(d), oldest, 0);
		closedir(d);
		if (n <= SYMCACHE_ENTRIES + 1)
			return;
	}
}

int symcache_store(const char *dir, const struct stat *image, uint64_t kernel_len,
		   const struct symtab *st, struct kp_err *err)
{
	struct entry_header h = {.magic = ENTRY_MAGIC,
				 .id = image_id_of(image),
				 .kernel_len = kernel_len,
				 .build_id_len = (uint32_t)st->build_id_len};
	char path[4096];
	void *blob;
	size_t len;
	int ret;

	if (entry_path(path, sizeof(path), dir, &h.id))
		return kp_errorf(err, ENAMETOOLONG, "%s: name too long", dir);
	ret = make_dirs(dir, err);
	if (!ret)
		ret = kp_path_trusted(dir, geteuid(), NULL, err);
	if (ret)
		return ret;
	memcpy(h.source, st->source, sizeof(h.source));
	h.source[sizeof(h.source) - 1] = '\0';
	memcpy(h.build_id, st->build_id, sizeof(h.build_id));
	if (ksymblob_encode_raw(st, &blob, &len))
		return kp_errorf(err, ENOMEM, "%s: out of memory", path);
	h.blob_len = len;
	ret = write_entry(path, &h, blob, err);
	free(blob);
	if (!ret)
		prune(dir);
	return ret;
}
