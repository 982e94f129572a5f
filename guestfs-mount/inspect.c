// SPDX-License-Identifier: GPL-2.0
#include "inspect.h"

#include <errno.h>
#include <fcntl.h>
#include <guestfs.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "disks.h"
#include "grub.h"
#include "util.h"

/* guestfs_pread fails at 4 MiB and above (protocol limit): read in pieces below it. */
#define CHUNK	  (2U << 20)
#define MAX_DEPTH 12 /* folders below lib/modules/<version> */
#define MAX_NAME  255

/* Inspection state of one job during the launch. */
struct ctx {
	guestfs_h *g;
	struct gm_job *job;
	uint64_t files, bytes; /* copied so far, against the per-guest limits */
	bool files_capped, bytes_capped;
};

static void free_strings(char **v)
{
	if (!v)
		return;
	for (char **p = v; *p; p++)
		free(*p);
	free(v);
}

static size_t count_strings(char **v)
{
	size_t n = 0;

	while (v && v[n])
		n++;
	return n;
}

static const char *gerr(guestfs_h *g)
{
	const char *e = guestfs_last_error(g);

	return e ? e : "unknown libguestfs error";
}

/*
 * End @job with errno @code and a message, sanitized: libguestfs's errors
 * quote guest strings. @retry: the cause may be the other guests in this
 * launch, so the guest is worth inspecting again alone.
 */
static int job_vfail(struct gm_job *job, bool retry, int code, const char *fmt,
		     va_list ap) __attribute__((format(printf, 4, 0)));

static int job_vfail(struct gm_job *job, bool retry, int code, const char *fmt,
		     va_list ap)
{
	char msg[sizeof(job->err.msg)], clean[sizeof(job->err.msg)];

	vsnprintf(msg, sizeof(msg), fmt, ap);
	gm_sanitize(clean, sizeof(clean), msg);
	job->ret = kp_errorf(&job->err, code ? code : EIO, "%s", clean);
	job->retry_alone = retry;
	job->done = true;
	return job->ret;
}

static int job_fail(struct gm_job *job, bool retry, int code, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int job_fail(struct gm_job *job, bool retry, int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	job_vfail(job, retry, code, fmt, ap);
	va_end(ap);
	return job->ret;
}

/*
 * A conclusion about the guest's content, not about this launch: kept in
 * the meta too (with its errno, see inspect.h), so that it is cached and
 * served until the disks change.
 */
static int job_conclude(struct gm_job *job, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int job_conclude(struct gm_job *job, int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	job_vfail(job, false, code, fmt, ap);
	va_end(ap);
	snprintf(job->meta.error, sizeof(job->meta.error), "%s", job->err.msg);
	job->meta.error_code = job->err.code;
	return job->ret;
}

/* --- which guest does a device belong to ---------------------------------------- */

/* "/dev/sda1" -> drive index of /dev/sda; "btrfsvol:/dev/sda2/sub" -> that of sda. */
static int drive_of_plain(guestfs_h *g, const char *dev)
{
	char buf[256], *whole;
	int idx;

	if (!strncmp(dev, "btrfsvol:", 9)) {
		const char *p = dev + 9, *slash;

		if (strncmp(p, "/dev/", 5) || !(slash = strchr(p + 5, '/')))
			return -1;
		snprintf(buf, sizeof(buf), "%.*s", (int)(slash - p), p);
		dev = buf;
	}
	whole = guestfs_part_to_dev(g, dev);
	idx = guestfs_device_index(g, whole ? whole : dev);
	free(whole);
	return idx;
}

/* An LVM logical volume: the drives of its volume group's physical volumes, if one. */
static int drive_of_lv(guestfs_h *g, const char *dev)
{
	char *lvuuid = guestfs_lvuuid(g, dev), **vgs = NULL, **pvs = NULL;
	int drive = -1;

	if (!lvuuid)
		return -1;
	vgs = guestfs_vgs(g);
	pvs = guestfs_pvs(g);
	for (size_t i = 0; vgs && pvs && vgs[i]; i++) {
		char **lvu = guestfs_vglvuuids(g, vgs[i]), **pvu;
		bool mine = false;

		for (size_t j = 0; lvu && lvu[j]; j++)
			mine |= !strncmp(lvu[j], lvuuid, 32);
		free_strings(lvu);
		if (!mine)
			continue;
		pvu = guestfs_vgpvuuids(g, vgs[i]);
		for (size_t j = 0; pvu && pvu[j]; j++) {
			for (size_t k = 0; pvs[k]; k++) {
				char *u = guestfs_pvuuid(g, pvs[k]);
				int d;

				if (!u || strncmp(u, pvu[j], 32)) {
					free(u);
					continue;
				}
				free(u);
				d = drive_of_plain(g, pvs[k]);
				if (d < 0 || (drive >= 0 && d != drive))
					drive = -2; /* spans drives: decided below */
				else if (drive != -2)
					drive = d;
			}
		}
		free_strings(pvu);
		break;
	}
	free_strings(vgs);
	free_strings(pvs);
	free(lvuuid);
	return drive;
}

/* The job whose disks hold @dev, or NULL when unknown or shared between guests. */
static struct gm_job *owner(guestfs_h *g, struct gm_job **jobs, size_t n, const char *dev)
{
	int d = drive_of_plain(g, dev);

	if (d < 0 && guestfs_is_lv(g, dev) > 0)
		d = drive_of_lv(g, dev);
	for (size_t i = 0; d >= 0 && i < n; i++)
		if (d >= jobs[i]->first_drive &&
		    d < jobs[i]->first_drive + (int)jobs[i]->conf->nr_disks)
			return jobs[i];
	return NULL;
}

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
	if (!f)
		return errno ? -errno : -EIO;
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
		if (got && fwrite(buf, 1, got, f) != got)
			ret = -EIO;
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
		return ret;
	}
	ret = gm_commit_tmp(f, tmp, host);
	if (!ret) {
		*copied = off;
		c->files++;
		c->bytes += off;
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
			gm_meta_note(&job->meta, "%s %s: %s", what, gpath, gerr(c->g));
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
			     ret == -EIO ? gerr(c->g) : strerror(-ret));
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

/* GRUB's default kernel (grub.cfg, grubenv), for choosing the default kernel. */
static void find_boot_default(struct ctx *c)
{
	static const char *const dirs[] = {"/boot/grub", "/boot/grub2"};
	struct gm_meta *m = &c->job->meta;

	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		char path[64], *cfg, *env;
		size_t cfg_len = 0, env_len = 0;
		int ret;

		snprintf(path, sizeof(path), "%s/grub.cfg", dirs[i]);
		cfg = read_small(c->g, path, GM_GRUB_MAX_CFG, &cfg_len);
		if (!cfg)
			continue;
		snprintf(path, sizeof(path), "%s/grubenv", dirs[i]);
		env = read_small(c->g, path, GM_GRUB_MAX_CFG, &env_len);
		ret = gm_grub_default(cfg, cfg_len, env, env_len, m->boot_default,
				      sizeof(m->boot_default));
		free(cfg);
		free(env);
		if (!ret && gm_version_valid(m->boot_default))
			return;
		m->boot_default[0] = '\0';
		gm_meta_note(m, "%s/grub.cfg: cannot tell its default entry's kernel",
			     dirs[i]);
		return;
	}
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
		if (e->ftyp == 'd') {
			ret = copy_tree(c, gpath, hpath, depth + 1, nr_files, skipped);
			continue;
		}
		if (c->files >= cfg->max_files) {
			c->files_capped = true;
			(*skipped)++;
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
	free_strings(names);
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
	free_strings(names);
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
		gm_meta_note(&c->job->meta, "modules of %s: %s", ver, gerr(c->g));
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
	size_t n = count_strings(mps) / 2;
	char *(*pairs)[2];
	int ret = 0;

	if (!mps)
		return job_fail(job, true, EIO, "listing the mountpoints of %s: %s", root,
				gerr(c->g));
	pairs = calloc(n ? n : 1, sizeof(*pairs));
	if (!pairs) {
		free_strings(mps);
		return job_fail(job, true, ENOMEM, "out of memory");
	}
	for (size_t i = 0; i < n; i++) {
		pairs[i][0] = mps[2 * i];
		pairs[i][1] = mps[2 * i + 1];
	}
	qsort(pairs, n, sizeof(*pairs), by_length);
	for (size_t i = 0; i < n && !ret; i++) {
		const char *mp = pairs[i][0], *dev = pairs[i][1];

		if (guestfs_mount_ro(c->g, dev, mp)) {
			if (!strcmp(mp, "/")) {
				ret = job_conclude(
					job, EIO,
					"cannot mount the root filesystem %s: %s", dev,
					gerr(c->g));
			} else {
				gm_meta_note(&job->meta, "cannot mount %s on %s: %s", dev,
					     mp, gerr(c->g));
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
	free_strings(mps);
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
		job_fail(job, true, ENOMEM, "out of memory");
		return;
	}
	nk = find_kernels(c, kernels, cfg->max_kernels);
	find_boot_default(c);
	if (!nk)
		job_conclude(job, ENOENT,
			     "no kernel installed "
			     "(no /boot/vmlinuz-* or /lib/modules/*/vmlinuz)");
	for (size_t i = 0; i < nk && !job->done; i++) {
		int ret;

		gm_log("%s: copying kernel %s out of the guest", job->conf->name,
		       kernels[i].ver);
		ret = extract_kernel(c, &kernels[i]);
		if (ret)
			job_fail(job, ret == -EIO, ret, "copying kernel %s: %s",
				 kernels[i].ver,
				 ret == -EIO ? gerr(c->g) : strerror(-ret));
	}
	free(kernels);
	if (c->files_capped)
		gm_meta_note(&job->meta, "stopped copying at %u files (max-files)",
			     cfg->max_files);
	if (c->bytes_capped)
		gm_meta_note(&job->meta, "stopped copying at %llu bytes (max-total-size)",
			     (unsigned long long)cfg->max_total_size);
}

static void inspect_one(guestfs_h *g, struct gm_job *job, const char *root)
{
	struct ctx c = {.g = g, .job = job};
	struct gm_meta *m = &job->meta;
	double t0 = gm_now();

	describe_os(g, m, root);
	if (strcmp(m->os, "linux")) {
		job_conclude(job, ENOTSUP, "the OS on %s is %s, not Linux", m->root,
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
		job_fail(job, true, EIO, "unmounting: %s", gerr(g));
	if (!job->done) {
		gm_meta_sort_kernels(m);
		job->ret = 0;
		job->done = true;
	}
}

/*
 * Every disk must appear in the appliance with the size it has on the host:
 * another size means QEMU read it as some other image format than the one
 * configured (format probing). Such a guest is refused.
 */
static void check_sizes(guestfs_h *g, struct gm_job **jobs, size_t n)
{
	char **devs = guestfs_list_devices(g);

	for (size_t i = 0; devs && devs[i]; i++) {
		int idx = guestfs_device_index(g, devs[i]);
		int64_t size = guestfs_blockdev_getsize64(g, devs[i]);

		for (size_t j = 0; idx >= 0 && j < n; j++) {
			struct gm_job *job = jobs[j];
			int d = idx - job->first_drive;

			if (job->done || d < 0 || d >= (int)job->conf->nr_disks ||
			    !job->vsizes[d] || size == (int64_t)job->vsizes[d])
				continue;
			job_conclude(job, EMEDIUMTYPE,
				     "disk %s appears as %lld bytes inside the appliance "
				     "instead of %llu: QEMU read it as another image "
				     "format than %s; refused",
				     job->conf->disks[d].path, (long long)size,
				     (unsigned long long)job->vsizes[d],
				     gm_format_name(job->conf->disks[d].format));
		}
	}
	free_strings(devs);
}

/* --- the launch --------------------------------------------------------------------- */

/*
 * Our qcow2 overlay over @disk, made in @ovl_dir and added to @g: the
 * guest's disk is only its backing file, opened read-only.
 */
static int add_overlay(guestfs_h *g, struct gm_job *job, const struct gm_disk *disk,
		       int drive, const char *ovl_dir)
{
	struct kp_err err = {0};
	char ovl[4200];
	int ret = gm_path(ovl, sizeof(ovl), "%s/%d.qcow2", ovl_dir, drive);

	if (ret)
		kp_errorf(&err, ret, "%s: path too long", ovl_dir);
	else
		ret = gm_overlay_create(disk, ovl, &err);
	if (ret)
		return job_fail(job, false, ret, "%s", err.msg);
	if (guestfs_add_drive_opts(g, ovl, GUESTFS_ADD_DRIVE_OPTS_FORMAT, "qcow2", -1))
		return job_fail(job, false, EIO, "disk %s: %s", disk->path, gerr(g));
	return 0;
}

/*
 * Add one disk of @job as drive @drive: through a private overlay in
 * @ovl_dir, or, with @ovl_dir NULL, read-only through libguestfs's own.
 */
static int add_drive(guestfs_h *g, struct gm_job *job, const struct gm_disk *disk,
		     int drive, const char *ovl_dir)
{
	if (ovl_dir)
		return add_overlay(g, job, disk, drive, ovl_dir);
	if (guestfs_add_drive_opts(g, disk->path, GUESTFS_ADD_DRIVE_OPTS_READONLY, 1,
				   GUESTFS_ADD_DRIVE_OPTS_FORMAT,
				   gm_format_name(disk->format), -1))
		return job_fail(job, false, EIO, "disk %s: %s", disk->path, gerr(g));
	return 0;
}

/*
 * Every disk of every job, in order. Returns the number of drives, or -1
 * with every job failed: the others only for sharing the launch.
 */
static int add_drives(guestfs_h *g, struct gm_job **jobs, size_t n, const char *ovl_dir)
{
	int drives = 0;

	for (size_t i = 0; i < n; i++) {
		const struct gm_guest_conf *gc = jobs[i]->conf;

		jobs[i]->first_drive = drives;
		for (size_t d = 0; d < gc->nr_disks; d++, drives++)
			if (add_drive(g, jobs[i], &gc->disks[d], drives, ovl_dir))
				goto failed;
	}
	return drives;
failed:
	for (size_t i = 0; i < n; i++)
		if (!jobs[i]->done)
			job_fail(jobs[i], true, EAGAIN,
				 "another guest's disk could not be added to the "
				 "appliance");
	return -1;
}

/* A folder in the cache for the private overlays, removed after the launch. */
static int make_ovl_dir(struct gm_job **jobs, size_t n, char *dir, size_t size)
{
	int ret = gm_path(dir, size, "%s/.tmp-overlays-XXXXXX", jobs[0]->cfg->cache_dir);

	if (!ret && !mkdtemp(dir))
		ret = -errno;
	if (!ret)
		return 0;
	dir[0] = '\0';
	for (size_t i = 0; i < n; i++)
		job_fail(jobs[i], true, ret,
			 "cannot create a folder for overlays in the cache");
	return ret;
}

static int launch(guestfs_h *g, struct gm_job **jobs, size_t n, int drives)
{
	double t0 = gm_now(), launch_s;

	if (n == 1)
		gm_log("%s: launching the libguestfs appliance (%d disk%s)",
		       jobs[0]->conf->name, drives, drives == 1 ? "" : "s");
	else
		gm_log("launching the libguestfs appliance for %zu guests (%d disks)", n,
		       drives);
	if (guestfs_launch(g)) {
		for (size_t i = 0; i < n; i++)
			job_fail(jobs[i], n > 1, EIO,
				 "the appliance did not start with %s disk%s: %s",
				 n > 1 ? "these guests'" : "this guest's",
				 jobs[i]->conf->nr_disks > 1 ? "s" : "", gerr(g));
		return -EIO;
	}
	launch_s = gm_now() - t0;
	for (size_t i = 0; i < n; i++)
		jobs[i]->meta.launch_s = launch_s;
	gm_log("appliance up in %.1f s; inspecting", launch_s);
	return 0;
}

/* The OS roots inspection finds on all the disks, or NULL with the jobs failed. */
static char **find_roots(guestfs_h *g, struct gm_job **jobs, size_t n)
{
	double t0 = gm_now();
	char **roots = guestfs_inspect_os(g);
	double inspect_s = gm_now() - t0;

	if (!roots) {
		/* Alone, the failure is this disk's doing (a partition past its end). */
		if (n == 1)
			job_conclude(jobs[0], EIO, "inspection failed: %s", gerr(g));
		else
			for (size_t i = 0; i < n; i++)
				job_fail(jobs[i], true, EIO, "inspection failed: %s",
					 gerr(g));
		return NULL;
	}
	gm_log("inspection found %zu operating system%s in %.1f s", count_strings(roots),
	       count_strings(roots) == 1 ? "" : "s", inspect_s);
	for (size_t i = 0; i < n; i++)
		jobs[i]->meta.inspect_s = inspect_s;
	return roots;
}

/*
 * With several guests in one appliance, every filesystem of the OS at @root
 * must be on @job's disks.
 */
static bool all_on_own_disks(guestfs_h *g, struct gm_job **jobs, size_t n,
			     struct gm_job *job, const char *root)
{
	char **mps = n > 1 ? guestfs_inspect_get_mountpoints(g, root) : NULL;
	bool ok = true;

	for (size_t i = 0; mps && mps[i] && mps[i + 1] && ok; i += 2) {
		ok = owner(g, jobs, n, mps[i + 1]) == job;
		if (!ok)
			job_fail(job, true, EAGAIN,
				 "filesystem %s of the OS on %s is not on this "
				 "guest's disks",
				 mps[i + 1], root);
	}
	free_strings(mps);
	return ok;
}

/* Each OS root to the guest whose disks hold it; the first one per guest wins. */
static void inspect_roots(guestfs_h *g, struct gm_job **jobs, size_t n, char **roots)
{
	for (size_t r = 0; roots[r]; r++) {
		struct gm_job *job = n == 1 ? jobs[0] : owner(g, jobs, n, roots[r]);

		if (!job) {
			gm_log("an OS root on %s belongs to no single guest; "
			       "its guests are inspected alone",
			       roots[r]);
			for (size_t i = 0; i < n; i++)
				if (!jobs[i]->done)
					jobs[i]->retry_alone = true;
			continue;
		}
		if (job->done || job->meta.root[0]) {
			if (!job->done)
				gm_meta_note(&job->meta, "another OS on %s ignored",
					     roots[r]);
			continue;
		}
		if (all_on_own_disks(g, jobs, n, job, roots[r]))
			inspect_one(g, job, roots[r]);
	}
}

/* The jobs no OS root was found for. */
static void conclude_no_os(struct gm_job **jobs, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		struct gm_job *job = jobs[i];

		if (job->done)
			continue;
		if (job->retry_alone) {
			job_fail(job, true, EAGAIN,
				 "inspection was ambiguous with other guests' disks");
			continue;
		}
		/* The errno that store.c's hint about disk formats looks for. */
		job_conclude(job, ENOMEDIUM, "no operating system found on the disk%s",
			     job->conf->nr_disks > 1 ? "s" : "");
	}
}

void gm_inspect(struct gm_job **jobs, size_t n)
{
	guestfs_h *g = guestfs_create();
	char ovl_dir[4096] = "", **roots = NULL;
	bool private = !jobs[0]->cfg->libguestfs_overlay;
	int drives;
	double t0;

	for (size_t i = 0; i < n; i++) {
		jobs[i]->ret = 0;
		jobs[i]->done = false;
		jobs[i]->retry_alone = false;
		kp_err_clear(&jobs[i]->err);
	}
	if (!g) {
		for (size_t i = 0; i < n; i++)
			job_fail(jobs[i], false, EIO,
				 "cannot create a libguestfs handle");
		return;
	}
	/* Errors are collected with guestfs_last_error and reported per guest. */
	guestfs_set_error_handler(g, NULL, NULL);
	guestfs_set_identifier(g, "guestfs-mount");
	if (private && make_ovl_dir(jobs, n, ovl_dir, sizeof(ovl_dir)))
		goto out;
	drives = add_drives(g, jobs, n, private ? ovl_dir : NULL);
	if (drives < 0 || launch(g, jobs, n, drives))
		goto out;
	check_sizes(g, jobs, n);
	roots = find_roots(g, jobs, n);
	if (!roots)
		goto out;
	inspect_roots(g, jobs, n, roots);
	conclude_no_os(jobs, n);
out:
	free_strings(roots);
	t0 = gm_now();
	guestfs_close(g);
	if (ovl_dir[0])
		gm_rm_rf(ovl_dir);
	gm_log("appliance closed (%.1f s)", gm_now() - t0);
}
