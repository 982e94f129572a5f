// SPDX-License-Identifier: GPL-2.0
#include "backing.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* "disk D: " or "disk D: layer N (IMAGE): ", the start of every message. */
static void where(const struct gm_layer *l, char *buf, size_t size)
{
	if (l->depth)
		snprintf(buf, size, "disk %s: layer %d (%s): ", l->disk, l->depth,
			 l->image);
	else
		snprintf(buf, size, "disk %s: ", l->disk);
}

static int refuse(const struct gm_layer *l, struct kp_err *err, int code,
		  const char *what, const char *name, const char *real, const char *why)
{
	char at[8400];

	where(l, at, sizeof(at));
	if (real && strcmp(real, name))
		return kp_errorf(err, code, "%s%s %s (really %s) %s", at, what, name,
				 real, why);
	return kp_errorf(err, code, "%s%s %s %s", at, what, name, why);
}

/* QEMU's path_has_protocol(): a ':' before any '/' makes "proto:rest" a protocol. */
static bool has_protocol(const char *name)
{
	return name[strcspn(name, ":/")] == ':';
}

/* Does @real lie below one of the allowed folders (each resolved, as @real is)? */
static bool allowed(const struct gm_config *cfg, const char *real)
{
	for (size_t i = 0; i < cfg->nr_allow_backing; i++) {
		char dir[PATH_MAX];
		size_t len;

		/* A missing folder allows nothing; a symlinked one allows its target. */
		if (!realpath(cfg->allow_backing[i], dir))
			continue;
		len = strlen(dir);
		if (len == 1 || (!strncmp(real, dir, len) && real[len] == '/'))
			return true;
	}
	return false;
}

int gm_backing_check(const struct gm_config *cfg, const struct gm_layer *l,
		     const char *what, const char *name, struct kp_err *err)
{
	char real[PATH_MAX];
	struct stat st;

	if (has_protocol(name))
		return refuse(l, err, EPERM, what, name, NULL,
			      "is not a file name (a protocol or json: specification)");
	/* Relative data files are relative to QEMU's working folder: not ours to know. */
	if (name[0] != '/')
		return refuse(l, err, EPERM, what, name, NULL,
			      "is a relative path; record an absolute one");
	if (!realpath(name, real) || stat(real, &st)) {
		char why[128];
		int code = errno;

		snprintf(why, sizeof(why), "cannot be resolved: %s", strerror(code));
		return refuse(l, err, code, what, name, NULL, why);
	}
	if (S_ISBLK(st.st_mode) || S_ISCHR(st.st_mode))
		return refuse(l, err, EPERM, what, name, real,
			      "is a device node: never allowed in a chain");
	if (!S_ISREG(st.st_mode))
		return refuse(l, err, EPERM, what, name, real, "is not a regular file");
	if (!allowed(cfg, real))
		return refuse(l, err, EPERM, what, name, real,
			      "is outside every allow-backing folder (guests.conf)");
	return 0;
}
