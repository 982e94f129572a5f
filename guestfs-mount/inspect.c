// SPDX-License-Identifier: GPL-2.0
/*
 * The appliance launch of an inspection: every guest's disks added as
 * drives (each through a private qcow2 overlay, or read-only through
 * libguestfs's own), the appliance started, each disk's size checked
 * against the host's, the OS roots found and each one given to the guest
 * whose disks hold it. extract.c takes a guest's OS from there.
 *
 * Apart from extract.c because this half deals with QEMU, the disks and
 * the sharing of one launch between guests, all of it decided by the
 * host's configuration; the other half reads what the guest wrote.
 */
#include "inspect.h"

#include <errno.h>
#include <guestfs.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "devmap.h"
#include "disks.h"
#include "extract.h"
#include "util.h"

/* --- ending a job (extract.h) ------------------------------------------------------ */

/* The message is sanitized: libguestfs's errors quote guest strings. */
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

int gm_job_fail(struct gm_job *job, bool retry, int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	job_vfail(job, retry, code, fmt, ap);
	va_end(ap);
	return job->ret;
}

int gm_job_conclude(struct gm_job *job, int code, const char *fmt, ...)
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
		gm_free_strings(lvu);
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
				d = gm_drive_of(g, pvs[k]);
				if (d < 0 || (drive >= 0 && d != drive))
					drive = -2; /* spans drives: decided below */
				else if (drive != -2)
					drive = d;
			}
		}
		gm_free_strings(pvu);
		break;
	}
	gm_free_strings(vgs);
	gm_free_strings(pvs);
	free(lvuuid);
	return drive;
}

/* The job whose disks hold @dev, or NULL when unknown or shared between guests. */
static struct gm_job *owner(guestfs_h *g, struct gm_job **jobs, size_t n, const char *dev)
{
	int d = gm_drive_of(g, dev);

	if (d < 0 && guestfs_is_lv(g, dev) > 0)
		d = drive_of_lv(g, dev);
	for (size_t i = 0; d >= 0 && i < n; i++)
		if (d >= jobs[i]->first_drive &&
		    d < jobs[i]->first_drive + (int)jobs[i]->conf->nr_disks)
			return jobs[i];
	return NULL;
}

static void refuse_size(struct gm_job *job, int d, int64_t size)
{
	const struct gm_disk *disk = &job->conf->disks[d];

	gm_job_conclude(job, EMEDIUMTYPE,
			"disk %s appears as %lld bytes inside the appliance instead of "
			"%llu: QEMU read it as another image format than %s; refused",
			disk->path, (long long)size, (unsigned long long)job->vsizes[d],
			gm_format_name(disk->format));
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
			refuse_size(job, d, size);
		}
	}
	gm_free_strings(devs);
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
		return gm_job_fail(job, false, ret, "%s", err.msg);
	if (guestfs_add_drive_opts(g, ovl, GUESTFS_ADD_DRIVE_OPTS_FORMAT, "qcow2", -1))
		return gm_job_fail(job, false, EIO, "disk %s: %s", disk->path,
				   gm_gerr(g));
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
		return gm_job_fail(job, false, EIO, "disk %s: %s", disk->path,
				   gm_gerr(g));
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
			gm_job_fail(jobs[i], true, EAGAIN,
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
		gm_job_fail(jobs[i], true, ret,
			    "cannot create a folder for overlays in the cache");
	return ret;
}

/*
 * The appliance's vCPUs: under software emulation a second one boots it
 * 2 s sooner (median of seven launches 13.5 s against 15.6 s on a 2-CPU
 * host; inspection took as long); never more than the host has online.
 */
static int appliance_cpus(const struct gm_config *cfg)
{
	long online = sysconf(_SC_NPROCESSORS_ONLN);

	if (online > 0 && online < (long)cfg->appliance_cpus)
		return (int)online;
	return (int)cfg->appliance_cpus;
}

static int launch(guestfs_h *g, struct gm_job **jobs, size_t n, int drives)
{
	double t0 = gm_now(), launch_s;
	int cpus = appliance_cpus(jobs[0]->cfg);

	if (n == 1)
		gm_log("%s: launching the libguestfs appliance (%d disk%s)",
		       jobs[0]->conf->name, drives, drives == 1 ? "" : "s");
	else
		gm_log("launching the libguestfs appliance for %zu guests (%d disks)", n,
		       drives);
	if (guestfs_set_smp(g, cpus) || guestfs_launch(g)) {
		for (size_t i = 0; i < n; i++)
			gm_job_fail(jobs[i], n > 1, EIO,
				    "the appliance did not start with %s disk%s: %s",
				    n > 1 ? "these guests'" : "this guest's",
				    jobs[i]->conf->nr_disks > 1 ? "s" : "", gm_gerr(g));
		return -EIO;
	}
	launch_s = gm_now() - t0;
	for (size_t i = 0; i < n; i++)
		jobs[i]->meta.launch_s = launch_s;
	gm_log("appliance up in %.1f s (%d vCPU%s); inspecting", launch_s, cpus,
	       cpus == 1 ? "" : "s");
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
			gm_job_conclude(jobs[0], EIO, "inspection failed: %s",
					gm_gerr(g));
		else
			for (size_t i = 0; i < n; i++)
				gm_job_fail(jobs[i], true, EIO, "inspection failed: %s",
					    gm_gerr(g));
		return NULL;
	}
	gm_log("inspection found %zu operating system%s in %.1f s",
	       gm_count_strings(roots), gm_count_strings(roots) == 1 ? "" : "s",
	       inspect_s);
	for (size_t i = 0; i < n; i++)
		jobs[i]->meta.inspect_s = inspect_s;
	return roots;
}

/*
 * With several guests in one appliance, every filesystem of the OS at @root
 * must be on @job's disks, once the guest's own device names are mapped
 * onto them (devmap.h).
 */
static bool all_on_own_disks(guestfs_h *g, struct gm_job **jobs, size_t n,
			     struct gm_job *job, const char *root)
{
	char **mps = n > 1 ? guestfs_inspect_get_mountpoints(g, root) : NULL;
	char dev[256];
	bool ok = true;

	for (size_t i = 0; mps && mps[i] && mps[i + 1] && ok; i += 2) {
		ok = gm_own_device(g, job, root, mps[i], mps[i + 1], dev, sizeof(dev)) &&
		     owner(g, jobs, n, dev) == job;
		if (!ok)
			gm_job_fail(job, true, EAGAIN,
				    "filesystem %s of the OS on %s is not on this "
				    "guest's disks",
				    mps[i + 1], root);
	}
	gm_free_strings(mps);
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
			gm_extract(g, job, roots[r]);
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
			gm_job_fail(job, true, EAGAIN,
				    "inspection was ambiguous with other guests' disks");
			continue;
		}
		/* The errno that store.c's hint about disk formats looks for. */
		gm_job_conclude(job, ENOMEDIUM, "no operating system found on the disk%s",
				job->conf->nr_disks > 1 ? "s" : "");
	}
}

/*
 * A QEMU that died (killed, out of memory) makes every later call fail:
 * what the jobs concluded since then says nothing about the disks. Each
 * becomes a failure of the host, not cached and tried again.
 */
static void check_appliance_alive(guestfs_h *g, struct gm_job **jobs, size_t n)
{
	if (guestfs_is_ready(g) == 1)
		return;
	gm_log("the appliance stopped during the inspection");
	for (size_t i = 0; i < n; i++) {
		char was[sizeof(jobs[i]->err.msg)];

		snprintf(was, sizeof(was), "%s", jobs[i]->err.msg);
		kp_err_clear(&jobs[i]->err); /* kp_errorf() keeps a first error */
		gm_job_fail(jobs[i], false, EIO,
			    "the appliance stopped during the inspection%s%s",
			    was[0] ? ": " : "", was);
		jobs[i]->meta.error[0] = '\0';
		jobs[i]->meta.error_code = 0;
	}
}

void gm_inspect(struct gm_job **jobs, size_t n)
{
	guestfs_h *g = guestfs_create();
	char ovl_dir[4096] = "", **roots = NULL;
	bool private = !jobs[0]->cfg->libguestfs_overlay;
	bool launched = false;
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
			gm_job_fail(jobs[i], false, EIO,
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
	launched = true;
	check_sizes(g, jobs, n);
	roots = find_roots(g, jobs, n);
	if (!roots)
		goto out;
	inspect_roots(g, jobs, n, roots);
	conclude_no_os(jobs, n);
out:
	if (launched)
		check_appliance_alive(g, jobs, n);
	gm_free_strings(roots);
	t0 = gm_now();
	guestfs_close(g);
	if (ovl_dir[0])
		gm_rm_rf(ovl_dir);
	gm_log("appliance closed (%.1f s)", gm_now() - t0);
}
