/* SPDX-License-Identifier: GPL-2.0 */
/*
 * guest: what the daemon and the profiler agree on about guests. Guest names,
 * which QEMU process runs which guest, a running guest's registers from
 * KVM's debugfs, and where a guest's kernel symbols are.
 */
#ifndef KVMPROF_GUEST_H
#define KVMPROF_GUEST_H

#include "guestid.h"
#include "guestconf.h"
#include "match.h"
#include "namer.h"
#include "vmmtrust.h"
#include "vmproc.h"
#include "kvmdebugfs.h"
#include "kvmhost.h"
#include "guestsyms.h"
#include "layout.h"

#endif
