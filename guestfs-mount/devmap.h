/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A guest's own names for its filesystems, in an appliance shared with
 * other guests. Inside its VM a guest sees only its own disks, so the
 * /dev/sda1 of its fstab is its first disk; libguestfs resolves that name
 * against the appliance's drives, where /dev/sda1 is the first drive of the
 * first guest. gm_own_device() maps such a name back onto the drives the
 * guest was given.
 */
#ifndef GM_DEVMAP_H
#define GM_DEVMAP_H

#include <guestfs.h>
#include <stdbool.h>
#include <stddef.h>

#include "inspect.h"

/*
 * The drive (handle index) a device or partition is on, or -1: "/dev/sda1"
 * -> that of /dev/sda; "btrfsvol:/dev/sda2/sub" -> that of sda.
 */
int gm_drive_of(guestfs_h *g, const char *dev);

/*
 * The device @job's filesystem @dev (as inspection resolved its fstab entry
 * for mountpoint @mp of the OS at @root) really is, into @out:
 *   - @dev itself when it is on @job's drives, or is no plain disk name (a
 *     logical volume: the caller judges it);
 *   - @root for "/": inspection found the root on @job's drives;
 *   - else, for a name like /dev/sdXN (or vd, hd, xvd) whose disk letter is
 *     one of @job's disks counted from its first, the same partition of
 *     @job's drive.
 * False when @dev is a plain disk name of another guest's drive that cannot
 * be mapped (@out then holds @dev).
 */
bool gm_own_device(guestfs_h *g, const struct gm_job *job, const char *root,
		   const char *mp, const char *dev, char *out, size_t size);

#endif
