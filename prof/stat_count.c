// SPDX-License-Identifier: GPL-2.0
#include "stat_count.h"

void stat_reading_add(struct stat_reading *sum, const struct stat_reading *r)
{
	sum->value += r->value;
	sum->enabled += r->enabled;
	sum->running += r->running;
}

static uint64_t minus(uint64_t a, uint64_t b)
{
	return a > b ? a - b : 0;
}

struct stat_reading stat_reading_delta(const struct stat_reading *now,
				       const struct stat_reading *then)
{
	return (struct stat_reading){
		.value = minus(now->value, then->value),
		.enabled = minus(now->enabled, then->enabled),
		.running = minus(now->running, then->running),
	};
}

/*
 * Summed over CPUs first, then scaled, as perf stat aggregates: the
 * estimate assumes the event ran at the same rate while it was off.
 */
struct stat_scaled stat_scale(const struct stat_reading *r)
{
	struct stat_scaled s = {0};

	if (!r->running)
		return s;
	s.counted = true;
	s.value = (double)r->value;
	s.percent = 100.0;
	if (r->running < r->enabled) {
		s.scaled = true;
		s.value = (double)r->value * (double)r->enabled / (double)r->running;
		s.percent = 100.0 * (double)r->running / (double)r->enabled;
	}
	return s;
}
