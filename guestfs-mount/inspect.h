/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Inspection through libguestfs: every disk added read-only with its
 * configured format, the appliance launched, the OS inspected and mounted
 * read-only inside the appliance, and each installed kernel's files copied
 * out (in bounded pieces, within the configured limits) into a folder of the
 * cache. Guest filesystems are only ever parsed inside the appliance, and
 * guest symlinks are only ever resolved there (guestfs_realpath).
 *
 * inspect.c does the launch and gives each OS found to its guest;
 * extract.c copies one guest's kernels out (extract.h is between them).
 */
#ifndef GM_INSPECT_H
#define GM_INSPECT_H

#include <stdbool.h>
#include <stdint.h>

#include "guest/guest.h"
#include "meta.h"
#include "base/err.h"

/* Cache folder layout of one kernel, relative to the guest's folder. */
#define GM_K_DIR	   "k" /* k/<version>/ */
#define GM_F_VMLINUZ	   "guest-vmlinuz"
#define GM_F_SYSMAP	   "guest-System.map"
#define GM_F_CONFIG	   "guest-config"
#define GM_F_DEBUG_VMLINUX "guest-vmlinux-debug"
#define GM_F_DEBUG_SYSMAP  "guest-System.map-debug"
#define GM_D_MODULES	   "guest-modules" /* the lib/modules/<version> tree */

/*
 * How a job ends: ret is 0, or a negative errno with err saying why. A
 * conclusion about the guest's content is also copied to meta.error, with
 * its errno (positive) in meta.error_code, so that it is cached:
 *
 *   -ENOMEDIUM    no operating system found on the guest's disks. This is
 *                 the signal for the hint that a disk configured as raw but
 *                 starting like an image format may have the wrong format
 *                 (store.c tests meta.error_code, never the message text).
 *   -EMEDIUMTYPE  a disk appears inside the appliance with another size
 *                 than on the host: QEMU read it as another format
 *   -ENOTSUP      the OS found is not Linux
 *   -ENOENT       no kernel installed
 *   -EIO          inspection (alone) or mounting the root filesystem failed
 *
 * Any other failure (the appliance, the host, -EAGAIN for a launch shared
 * with other guests that was ambiguous) leaves meta.error empty and is not
 * cached; retry_alone says that a launch for this guest alone may succeed.
 * When the appliance dies during a launch, every conclusion of that launch
 * becomes such a failure (-EIO): calls fail after it whatever the disk
 * holds. A file the host cannot write (-ENOSPC, -EDQUOT) fails the job too,
 * with that errno: a cache entry with files missing is never made.
 */
struct gm_job {
	const struct gm_guest_conf *conf;
	const struct gm_config *cfg;
	char dir[4096];		       /* empty folder to copy into */
	struct gm_meta meta;	       /* filled by inspection */
	int first_drive;	       /* index of its first disk in the handle */
	uint64_t vsizes[GM_MAX_DISKS]; /* size each disk must have in the appliance */
	int ret;		       /* 0 or a negative errno, see above */
	struct kp_err err;	       /* why, when ret is not 0 */
	bool retry_alone; /* failed for a reason another launch may not share */
	bool done;
};

/*
 * Inspect @n guests in one appliance launch. Each job ends with ret == 0
 * (meta and the folder filled) or an error; an error that concerns the
 * appliance rather than the guest's content sets retry_alone.
 */
void gm_inspect(struct gm_job **jobs, size_t n);

#endif
