// SPDX-License-Identifier: GPL-2.0
/*
 * One guest's OS inside the launched appliance (inspect.c launches it):
 * what inspection says of it, its filesystems mounted read-only, and each
 * installed kernel's files - image, config, System.map, debug files, the
 * modules tree - copied out into the job's folder within the per-guest
 * limits, with GRUB's default kernel noted.
 *
 * Everything here reads what the guest wrote, so all of it happens in the
 * appliance through libguestfs calls: guest filesystems are parsed there,
 * guest symlinks are resolved there (guestfs_realpath), and only regular
 * files and folders come out, in bounded pieces.
 */
#include "extract.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "devmap.h"
#include "grub.h"
#include "util.h"

/* guestfs_pread fails at 4 MiB and above (protocol limit): read in pieces below it. */
#define CHUNK	  (2U << 20)
#define MAX_DEPTH 12 /* folders below lib/modules/<version> */
#define MAX_NAME  255

/* One guest's copying, while its OS is mounted in the appliance. */
struct ctx {
	guestfs_h *g;
	struct gm_job *job;
	uint64_t files, bytes; /* copied so far, against the per-guest limits */
	uint64_t dirs;	       /* module tree folders made, counted with files */
	bool files_capped, bytes_capped;
	int write_err; /* the first file the host could not write: the job fails */
};

/* --- copying files out ------------------------------------------------------------ */

/*
 * Copy one regular guest file (a path already resolved inside the guest) to
 * @host, reading at most @limit bytes: -EFBIG past it.
 */
static int copy_out(struct ctx *c, const char *gpath, const char *host, uint64_t limit,
		    uint64_t *copied)
{
	char tmp[4096];
	uint64_t off = 0;
	FILE *f;
	int ret = 0;

	f = gm_create_tmp(host, tmp, sizeof(tmp));
	if (!f) {
		ret = errno && errno != EIO ? -errno : -ENOSPC;
		if (!c->write_err)
			c->write_err = ret;
		return ret;
	}
	for (;;) {
		uint64_t want = limit + 1 - off;
		size_t got = 0;
		char *buf;

		if (want > CHUNK)
			want = CHUNK;
		buf = guestfs_pread(c->g, gpath, (int)want, (int64_t)off, &got);
		if (!buf) {
			ret = -EIO;
			break;
		}
		errno = 0;
		if (got && fwrite(buf, 1, got, f) != got)
			ret = errno ? -errno : -ENOSPC;
		free(buf);
		off += got;
		if (ret || got < want)
			break;
		if (off > limit) {
			ret = -EFBIG;
			break;
		}
	}
	if (ret) {
		fclose(f);
		unlink(tmp);
	} else {
		ret = gm_commit_tmp(f, tmp, host);
	}
	if (!ret) {
		*copied = off;
		c->files++;
		c->bytes += off;
	} else if (ret != -EIO && ret != -EFBIG && !c->write_err) {
		/* The host's doing (a full cache): see copy_kernels(). */
		c->write_err = ret;
	}
	return ret;
}

static uint64_t budget(struct ctx *c)
{
	const struct gm_config *cfg = c->job->cfg;
	uint64_t left =
		cfg->max_total_size > c->bytes ? cfg->max_total_size - c->bytes : 0;

	return left < cfg->max_file_size ? left : cfg->max_file_size;
}

/*
 * A guest path to a regular file, with symlinks resolved inside the guest.
 * NULL when it does not exist or is not a regular file.
 */
static char *resolve_file(guestfs_h *g, const char *path)
{
	char *real = guestfs_realpath(g, path);

	if (real && guestfs_is_file(g, real) > 0)
		return real;
	free(real);
	return NULL;
}

static char *resolve_dir(guestfs_h *g, const char *path)
{
	char *real = guestfs_realpath(g, path);

	if (real && guestfs_is_dir(g, real) > 0)
		return real;
	free(real);
	return NULL;
}

/* Copy a kernel file if present and within limits. Returns true when copied. */
static bool copy_kernel_file(struct ctx *c, const char *gpath, const char *kdir,
			     const char *name, const char *what)
{
	struct gm_job *job = c->job;
	char host[4096], *real = resolve_file(c->g, gpath);
	uint64_t limit = budget(c), copied;
	int64_t size;
	int ret;

	if (!real)
		return false;
	size = guestfs_filesize(c->g, real);
	if (size < 0 || (uint64_t)size > limit) {
		if (size < 0)
			gm_meta_note(&job->meta, "%s %s: %s", what, gpath, gm_gerr(c->g));
		else
			gm_meta_note(
				&job->meta,
				"%s %s is %lld bytes, over the %llu-byte limit (%s): "
				"not copied",
				what, gpath, (long long)size, (unsigned long long)limit,
				limit < c->job->cfg->max_file_size ? "max-total-size"
								   : "max-file-size");
		if (size >= 0 && limit < c->job->cfg->max_file_size)
			c->bytes_capped = true;
		free(real);
		return false;
	}
	ret = gm_path(host, sizeof(host), "%s/%s", kdir, name);
	if (!ret)
		ret = copy_out(c, real, host, limit, &copied);
	if (ret)
		gm_meta_note(&job->meta, "%s %s: not copied (%s)", what, gpath,
			     ret == -EIO ? gm_gerr(c->g) : strerror(-ret));
	free(real);
	return !ret;
}

/*
 * A guest file's content, read through the appliance, if it is a regular
 * file (symlinks resolved in the guest) of at most @max bytes.
 */
static char *read_small(guestfs_h *g, const char *path, size_t max, size_t *len)
{
	char *real = resolve_file(g, path), *data = NULL;
	int64_t size = real ? guestfs_filesize(g, real) : -1;

	if (size >= 0 && (uint64_t)size <= max)
		data = guestfs_read_file(g, real, len);
	free(real);
	return data;
}

static bool name_ok(const char *name)
{
	size_t len = strnlen(name, MAX_NAME + 1);

	if (!len || len > MAX_NAME || !strcmp(name, ".") || !strcmp(name, ".."))
		return false;
	for (size_t i = 0; i < len; i++)
		if ((unsigned char)name[i] < ' ' || name[i] == 0x7f || name[i] == '/')
			return false;
	return true;
}

/*
 * The Boot Loader Specification entries (the .conf files of /boot/loader/entries) into
 * @files (room for GM_BLS_MAX_FILES + 1: one too many tells the parser the
 * folder is over the limit). A file over GM_BLS_MAX_FILE or unreadable gets
 * no text, which the parser refuses: GRUB would still show it.
 */
static size_t read_bls(guestfs_h *g, struct gm_bls_file *files)
{
	char *dir = resolve_dir(g, "/boot/loader/entries");
	struct guestfs_dirent_list *ents = dir ? guestfs_readdir(g, dir) : NULL;
	size_t n = 0;

	for (uint32_t i = 0; ents && i < ents->len && n <= GM_BLS_MAX_FILES; i++) {
		const struct guestfs_dirent *e = &ents->val[i];
		size_t len = strlen(e->name);
		char path[4096];

		if ((e->ftyp != 'r' && e->ftyp != 'l') || !name_ok(e->name) || len <= 5 ||
		    strcmp(e->name + len - 5, ".conf") ||
		    gm_path(path, sizeof(path), "%s/%s", dir, e->name))
			continue;
		files[n].name = strdup(e->name);
		if (!files[n].name)
			break;
		files[n].len = GM_BLS_MAX_FILE + 1;
		files[n].text = read_small(g, path, GM_BLS_MAX_FILE, &files[n].len);
		n++;
	}
	if (ents)
		guestfs_free_dirent_list(ents);
	free(dir);
	return n;
}

static void free_bls(struct gm_bls_file *files, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free((char *)files[i].name);
		free((char *)files[i].text);
	}
	free(files);
}

/*
 * The default entry's kernel of the GRUB configuration in @dir: 0, 1 when
 * @dir has no grub.cfg, or -errno.
 */
static int grub_default(guestfs_h *g, const char *dir, char *ver, size_t size)
{
	struct gm_grub_text t = {0};
	struct gm_bls_file *bls;
	char path[64], *cfg, *env;
	int ret;

	snprintf(path, sizeof(path), "%s/grub.cfg", dir);
	cfg = read_small(g, path, GM_GRUB_MAX_CFG, &t.cfg_len);
	if (!cfg)
		return 1;
	snprintf(path, sizeof(path), "%s/grubenv", dir);
	env = read_small(g, path, GM_GRUB_MAX_CFG, &t.env_len);
	bls = calloc(GM_BLS_MAX_FILES + 1, sizeof(*bls));
	if (bls) {
		t.cfg = cfg;
		t.env = env;
		t.bls = bls;
		t.nr_bls = read_bls(g, bls);
		ret = gm_grub_default(&t, ver, size);
		free_bls(bls, t.nr_bls);
	} else {
		ret = -ENOMEM;
	}
	free(cfg);
	free(env);
	return ret;
}

/*
 * GRUB's default kernel (grub.cfg, grubenv and the BLS entries grub.cfg's
 * blscfg reads), for choosing the default kernel.
 */
static void find_boot_default(struct ctx *c)
{
	static const char *const dirs[] = {"/boot/grub", "/boot/grub2"};
	struct gm_meta *m = &c->job->meta;

	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		int ret = grub_default(c->g, dirs[i], m->boot_default,
				       sizeof(m->boot_default));

		if (!ret && gm_version_valid(m->boot_default))
			return;
		m->boot_default[0] = '\0';
		if (ret == 1)
			continue;
		gm_meta_note(m, "%s/grub.cfg: cannot tell its default entry's kernel%s",
			     dirs[i],
			     ret == -E2BIG ? " (over the size or count limits)" : "");
		return;
	}
}

/* Copy a folder tree (regular files and folders; symlinks skipped) within the limits. */
static int copy_tree(struct ctx *c, const char *gdir, const char *hdir, int depth,
		     unsigned *nr_files, unsigned *skipped)
{
	const struct gm_config *cfg = c->job->cfg;
	struct guestfs_dirent_list *ents;
	int ret = 0;

	if (depth > MAX_DEPTH) {
		(*skipped)++;
		return 0;
	}
	if (mkdir(hdir, 0700) && errno != EEXIST)
		return -errno;
	ents = guestfs_readdir(c->g, gdir);
	if (!ents)
		return -EIO;
	for (uint32_t i = 0; i < ents->len && !ret; i++) {
		const struct guestfs_dirent *e = &ents->val[i];
		char gpath[4096], hpath[4096];
		uint64_t copied;

		if (!strcmp(e->name, ".") || !strcmp(e->name, ".."))
			continue;
		if (!name_ok(e->name) || (e->ftyp != 'r' && e->ftyp != 'd')) {
			(*skipped)++;
			continue;
		}
		if (gm_path(gpath, sizeof(gpath), "%s/%s", gdir, e->name) ||
		    gm_path(hpath, sizeof(hpath), "%s/%s", hdir, e->name)) {
			(*skipped)++;
			continue;
		}
		/* Folders count too: each is a host folder and a node of the tree. */
		if (c->files + c->dirs >= cfg->max_files) {
			c->files_capped = true;
			(*skipped)++;
			continue;
		}
		if (e->ftyp == 'd') {
			c->dirs++;
			ret = copy_tree(c, gpath, hpath, depth + 1, nr_files, skipped);
			continue;
		}
		if (!budget(c)) {
			c->bytes_capped = true;
			(*skipped)++;
			continue;
		}
		ret = copy_out(c, gpath, hpath, budget(c), &copied);
		if (ret == -EFBIG) {
			(*skipped)++;
			ret = 0;
		} else if (!ret) {
			(*nr_files)++;
		}
	}
	guestfs_free_dirent_list(ents);
	return ret;
}

/* --- kernels ---------------------------------------------------------------------- */

struct found {
	char ver[GM_VERSION_MAX];
	char image[256]; /* guest path */
};

static void add_found(struct ctx *c, struct found *list, size_t *n, size_t max,
		      const char *ver, const char *image)
{
	for (size_t i = 0; i < *n; i++)
		if (!strcmp(list[i].ver, ver))
			return;
	if (!gm_version_valid(ver)) {
		gm_meta_note(&c->job->meta,
			     "kernel image %s: version not usable as a file name", image);
		return;
	}
	if (*n >= max) {
		gm_meta_note(&c->job->meta, "more than %zu kernels: %s ignored", max,
			     ver);
		return;
	}
	snprintf(list[*n].ver, sizeof(list[*n].ver), "%s", ver);
	snprintf(list[*n].image, sizeof(list[*n].image), "%s", image);
	(*n)++;
}

/* /boot/vmlinuz-V, /boot/vmlinux-V, and /lib/modules/V/vmlinuz (Fedora's layout). */
static size_t find_kernels(struct ctx *c, struct found *list, size_t max)
{
	char *boot = resolve_dir(c->g, "/boot"), *mods, **names;
	size_t n = 0;

	names = boot ? guestfs_ls(c->g, boot) : NULL;
	for (size_t i = 0; names && names[i]; i++) {
		const char *nm = names[i];
		char image[256];

		if (strncmp(nm, "vmlinuz-", 8) && strncmp(nm, "vmlinux-", 8))
			continue;
		if (gm_path(image, sizeof(image), "/boot/%s", nm))
			continue;
		add_found(c, list, &n, max, nm + 8, image);
	}
	gm_free_strings(names);
	free(boot);
	mods = resolve_dir(c->g, "/lib/modules");
	names = mods ? guestfs_ls(c->g, mods) : NULL;
	for (size_t i = 0; names && names[i]; i++) {
		char image[256], *real;

		if (!gm_version_valid(names[i]) ||
		    gm_path(image, sizeof(image), "/lib/modules/%s/vmlinuz", names[i]))
			continue;
		real = resolve_file(c->g, image);
		if (real)
			add_found(c, list, &n, max, names[i], image);
		free(real);
	}
	gm_free_strings(names);
	free(mods);
	return n;
}

/* The lib/modules/<version> tree, if there is one, into @kdir. */
static int copy_modules(struct ctx *c, const char *ver, const char *kdir)
{
	char gpath[512], hdir[4096], *mods;
	unsigned skipped = 0, nfiles = 0;
	int ret;

	snprintf(gpath, sizeof(gpath), "/lib/modules/%s", ver);
	mods = resolve_dir(c->g, gpath);
	if (!mods)
		return 0;
	ret = gm_path(hdir, sizeof(hdir), "%s/" GM_D_MODULES, kdir);
	if (!ret)
		ret = copy_tree(c, mods, hdir, 0, &nfiles, &skipped);
	free(mods);
	if (ret == -EIO) {
		gm_meta_note(&c->job->meta, "modules of %s: %s", ver, gm_gerr(c->g));
		ret = 0;
	}
	if (skipped)
		gm_meta_note(&c->job->meta,
			     "modules of %s: %u entries skipped (symlinks, odd "
			     "names, or over the limits)",
			     ver, skipped);
	return ret;
}

static int extract_kernel(struct ctx *c, const struct found *f)
{
	struct gm_job *job = c->job;
	struct gm_kernel *k = gm_meta_add_kernel(&job->meta, f->ver);
	char kdir[4096], gpath[512];
	int ret;

	if (!k)
		return -ENOMEM;
	snprintf(k->vmlinuz, sizeof(k->vmlinuz), "%s", f->image);
	ret = gm_path(kdir, sizeof(kdir), "%s/" GM_K_DIR "/%s", job->dir, f->ver);
	if (!ret)
		ret = gm_mkdirs(kdir, 0700);
	if (ret)
		return ret;
	k->has_vmlinuz =
		copy_kernel_file(c, f->image, kdir, GM_F_VMLINUZ, "kernel image");
	snprintf(gpath, sizeof(gpath), "/boot/config-%s", f->ver);
	k->has_config = copy_kernel_file(c, gpath, kdir, GM_F_CONFIG, "config");
	snprintf(gpath, sizeof(gpath), "/boot/System.map-%s", f->ver);
	k->has_sysmap = copy_kernel_file(c, gpath, kdir, GM_F_SYSMAP, "System.map");
	snprintf(gpath, sizeof(gpath), "/usr/lib/debug/boot/vmlinux-%s", f->ver);
	k->has_debug_vmlinux =
		copy_kernel_file(c, gpath, kdir, GM_F_DEBUG_VMLINUX, "debug vmlinux");
	if (!k->has_debug_vmlinux) {
		snprintf(gpath, sizeof(gpath), "/usr/lib/debug/lib/modules/%s/vmlinux",
			 f->ver);
		k->has_debug_vmlinux = copy_kernel_file(
			c, gpath, kdir, GM_F_DEBUG_VMLINUX, "debug vmlinux");
	}
	snprintf(gpath, sizeof(gpath), "/usr/lib/debug/boot/System.map-%s", f->ver);
	k->has_debug_sysmap =
		copy_kernel_file(c, gpath, kdir, GM_F_DEBUG_SYSMAP, "debug System.map");
	return copy_modules(c, f->ver, kdir);
}

/* --- one guest -------------------------------------------------------------------- */

static int by_length(const void *a, const void *b)
{
	const char *const *x = a, *const *y = b;
	size_t lx = strlen(x[0]), ly = strlen(y[0]);

	return lx < ly ? -1 : lx > ly ? 1 : strcmp(x[0], y[0]);
}

static void get_str(guestfs_h *g, char *(*fn)(guestfs_h *, const char *),
		    const char *root, char *dst, size_t size)
{
	char *s = fn(g, root);

	gm_sanitize(dst, size, s && strcmp(s, "unknown") ? s : "");
	free(s);
}

static int mount_root(struct ctx *c, const char *root)
{
	struct gm_job *job = c->job;
	char **mps = guestfs_inspect_get_mountpoints(c->g, root);
	size_t n = gm_count_strings(mps) / 2;
	char *(*pairs)[2];
	int ret = 0;

	if (!mps)
		return gm_job_fail(job, true, EIO, "listing the mountpoints of %s: %s",
				   root, gm_gerr(c->g));
	pairs = calloc(n ? n : 1, sizeof(*pairs));
	if (!pairs) {
		gm_free_strings(mps);
		return gm_job_fail(job, true, ENOMEM, "out of memory");
	}
	for (size_t i = 0; i < n; i++) {
		pairs[i][0] = mps[2 * i];
		pairs[i][1] = mps[2 * i + 1];
	}
	qsort(pairs, n, sizeof(*pairs), by_length);
	for (size_t i = 0; i < n && !ret; i++) {
		const char *mp = pairs[i][0];
		char dev[256];

		/* Its own name for the device, in an appliance shared with other guests.
		 */
		if (!gm_own_device(c->g, job, root, mp, pairs[i][1], dev, sizeof(dev))) {
			gm_meta_note(&job->meta, "%s on %s: not on this guest's disks",
				     dev, mp);
			continue;
		}
		if (guestfs_mount_ro(c->g, dev, mp)) {
			if (!strcmp(mp, "/")) {
				ret = gm_job_conclude(
					job, EIO,
					"cannot mount the root filesystem %s: %s", dev,
					gm_gerr(c->g));
			} else {
				gm_meta_note(&job->meta, "cannot mount %s on %s: %s", dev,
					     mp, gm_gerr(c->g));
			}
			continue;
		}
		if (job->meta.nr_mounts < GM_MAX_MOUNTS) {
			gm_sanitize(job->meta.mounts[job->meta.nr_mounts][0],
				    sizeof(job->meta.mounts[0][0]), mp);
			gm_sanitize(job->meta.mounts[job->meta.nr_mounts++][1],
				    sizeof(job->meta.mounts[0][1]), dev);
		}
	}
	free(pairs);
	gm_free_strings(mps);
	return ret;
}

/* What inspection says of the OS at @root, into the meta (sanitized). */
static void describe_os(guestfs_h *g, struct gm_meta *m, const char *root)
{
	int major, minor;

	gm_sanitize(m->root, sizeof(m->root), root);
	get_str(g, guestfs_inspect_get_type, root, m->os, sizeof(m->os));
	get_str(g, guestfs_inspect_get_distro, root, m->distro, sizeof(m->distro));
	get_str(g, guestfs_inspect_get_product_name, root, m->product,
		sizeof(m->product));
	get_str(g, guestfs_inspect_get_hostname, root, m->hostname, sizeof(m->hostname));
	get_str(g, guestfs_inspect_get_arch, root, m->arch, sizeof(m->arch));
	major = guestfs_inspect_get_major_version(g, root);
	minor = guestfs_inspect_get_minor_version(g, root);
	if (major > 0 || minor > 0)
		snprintf(m->osversion, sizeof(m->osversion), "%d.%d", major, minor);
}

/* Every installed kernel's files, copied out of the mounted guest. */
static void copy_kernels(struct ctx *c)
{
	struct gm_job *job = c->job;
	const struct gm_config *cfg = job->cfg;
	struct found *kernels = calloc(cfg->max_kernels, sizeof(*kernels));
	size_t nk;

	if (!kernels) {
		gm_job_fail(job, true, ENOMEM, "out of memory");
		return;
	}
	nk = find_kernels(c, kernels, cfg->max_kernels);
	find_boot_default(c);
	if (!nk)
		gm_job_conclude(job, ENOENT,
				"no kernel installed "
				"(no /boot/vmlinuz-* or /lib/modules/*/vmlinuz)");
	for (size_t i = 0; i < nk && !job->done; i++) {
		int ret;

		gm_log("%s: copying kernel %s out of the guest", job->conf->name,
		       kernels[i].ver);
		ret = extract_kernel(c, &kernels[i]);
		if (c->write_err)
			gm_job_fail(job, false, -c->write_err,
				    "copying kernel %s: writing the cache: %s",
				    kernels[i].ver, strerror(-c->write_err));
		else if (ret)
			gm_job_fail(job, ret == -EIO, ret, "copying kernel %s: %s",
				    kernels[i].ver,
				    ret == -EIO ? gm_gerr(c->g) : strerror(-ret));
	}
	free(kernels);
	if (c->files_capped)
		gm_meta_note(&job->meta,
			     "stopped copying at %u files and folders (max-files)",
			     cfg->max_files);
	if (c->bytes_capped)
		gm_meta_note(&job->meta, "stopped copying at %llu bytes (max-total-size)",
			     (unsigned long long)cfg->max_total_size);
}

void gm_extract(guestfs_h *g, struct gm_job *job, const char *root)
{
	struct ctx c = {.g = g, .job = job};
	struct gm_meta *m = &job->meta;
	double t0 = gm_now();

	describe_os(g, m, root);
	if (strcmp(m->os, "linux")) {
		gm_job_conclude(job, ENOTSUP, "the OS on %s is %s, not Linux", m->root,
				m->os[0] ? m->os : "unknown");
		return;
	}
	if (mount_root(&c, root))
		return;
	gm_log("%s: %s %s (%s), mounted in the appliance", job->conf->name, m->distro,
	       m->osversion, m->product);
	copy_kernels(&c);
	m->files = c.files;
	m->bytes = c.bytes;
	m->extract_s = gm_now() - t0;
	if (guestfs_umount_all(g) && !job->done)
		gm_job_fail(job, true, EIO, "unmounting: %s", gm_gerr(g));
	if (!job->done) {
		gm_meta_sort_kernels(m);
		job->ret = 0;
		job->done = true;
	}
}
