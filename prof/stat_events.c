// SPDX-License-Identifier: GPL-2.0
#include "stat_events.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perf/perf.h"

const char *stat_split_name(enum stat_split split)
{
	static const char *const names[] = {
		[STAT_SPLIT_HOST] = "host",
		[STAT_SPLIT_GUEST] = "guest",
		[STAT_SPLIT_ALL] = "host+guest",
		[STAT_SPLIT_VCPU] = "vcpu-threads",
	};

	return names[split];
}

static int add_event(const char *name, struct stat_event **evs, size_t *nr,
		     struct kp_err *err)
{
	struct stat_event ev = {0};
	struct stat_event *grown;
	int ret = evname_parse(name, &ev.attr, err);

	if (ret)
		return ret;
	snprintf(ev.name, sizeof(ev.name), "%s", name);
	ev.software = ev.attr.type == PERF_TYPE_SOFTWARE;
	ev.clock = ev.software && (ev.attr.config == PERF_COUNT_SW_CPU_CLOCK ||
				   ev.attr.config == PERF_COUNT_SW_TASK_CLOCK);
	grown = realloc(*evs, (*nr + 1) * sizeof(**evs));
	if (!grown)
		return kp_errorf(err, ENOMEM, "out of memory");
	*evs = grown;
	grown[(*nr)++] = ev;
	return 0;
}

int stat_events_parse(const char *list, bool system_wide, struct stat_event **out,
		      size_t *nr, struct kp_err *err)
{
	const char *defaults =
		system_wide ? "cpu-clock,context-switches,cycles,instructions"
			    : "task-clock,context-switches,cycles,instructions";
	char *copy = strdup(list ? list : defaults), *save = NULL, *name;
	int ret = 0;

	*out = NULL;
	*nr = 0;
	if (!copy)
		return kp_errorf(err, ENOMEM, "out of memory");
	for (name = strtok_r(copy, ",", &save); name && !ret;
	     name = strtok_r(NULL, ",", &save))
		ret = add_event(name, out, nr, err);
	free(copy);
	if (!ret && !*nr)
		ret = kp_errorf(err, EINVAL, "no event in -e '%s'", list);
	if (ret) {
		free(*out);
		*out = NULL;
		*nr = 0;
	}
	return ret;
}

void stat_event_attr(const struct stat_event *ev, enum stat_split split,
		     struct perf_event_attr *attr)
{
	memset(attr, 0, sizeof(*attr));
	attr->size = sizeof(*attr);
	attr->type = ev->attr.type;
	attr->config = ev->attr.config;
	attr->read_format =
		PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
	attr->disabled = 1;
	attr->exclude_guest = split == STAT_SPLIT_HOST;
	/* On vCPU threads too: meaningful for PMU events, ignored by software ones. */
	attr->exclude_host = split == STAT_SPLIT_GUEST || split == STAT_SPLIT_VCPU;
}
