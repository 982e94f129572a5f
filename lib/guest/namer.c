// SPDX-License-Identifier: GPL-2.0
#include "namer.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* Back to no guest list: -name alone, from root's and the caller's QEMUs. */
static void namer_reset(struct guest_namer *n)
{
	gm_config_release(&n->conf);
	free(n->idents);
	memset(n, 0, sizeof(*n));
	/* Without a configured qemu-user this only fails on a broken passwd. */
	guest_trust_of(&n->conf, &n->trust, NULL);
}

int guest_namer_load(struct guest_namer *n, const char *path, bool required,
		     struct kp_err *err)
{
	int ret;

	memset(n, 0, sizeof(*n));
	ret = gm_config_load(path, &n->conf, err);
	if (!ret)
		ret = guest_idents_of(&n->conf, &n->idents);
	if (!ret)
		ret = guest_trust_of(&n->conf, &n->trust, err);
	if (!ret)
		return 0;
	namer_reset(n);
	if (ret == -ENOENT && !required) {
		kp_err_clear(err);
		return 0;
	}
	return ret;
}

int guest_namer_name(const struct guest_namer *n, pid_t pid, char *name, size_t size)
{
	return guest_name_of_vmm(pid, n->idents, guest_namer_count(n), &n->trust, name,
				 size);
}

void guest_namer_release(struct guest_namer *n)
{
	gm_config_release(&n->conf);
	free(n->idents);
	memset(n, 0, sizeof(*n));
}
