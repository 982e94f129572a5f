/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Which events kvmprof samples and with which attributes: the one setup
 * that record and top share, so that a live view samples exactly what a
 * recording would.
 */
#ifndef KVMPROF_EVSETUP_H
#define KVMPROF_EVSETUP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/base.h"
#include "perf/perf.h"

struct event_opts {
	const char *events;   /* "cpu-clock,cycles"; NULL: cpu-clock */
	unsigned long freq;   /* samples per second per CPU; 0: 4000 */
	unsigned long period; /* sample every PERIOD events instead, when not 0 */
	bool host;	      /* --host */
	bool guest;	      /* --guest; neither flag means both */
	bool system_wide;     /* every CPU, every process */
	bool enable_on_exec;  /* a command started for the recording */
	bool callchain;	      /* -g: frame-pointer call chains in each sample */
};

/*
 * perf's default deepest call chain; the kernel refuses more than its
 * kernel.perf_event_max_stack sysctl, which evsetup reads.
 */
#define EVSETUP_MAX_STACK_DEFAULT 127

/*
 * The sample layout keeps IDENTIFIER, IP, TID and TIME first whatever
 * else is asked (a call chain comes after PERIOD, the guest context
 * last), so these two read fixed places.
 *
 * The pid of a sample of these events (0 when too short to hold one). */
static inline uint32_t evsetup_sample_pid(const struct perf_event_header *ev)
{
	const uint32_t *w = (const void *)(ev + 1);

	return ev->size >= sizeof(*ev) + 24 ? w[4] : 0;
}

/* Its time (0 when too short). */
static inline uint64_t evsetup_sample_time(const struct perf_event_header *ev)
{
	const uint64_t *w = (const void *)(ev + 1);

	return ev->size >= sizeof(*ev) + 32 ? w[3] : 0;
}

/* Add each event of @o->events, with kvmprof's sample layout, to @el. */
int evsetup_add_events(const struct event_opts *o, struct evlist *el, struct kp_err *err);

/*
 * Ask for per-sample guest context when the kernel has the kvmprof series
 * (it probes: only such a kernel accepts the bit). True when asked; false
 * with the reason in @why otherwise.
 */
bool evsetup_guest_ctx(struct evlist *el, char *why, size_t why_size);

/*
 * The events of @el as a perf.data file describes them: attributes without
 * the guest-context bit (the context is taken off each sample before it is
 * written or modelled), names and ids. *@out points into @el; free() it.
 */
int evsetup_file_evsels(const struct evlist *el, struct pd_evsel **out);

#endif
