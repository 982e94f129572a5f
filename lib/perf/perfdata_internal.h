/* SPDX-License-Identifier: GPL-2.0 */
/* Shared between the perf.data reader's files; not part of the public API. */
#ifndef KVMPROF_PERFDATA_INTERNAL_H
#define KVMPROF_PERFDATA_INTERNAL_H

#include "perfdata.h"

/* Sample fields of fixed size, in the order they come: one u64 each. */
#define PD_FIXED_FIELDS                                                                 \
	(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | \
	 PERF_SAMPLE_ADDR | PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU |  \
	 PERF_SAMPLE_PERIOD)

/* The evsel a record belongs to: the only one, or the one its id names. */
const struct pd_evsel *pd_evsel_for(const struct pd_file *f, const uint64_t *words,
				    size_t nr_words, bool sample);

/* The general sample decoder, every sample_type field in kernel order. */
int pd_parse_sample_slow(const struct pd_file *f, const struct perf_event_header *ev,
			 struct pd_sample *s, struct kp_err *err);

/*
 * Refuse a file whose sections share bytes: header, attrs, each event's ids,
 * data, the feature table and the @nr_feats feature sections @feats (of
 * feature bits @feat_bits) that lie inside the file. The error names the
 * file and both sections.
 */
int pd_check_layout(const struct pd_file *f, const struct pd_section *feats,
		    const int *feat_bits, size_t nr_feats, struct kp_err *err);

/*
 * A file whose recording was killed (data size 0 in the header): take as
 * data the complete records after the data offset and set f->unfinished.
 * Other files are left alone.
 */
void pd_recover_unfinished(struct pd_file *f);

/*
 * Parse the payload of feature @feat (@size bytes at @p, inside the file's
 * mapping) into @f. Returns 0, or -EINVAL when it is damaged. Separate from
 * the file walk so that the feature parsers can be fuzzed on their own.
 */
int pd_read_feature(struct pd_file *f, int feat, const uint8_t *p, size_t size);

#endif
