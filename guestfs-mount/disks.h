/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Guest disks on the host: their identity (for the cache key and for
 * matching QEMU processes), the checks made before the appliance opens them,
 * and the private overlay through which the appliance reads them.
 *
 * Why a private overlay: libguestfs 1.48 adds a read-only drive as a qcow2
 * overlay with "-drive file.file.filename=OVERLAY,file.driver=qcow2" and no
 * top-level format, so QEMU probes the format of the overlay's content,
 * which is the guest's own disk content. A guest that writes a qcow2 header
 * (naming any host file or URL as its backing file) to its first sector
 * would have the host open that file. Our overlay is a qcow2 file whose
 * backing file is a json: description with an explicit driver and locking
 * off; it is added with format=qcow2, so nothing is ever probed, and the
 * guest's disk is only ever opened read-only, as a backing file.
 */
#ifndef GM_DISKS_H
#define GM_DISKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "guest/guest.h"

#define GM_PROBE_BYTES 2048 /* what QEMU reads to probe an image format */

struct gm_disk_info {
	dev_t dev, rdev;
	ino_t ino;
	uint64_t size; /* file (or block device) size */
	struct timespec mtime;
	uint64_t virtual_size;	/* size the appliance must see, 512-byte rounded */
	const char *looks_like; /* format its guest-visible start looks like, or NULL */
};

struct kp_err; /* base/err.h */

/*
 * Identify a disk and check it: it exists, a qcow2 disk has a qcow2 header,
 * records the format (raw or qcow2) of every backing file, and every backing
 * and data file down its chain passes gm_backing_check() (backing.h): a
 * regular file in an allow-backing folder of @cfg. With
 * @cfg->libguestfs_overlay (libguestfs's own read-only overlay, which lets
 * QEMU probe), a disk whose guest-visible first bytes look like an image
 * format is refused too; for a qcow2 disk qemu-img copies them into a fresh
 * private folder in @cfg->cache_dir (which only root may enter), removed
 * after.
 *
 * Returns 0, or a negative errno with @err saying which disk and why:
 *   -ENOENT, -EACCES, ...  the disk cannot be opened or read
 *   -EINVAL                not a regular file or block device, or empty
 *   -EMEDIUMTYPE           configured as qcow2 but has no qcow2 header
 *   -EPERM                 QEMU would probe its content (a backing file
 *                          without a recorded format; the overlay check), or
 *                          a backing or data file is not allowed
 *   -EIO, -ELOOP           qemu-img failed, or the backing chain is too deep
 *   -EACCES, -ENAMETOOLONG, ...   no private folder could be made in the cache
 */
int gm_disk_identify(const struct gm_disk *d, const struct gm_config *cfg,
		     struct gm_disk_info *info, struct kp_err *err);

/*
 * Create @ovl, a qcow2 overlay over @d with an explicit backing driver.
 * Returns 0, or -ENAMETOOLONG or -EIO (qemu-img failed) with @err set.
 */
int gm_overlay_create(const struct gm_disk *d, const char *ovl, struct kp_err *err);

/* The image format QEMU's probing would pick for these first bytes, or NULL for raw. */
const char *gm_probe_magic(const unsigned char *buf, size_t len);

#endif
