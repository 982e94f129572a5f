// SPDX-License-Identifier: GPL-2.0
#include "guest_names.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int guest_namer_open(struct guest_namer *n, const char *conf, const char *who,
		     struct kp_err *err)
{
	int ret =
		guest_namer_load(n, conf ? conf : GUESTS_CONF_DEFAULT, conf != NULL, err);

	if (ret && !conf) {
		fprintf(stderr, "%s: warning: %s; guests are named by -name only\n", who,
			err->msg);
		memset(err, 0, sizeof(*err));
		ret = 0;
	}
	return ret;
}

int guest_namer_note(const struct guest_namer *n, struct kvmfeat *kf, int pid,
		     uint64_t lstar)
{
	struct kvmfeat_guest *g;
	char name[GUEST_NAME_MAX];

	if (pid <= 0)
		return 0;
	g = kvmfeat_find(kf, pid);
	if (!g) {
		g = kvmfeat_get(kf, pid);
		if (!g)
			return -ENOMEM;
		/*
		 * Name it now (QEMU may be gone when recording ends), as guestfs-mount
		 * does: by the disk image it holds open, else by its -name when it
		 * runs as root, the QEMU user or the user recording. Another user's
		 * process calling itself web1 would have the report read web1's
		 * symbols for its samples: it stays unnamed.
		 */
		if (!guest_namer_name(n, pid, name, sizeof(name)))
			snprintf(g->name, sizeof(g->name), "%s", name);
	}
	if (lstar)
		g->lstar = lstar;
	return 0;
}
