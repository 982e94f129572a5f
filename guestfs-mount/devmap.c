// SPDX-License-Identifier: GPL-2.0
#include "devmap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "extract.h"
#include "util.h"

int gm_drive_of(guestfs_h *g, const char *dev)
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

/*
 * "/dev/sdb3" -> disk 1, partition "3" (an empty one for a whole disk).
 * Letters count as drive names do: a..z, then aa..zz. Returns -1 for any
 * other name.
 */
static int disk_letter_index(const char *dev, const char **part)
{
	static const char *const prefixes[] = {"/dev/sd", "/dev/vd", "/dev/hd",
					       "/dev/xvd"};
	const char *p = NULL;
	int n = 0, letters = 0;

	for (size_t i = 0; !p && i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
		if (!strncmp(dev, prefixes[i], strlen(prefixes[i])))
			p = dev + strlen(prefixes[i]);
	if (!p)
		return -1;
	for (; *p >= 'a' && *p <= 'z'; p++)
		if (++letters > 2)
			return -1;
		else
			n = n * 26 + (*p - 'a' + 1);
	if (!letters)
		return -1;
	*part = p;
	for (; *p; p++)
		if (*p < '0' || *p > '9')
			return -1;
	return n - 1;
}

/* The appliance's name of handle drive @d, with partition @part, into @out. */
static bool drive_partition(guestfs_h *g, int d, const char *part, char *out, size_t size)
{
	char **devs = guestfs_list_devices(g);
	bool ok = false;

	if (devs && d < (int)gm_count_strings(devs)) {
		snprintf(out, size, "%s%s", devs[d], part);
		ok = gm_drive_of(g, out) == d;
	}
	gm_free_strings(devs);
	return ok;
}

bool gm_own_device(guestfs_h *g, const struct gm_job *job, const char *root,
		   const char *mp, const char *dev, char *out, size_t size)
{
	int d = gm_drive_of(g, dev), k;
	const char *part;

	snprintf(out, size, "%s", dev);
	if (d < 0 ||
	    (d >= job->first_drive && d < job->first_drive + (int)job->conf->nr_disks))
		return true;
	/* Inspection found this root on the guest's own drives (see owner()). */
	if (!strcmp(mp, "/")) {
		snprintf(out, size, "%s", root);
		return true;
	}
	k = disk_letter_index(dev, &part);
	if (k < 0 || k >= (int)job->conf->nr_disks)
		return false;
	if (!drive_partition(g, job->first_drive + k, part, out, size)) {
		snprintf(out, size, "%s", dev);
		return false;
	}
	return true;
}
