// SPDX-License-Identifier: GPL-2.0
#include "evsetup.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * The deepest chain the kernel accepts (kernel.perf_event_max_stack), as
 * perf asks for it; perf's default when the sysctl cannot be read.
 */
static uint16_t max_stack(void)
{
	FILE *f = fopen("/proc/sys/kernel/perf_event_max_stack", "r");
	unsigned long v = 0;

	if (f) {
		if (fscanf(f, "%lu", &v) != 1)
			v = 0;
		fclose(f);
	}
	if (!v)
		return EVSETUP_MAX_STACK_DEFAULT;
	return v > UINT16_MAX ? UINT16_MAX : (uint16_t)v;
}

/*
 * IDENTIFIER, IP, TID and TIME come first: record_state.c and the live
 * session read a sample's pid and time at these fixed places (after
 * IDENTIFIER while it is there: evsetup_single_event()). The kernel
 * writes a call chain after PERIOD, so asking for one leaves them there.
 */
static void fill_attr(const struct event_opts *o, struct perf_event_attr *attr)
{
	attr->size = sizeof(*attr);
	attr->sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
			    PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD;
	if (o->callchain) {
		attr->sample_type |= PERF_SAMPLE_CALLCHAIN;
		attr->sample_max_stack = max_stack();
	}
	if (o->period) {
		attr->sample_period = o->period;
	} else {
		attr->freq = 1;
		attr->sample_freq = o->freq ? o->freq : 4000;
	}
	attr->disabled = 1;
	attr->sample_id_all = 1;
	attr->exclude_guest = o->host && !o->guest;
	attr->exclude_host = o->guest && !o->host;
	if (!o->system_wide) {
		attr->inherit = 1;
		attr->enable_on_exec = o->enable_on_exec;
	}
}

void evsetup_single_event(struct evlist *el)
{
	if (el->nr_evsels == 1)
		el->evsels[0].attr.sample_type &= ~(uint64_t)PERF_SAMPLE_IDENTIFIER;
}

int evsetup_add_events(const struct event_opts *o, struct evlist *el, struct kp_err *err)
{
	char *list = strdup(o->events ? o->events : "cpu-clock"), *save = NULL, *name;
	int ret = 0;

	if (!list)
		return kp_errorf(err, ENOMEM, "out of memory");
	for (name = strtok_r(list, ",", &save); name && !ret;
	     name = strtok_r(NULL, ",", &save)) {
		struct perf_event_attr attr = {0};

		ret = evname_parse(name, &attr, err);
		if (ret)
			break;
		fill_attr(o, &attr);
		/* Process and mapping records are needed once, from the first event. */
		attr.mmap = attr.comm = attr.task = el->nr_evsels == 0;
		ret = evlist_add(el, &attr, name)
			      ? kp_errorf(err, ENOMEM, "out of memory")
			      : 0;
	}
	free(list);
	return ret;
}

bool evsetup_guest_ctx(struct evlist *el, char *why, size_t why_size)
{
	struct guestctx_host host;
	int probe;

	if (!el->nr_evsels)
		return false;
	probe = guestctx_probe(&el->evsels[0].attr);
	if (probe != 1) {
		guestctx_host_probe(&host);
		guestctx_explain(probe, &host, why, why_size);
		return false;
	}
	for (size_t e = 0; e < el->nr_evsels; e++)
		el->evsels[e].attr.sample_type |= PERF_SAMPLE_GUEST_CTX;
	return true;
}

int evsetup_file_evsels(const struct evlist *el, struct pd_evsel **out)
{
	struct pd_evsel *evs = calloc(el->nr_evsels ? el->nr_evsels : 1, sizeof(*evs));

	*out = evs;
	if (!evs)
		return -ENOMEM;
	for (size_t i = 0; i < el->nr_evsels; i++) {
		evs[i].attr = el->evsels[i].attr;
		evs[i].attr.sample_type &= ~PERF_SAMPLE_GUEST_CTX;
		evs[i].ids = el->evsels[i].ids;
		evs[i].nr_ids = el->evsels[i].nr_ids;
		snprintf(evs[i].name, sizeof(evs[i].name), "%s", el->evsels[i].name);
	}
	return 0;
}
