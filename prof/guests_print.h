/* SPDX-License-Identifier: GPL-2.0 */
/* kvmprof guests' output: one block per guest, or JSON. */
#ifndef KVMPROF_GUESTS_PRINT_H
#define KVMPROF_GUESTS_PRINT_H

#include <stdio.h>

#include "guest_kernel.h"
#include "guest/guest.h"

struct guest_row {
	struct vmproc vm;
	bool readable; /* /proc/<pid> could be read */
	char why_unreadable[sizeof(((struct kp_err *)0)->msg)];
	char name[GUEST_NAME_MAX]; /* "" when unnamed */
	const char *named_by;	   /* what gave the name, or why there is none */
	bool served;		   /* <mount>/<name>/ exists */
	struct guest_kernel kernel;
};

/* @mount: the guest tree asked for, NULL for GUEST_MOUNT_DEFAULT. */
void guests_print_text(FILE *out, const struct guest_row *rows, size_t n,
		       size_t appliances, const char *mount);
void guests_print_json(FILE *out, const struct guest_row *rows, size_t n,
		       const char *mount);

#endif
