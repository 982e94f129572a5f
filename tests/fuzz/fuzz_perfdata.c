// SPDX-License-Identifier: GPL-2.0
/* libFuzzer target: the perf.data reader, every record and sample decoded. */
#include <stddef.h>
#include <stdint.h>

#include "kvmfeat.h"
#include "perfdata.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct perf_event_header *ev;
	struct kp_err err = { 0 };
	struct pd_file *f;
	struct kvmfeat kf;
	uint64_t pos = 0;

	if (pd_open_memory(data, size, "fuzz", &f, &err))
		return 0;
	while (pd_next(f, &pos, &ev, &err) == 1) {
		struct pd_sample s;

		if (ev->type == PERF_RECORD_SAMPLE)
			pd_parse_sample(f, ev, &s, &err);
		else
			pd_parse_id_trailer(f, ev, &s, &err);
		kp_err_clear(&err);
	}
	if (f->kvmprof_feature &&
	    !kvmfeat_decode(f->kvmprof_feature, f->kvmprof_feature_size, "fuzz", &kf, &err))
		kvmfeat_release(&kf);
	pd_close(f);
	return 0;
}
