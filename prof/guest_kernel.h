/* SPDX-License-Identifier: GPL-2.0 */
/* A running guest's kernel and KASLR slide, found as report finds them. */
#ifndef KVMPROF_GUEST_KERNEL_H
#define KVMPROF_GUEST_KERNEL_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "guest/guest.h"

struct guest_kernel {
	char release[128];		  /* "" when unknown */
	char symbols[GUESTSYMS_PATH_MAX]; /* the table the slide was found with */
	bool from_daemon; /* guestfs-mount's info gave the slide (@symbols: that file) */
	uint64_t lstar;	  /* 0 when unknown */
	bool have_slide;
	int64_t slide;
	char why[1200]; /* without a slide: why not */
};

/* The kernel of guest @name (NULL when unknown) run by QEMU process @pid. */
void guest_kernel_find(const struct guestsyms_opts *o, const char *name, pid_t pid,
		       struct guest_kernel *k);

/*
 * The kernel release guest @name (NULL when unknown) run by QEMU process
 * @pid runs, from the guest tree (perf's by-pid proc/version, else
 * guestfs-mount's <name>/version); "" when unknown.
 */
void guest_kernel_release(const struct guestsyms_opts *o, const char *name, pid_t pid,
			  char *out, size_t size);

#endif
