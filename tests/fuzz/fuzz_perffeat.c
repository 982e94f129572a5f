// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: the parsers of perf.data feature payloads, fed directly
 * rather than through a whole file, so that every input reaches them: the
 * header strings, cmdline, event descriptions, build-ids, and kvmprof's own
 * features (guest table, host symbols, guest-context table).
 *
 * Input: one byte choosing the feature, four bytes (little-endian) of the
 * data section size the guest-context table is capped by (modulo 16 MiB),
 * then the payload.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ksym/ksym.h"
#include "perf/perf.h"
#include "perf/perfdata_internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const int feats[] = {
	PD_FEAT_BUILD_ID,   PD_FEAT_HOSTNAME, PD_FEAT_OSRELEASE,     PD_FEAT_VERSION,
	PD_FEAT_ARCH,	    PD_FEAT_NRCPUS,   PD_FEAT_CPUDESC,	     PD_FEAT_CMDLINE,
	PD_FEAT_EVENT_DESC, PD_FEAT_KVMPROF,  PD_FEAT_KVMPROF_KSYMS, PD_FEAT_KVMPROF_CTX,
};

#define NR_FEATS (sizeof(feats) / sizeof(feats[0]))

/* What a report does with kvmprof's features once the file walk found them. */
static void decode_kvmprof(const struct pd_file *f, uint64_t data_size)
{
	struct guestctx_table t;
	struct symtab *st;
	struct kvmfeat kf;

	if (f->kvmprof_feature &&
	    !kvmfeat_decode(f->kvmprof_feature, f->kvmprof_feature_size, "fuzz", &kf,
			    NULL))
		kvmfeat_release(&kf);
	if (f->host_ksyms &&
	    !ksymblob_decode(f->host_ksyms, f->host_ksyms_size, "fuzz", &st, NULL))
		symtab_free(st);
	if (f->guest_ctx && !guestctx_table_decode(f->guest_ctx, f->guest_ctx_size,
						   data_size, "fuzz", &t, NULL)) {
		for (size_t i = 0; i <= t.nr_samples; i++)
			guestctx_of(&t, i);
		guestctx_table_release(&t);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pd_evsel evsels[2] = {0};
	struct pd_file f = {.evsels = evsels, .nr_evsels = 2, .path = "fuzz"};
	uint32_t data_size;
	uint8_t *payload;
	size_t len;

	if (size < 5)
		return 0;
	memcpy(&data_size, data + 1, 4);
	/*
	 * The reader passes the size of a data section that lies in the file,
	 * so the cap it sets grows with the file. Unbounded, a 4 GiB "data
	 * section" lets a 14-byte frame declare 27 GB, which the sanitizers'
	 * shadow memory turns into an out-of-memory report.
	 */
	data_size %= 1U << 24;
	len = size - 5;
	/* An exactly sized copy, as a feature section ends where the next begins. */
	payload = malloc(len ? len : 1);
	if (!payload)
		return 0;
	memcpy(payload, data + 5, len);
	f.map = payload;
	f.size = len;
	if (!pd_read_feature(&f, feats[data[0] % NR_FEATS], payload, len)) {
		for (size_t i = 0; i < f.nr_build_ids; i++)
			if (strlen(f.build_ids[i].filename) >= len)
				__builtin_trap();
		decode_kvmprof(&f, data_size);
	}
	free(f.build_ids);
	free(payload);
	return 0;
}
