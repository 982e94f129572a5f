/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What names a running guest: guests.conf's guests, by the disks they hold
 * open, and the accounts whose QEMU -name is believed. Loaded once by every
 * command that names QEMU processes (record, guests, stat), so that they
 * agree on a name and on a broken or missing guests.conf.
 */
#ifndef KVMPROF_GUEST_NAMER_H
#define KVMPROF_GUEST_NAMER_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "base/err.h"
#include "guestconf.h"
#include "match.h"
#include "vmmtrust.h"

struct guest_namer {
	struct gm_config conf;
	struct guest_ident *idents; /* one per conf guest, NULL when none */
	struct guest_trust trust;
};

/*
 * Load guests.conf from @path. A missing file is fine unless @required (it
 * was given on the command line). On any error @n still names guests, by
 * -name only, from root's and the caller's QEMUs: a caller may warn and go on.
 */
int guest_namer_load(struct guest_namer *n, const char *path, bool required,
		     struct kp_err *err);

/* The configured guests known by their disks. */
static inline size_t guest_namer_count(const struct guest_namer *n)
{
	return n->idents ? n->conf.nr_guests : 0;
}

/* guest_name_of_vmm() with @n's guests and trust. */
int guest_namer_name(const struct guest_namer *n, pid_t pid, char *name, size_t size);

void guest_namer_release(struct guest_namer *n);

#endif
