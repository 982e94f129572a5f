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
#include "symcache_entry.h"

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

/* The header, read before mapping: it says where to map the entry. */
static int read_header(int fd, const char *path, const struct image_id *id, uint64_t max,
		       struct entry_header *h, struct kp_err *why)
{
	if (pread(fd, h, sizeof(*h), 0) != (ssize_t)sizeof(*h))
		return miss(why, path, "truncated");
	if (memcmp(h->magic, SYMCACHE_ENTRY_MAGIC, sizeof(h->magic)) ||
	    memcmp(&h->id, id, sizeof(*id)))
		return miss(why, path, "made for another file or version");
	if (h->kernel_len > max)
		return miss(why, path, "its kernel is over this run's size limit");
	return 0;
}

/*
 * At the address the entry was laid out for when that is free (see
 * symcache_entry.h), else anywhere. Read-only and populated at once: the
 * pages are the page cache's, and a fault each would cost more than
 * mapping them all in one go.
 */
static void *map_entry(int fd, size_t len, uint64_t base)
{
	void *want = (void *)(uintptr_t)base;
	void *map = mmap(want, len, PROT_READ,
			 MAP_PRIVATE | MAP_POPULATE | MAP_FIXED_NOREPLACE, fd, 0);

	if (map == want)
		return map;
	/* Taken, or a kernel that treats the flag as a hint. */
	if (map != MAP_FAILED)
		munmap(map, len);
	return mmap(NULL, len, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
}

/*
 * The entries this process maps, each with the count its table's lookups
 * keep of what damage made them refuse (symtab.h). Nodes of their own, so
 * that a counter never moves, and kept until symcache_drop_damaged(): a
 * table may be freed before then.
 */
struct used_entry {
	struct used_entry *next;
	dev_t dev;
	ino_t ino;
	unsigned long refused;
	char path[];
};

static struct used_entry *used_entries;

/*
 * Count @st's refusals for the entry at @path; without memory, it is not
 * counted. Tables of the same entry share its count: a long kvmprof top
 * loads the same few entries again as guests come and go.
 */
static void note_used(struct symtab *st, const char *path, const struct stat *sb)
{
	size_t len = strlen(path) + 1;
	struct used_entry *e;

	for (e = used_entries; e; e = e->next)
		if (e->dev == sb->st_dev && e->ino == sb->st_ino &&
		    !strcmp(e->path, path)) {
			st->refused = &e->refused;
			return;
		}
	e = malloc(sizeof(*e) + len);
	if (!e)
		return;
	*e = (struct used_entry){
		.next = used_entries, .dev = sb->st_dev, .ino = sb->st_ino};
	memcpy(e->path, path, len);
	used_entries = e;
	st->refused = &e->refused;
}

/* Removed only while it is still the file that was mapped. */
static int remove_entry(const struct used_entry *e)
{
	struct stat sb;

	if (lstat(e->path, &sb))
		return -errno;
	if (!S_ISREG(sb.st_mode) || sb.st_dev != e->dev || sb.st_ino != e->ino)
		return -ESTALE;
	return unlink(e->path) ? -errno : 0;
}

/* What became of a damaged entry (remove_entry()'s @ret), for the user. */
static void say_dropped(const struct used_entry *e, int ret, symcache_damage_fn said)
{
	struct kp_err err = {0};

	if (!said)
		return;
	if (!ret)
		kp_errorf(&err, EINVAL,
			  "symbol cache entry %s was damaged (%lu reads of it refused): "
			  "removed, the next run reads its file again",
			  e->path, e->refused);
	else if (ret == -ESTALE || ret == -ENOENT)
		kp_errorf(&err, EINVAL,
			  "symbol cache entry %s was damaged (%lu reads of it refused); "
			  "it has been replaced or removed since",
			  e->path, e->refused);
	else
		kp_errorf(&err, -ret,
			  "symbol cache entry %s is damaged (%lu reads of it refused) "
			  "and could not be removed: %s",
			  e->path, e->refused, strerror(-ret));
	said(&err);
}

void symcache_drop_damaged(symcache_damage_fn said)
{
	struct used_entry *e, *next;

	for (e = used_entries; e; e = next) {
		next = e->next;
		if (e->refused)
			say_dropped(e, remove_entry(e), said);
		free(e);
	}
	used_entries = NULL;
}

/*
 * The entry is mapped, not read: its pages are the page cache's, so the
 * table costs no memory of its own and nothing is copied.
 */
int symcache_load(const char *dir, const struct stat *image, uint64_t max,
		  struct symtab **out, struct kp_err *why)
{
	struct image_id id = image_id_of(image);
	struct kp_err err = {0};
	struct entry_header h;
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
	ret = read_header(fd, path, &id, max, &h, why);
	map = ret ? MAP_FAILED : map_entry(fd, (size_t)sb.st_size, h.base);
	close(fd);
	if (ret)
		return ret;
	if (map == MAP_FAILED)
		return miss(why, path, strerror(errno));
	if (symcache_entry_table(map, (size_t)sb.st_size, path, out, &err)) {
		munmap(map, (size_t)sb.st_size);
		return miss(why, path, err.msg);
	}
	(*out)->owned_map = map;
	(*out)->owned_map_len = (size_t)sb.st_size;
	if ((*out)->unverified)
		note_used(*out, path, &sb);
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
static int write_entry(const char *path, const void *entry, size_t len,
		       struct kp_err *err)
{
	char tmp[4096 + 16];
	int fd, ret;

	snprintf(tmp, sizeof(tmp), "%s.XXXXXX", path);
	fd = mkstemp(tmp);
	if (fd < 0)
		return kp_errorf(err, errno, "%s: %s", tmp, strerror(errno));
	ret = write_all(fd, entry, len);
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
	struct entry_header h = {.magic = SYMCACHE_ENTRY_MAGIC,
				 .id = image_id_of(image),
				 .kernel_len = kernel_len,
				 .build_id_len = (uint32_t)st->build_id_len};
	char path[4096];
	void *entry;
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
	ret = symcache_entry_encode(st, &h, &entry, &len);
	if (ret)
		return kp_errorf(err, -ret, "%s: %s", path,
				 ret == -ENOMEM	 ? "out of memory"
				 : ret == -EFBIG ? "the table is too big for an entry"
						 : "the table is not indexed");
	ret = write_entry(path, entry, len, err);
	free(entry);
	if (!ret)
		prune(dir);
	return ret;
}
