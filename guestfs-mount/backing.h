/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Files a qcow2 image names for QEMU to open: backing files and external data
 * files. QEMU opens them when the appliance starts, as root and read-only, and
 * what they hold becomes part of the guest's disk, read inside the appliance
 * and served back. A backing file of /etc/shadow (recorded as raw) or of the
 * host's root disk would serve host secrets as guest files. So each such file
 * must be a regular file whose real path (symlinks resolved) lies in one of
 * the folders guests.conf allows ("allow-backing DIR"); device nodes never.
 */
#ifndef GM_BACKING_H
#define GM_BACKING_H

#include "guest/guest.h"

#define GM_CHAIN_MAX 16 /* images in one backing chain, the disk included */

/* One image of a disk's chain: @depth 0 is the configured disk itself. */
struct gm_layer {
	const char *disk;
	const char *image;
	int depth;
};

/*
 * May QEMU open @name, which layer @l names as its @what ("backing file" or
 * "data file")? @name must be an absolute path, as QEMU resolves it; plain
 * file names only, no protocol ("nbd:", "json:", ...).
 *
 * Returns 0, or a negative errno with @err naming the disk, the layer, the
 * file and the reason:
 *   -EPERM    a protocol, a relative path, a device node, not a regular
 *             file, or outside every allow-backing folder
 *   -ENOENT, ...  it cannot be resolved
 */
int gm_backing_check(const struct gm_config *cfg, const struct gm_layer *l,
		     const char *what, const char *name, struct kp_err *err);

#endif
