/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kvmprof stat's report: the target's counters, event by event, host and
 * guest; with -a the guests' vCPU threads, and one block per guest name.
 * Once at the end, or every -I interval with what was counted since the
 * last one.
 */
#ifndef KVMPROF_STAT_PRINT_H
#define KVMPROF_STAT_PRINT_H

#include <stdbool.h>
#include <stdio.h>

#include "stat_counter.h"
#include "stat_guests.h"

struct stat_report {
	FILE *out;
	const char *target; /* "'sleep 1'", "system wide", "process id '42'" */
	const char *sep;    /* -x, or NULL */
	bool interval;	    /* -I */
	const struct stat_event *evs;
	size_t nr_events;
	struct stat_counter *counters; /* per event: host, guest; or one, software */
	size_t nr_counters;
	struct stat_vms *vms; /* -a: the guests' vCPU threads; else NULL */
	bool header_done;
};

/*
 * Read every counter and print: everything so far, or with r->interval
 * what was counted since the last call, each line stamped @timestamp
 * (seconds). @wall_ns is the time the counts cover, for "CPUs utilized".
 */
int stat_report_print(struct stat_report *r, double timestamp, double wall_ns);

/* "   0.300957084 seconds time elapsed", as perf stat ends. */
void stat_report_elapsed(const struct stat_report *r, double seconds);

#endif
