/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What one counting event says when read (PERF_FORMAT_TOTAL_TIME_ENABLED |
 * PERF_FORMAT_TOTAL_TIME_RUNNING), and its estimate when the PMU had more
 * events than counters and multiplexed them, as perf stat scales it.
 */
#ifndef KVMPROF_STAT_COUNT_H
#define KVMPROF_STAT_COUNT_H

#include <stdbool.h>
#include <stdint.h>

/* The layout read(2) returns for that read_format. */
struct stat_reading {
	uint64_t value;
	uint64_t enabled; /* ns the event was enabled */
	uint64_t running; /* ns it was on a counter */
};

struct stat_scaled {
	double value;	/* value * enabled / running */
	double percent; /* running / enabled, in percent */
	bool counted;	/* it ran at all: else perf's "<not counted>" */
	bool scaled;	/* it ran only part of the time */
};

void stat_reading_add(struct stat_reading *sum, const struct stat_reading *r);

/* @now - @then, for one interval; counters only grow. */
struct stat_reading stat_reading_delta(const struct stat_reading *now,
				       const struct stat_reading *then);

struct stat_scaled stat_scale(const struct stat_reading *r);

#endif
