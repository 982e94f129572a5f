// SPDX-License-Identifier: GPL-2.0
/* libFuzzer target: the perf.data reader, every record and sample decoded. */
#include <stddef.h>
#include <stdint.h>

#include "ksym/ksym.h"
#include "perf/perf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct perf_event_header *ev;
	struct kp_err err = {0};
	struct pd_file *f;
	struct kvmfeat kf;
	struct pd_stream st;
	intptr_t moved;

	if (pd_open_memory(data, size, "fuzz", &f, &err))
		return 0;
	/*
	 * Through a small stream buffer, held records released only at each
	 * round's end, as a session reads: refills move what is held.
	 */
	if (pd_stream_open(&st, f, 256, &err)) {
		pd_close(f);
		return 0;
	}
	while (pd_stream_next(&st, &ev, &moved, &err) == 1) {
		struct pd_sample s;

		if (ev->type == PERF_RECORD_SAMPLE)
			pd_parse_sample(f, ev, &s, &err);
		else
			pd_parse_id_trailer(f, ev, &s, &err);
		if (ev->type == PD_RECORD_FINISHED_ROUND)
			pd_stream_release(&st);
		kp_err_clear(&err);
	}
	pd_stream_close(&st);
	/* kvmprof's own features: the embedded host symbols and guest contexts. */
	if (f->host_ksyms) {
		struct symtab *st;

		if (!ksymblob_decode(f->host_ksyms, f->host_ksyms_size, "fuzz", &st,
				     NULL))
			symtab_free(st);
	}
	if (f->guest_ctx) {
		struct guestctx_table t;

		if (!guestctx_table_decode(f->guest_ctx, f->guest_ctx_size,
					   f->header.data.size, "fuzz", &t, NULL))
			guestctx_table_release(&t);
	}
	if (f->kvmprof_feature &&
	    !kvmfeat_decode(f->kvmprof_feature, f->kvmprof_feature_size, "fuzz", &kf,
			    &err))
		kvmfeat_release(&kf);
	pd_close(f);
	return 0;
}
