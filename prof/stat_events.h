/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The events kvmprof stat counts (-e, by record's names in perf/evname.h,
 * or perf stat's defaults) and how each splits between host and guest.
 *
 * A PMU event splits in the kernel: exclude_guest=1 counts the host only,
 * exclude_host=1 the guest only. A software event cannot: the kernel
 * ignores both bits for cpu-clock, task-clock, context-switches, ..., so
 * such a pair would print the same total twice, once as "guest". Its guest
 * part is measured instead on the guests' vCPU threads (stat_guests.h).
 */
#ifndef KVMPROF_STAT_EVENTS_H
#define KVMPROF_STAT_EVENTS_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>

#include "base/base.h"

/* Which part of an event a counter sees. */
enum stat_split {
	STAT_SPLIT_HOST,  /* PMU event, exclude_guest=1 */
	STAT_SPLIT_GUEST, /* PMU event, exclude_host=1 */
	STAT_SPLIT_ALL,	  /* software event: host and guest, unsplit */
	STAT_SPLIT_VCPU,  /* software event on vCPU threads: guest mode and
			     the KVM exits those threads handle */
};

struct stat_event {
	char name[64];
	struct perf_event_attr attr; /* type and config */
	bool software;		     /* the kernel cannot split it */
	bool clock;		     /* counts nanoseconds */
};

/* "host", "guest", "host+guest", "vcpu-threads". */
const char *stat_split_name(enum stat_split split);

/*
 * Parse comma-separated @list, or with NULL perf stat's defaults:
 * task-clock (cpu-clock for @system_wide), context-switches, cycles,
 * instructions. Free *@out with free().
 */
int stat_events_parse(const char *list, bool system_wide, struct stat_event **out,
		      size_t *nr, struct kp_err *err);

/* The host-only or guest-only attr of @ev for @split, counting, disabled. */
void stat_event_attr(const struct stat_event *ev, enum stat_split split,
		     struct perf_event_attr *attr);

#endif
