/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Naming the guests a sample stream shows, while their QEMUs still run:
 * the one place record and top fill the guest table (kvmfeat.h) from, with
 * the guest namer every command shares (guest/namer.h).
 */
#ifndef KVMPROF_GUEST_NAMES_H
#define KVMPROF_GUEST_NAMES_H

#include <stdbool.h>

#include "base/base.h"
#include "guest/guest.h"
#include "perf/perf.h"

/*
 * guest_namer_load() for the command line's --guests-conf @conf, or (NULL)
 * the default: a broken default guests.conf belongs to the daemon, so @who
 * warns on stderr and names guests by -name only. One given must be right.
 */
int guest_namer_open(struct guest_namer *n, const char *conf, const char *who,
		     struct kp_err *err);

/*
 * A guest sample of VMM @pid with its context's LSTAR (0: none): add @pid
 * to @kf, named at first sight, and keep the latest LSTAR.
 */
int guest_namer_note(const struct guest_namer *n, struct kvmfeat *kf, int pid,
		     uint64_t lstar);

#endif
