/* SPDX-License-Identifier: GPL-2.0 */
/*
 * From tracepoint samples to exit events: each kvm event of a perf.data
 * file found by its attr's config in the file's tracing data, and its
 * fields read through that format (tpformat.h), never at fixed offsets.
 */
#ifndef KVMPROF_EXITS_SOURCE_H
#define KVMPROF_EXITS_SOURCE_H

#include "exits.h"
#include "perf/perf.h"
#include "perf/tracingdata.h"

struct exits_source_evsel {
	bool known; /* one of the kvm events exits reads */
	enum exits_kind kind;
	const struct tp_format *fmt;
};

struct exits_source {
	const struct pd_file *file;
	struct tracingdata td;
	struct exits_source_evsel *evsels; /* one per file evsel */
	int cpuid_isa;			   /* for kvm_exit formats without an isa field */
};

/* Fails when the file has no tracing data or no kvm_exit and kvm_entry. */
int exits_source_open(struct exits_source *src, const struct pd_file *f,
		      struct kp_err *err);
/* 1 with *e filled, 0 for a sample of no kvm event or too short a record. */
int exits_source_decode(const struct exits_source *src, const struct pd_sample *ps,
			struct exits_event *e);
void exits_source_release(struct exits_source *src);

#endif
