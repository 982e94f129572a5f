/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kvmprof's own perf.data feature (bit PD_FEAT_KVMPROF): which guest each
 * QEMU process ran and what is known of its kernel's placement, so that a
 * report made later, on another machine, names the same guests.
 *
 * Text, one line per fact, so that it stays readable with `strings`:
 *   kvmprof-feature 1
 *   guest PID NAME [slide=HEX|slide=-HEX] [slide-source=WORD] [lstar=HEX]
 */
#ifndef KVMPROF_KVMFEAT_H
#define KVMPROF_KVMFEAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "guest/guestid.h"

struct kvmfeat_guest {
	int pid;
	char name[GUEST_NAME_MAX]; /* "-" when unknown */
	bool has_slide;
	int64_t slide;
	char slide_source[32]; /* guest-context, debugfs, ... */
	uint64_t lstar;	       /* runtime entry_SYSCALL_64, 0 when unknown */
};

struct kvmfeat {
	struct kvmfeat_guest *guests;
	size_t nr;
};

struct kvmfeat_guest *kvmfeat_find(const struct kvmfeat *kf, int pid);
/* Find or add the entry for @pid (name "-"); NULL on allocation failure. */
struct kvmfeat_guest *kvmfeat_get(struct kvmfeat *kf, int pid);
int kvmfeat_encode(const struct kvmfeat *kf, char **buf, size_t *len);
int kvmfeat_decode(const void *buf, size_t len, const char *what, struct kvmfeat *kf,
		   struct kp_err *err);
void kvmfeat_release(struct kvmfeat *kf);

#endif
