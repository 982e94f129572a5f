// SPDX-License-Identifier: GPL-2.0
/*
 * The FUSE layer over the store. Every node is root-owned with the
 * permission bits the access policy gives it (0400 and 0500 by default), and
 * the mount uses default_permissions, so the kernel refuses lookups, listings
 * and opens the bits do not allow; open() checks the policy again (access.c).
 * Anything that would change the tree fails with EROFS. Each file carries a
 * security.selinux label chosen by its kind.
 */
#include "fs.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <sys/statvfs.h>

#include "access.h"
#include "store.h"

/*
 * The store the mount serves: fuse_new()'s private data. Every request
 * starts here, before any lock is taken: the place to reload the access
 * policy SIGHUP asked for.
 */
static struct gm_store *store(void)
{
	gm_access_refresh();
	return fuse_get_context()->private_data;
}

#define XATTR_SELINUX "security.selinux"

static void fill_stat(const struct gm_entry *e, struct stat *st)
{
	memset(st, 0, sizeof(*st));
	gm_access_fill(e, st);
	st->st_nlink = e->dir ? 2 : 1;
	st->st_size = (off_t)e->size;
	st->st_blksize = 4096;
	st->st_blocks = (blkcnt_t)((e->size + 511) / 512);
	st->st_mtime = st->st_ctime = st->st_atime = e->mtime;
}

static int gm_getattr(const char *path, struct stat *st, struct fuse_file_info *fi)
{
	struct gm_entry e;
	int ret;

	ret = gm_store_stat(store(), path, &e);
	if (!ret)
		fill_stat(&e, st);
	return ret;
}

struct fill_ctx {
	void *buf;
	fuse_fill_dir_t filler;
};

static int fill_one(void *ctx, const char *name, const struct gm_entry *e)
{
	struct fill_ctx *c = ctx;
	struct stat st;

	fill_stat(e, &st);
	return c->filler(c->buf, name, &st, 0, 0) ? -ENOMEM : 0;
}

static int gm_opendir(const char *path, struct fuse_file_info *fi)
{
	struct gm_entry e;
	int ret;

	ret = gm_store_stat(store(), path, &e);
	return ret ? ret : e.dir ? 0 : -ENOTDIR;
}

static int gm_readdir(const char *path, void *buf, fuse_fill_dir_t filler, off_t off,
		      struct fuse_file_info *fi, enum fuse_readdir_flags flags)
{
	struct fill_ctx c = {.buf = buf, .filler = filler};

	filler(buf, ".", NULL, 0, 0);
	filler(buf, "..", NULL, 0, 0);
	return gm_store_list(store(), path, fill_one, &c);
}

static int gm_open(const char *path, struct fuse_file_info *fi)
{
	struct gm_open *h;
	int ret;

	if ((fi->flags & O_ACCMODE) != O_RDONLY || (fi->flags & (O_TRUNC | O_CREAT)))
		return -EROFS;
	ret = gm_store_open(store(), path, gm_access_may_open, &h);
	if (ret)
		return ret;
	fi->fh = (uint64_t)(uintptr_t)h;
	/*
	 * Reads go to this handle, not to the kernel's page cache: a path keeps
	 * its inode when a new inspection replaces the file behind it, and a
	 * handle opened before must read its own file, to its own size, and not
	 * pages or a size of the new one. Generated files change size too, and
	 * a file made by this open may have been stat'ed as 0 bytes.
	 */
	fi->direct_io = 1;
	/* A new inspection gives new mtimes, which drop stale pages (auto_inval_data). */
	fi->keep_cache = gm_store_is_stable(h);
	return 0;
}

static int gm_read(const char *path, char *buf, size_t size, off_t off,
		   struct fuse_file_info *fi)
{
	return gm_store_read((struct gm_open *)(uintptr_t)fi->fh, buf, size, off);
}

static int gm_release(const char *path, struct fuse_file_info *fi)
{
	gm_store_close((struct gm_open *)(uintptr_t)fi->fh);
	return 0;
}

static int gm_getxattr(const char *path, const char *name, char *value, size_t size)
{
	struct gm_entry e;
	const char *label;
	size_t len;
	int ret;

	ret = gm_store_stat(store(), path, &e);
	if (ret)
		return ret;
	if (strcmp(name, XATTR_SELINUX))
		return -ENODATA;
	label = gm_store_label(store(), e.kind);
	len = strlen(label) + 1; /* SELinux labels are stored with their NUL */
	if (!size)
		return (int)len;
	if (size < len)
		return -ERANGE;
	memcpy(value, label, len);
	return (int)len;
}

static int gm_listxattr(const char *path, char *list, size_t size)
{
	struct gm_entry e;
	int ret;

	ret = gm_store_stat(store(), path, &e);
	if (ret)
		return ret;
	if (!size)
		return sizeof(XATTR_SELINUX);
	if (size < sizeof(XATTR_SELINUX))
		return -ERANGE;
	memcpy(list, XATTR_SELINUX, sizeof(XATTR_SELINUX));
	return sizeof(XATTR_SELINUX);
}

static int gm_access(const char *path, int mask)
{
	struct gm_entry e;

	/* Only reached without default_permissions: the bits are the kernel's. */
	if (mask & W_OK)
		return -EROFS;
	return gm_store_stat(store(), path, &e);
}

static int gm_statfs(const char *path, struct statvfs *sv)
{
	memset(sv, 0, sizeof(*sv));
	sv->f_bsize = 4096;
	sv->f_frsize = 4096;
	sv->f_namemax = 255;
	sv->f_flag = ST_RDONLY | ST_NOSUID | ST_NODEV;
	return 0;
}

static void *gm_init(struct fuse_conn_info *conn, struct fuse_config *cfg)
{
	/* Trees change when an inspection ends: keep kernel caching short. */
	cfg->entry_timeout = 1.0;
	cfg->attr_timeout = 1.0;
	cfg->negative_timeout = 0;
	cfg->use_ino = 0;
	return store(); /* stays the private data of every request */
}

/* --- everything that would write ---------------------------------------------------- */

static int ro_mknod(const char *p, mode_t m, dev_t d)
{
	return -EROFS;
}
static int ro_mkdir(const char *p, mode_t m)
{
	return -EROFS;
}
static int ro_unlink(const char *p)
{
	return -EROFS;
}
static int ro_rmdir(const char *p)
{
	return -EROFS;
}
static int ro_symlink(const char *a, const char *b)
{
	return -EROFS;
}
static int ro_rename(const char *a, const char *b, unsigned int f)
{
	return -EROFS;
}
static int ro_link(const char *a, const char *b)
{
	return -EROFS;
}
static int ro_chmod(const char *p, mode_t m, struct fuse_file_info *fi)
{
	return -EROFS;
}
static int ro_chown(const char *p, uid_t u, gid_t g, struct fuse_file_info *fi)
{
	return -EROFS;
}
static int ro_truncate(const char *p, off_t o, struct fuse_file_info *fi)
{
	return -EROFS;
}
static int ro_write(const char *p, const char *b, size_t s, off_t o,
		    struct fuse_file_info *fi)
{
	return -EROFS;
}
static int ro_create(const char *p, mode_t m, struct fuse_file_info *fi)
{
	return -EROFS;
}
static int ro_utimens(const char *p, const struct timespec tv[2],
		      struct fuse_file_info *fi)
{
	return -EROFS;
}
static int ro_setxattr(const char *p, const char *n, const char *v, size_t s, int f)
{
	return -EROFS;
}
static int ro_removexattr(const char *p, const char *n)
{
	return -EROFS;
}
static int ro_fallocate(const char *p, int m, off_t o, off_t l, struct fuse_file_info *fi)
{
	return -EROFS;
}

const struct fuse_operations gm_fs_ops = {
	.init = gm_init,
	.getattr = gm_getattr,
	.opendir = gm_opendir,
	.readdir = gm_readdir,
	.open = gm_open,
	.read = gm_read,
	.release = gm_release,
	.getxattr = gm_getxattr,
	.listxattr = gm_listxattr,
	.access = gm_access,
	.statfs = gm_statfs,
	.mknod = ro_mknod,
	.mkdir = ro_mkdir,
	.unlink = ro_unlink,
	.rmdir = ro_rmdir,
	.symlink = ro_symlink,
	.rename = ro_rename,
	.link = ro_link,
	.chmod = ro_chmod,
	.chown = ro_chown,
	.truncate = ro_truncate,
	.write = ro_write,
	.create = ro_create,
	.utimens = ro_utimens,
	.setxattr = ro_setxattr,
	.removexattr = ro_removexattr,
	.fallocate = ro_fallocate,
};
