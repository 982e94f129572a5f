/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Ordered events, as perf's ordered_events: records from different CPUs'
 * rings interleave out of time order in perf.data, so they are queued and
 * handed to a callback by timestamp at each FINISHED_ROUND (the recorder's
 * promise that earlier rounds are done). A COMM, MMAP or FORK then applies
 * to exactly the samples after it.
 *
 * A file whose records do not all carry a time cannot be ordered: its
 * records are handed over at once, in file order. Either way each sample is
 * decoded once, here, and comes with its ordinal (its position among the
 * file's samples, which indexes per-sample side tables such as the guest
 * context).
 */
#ifndef KVMPROF_ORDERED_EVENTS_H
#define KVMPROF_ORDERED_EVENTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "perfdata.h"

/* One record handed back. */
struct ordered_event {
	const struct perf_event_header *ev;
	const struct pd_sample *sample; /* PERF_RECORD_SAMPLE: decoded; else NULL */
	uint64_t ordinal;		/* samples: position among the file's samples */
};

/* Takes one record; a non-zero return (negative errno) stops the flush. */
typedef int (*ordered_deliver_fn)(void *ctx, const struct ordered_event *e,
				  struct kp_err *err);

struct ordered_key;
struct ordered_rec;

struct ordered_events {
	const struct pd_file *file;
	ordered_deliver_fn deliver;
	void *ctx;
	bool sort;	     /* the file has times: queue and order rounds */
	uint64_t nr_samples; /* samples seen so far, in file order */
	const struct perf_event_header **evs; /* this round, in file order */
	size_t nr;
	size_t alloc;
	bool has_meta; /* a COMM, MMAP, FORK... is in this round */
	/* Sorting scratch, kept across rounds. */
	struct ordered_key *keys;
	struct ordered_key *merge_tmp; /* as many: where merge_runs() merges to */
	struct ordered_rec *recs;
	size_t sort_alloc;
};

void ordered_events_init(struct ordered_events *oe, const struct pd_file *f,
			 ordered_deliver_fn deliver, void *ctx);

/*
 * Queue record @ev of oe->file, which must stay mapped until the next
 * flush; in a file that cannot be ordered it is delivered now.
 */
int ordered_events_queue(struct ordered_events *oe, const struct perf_event_header *ev,
			 struct kp_err *err);

/* The queued records moved by @delta bytes (their reader refilled its buffer). */
void ordered_events_rebase(struct ordered_events *oe, intptr_t delta);

/* Does the queue hold records? Their memory must stay until the flush. */
static inline bool ordered_events_holding(const struct ordered_events *oe)
{
	return oe->nr;
}

/* Deliver the queued records in time order: at FINISHED_ROUND and at the end. */
int ordered_events_flush(struct ordered_events *oe, struct kp_err *err);

void ordered_events_release(struct ordered_events *oe);

#endif
