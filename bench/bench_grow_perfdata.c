// SPDX-License-Identifier: GPL-2.0
/*
 * Make a large perf.data from a real one: every non-sample record once, then
 * the recorded samples repeated (with times moved forward) until there are
 * N of them. Report benchmarks need a million real-looking samples, which a
 * 2-CPU machine would take minutes to record.
 *
 *   bench_grow_perfdata IN OUT N
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perf/perf.h"

static int copy_pass(struct pd_file *in, struct pd_writer *w, bool samples,
		     uint64_t *left, uint64_t shift, struct kp_err *err)
{
	const struct perf_event_header *ev;
	uint8_t buf[65536];
	uint64_t pos = 0;
	int ret;

	while ((ret = pd_next(in, &pos, &ev, err)) == 1) {
		bool is_sample = ev->type == PERF_RECORD_SAMPLE;

		if (is_sample != samples ||
		    (!samples && ev->type == PD_RECORD_FINISHED_ROUND))
			continue;
		if (samples && !*left)
			return 0;
		memcpy(buf, ev, ev->size);
		/* IDENTIFIER, IP, TID, TIME: move time on so that rounds stay ordered. */
		if (samples && (in->evsels[0].attr.sample_type & PERF_SAMPLE_TIME)) {
			int idx = !!(in->evsels[0].attr.sample_type &
				     PERF_SAMPLE_IDENTIFIER) +
				  !!(in->evsels[0].attr.sample_type & PERF_SAMPLE_IP) +
				  !!(in->evsels[0].attr.sample_type & PERF_SAMPLE_TID);
			uint64_t *t = (uint64_t *)(buf + sizeof(*ev)) + idx;

			*t += shift;
		}
		if (pd_writer_append(w, buf, ev->size, err))
			return -1;
		if (samples)
			(*left)--;
		/* Rounds as a recorder's drain passes make them (~1000 samples each). */
		if (samples && *left % 1000 == 0) {
			struct perf_event_header round = {PD_RECORD_FINISHED_ROUND, 0, 8};

			if (pd_writer_append(w, &round, sizeof(round), err))
				return -1;
		}
	}
	return ret;
}

int main(int argc, char **argv)
{
	struct kp_err err = {0};
	struct pd_file *in;
	struct pd_writer *w;
	uint64_t left, shift = 0;

	if (argc != 4) {
		fprintf(stderr, "usage: bench_grow_perfdata IN OUT N\n");
		return 2;
	}
	left = strtoull(argv[3], NULL, 0);
	if (pd_open(argv[1], &in, &err) || pd_writer_create(argv[2], &w, &err))
		goto fail;
	for (size_t i = 0; i < in->nr_evsels; i++) {
		/* The reader leaves the ids in the file: copy them out (they may be
		 * unaligned). */
		const struct pd_evsel *ev = &in->evsels[i];
		uint64_t *ids = calloc(ev->nr_ids ? ev->nr_ids : 1, sizeof(*ids));

		if (!ids) {
			fprintf(stderr, "bench_grow_perfdata: out of memory\n");
			return 1;
		}
		memcpy(ids, in->map + ev->ids_offset, ev->nr_ids * sizeof(*ids));
		pd_writer_add_evsel(w, &ev->attr, ev->name, ids, ev->nr_ids);
		free(ids);
	}
	if (pd_writer_begin_data(w, &err) || copy_pass(in, w, false, &left, 0, &err))
		goto fail;
	while (left) {
		uint64_t before = left;

		if (copy_pass(in, w, true, &left, shift, &err))
			goto fail;
		if (left == before) {
			fprintf(stderr, "bench_grow_perfdata: %s has no samples\n",
				argv[1]);
			return 1;
		}
		shift += 10000000000ULL;
	}
	if (in->hostname[0])
		pd_writer_set_string(w, PD_FEAT_HOSTNAME, in->hostname);
	if (in->osrelease[0])
		pd_writer_set_string(w, PD_FEAT_OSRELEASE, in->osrelease);
	if (in->kvmprof_feature)
		pd_writer_set_kvmprof(w, in->kvmprof_feature, in->kvmprof_feature_size);
	if (in->host_ksyms)
		pd_writer_set_feature(w, PD_FEAT_KVMPROF_KSYMS, in->host_ksyms,
				      in->host_ksyms_size);
	if (pd_writer_finish(w, &err))
		goto fail;
	pd_close(in);
	return 0;
fail:
	fprintf(stderr, "bench_grow_perfdata: %s\n", err.msg);
	return 1;
}
