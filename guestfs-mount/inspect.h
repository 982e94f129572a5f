/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Inspection through libguestfs: every disk added read-only with its
 * configured format, the appliance launched, the OS inspected and mounted
 * read-only inside the appliance, and each installed kernel's files copied
 * out (in bounded pieces, within the configured limits) into a folder of the
 * cache. Guest filesystems are only ever parsed inside the appliance, and
 * guest symlinks are only ever resolved there (guestfs_realpath).
 */
#ifndef GM_INSPECT_H
#define GM_INSPECT_H

#include <stdbool.h>
#include <stdint.h>

#include "config.h"
#include "meta.h"

/* Cache folder layout of one kernel, relative to the guest's folder. */
#define GM_K_DIR	   "k" /* k/<version>/ */
#define GM_F_VMLINUZ	   "guest-vmlinuz"
#define GM_F_SYSMAP	   "guest-System.map"
#define GM_F_CONFIG	   "guest-config"
#define GM_F_DEBUG_VMLINUX "guest-vmlinux-debug"
#define GM_F_DEBUG_SYSMAP  "guest-System.map-debug"
#define GM_D_MODULES	   "guest-modules" /* the lib/modules/<version> tree */

struct gm_job {
	const struct gm_guest_conf *conf;
	const struct gm_config *cfg;
	char dir[4096];		       /* empty folder to copy into */
	struct gm_meta meta;	       /* filled by inspection */
	int first_drive;	       /* index of its first disk in the handle */
	uint64_t vsizes[GM_MAX_DISKS]; /* size each disk must have in the appliance */
	int ret; /* 0, or a negative errno with meta.error / error set */
	char error[512];
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
