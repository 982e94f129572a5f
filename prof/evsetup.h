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
 * The sample layout keeps IP, TID and TIME first whatever else is asked (a
 * call chain comes after PERIOD, the guest context last), after IDENTIFIER
 * when there is more than one event (evsetup_single_event()), so these
 * read fixed places given the events' @sample_type.
 */
static inline size_t evsetup_ip_word(uint64_t sample_type)
{
	return !!(sample_type & PERF_SAMPLE_IDENTIFIER);
}

/* The pid of a sample of these events (0 when too short to hold one). */
static inline uint32_t evsetup_sample_pid(const struct perf_event_header *ev,
					  uint64_t sample_type)
{
	const uint32_t *w = (const void *)(ev + 1);
	size_t at = 2 * (evsetup_ip_word(sample_type) + 1);

	return ev->size >= sizeof(*ev) + 4 * (at + 2) ? w[at] : 0;
}

/* Its time (0 when too short). */
static inline uint64_t evsetup_sample_time(const struct perf_event_header *ev,
					   uint64_t sample_type)
{
	const uint64_t *w = (const void *)(ev + 1);
	size_t at = evsetup_ip_word(sample_type) + 2;

	return ev->size >= sizeof(*ev) + 8 * (at + 1) ? w[at] : 0;
}

/*
 * With one event, no sample needs its IDENTIFIER to find its event, so it
 * is taken out: 8 of a sample's 56 bytes that the kernel no longer writes
 * nor the recorder copies.
 */
void evsetup_single_event(struct evlist *el);

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
