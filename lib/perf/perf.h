/* SPDX-License-Identifier: GPL-2.0 */
/*
 * perf: the perf.data file and the event stream. Reading and writing the
 * file (perfdata.h), its records in time order (ordered_events.h), events
 * and their names (evlist.h, evname.h), synthesized records (synth.h), and
 * kvmprof's own feature sections: the guest table (kvmfeat.h), per-sample
 * guest context (guestctx.h) and guest kernel maps (guestkmap.h). The
 * embedded host kernel symbols are a ksym blob (ksym/ksymblob.h).
 */
#ifndef KVMPROF_PERF_H
#define KVMPROF_PERF_H

#include "perfdata.h"
#include "ordered_events.h"
#include "evlist.h"
#include "evname.h"
#include "synth.h"
#include "kvmfeat.h"
#include "guestctx.h"
#include "guestkmap.h"

#endif
