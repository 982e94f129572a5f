// SPDX-License-Identifier: GPL-2.0
/* libFuzzer target: the perf.data reader, every record and sample decoded. */
#include <stddef.h>
#include <stdint.h>

#include "perf/perf.h"

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
	/* kvmprof's own features: the embedded host symbols and guest contexts. */
	if (f->host_ksyms) {
		struct symtab *st;

		if (!ksymblob_decode(f->host_ksyms, f->host_ksyms_size, "fuzz", &st, NULL))
			symtab_free(st);
	}
	if (f->guest_ctx) {
		struct guestctx_table t;

		if (!guestctx_table_decode(f->guest_ctx, f->guest_ctx_size,
					   f->header.data.size, "fuzz", &t, NULL))
			guestctx_table_release(&t);
	}
	if (f->kvmprof_feature &&
	    !kvmfeat_decode(f->kvmprof_feature, f->kvmprof_feature_size, "fuzz", &kf, &err))
		kvmfeat_release(&kf);
	pd_close(f);
	return 0;
}
