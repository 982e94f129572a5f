// SPDX-License-Identifier: GPL-2.0
#include "evname.h"

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

struct evdef {
	const char *name;
	const char *alias;
	uint32_t type;
	uint64_t config;
};

static const struct evdef events[] = {
	{"cpu-clock", NULL, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK},
	{"task-clock", NULL, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK},
	{"page-faults", "faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS},
	{"context-switches", "cs", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES},
	{"cpu-migrations", "migrations", PERF_TYPE_SOFTWARE,
	 PERF_COUNT_SW_CPU_MIGRATIONS},
	{"cycles", "cpu-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES},
	{"instructions", NULL, PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS},
	{"cache-misses", NULL, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES},
	{"cache-references", NULL, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES},
	{"branch-misses", NULL, PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES},
	{"branches", "branch-instructions", PERF_TYPE_HARDWARE,
	 PERF_COUNT_HW_BRANCH_INSTRUCTIONS},
};

int evname_parse(const char *name, struct perf_event_attr *attr, struct kp_err *err)
{
	for (size_t i = 0; i < sizeof(events) / sizeof(events[0]); i++) {
		if (strcmp(name, events[i].name) &&
		    (!events[i].alias || strcmp(name, events[i].alias)))
			continue;
		attr->type = events[i].type;
		attr->config = events[i].config;
		return 0;
	}
	return kp_errorf(err, EINVAL,
			 "unknown event '%s' (try cpu-clock, task-clock, cycles, "
			 "instructions)",
			 name);
}

const char *evname_of(const struct perf_event_attr *attr)
{
	for (size_t i = 0; i < sizeof(events) / sizeof(events[0]); i++)
		if (attr->type == events[i].type && attr->config == events[i].config)
			return events[i].name;
	return "raw";
}
