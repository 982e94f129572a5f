/* SPDX-License-Identifier: GPL-2.0 */
/* Event names as perf spells them (-e cpu-clock,cycles,...) and their attrs. */
#ifndef KVMPROF_EVNAME_H
#define KVMPROF_EVNAME_H

#include <linux/perf_event.h>

#include "base/err.h"

/* Fill type and config for @name; other attr fields are left alone. */
int evname_parse(const char *name, struct perf_event_attr *attr, struct kp_err *err);

/* The name perf uses for a type/config pair, or "raw" when unknown. */
const char *evname_of(const struct perf_event_attr *attr);

#endif
