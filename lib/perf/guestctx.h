/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Per-sample guest context from the kvmprof kernel series
 * (kernel/patches): which VM, vCPU and guest address space a sample came
 * from, and the guest kernel's syscall entry (its runtime entry_SYSCALL_64,
 * which gives the guest's KASLR slide with no agent inside it).
 *
 * The kernel appends struct perf_sample_guest_ctx at the end of each sample
 * when PERF_SAMPLE_GUEST_CTX is requested; kernels without the series refuse
 * the bit with EINVAL. kvmprof record strips the field from what it writes,
 * so perf can read the file, and keeps the contexts in its own features.
 */
#ifndef KVMPROF_GUESTCTX_H
#define KVMPROF_GUESTCTX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/err.h"

#define PERF_SAMPLE_GUEST_CTX (1ULL << 25)

struct perf_sample_guest_ctx {
	uint32_t pid;		/* the VMM process (tgid) owning the VM */
	uint32_t vcpu_id;
	uint64_t cr3;
	uint64_t lstar;
};

/*
 * Does the running kernel accept PERF_SAMPLE_GUEST_CTX for @attr-like
 * events? 1 yes, 0 no (EINVAL for the bit alone), negative errno when even
 * the event without the bit cannot be opened.
 */
struct perf_event_attr;
int guestctx_probe(const struct perf_event_attr *attr);

/*
 * The distinct contexts of a recording and, for every sample in file order,
 * which one it had (0: none, i + 1: ctxs[i]). Stored zstd-compressed in the
 * PD_FEAT_KVMPROF_CTX feature.
 */
struct guestctx_table {
	struct perf_sample_guest_ctx *ctxs;
	size_t nr_ctxs;
	uint32_t *per_sample;
	size_t nr_samples;
	size_t alloc_samples;
};

/* Append one sample's context (NULL or all-zero: none). */
int guestctx_table_add(struct guestctx_table *t, const struct perf_sample_guest_ctx *c);
int guestctx_table_encode(const struct guestctx_table *t, void **out, size_t *len);
/*
 * Decode the table of a file whose data section has @data_size bytes: its
 * raw size is capped at guestctx_raw_max(@data_size), so that a small file
 * cannot make a huge one.
 */
int guestctx_table_decode(const void *buf, size_t len, uint64_t data_size,
			  const char *what, struct guestctx_table *t, struct kp_err *err);
size_t guestctx_raw_max(uint64_t data_size);
/* Context of sample number @ordinal (in file order), or NULL. */
const struct perf_sample_guest_ctx *guestctx_of(const struct guestctx_table *t,
						size_t ordinal);
void guestctx_table_release(struct guestctx_table *t);

#endif
